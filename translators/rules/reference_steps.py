"""An object reference read from a question, and its chain of steps put in place of its noun's
`select` in a filled program: `select` (or `relate` to the other object), a `filter` per
attribute, and `negate` for an attribute denied ("the chair that is not small"), as GQA writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from theory.canonical import canonical
from theory.program import Program, ProgramError, Step
from translators.wording.grounded_words import singular


@dataclass
class Reference:
    """One object reference: its noun, attributes, and what follows the noun."""

    noun: str
    attributes: list[tuple[str, str]] = field(default_factory=list)  # (category or "", value)
    relation: tuple[str, str, Reference] | None = None  # (relation, subject|object, the other object)
    after: list[tuple[str, str]] = field(default_factory=list)  # attributes said after the noun
    new_word: bool = False  # the noun is a word the ontology lacks (or a pronoun)
    negated: list[tuple[str, str]] = field(default_factory=list)  # "that is not small": objects without them

    @property
    def plain(self) -> bool:
        return not self.attributes and self.relation is None and not self.after and not self.negated


def _chain(reference: Reference, steps: list[Step], next_id: list[int]) -> int:
    """Append the steps that select `reference`'s objects; the id of the last one."""

    def add(operation: str, dependency: int, *arguments: str) -> int:
        step_id = next_id[0]
        next_id[0] += 1
        steps.append(Step(step_id, operation, (dependency,), arguments))
        return step_id

    if reference.relation is not None:
        relation, position, other = reference.relation
        last = add("relate", _chain(other, steps, next_id), reference.noun, relation, position)
    else:
        last = add("select", 0, reference.noun)
    return _filters(reference, last, steps, next_id)


def _filters(reference: Reference, last: int, steps: list[Step], next_id: list[int]) -> int:
    """Append a `filter` (or `filter_any`) per attribute of `reference` after step `last`; the id of the last one."""
    for category, value in [*reference.after, *reference.attributes]:
        last = _filter(category, value, last, steps, next_id)
    for category, value in reference.negated:
        # GQA's programs write "not small" as the objects less those that are small.
        kept = _filter(category, value, last, steps, next_id)
        steps.append(Step(next_id[0], "negate", (kept, last), ()))
        next_id[0] += 1
        last = next_id[0] - 1
    return last


def _filter(category: str, value: str, last: int, steps: list[Step], next_id: list[int]) -> int:
    """Append the `filter` (or, without a category, `filter_any`) of one attribute after step `last`."""
    step_id = next_id[0]
    next_id[0] += 1
    operation, arguments = ("filter", (category, value)) if category else ("filter_any", (value,))
    steps.append(Step(step_id, operation, (last,), arguments))
    return step_id


def compose(program: Program, references: list[Reference]) -> Program | None:
    """`program` with each reference's chain in place of the `select` of its noun, or None where
    a noun has no select of its own to replace."""
    scene = next((s.id for s in program if s.operation == "scene"), None)
    if scene != 0:
        return None
    steps = list(program)
    first_new = max(s.id for s in steps) + 1
    next_id = [first_new]
    replaced: dict[int, int] = {}
    extended: dict[int, int] = {}  # a relate naming a reference's noun -> the last filter after it
    nouns = [r.noun for r in references]
    if len(set(nouns)) != len(nouns):
        return None  # two references with one noun: which select is which cannot be told
    for reference in references:
        selects = [
            s
            for s in program  # the filled program's own steps, not chains added for earlier references
            if s.operation == "select"
            and s.dependencies == (0,)
            and singular(s.arguments[0]) == singular(reference.noun)  # a fill may name it in the singular
        ]
        if len(selects) > 1:
            return None
        if not selects:
            relates = [
                s for s in program if s.operation == "relate" and singular(s.arguments[0]) == singular(reference.noun)
            ]
            if len(relates) == 1 and reference.relation is None and not reference.plain:
                extended[relates[0].id] = _filters(reference, relates[0].id, steps, next_id)
            continue  # otherwise a plain argument (choose_rel's class): its word alone, as GQA writes it
        # The noun as the fill names it ("tables" may be `table`, as the bank's examples write it).
        replaced[selects[0].id] = _chain(replace(reference, noun=selects[0].arguments[0]), steps, next_id)
    if not replaced and not extended:
        return None
    kept = [s for s in steps if s.id not in replaced]

    def source(step: Step, dependency: int) -> int:
        # The filters added after a relate read the relate itself; the program's own steps read the last filter.
        dependency = replaced.get(dependency, dependency)
        return extended.get(dependency, dependency) if step.id < first_new else dependency

    rewired = [Step(s.id, s.operation, tuple(source(s, d) for d in s.dependencies), s.arguments) for s in kept]
    try:
        return canonical(Program(tuple(rewired), replaced.get(program.answer, program.answer)))
    except ProgramError:
        return None
