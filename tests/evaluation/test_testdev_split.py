from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evaluation.testdev_split import SPLIT_FILE, TESTDEV_FILE_NAME, load_split, split_by_image, split_images
from tests.support import GQA_DIR


@given(st.dictionaries(st.text(min_size=1, max_size=6), st.sampled_from("abcdefgh"), max_size=40))
def test_no_image_is_in_both_halves_and_every_question_is_in_one(image_of):
    split = split_by_image(image_of)
    assert sorted(split.development + split.test) == sorted(image_of)
    assert not {image_of[q] for q in split.development} & {image_of[q] for q in split.test}


def test_the_split_does_not_depend_on_the_order_or_seed_free_choices():
    images = [f"i{n}" for n in range(20)]
    assert split_images(images) == split_images(list(reversed(images)))
    assert split_images(images, seed="another") != split_images(images)


@pytest.mark.skipif(not (GQA_DIR / "questions").is_dir(), reason="the real GQA sample (../shared/data/gqa) is absent")
def test_the_committed_split_is_the_one_its_seed_gives_from_the_shared_ids():
    records = json.loads((GQA_DIR / "questions" / TESTDEV_FILE_NAME).read_text())
    image_of = {qid: str(r["imageId"]) for qid, r in records.items()}
    assert load_split() == split_by_image(image_of)
    committed = json.loads(SPLIT_FILE.read_text())
    assert committed["images"] == {"development": 76, "test": 76}
