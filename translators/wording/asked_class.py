"""The class a wh-question names for what it asks: "What weapon is the boy holding?" asks a weapon.

A small model often writes such a question's last relation step as ``relate_any`` (any object
the man holds); GQA's programs name the class: on the tuning part's questions that open with
"what/which [kind/type/item/piece/sort of] CLASS" (a preposition may come first: "On what item
of furniture ...") and relate objects, the last relation step is ``relate`` with that class in
all 48; "who" asks a person, as GQA's programs relate one for 166 of the tuning part's 171 "who"
questions (never an object of any class). A word the ontology lacks counts when a verb follows
it ("What weapon is the boy holding?", not "What wears trousers?"). `with_asked_class` makes that
step so where a program has ``relate_any``. The other way round, a question that goes on from "what" (or "what is/are")
straight to the relation names no class for what it asks ("What is wearing a scarf?", "What
wears trousers?", "What is on that table?"), and there the last relation step is ``relate_any``
(as in every such tuning question; a small model often repeats the other object's class: shirts
wearing shirts); so does one that ends with the relation and "what" ("The man holds what?", all 6
such tuning questions: `relate_any` to the object). And "what/which kind (type, sort) of CLASS
..." asks for a name: GQA's programs for such tuning questions query ``name`` (96) or, for a
place, ``place`` (8); `with_asked_kind` makes a query of another category (``color`` for "Which
kind of clothing is green?") one of the name, the question's value of that category becoming a
filter.

Example:
    >>> from theory.nested import format_nested, parse_nested
    >>> from translators.wording.ontology import bundled_ontology
    >>> program = parse_nested("query(unique(relate_any(select(scene(), girl), holding, object)), name)")
    >>> fixed, _ = with_asked_class(program, "What kind of food does the girl hold?", bundled_ontology())
    >>> format_nested(fixed)
    'query(unique(relate(select(scene(), girl), food, holding, object)), name)'
"""

from __future__ import annotations

import re

from theory.canonical import canonical
from theory.operations import OPERATIONS, RELATION_OPERATIONS, Kind
from theory.program import Program, Step
from translators.wording.grounded_words import question_words, singular, stem
from translators.wording.ontology import Ontology
from translators.wording.question_frame import VERBS
from translators.wording.schema import SchemaFix

_ASKED = re.compile(
    r"(?:(?:on|in|at|of|by|with|from|under|behind|inside|near)\s+)?(?:what|which)\s+"
    r"(?:(?:kind|type|item|piece|sort)\s+of\s+)?([a-z]+)(?:\s+([a-z]+))?"
)
_RELATIONS = frozenset(name for name in RELATION_OPERATIONS if OPERATIONS[name].output is Kind.STATE)
# Words after "what" that are no object's name.
_NOT_NOUNS = VERBS | frozenset(
    "kind type sort piece item part side color colour shape size material one ones object objects thing things".split()
)
# A word before these is a modal verb, not a class ("What can you see ...?" asks no can).
_PRONOUNS = frozenset({"you", "we", "i", "they"})


_WHO = re.compile(r"(?:(?:with|by|to|for|from)\s+)?whom?\b")
PERSON = "person"


def asked_class(question: str, ontology: Ontology) -> str | None:
    """The class named right after the question's opening wh-word ("who" names a person), or None."""
    if _WHO.match(question.strip().lower()):
        # GQA's programs for "who" questions relate a person: 166 of the tuning part's 171 (the
        # other 5 select one: "Who is playing?").
        return PERSON if PERSON in ontology.classes else None
    match = _ASKED.match(question.strip().lower())
    if match is None:
        return None
    first, second = match[1], match[2]
    if second in _PRONOUNS:
        return None
    two_words = [f"{first}_{second}", f"{first}_{singular(second)}"] if second else []
    # A word that is no object's name may still begin one ("side table"); "object" names any object.
    candidates = two_words if first in _NOT_NOUNS else [*two_words, first, singular(first)]
    known = next((c for c in candidates if c in ontology.classes), None)
    if known is not None or first in _NOT_NOUNS:
        return known
    # A word the ontology does not know at all, followed by a verb ("What weapon is ...", not "What
    # wears ..."), names a class it lacks.
    unknown = not ontology.categories_of(first) and first not in ontology.relations and first not in ontology.categories
    verb_next = second in VERBS
    return first if unknown and verb_next and first not in ontology.uncategorised else None


