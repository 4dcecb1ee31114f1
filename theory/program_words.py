"""The words a question program mentions, read once by the role each argument has in its operation.

Scene concepts (what to detect), the scene-graph filter (which facts to encode), the equivalence
check (which words its random scenes use) and the service's report all read a program through this.

Example:
    >>> from theory.nested import parse_nested
    >>> words = program_words(parse_nested("verify_attr(unique(select(scene(), cup)), color, red)"))
    >>> words.by_role()
    {'classes': ['cup'], 'categories': ['color'], 'values': ['red'], 'relations': []}
"""

from __future__ import annotations

from dataclasses import dataclass

from theory.operations import OPERATIONS
from theory.program import Program, Step
from theory.scene_facts import asp_constant

# Argument name in an operation's signature -> the `StepWords` field that holds it.
_ROLES = {
    "class": "classes",
    "category": "categories",
    "value": "values",
    "relation": "relations",
    "position": "positions",
    "polarity": "polarities",
    "comparison": "comparisons",
}


@dataclass(frozen=True)
class StepWords:
    """One step's arguments by role, in the order the step gives them."""

    step: Step
    classes: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    values: tuple[str, ...] = ()
    relations: tuple[str, ...] = ()
    positions: tuple[str, ...] = ()
    polarities: tuple[str, ...] = ()
    comparisons: tuple[str, ...] = ()

    @property
    def every_category(self) -> bool:
        """Whether the step compares every attribute category (``common``), named or not."""
        return self.step.operation == "common"


def step_words(step: Step) -> StepWords:
    """The step's arguments grouped by their name in the operation's signature."""
    found: dict[str, list[str]] = {}
    for name, value in zip(OPERATIONS[step.operation].arguments, step.arguments):
        found.setdefault(_ROLES[name], []).append(value)
    return StepWords(step, **{role: tuple(values) for role, values in found.items()})


@dataclass(frozen=True)
class ProgramWords:
    """The words of one or more programs, step by step, with the views their readers need."""

    steps: tuple[StepWords, ...]

    @property
    def every_category(self) -> bool:
        """Whether some step needs every attribute category, so no finite word list covers the program."""
        return any(s.every_category for s in self.steps)

    @property
    def classes(self) -> set[str]:
        return {c for s in self.steps for c in s.classes}

    @property
    def relations(self) -> set[str]:
        return {r for s in self.steps for r in s.relations}

    @property
    def values(self) -> dict[str, set[str]]:
        """category -> the values named with it; a category asked about as a whole has none."""
        found: dict[str, set[str]] = {}
        for s in self.steps:
            if s.categories:
                found.setdefault(s.categories[0], set()).update(s.values)  # no operation names two
        return found

    @property
    def loose_values(self) -> set[str]:
        """Values named without a category (``filter_any``, ``compare``)."""
        return {v for s in self.steps if not s.categories for v in s.values}

    def by_role(self) -> dict[str, list[str]]:
        """Sorted classes, categories, values and relations."""
        return {
            "classes": sorted(self.classes),
            "categories": sorted({c for s in self.steps for c in s.categories}),
            "values": sorted({v for s in self.steps for v in s.values}),
            "relations": sorted(self.relations),
        }

    def constants(self) -> frozenset[str] | None:
        """Every argument as an ASP constant, or None when the program needs every attribute."""
        if self.every_category:
            return None
        words = set()
        for s in self.steps:
            for argument in s.step.arguments:
                try:
                    words.add(asp_constant(argument))
                except ValueError:
                    continue
        return frozenset(words)


def program_words(*programs: Program) -> ProgramWords:
    """The words the programs mention, step by step."""
    return ProgramWords(tuple(step_words(step) for program in programs for step in program.steps))
