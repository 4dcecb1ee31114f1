import json

import pytest

from evaluation.splits import family_key, skeleton, split_questions
from tests.support import GQA_DIR

VAL = GQA_DIR / "questions" / "val_balanced_sample.json"


def _record(image: str, group: str | None, ops: list[str], structural: str = "query", semantic: str = "attr") -> dict:
    steps = [{"operation": op, "argument": "x", "dependencies": [i - 1] if i else []} for i, op in enumerate(ops)]
    return {
        "imageId": image,
        "groups": {"global": group},
        "types": {"structural": structural, "semantic": semantic},
        "semantic": steps,
    }


def test_skeleton_blanks_arguments_and_keeps_dependencies():
    record = _record("1", "color", ["select", "relate", "query"])
    assert skeleton(record["semantic"]) == "select[] relate[0] query[1]"
    assert family_key(record) == "color|select[] relate[0] query[1]"
    assert family_key(_record("1", None, ["select", "exist"])) == "-|select[] exist[0]"


def test_split_keeps_families_and_images_apart():
    questions = {}
    for i in range(60):
        group = ["color", "material", "person", "place"][i % 4]
        ops = [["select", "query"], ["select", "relate", "query"], ["select", "filter color", "query"]][i % 3]
        questions[f"q{i}"] = _record(str(i % 25), group, ops)
    split = split_questions(questions, validation_share=0.3)
    assert split.validation and split.tuning
    assert not set(split.validation) & set(split.tuning)
    assert set(split.validation) | set(split.tuning) | set(split.dropped) == set(questions)
    validation_families = {family_key(questions[q]) for q in split.validation}
    assert not validation_families & {family_key(questions[q]) for q in split.tuning}
    validation_images = {questions[q]["imageId"] for q in split.validation}
    assert not validation_images & {questions[q]["imageId"] for q in split.tuning}
    # The part's former name still reads it, for older commands and scripts.
    assert split.test == split.validation == split.part("test") == split.part("validation")
    assert split.part_of(split.validation[0]) == "validation"
    assert split_questions(questions, test_share=0.3) == split
    with pytest.raises(ValueError, match="unknown part"):
        split.part("training")


def test_split_is_deterministic_and_independent_of_order():
    questions = {
        f"q{i}": _record(str(i), ["a", "b", "c"][i % 3], ["select", "query"] if i % 2 else ["select", "exist"])
        for i in range(30)
    }
    reordered = dict(reversed(list(questions.items())))
    assert split_questions(questions) == split_questions(reordered)


@pytest.mark.skipif(not VAL.exists(), reason=f"real GQA data not found at {VAL}")
def test_real_val_sample_gives_a_validation_part_of_at_least_300_unseen_questions():
    data = json.loads(VAL.read_text(encoding="utf-8"))
    split = split_questions(data)
    assert len(split.validation) >= 300
    tuning_families = {family_key(data[q]) for q in split.tuning}
    assert not any(family_key(data[q]) in tuning_families for q in split.validation)
    tuning_images = {data[q]["imageId"] for q in split.tuning}
    assert not any(data[q]["imageId"] in tuning_images for q in split.validation)