_NO_CLASS = re.compile(r"what\s+(?:(?:is|are)\s+)?([a-z]+)")


def _names_no_class(question: str, relation: str) -> bool:
    """Whether the relation's first word follows "what [is/are]" right away."""
    match = _NO_CLASS.match(question.strip().lower())
    return match is not None and stem(match[1]) == stem(relation.split("_")[0])


_ENDS_WITH_WHAT = re.compile(r"\b([a-z]+)\s+what\s*\??\s*$")


def _asks_what_it_reaches(question: str, relation: str) -> bool:
    """Whether the question ends with the relation's last word and "what" ("The man holds what?")."""
    match = _ENDS_WITH_WHAT.search(question.strip().lower())
    return match is not None and stem(match[1]) == stem(relation.split("_")[-1])


def with_asked_class(program: Program, question: str, ontology: Ontology) -> tuple[Program, list[SchemaFix]]:
    """The program with its last relation step naming the asked class, where it named none (and
    naming none where the question names none: "What is wearing a scarf?", "The man holds what?")."""
    relations = [s for s in program.steps if s.operation in _RELATIONS]
    last = relations[-1] if relations else None
    if last is not None:
        relation = last.arguments[1] if last.operation == "relate" else last.arguments[0]
        wanted = ("relate_any", (relation, "object"))
        if _asks_what_it_reaches(question, relation) and (last.operation, last.arguments) != wanted:
            # "X VERB what?" asks what X's relation reaches, of any class: all 6 such tuning questions.
            step = Step(last.id, "relate_any", last.dependencies, wanted[1])
            fixed = Program(tuple(step if s.id == last.id else s for s in program.steps), program.answer)
            return fixed, [SchemaFix("asks what it reaches", last.id, last.operation, "relate_any object")]
    if last is not None and last.operation == "relate" and _names_no_class(question, last.arguments[1]):
        named, relation, direction = last.arguments
        step = Step(last.id, "relate_any", last.dependencies, (relation, direction))
        fixed = Program(tuple(step if s.id == last.id else s for s in program.steps), program.answer)
        return fixed, [SchemaFix("no asked class", last.id, f"relate {named}", "relate_any")]
    if not relations or relations[-1].operation != "relate_any":
        return program, []
    cls = asked_class(question, ontology)
    if cls is None:
        return program, []
    last = relations[-1]
    relation, direction = last.arguments
    step = Step(last.id, "relate", last.dependencies, (cls, relation, direction))
    fixed = Program(tuple(step if s.id == last.id else s for s in program.steps), program.answer)
    return fixed, [SchemaFix("asked class", last.id, "relate_any", f"relate {cls}")]


_KIND = re.compile(r"(?:what|which)\s+(?:kind|type|sort)\s+of\s+")
_NAMED = frozenset({"name", "place"})


def with_asked_kind(program: Program, question: str, ontology: Ontology) -> tuple[Program, list[SchemaFix]]:
    """The program asking for the name where the question asks "what kind of CLASS", with the
    question's value of the category it asked instead as a filter (see the module docstring)."""
    text = question.strip().lower()
    last = program.step(program.answer)
    if not _KIND.match(text) or last.operation != "query" or last.arguments[0] in _NAMED:
        return program, []
    category = last.arguments[0]
    used = {a for step in program.steps for a in step.arguments}
    words = question_words(question)
    values = [v for v in ontology.categories.get(category, ()) if words.supports(v) and v not in used]
    fixes = [SchemaFix("asked kind", last.id, category, "name")]
    steps = {s.id: s for s in program.steps}
    steps[last.id] = Step(last.id, "query", last.dependencies, ("name",))
    before = steps[last.dependencies[0]]
    if len(values) == 1 and before.operation == "unique":
        # The value describes the object asked about: filtered before it is taken as the one.
        new_id = max(steps) + 1
        steps[new_id] = Step(new_id, "filter", before.dependencies, (category, values[0]))
        steps[before.id] = Step(before.id, "unique", (new_id,))
        fixes.append(SchemaFix("asked kind", new_id, "", f"filter({category}, {values[0]})"))
    return canonical(Program(tuple(steps.values()), program.answer)), fixes
