"""A value in the form its question says it: "Which bread isn't sliced?" filters by `sliced`, not `slicing`.

A written program sometimes names a value by another form of the question's word (`slicing` for
"sliced", `cutting` for "cut"), a value of another category or of none (`cutting` is an activity,
"cut" a preparation). Where the question's own form is a value of the ontology, it is the value
meant, in its own category. A form `grounded_words.SPELLINGS` turns into the program's value
("metallic" is `metal`, as GQA's programs write it) stays as written.

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> program = parse_nested("exist(filter(select(scene(), food), activity, cutting))")
    >>> fixed, _ = with_said_values(program, "Is there food that is cut?", bundled_ontology())
    >>> format_nested(fixed)
    'exist(filter(select(scene(), food), preparation, cut))'
"""

from __future__ import annotations

from theory.operations import OPERATIONS
from theory.program import Program, Step
from translators.wording.grounded_words import SPELLINGS, question_words, stem
from translators.wording.ontology import Ontology
from translators.wording.schema import SchemaFix

RULE = "said value"


def _said_form(value: str, said: set[str], ontology: Ontology) -> str | None:
    """The question's own form of `value` where it says another one that is a value of the ontology."""
    if "_" in value or value in said:
        return None
    forms = [w for w in said if stem(w) == stem(value) and ontology.categories_of(w) and SPELLINGS.get(w) != value]
    return forms[0] if len(forms) == 1 else None


def _in_category(category: str, value: str, ontology: Ontology) -> str | None:
    """The category to keep `value` in: `category` when it holds it, else the value's only one (None: none)."""
    found = ontology.categories_of(value)
    if category in found:
        return category
    return next(iter(found)) if len(found) == 1 else None


def with_said_values(program: Program, asked: str, ontology: Ontology) -> tuple[Program, list[SchemaFix]]:
    """`program` with each value another form of a question's word names in the question's form (see
    the module docstring), and the fixes made."""
    said = set(question_words(asked).surface)
    steps: list[Step] = []
    fixes: list[SchemaFix] = []
    for step in program:
        arguments = list(step.arguments)
        roles = OPERATIONS[step.operation].arguments
        for index, (role, argument) in enumerate(zip(roles, arguments)):
            if role != "value":
                continue
            form = _said_form(argument, said, ontology)
            if form is None:
                continue
            if "category" in roles:
                category = _in_category(arguments[roles.index("category")], form, ontology)
                if category is None or (step.operation == "choose_attr" and category != arguments[0]):
                    continue  # a choice's other value stays in the category it was offered in
                arguments[roles.index("category")] = category
            arguments[index] = form
            fixes.append(SchemaFix(RULE, step.id, argument, form))
        steps.append(Step(step.id, step.operation, step.dependencies, tuple(arguments)))
    if not fixes:
        return program, []
    return Program(tuple(steps), program.answer), fixes
