"""The operation vocabulary of question programs: names, arities and intended meanings.

Every representation (flat, nested, code-like, GQA) maps onto these operations. In flat ASP an
operation is written ``op(ID, DEP_1, ..., DEP_n, ARG_1, ..., ARG_m)``: the step id, then the ids
of the steps it reads, then its arguments.

Example:
    >>> OPERATIONS["relate"].flat_arity
    5
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Literal, get_args

# What an operation does, in a word. Sets of operations that share a property (the steps that reach
# other objects, the counts, the comparisons by sameness) are derived from it and from the
# signature, here or where a layer uses them, so a new operation joins them by its entry alone.
Family = Literal[
    "objects",  # all objects of the scene
    "class",  # the objects of a class
    "attribute",  # reads an attribute value of its objects
    "relation",  # reads a relation between its objects and others
    "sameness",  # whether objects share a value of a category
    "one",  # exactly one of its objects
    "difference",  # the objects of one set that are not in another
    "comparison",  # which of two objects has more of a value
    "existence",  # whether there is an object
    "count",  # how many objects, and comparisons of counts
    "logic",  # yes/no answers joined
]
FAMILIES: tuple[str, ...] = get_args(Family)


class Kind(str, Enum):
    """What a step produces."""

    STATE = "state"  # a set of objects
    VALUE = "value"  # a word: attribute value, relation name or category
    BOOL = "bool"  # yes / no
    NUMBER = "number"  # how many objects: never empty (0 is an answer), so "why no answer" passes over it


@dataclass(frozen=True)
class OperationSpec:
    """Signature and meaning of one operation."""

    name: str
    inputs: tuple[Kind, ...]
    arguments: tuple[str, ...]
    output: Kind
    meaning: str
    family: Family

    @property
    def flat_arity(self) -> int:
        return 1 + len(self.inputs) + len(self.arguments)


# Arguments with a closed set of allowed values.
POSITIONS = ("subject", "object")
POLARITIES = ("true", "false")
COMPARISONS = ("more", "fewer", "same")
ARGUMENT_CHOICES: dict[str, tuple[str, ...]] = {
    "position": POSITIONS,
    "polarity": POLARITIES,
    "comparison": COMPARISONS,
}

_S, _V, _B, _N = Kind.STATE, Kind.VALUE, Kind.BOOL, Kind.NUMBER

_SPECS = [
    OperationSpec("scene", (), (), _S, "all objects of the scene", "objects"),
    OperationSpec(
        "select",
        (_S,),
        ("class",),
        _S,
        "the input objects whose class (or category) is CLASS; `this`: those a name a choice offers fits; "
        "`thing`, `object`, `item` (here and wherever a CLASS is asked): every one",
        "class",
    ),
    OperationSpec(
        "filter", (_S,), ("category", "value"), _S, "the input objects whose CATEGORY attribute is VALUE", "attribute"
    ),
    OperationSpec(
        "filter_any", (_S,), ("value",), _S, "the input objects that have VALUE in any category", "attribute"
    ),
    OperationSpec(
        "relate",
        (_S,),
        ("class", "relation", "position"),
        _S,
        "objects of CLASS related by RELATION to an input object; position=subject: the new object is the "
        "subject (new RELATION input), position=object: the new object is the object (input RELATION new)",
        "relation",
    ),
    OperationSpec("relate_any", (_S,), ("relation", "position"), _S, "as relate, for objects of any class", "relation"),
    OperationSpec(
        "relate_attr",
        (_S,),
        ("class", "category"),
        _S,
        "other objects of CLASS that share a CATEGORY value with an input object (e.g. the same color)",
        "sameness",
    ),
    OperationSpec("unique", (_S,), (), _S, "exactly one of the input objects (no answer when there is none)", "one"),
    OperationSpec(
        "negate",
        (_S, _S),
        (),
        _S,
        "negate(ID, REMOVED, BASE): the objects of BASE that are not in REMOVED",
        "difference",
    ),
    OperationSpec(
        "compare",
        (_S, _S),
        ("value", "polarity"),
        _S,
        "of two objects, the one that has VALUE while the other has not (polarity=true), or the one that "
        "lacks it while the other has it (polarity=false)",
        "comparison",
    ),
    OperationSpec(
        "query",
        (_S,),
        ("category",),
        _V,
        "the CATEGORY values of the input objects (name, class, color, hposition ...)",
        "attribute",
    ),
    OperationSpec(
        "verify_attr",
        (_S,),
        ("category", "value"),
        _B,
        "yes if an input object's CATEGORY is VALUE, else no",
        "attribute",
    ),
    OperationSpec(
        "verify_rel",
        (_S,),
        ("class", "relation", "position"),
        _B,
        "yes if an input object is related by RELATION to an object of CLASS (position as in relate), else no",
        "relation",
    ),
    OperationSpec(
        "choose_attr",
        (_S,),
        ("category", "value", "value"),
        _V,
        "whichever of the two VALUEs the input object has in CATEGORY",
        "attribute",
    ),
    OperationSpec(
        "choose_rel",
        (_S,),
        ("class", "relation", "relation", "position"),
        _V,
        "whichever of the two RELATIONs links the input object with an object of CLASS (position as in relate)",
        "relation",
    ),
    OperationSpec("exist", (_S,), (), _B, "yes if the input is not empty, else no", "existence"),
    OperationSpec(
        "all_same",
        (_S,),
        ("category",),
        _B,
        "yes if one CATEGORY value is shared by all input objects, else no",
        "sameness",
    ),
    OperationSpec(
        "all_different",
        (_S,),
        ("category",),
        _B,
        "yes if no two distinct input objects share a CATEGORY value, else no",
        "sameness",
    ),
    OperationSpec(
        "two_same", (_S, _S), ("category",), _B, "yes if the two objects share a CATEGORY value, else no", "sameness"
    ),
    OperationSpec(
        "two_different",
        (_S, _S),
        ("category",),
        _B,
        "yes if the two objects share no CATEGORY value, else no",
        "sameness",
    ),
    OperationSpec(
        "common",
        (_S, _S),
        (),
        _V,
        "the attribute categories (not class, name or position) in which the two objects share a value",
        "sameness",
    ),
    OperationSpec("count", (_S,), (), _N, "the number of input objects (0 when there are none)", "count"),
    OperationSpec(
        "compare_count",
        (_N, _N),
        ("comparison",),
        _B,
        "yes if the first count is more than (more), fewer than (fewer) or the same as (same) the second, else no",
        "count",
    ),
    OperationSpec("and", (_B, _B), (), _B, "yes if both inputs are yes, else no", "logic"),
    OperationSpec("or", (_B, _B), (), _B, "yes if either input is yes, else no", "logic"),
]

OPERATIONS: dict[str, OperationSpec] = {spec.name: spec for spec in _SPECS}


def operations_where(holds: Callable[[OperationSpec], bool]) -> frozenset[str]:
    """The names of the operations whose entry `holds` for."""
    return frozenset(spec.name for spec in _SPECS if holds(spec))


# Sets more than one layer reads, derived from the table (the layers derive their own beside them).
# Counting: a number in or out ("how many", "more ... than"); GQA's programs have none.
COUNTING_OPERATIONS = operations_where(lambda spec: Kind.NUMBER in (spec.output, *spec.inputs))
# Whether objects share a value: "same", "different", "in common".
SAMENESS_OPERATIONS = operations_where(lambda spec: spec.family == "sameness")
# The steps whose objects are found through another object: by a relation or a shared value.
RELATING_OPERATIONS = operations_where(
    lambda spec: spec.output is Kind.STATE and spec.family in ("relation", "sameness")
)
# The steps that describe no objects of their own: all of the scene, or one of the input.
DESCRIBING_NOTHING = operations_where(lambda spec: spec.family in ("objects", "one"))
# The steps that read the scene's relations (``has_rel``): each names a relation and its direction.
RELATION_OPERATIONS = operations_where(lambda spec: "relation" in spec.arguments)

# Categories that describe identity or position rather than appearance; `common` ignores them.
STRUCTURAL_CATEGORIES = ("class", "name", "hposition", "vposition")
# The class `select` reads as whatever a name a choice offers fits ("Is this a truck or a bus?"; the
# rule is in lp/operations.lp): no scene calls an object so.
THIS_CLASS = "this"

# The values of the position categories: which third of the image an object's centre is in.
POSITION_VALUES: dict[str, tuple[str, ...]] = {
    "hposition": ("left", "middle", "right"),
    "vposition": ("top", "middle", "bottom"),
}
# How a question or a claim says a position. "In the middle" is the vertical middle: GQA's programs
# read "the chair in the middle of the picture" as ``filter vposition: middle``, so the horizontal
# middle has no phrase of its own.
POSITION_PHRASES: dict[str, dict[str, str]] = {
    "hposition": {"left": "on the left", "right": "on the right"},
    "vposition": {"top": "at the top", "bottom": "at the bottom", "middle": "in the middle"},
}

# Relations with an opposite, as ASP constants: each pair is read both ways (the two sides of a
# "X or Y" choice, the swap that makes a relation claim false).
OPPOSITE_PAIRS: tuple[tuple[str, str], ...] = (
    ("to_the_left_of", "to_the_right_of"),
    ("in_front_of", "behind"),
    ("above", "below"),
    ("on", "under"),
)
# How GQA answers a choice between two relations: by the side ("Is the cup to the left or to the
# right of the plate?" -> left), the words its answer vocabulary has. Other relations answer as named.
RELATION_ANSWER_WORDS: dict[str, str] = {
    "to_the_left_of": "left",
    "to_the_right_of": "right",
    "in_front_of": "front",
}
# Relation -> its opposite; "on top of" is refuted by "under", whose own opposite is "on".
OPPOSITE_RELATIONS: dict[str, str] = {
    **{a: b for pair in OPPOSITE_PAIRS for a, b in (pair, pair[::-1])},
    "on_top_of": "under",
}

# The textual syntaxes of a question program (theory.representations parses and prints them), and
# every syntax a program may be written in: those and GQA's semantic program (JSON, or the compact
# lines ``operation [inputs]: argument``), which `translators.gqa.gqa_program` reads.
TextRepresentation = Literal["flat", "nested", "code"]
TEXT_REPRESENTATIONS: tuple[str, ...] = get_args(TextRepresentation)
ProgramRepresentation = Literal[TextRepresentation, "gqa"]
REPRESENTATIONS: tuple[str, ...] = get_args(ProgramRepresentation)

# The attribute category of a value whose category is unknown or unnamed (GQA's bare `choose: a|b`).
OTHER_CATEGORY = "other"

# Scene vocabulary: predicate name -> arity.
SCENE_PREDICATES: dict[str, int] = {
    "object": 1,
    "has_obj_weight": 2,
    "has_attr": 3,
    "has_rel": 3,
    "is_attr": 1,
    "is_attr_value": 2,
    "exclusive": 1,
}
