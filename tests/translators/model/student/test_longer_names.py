"""A word the question says only inside a longer name is never a name of its own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from translators.model.student.writer import StudentWriter, parts_of_longer_names
from translators.wording.grounded_words import question_words


def test_the_parts_of_a_said_longer_name_are_refused() -> None:
    question = "Is the train car on the left or on the right?"
    assert parts_of_longer_names(question, ["train_car", "car", "picture"]) == {"train", "car"}


def test_a_part_also_said_alone_stays_a_name() -> None:
    question = "Is the car to the left of the train car?"
    assert parts_of_longer_names(question, ["train_car", "car"]) == {"train"}


def test_without_the_longer_name_nothing_is_refused() -> None:
    assert parts_of_longer_names("What color is the train car?", ["car", "train"]) == set()


_WORDS = st.sampled_from(["the", "tennis", "ball", "man", "car", "train", "red", "is", "on"])


@given(st.lists(_WORDS, min_size=1, max_size=10), st.lists(st.lists(_WORDS, min_size=1, max_size=3), max_size=4))
def test_every_refused_word_is_in_the_question_inside_a_longer_name(words: list[str], names: list[list[str]]) -> None:
    question = " ".join(words) + "?"
    joined = ["_".join(n) for n in names]
    refused = parts_of_longer_names(question, joined)
    longer = [n for n in names if len(n) > 1]
    for word in refused:
        assert word in words
        assert any(word in n and " ".join(n) in " ".join(words) for n in longer)


def test_the_shipped_student_names_a_train_car_whole(shipped_writer: StudentWriter) -> None:
    writer = shipped_writer
    question = "Is the train car on the left or on the right?"
    words = question_words(question)
    written = writer.write(question, 4, lambda w: words.supports(w) or words.supports_relation(w))
    texts = [w.text for w in written]
    assert texts and "train_car" in texts[0], texts
    assert not any(f", {part})" in text for text in texts for part in ("car", "cars", "train", "trains")), texts
