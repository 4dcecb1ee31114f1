"""Deterministic repairs of a parsed program against an ontology (schema-aware decoding's second half).

The grammar keeps categories and relations inside the ontology; these rules fix what a grammar
cannot see, each reported as a `SchemaFix`:

- a value that belongs to exactly one category fixes the category (``filter(state, red)`` ->
  ``filter(color, red)``; ``choose_attr(state, open, closed)`` -> ``other`` when neither value has
  a category, GQA's rule for an uncategorised choice, and ``name`` when one of them is a class:
  "a train or a bus");
- ``other`` names no category, so ``filter(other, v)`` is ``filter_any(v)`` and
  ``verify_attr(other, v)`` is ``exist(filter_any(v))`` (GQA's bare ``filter``/``verify``);
- a query category that is a value of one category asks for that category (``query(tall)`` ->
  ``query(height)``: "How tall is the striped tent?");
- any other query category the ontology does not know (``kind``, ``type``) asks for the object's ``name``,
  and so does ``class``: a scene gives an object every class above its own, and no GQA program
  asks for them (none of the 1,358 sample questions; "What kind of appliance is it?" asks ``name``);
- the place a picture shows is the scene's: ``select(place)`` is ``select(scene)`` (every one of
  the sample's 147 programs that query ``place`` selects ``scene``, none selects ``place``), and
  the scene has no name: what is asked of it is its ``place`` (171 programs select ``scene``;
  each asks its ``place`` or its ``room``); a ``relate`` from the scene to a place is the scene
  again ("What kind of room is pictured?" read as the room of the scene);
- a ``filter`` by one of the two values a ``choose_attr`` offers, on the way to that choice, is
  dropped: it would decide the choice before it is made ("Is the wall gray or yellow?" asks about
  the wall, not about a gray wall);
- a compound class whose first word is an attribute value (``young_man``) becomes the class
  filtered by that value (``man`` with ``age young``; ``filter_any`` for an uncategorised value),
  when the rest is a known class and the whole is not; in ``verify_rel``/``choose_rel``, whose
  class names no set to filter, the value is dropped (``red_bus`` -> ``bus``).

Example:
    >>> from theory.nested import parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> p = parse_nested("query(unique(select(scene(), young_man)), kind)")
    >>> fixed, fixes = repair_program(p, bundled_ontology())
    >>> [f.rule for f in fixes]
    ['compound class', 'query category']
"""

from __future__ import annotations

from dataclasses import dataclass

from theory.canonical import canonical
from theory.operations import POSITION_VALUES, STRUCTURAL_CATEGORIES
from theory.program import Program, Step
from translators.wording.ontology import OTHER_CATEGORY, Ontology

# Categories whose values are classes or positions: their value fixes nothing.
_OPEN = frozenset({"name", "class", OTHER_CATEGORY})


@dataclass(frozen=True)
class SchemaFix:
    """One deterministic change: the rule, the step, and the argument before and after."""

    rule: str
    step: int
    before: str
    after: str


def _value_category(ontology: Ontology, category: str, value: str) -> str | None:
    """The category `value` fixes, when it differs from `category`."""
    if category in ("name", "class") or category in POSITION_VALUES and value in POSITION_VALUES[category]:
        return None
    found = ontology.categories_of(value)
    if not found or category in found:
        return None
    return next(iter(found)) if len(found) == 1 else None


def _choice_category(ontology: Ontology, category: str, first: str, second: str) -> str | None:
    # A name's words and the scene's place are open: the ontology lists a few places, not every one.
    if category in ("name", "class", _PLACE):
        return None
    shared = ontology.categories_of(first) & ontology.categories_of(second)
    if category in shared:
        return None
    if len(shared) == 1:
        return next(iter(shared))
    if not ontology.categories_of(first) and not ontology.categories_of(second):
        # A choice between names of things ("a train or a bus") is one of the name, as GQA's programs
        # have it; between words of no category and no thing, of `other`.
        named = first in ontology.classes or second in ontology.classes
        choice = "name" if named else OTHER_CATEGORY
        return choice if choice != category else None
    return None


def _split_compound(ontology: Ontology, word: str) -> tuple[str | None, str, str] | None:
    """(category, value, class) for ``young_man`` (category None for an uncategorised value such as
    ``kneeling_man``); None when the word is a class or does not split."""
    if word in ontology.classes or "_" not in word:
        return None
    head, _, rest = word.partition("_")
    category = ontology.category_of(head)
    if rest not in ontology.classes or (category is None and head not in ontology.uncategorised):
        return None
    return category, head, rest


_PLACE, _SCENE = "place", "scene"


def _of_scene(program: Program, step: Step) -> bool:
    """Whether the step reads the scene (or the place) itself, through `unique` steps only."""
    before = program.step(step.dependencies[0])
    while before.operation == "unique":
        before = program.step(before.dependencies[0])
    return before.operation == "select" and before.arguments[0] in (_PLACE, _SCENE)


