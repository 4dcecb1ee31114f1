import json

import pytest

from evaluation.splits import split_questions
from theory.nested import parse_nested
from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from translators.gqa.gqa_program import GQAProgramError, gqa_to_program
from translators.wording.question_frame import Frame, final_operations, frame_of, misfit
from translators.wording.question_text import read_as_scene

from .conftest import gqa_dir


@pytest.mark.parametrize(
    ("question", "frame"),
    [
        ("Is the horse near a building?", Frame.YES_NO),
        ("Does the man look happy and tired?", Frame.YES_NO),
        ("Is the chair brown or white?", Frame.CHOICE),
        ("Are there either cats or dogs?", Frame.EITHER),
        ("Is there a cat or a dog?", Frame.EITHER),
        ("Do you see any cats or dogs?", Frame.EITHER),
        ("What color is the cup?", Frame.OPEN),
        ("The bag on the right has what color?", Frame.OPEN),
        ("How many dogs are there?", Frame.COUNT),
        ("What is the number of cups on the table?", Frame.COUNT),
        ("Are there more dogs than cats?", Frame.YES_NO),
        ("Is the number of cups the same as the number of plates?", Frame.YES_NO),
        ("", Frame.UNKNOWN),
    ],
)
def test_the_frame_is_read_from_the_wording(question, frame):
    assert frame_of(question) is frame


def test_a_yes_no_question_never_takes_a_program_that_answers_a_name():
    name = parse_nested("query(unique(relate(select(scene(), horse), building, near, subject)), name)")
    yes_no = parse_nested("verify_rel(unique(select(scene(), horse)), building, near, subject)")
    assert "yes or no" in misfit(name, Frame.YES_NO)
    assert misfit(yes_no, Frame.YES_NO) is None
    assert misfit(yes_no, Frame.OPEN) is not None
    either = parse_nested("or(exist(select(scene(), cat)), exist(select(scene(), dog)))")
    assert "either" in misfit(parse_nested("exist(select(scene(), door))"), Frame.EITHER)
    assert misfit(either, Frame.EITHER) is None
    # "Is the sky gray or blue?" chooses a word; it is not an `or` of two checks, nor a query.
    assert "one of the words" in misfit(either, Frame.CHOICE)
    color = parse_nested("query(unique(select(scene(), sky)), color)")
    assert "choice of two words" in misfit(color, Frame.CHOICE)
    assert misfit(parse_nested("choose_attr(unique(select(scene(), sky)), color, gray, blue)"), Frame.CHOICE) is None
    assert "either" in misfit(parse_nested("choose_attr(unique(scene()), name, cat, dog)"), Frame.EITHER)


def test_a_how_many_question_takes_a_count_and_nothing_else():
    count = parse_nested("count(select(scene(), dog))")
    more = parse_nested("compare_count(count(select(scene(), dog)), count(select(scene(), cat)), more)")
    assert misfit(count, Frame.COUNT) is None
    assert "a number" in misfit(parse_nested("exist(select(scene(), dog))"), Frame.COUNT)
    assert misfit(count, Frame.OPEN) is not None  # "What is the dog?" is not answered by a number
    assert misfit(more, Frame.YES_NO) is None
    assert misfit(count, Frame.UNKNOWN) is None


def test_every_gqa_program_fits_its_question_frame():
    path = gqa_dir() / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"GQA data not found at {path}")
    data = json.loads(path.read_text())
    checked = 0
    for qid in split_questions(data).tuning:
        try:
            program = gqa_to_program(data[qid]["semantic"])
        except (GQAProgramError, ValueError):
            continue
        assert misfit(program, frame_of(read_as_scene(data[qid]["question"]))) is None, data[qid]["question"]
        checked += 1
    assert checked > 800


@pytest.mark.parametrize("frame", list(Frame))
def test_the_final_operations_of_a_frame_are_those_misfit_lets_through(frame: Frame) -> None:
    for operation, spec in OPERATIONS.items():
        inputs = [
            "count(scene())" if kind is Kind.NUMBER else "exist(scene())" if kind is Kind.BOOL else "scene()"
            for kind in spec.inputs
        ]
        arguments = [ARGUMENT_CHOICES.get(name, ("x",))[0] for name in spec.arguments]
        calls = ", ".join(inputs + arguments)
        program = parse_nested(f"{operation}({calls})") if spec.output is not Kind.STATE else None
        if program is not None:
            assert (misfit(program, frame) is None) == (operation in final_operations(frame)), operation
