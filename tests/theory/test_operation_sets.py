"""The sets of operation names every layer uses, held to the table of operations.

A set that is "the operations with property X" is derived from `theory.operations.OPERATIONS` (a
family, the output, the argument names), so a new operation joins it by its entry. The few lists
that are lists (GQA's structural type per answer step, a word a model's output must be asked
with) are checked here against the table, so an operation added without them fails.
"""

from __future__ import annotations

from theory.operations import (
    COUNTING_OPERATIONS,
    DESCRIBING_NOTHING,
    FAMILIES,
    OPERATIONS,
    RELATING_OPERATIONS,
    RELATION_OPERATIONS,
    SAMENESS_OPERATIONS,
    Kind,
)
from theory.solver.word_index import EVERY_CATEGORY
from translators.checks.meaning import FRAME_CUES, OperationCue
from translators.gqa.gqa_program import NOT_IN_GQA
from translators.model import grammar
from translators.rules import relation_direction
from translators.wording.question_frame import CHOICE_OPERATIONS, EITHER_OPERATIONS
from trust import subclaims
from trust.question_types import ANSWER_STRUCTURE

_ANSWERING = {name for name, spec in OPERATIONS.items() if spec.output is not Kind.STATE}
_STATE_FAMILIES = {spec.family for spec in OPERATIONS.values() if spec.output is Kind.STATE}


def test_every_operation_has_a_family_and_every_family_an_operation():
    assert {spec.family for spec in OPERATIONS.values()} == set(FAMILIES)


def test_every_answering_operation_has_a_structural_type():
    assert _ANSWERING <= set(ANSWER_STRUCTURE) <= set(OPERATIONS)


def test_what_describes_a_step_is_said_for_every_family_of_steps():
    # A step of one of its input's objects (unique) is described by its input.
    assert _STATE_FAMILIES - {"one"} <= set(subclaims._DESCRIBED_BY)


def test_hand_named_operations_are_operations():
    named = [*grammar._OPERATION_WORDS, *EITHER_OPERATIONS]
    named += [name for cue in FRAME_CUES.values() if isinstance(cue, OperationCue) for name in cue.operations]
    assert set(named) <= set(OPERATIONS)


def test_every_relation_step_names_its_relation_and_direction():
    assert set(relation_direction._ARGUMENTS) == RELATION_OPERATIONS
    for name in RELATION_OPERATIONS:
        assert {"relation", "position"} <= set(OPERATIONS[name].arguments)


def test_derived_sets_hold_what_their_users_read_of_them():
    # GQA's converter knows no counting; the solver keeps every category for a sameness with none named.
    assert NOT_IN_GQA == COUNTING_OPERATIONS and COUNTING_OPERATIONS
    assert EVERY_CATEGORY and EVERY_CATEGORY <= SAMENESS_OPERATIONS
    assert all("category" not in OPERATIONS[name].arguments for name in EVERY_CATEGORY)
    # A step found through another object names a relation or a shared category.
    for name in RELATING_OPERATIONS:
        assert {"relation", "category"} & set(OPERATIONS[name].arguments)
    # A step that describes nothing of its own has no arguments and reads at most one input.
    assert all(not OPERATIONS[name].arguments and len(OPERATIONS[name].inputs) <= 1 for name in DESCRIBING_NOTHING)
    # A choice offers two words of one kind and answers with one of them.
    for name in CHOICE_OPERATIONS:
        spec = OPERATIONS[name]
        assert spec.output is Kind.VALUE and len(spec.arguments) > len(set(spec.arguments))