def _offered_filters(program: Program) -> set[int]:
    """Ids of the filter steps by a value a later `choose_attr` on the same chain offers."""
    found: set[int] = set()
    for step in program.steps:
        if step.operation != "choose_attr":
            continue
        values = set(step.arguments[1:])
        chain = list(step.dependencies)
        while len(chain) == 1:
            before = program.step(chain[0])
            if before.operation == "filter" and before.arguments[1] in values:
                found.add(before.id)
            if before.operation.startswith("relate"):
                break  # what comes before describes another object ("the shirt on the red man")
            chain = list(before.dependencies)
    return found


def repair_program(program: Program, ontology: Ontology) -> tuple[Program, list[SchemaFix]]:
    """The program with the rules of the module docstring applied (in canonical form), and the fixes made."""
    fixes: list[SchemaFix] = []
    steps: list[Step] = []
    renumber: dict[int, int] = {}
    query_categories = (set(ontology.query_categories) | set(STRUCTURAL_CATEGORIES)) - {"class"}
    offered = _offered_filters(program)
    for step in program.steps:
        deps = tuple(renumber[d] for d in step.dependencies)
        args = list(step.arguments)
        op = step.operation
        if op == "relate" and args[0] in (_PLACE, _SCENE) and _of_scene(program, step):
            fixes.append(SchemaFix("place", step.id, f"relate({', '.join(args)})", "the scene"))
            renumber[step.id] = deps[0]
            continue
        if step.id in offered:
            fixes.append(SchemaFix("offered value", step.id, f"filter({', '.join(args)})", "no filter"))
            renumber[step.id] = deps[0]
            continue
        fixes += _fixed_arguments(program, step, args, ontology, query_categories)
        if op in ("filter", "verify_attr") and args[0] == OTHER_CATEGORY:
            fixes.append(
                SchemaFix("uncategorised value", step.id, f"{op}({args[0]}, {args[1]})", f"filter_any({args[1]})")
            )
            steps.append(Step(len(steps), "filter_any", deps, (args[1],)))
            if op == "verify_attr":
                steps.append(Step(len(steps), "exist", (len(steps) - 1,)))
            renumber[step.id] = len(steps) - 1
            continue
        fixes += _add_step(ontology, step.id, op, deps, args, steps)
        renumber[step.id] = len(steps) - 1
    if not fixes:
        return program, []
    return canonical(Program(tuple(steps), renumber[program.answer])), fixes


def _fixed_arguments(
    program: Program, step: Step, args: list[str], ontology: Ontology, query_categories: set[str]
) -> list[SchemaFix]:
    """The fixes of a step's place, value category and query category, made to `args` in place."""
    fixes: list[SchemaFix] = []
    op = step.operation
    if op == "select" and args[0] == _PLACE:
        fixes.append(SchemaFix("place", step.id, _PLACE, _SCENE))
        args[0] = _SCENE
    if op in ("filter", "verify_attr"):
        found = _value_category(ontology, args[0], args[1])
        if found is not None:
            fixes.append(SchemaFix("value category", step.id, args[0], found))
            args[0] = found
    elif op == "choose_attr":
        found = _choice_category(ontology, args[0], args[1], args[2])
        if found is not None:
            fixes.append(SchemaFix("value category", step.id, args[0], found))
            args[0] = found
    elif op == "query" and args[0] not in query_categories:
        # A degree word in the category's place ("How tall ...?") names the category it is a value of.
        of_value = ontology.categories_of(args[0]) & query_categories - _OPEN
        asked = next(iter(of_value)) if len(of_value) == 1 else "name"
        fixes.append(SchemaFix("query category", step.id, args[0], asked))
        args[0] = asked
    if op == "query" and args[0] == "name" and _of_scene(program, step):
        fixes.append(SchemaFix("place", step.id, "name", _PLACE))
        args[0] = _PLACE
    return fixes


def _add_step(
    ontology: Ontology, step_id: int, op: str, deps: tuple[int, ...], args: list[str], steps: list[Step]
) -> list[SchemaFix]:
    """Add the step to `steps`, a compound class ("wooden table") split into the class and a filter
    by its modifier; the fix made, if any."""
    compound = _split_compound(ontology, args[0]) if op in ("select", "relate", "verify_rel", "choose_rel") else None
    if compound is None:
        steps.append(Step(len(steps), op, deps, tuple(args)))
        return []
    if op in ("verify_rel", "choose_rel"):
        # The class of a relation check names no set to filter: the modifier only describes it.
        fix = SchemaFix("compound class", step_id, args[0], compound[2])
        args[0] = compound[2]
        steps.append(Step(len(steps), op, deps, tuple(args)))
        return [fix]
    category, value, cls = compound
    fix = SchemaFix("compound class", step_id, args[0], f"{cls} filtered by {category or 'any category'} {value}")
    args[0] = cls
    inner = Step(len(steps), op, deps, tuple(args))
    steps.append(inner)
    if category is None:
        steps.append(Step(len(steps), "filter_any", (inner.id,), (value,)))
    else:
        steps.append(Step(len(steps), "filter", (inner.id,), (category, value)))
    return [fix]
