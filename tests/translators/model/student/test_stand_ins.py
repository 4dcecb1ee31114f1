"""Known names stand in for the things a question names that the student never learnt to write."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from translators.model.backends.base import GenerationRequest
from translators.model.backends.student import StudentBackend
from translators.model.prompts import build_prompt
from translators.model.student.stand_ins import STAND_INS, stand_ins
from translators.model.student.writer import StudentWriter

KNOWN = {
    "box",
    "boxes",
    "bag",
    "bags",
    "cup",
    "silver",
    "wearing",
    "pants",
    "man",
    "color",
    "striped",
    "shiny",
    "black",
}


def test_an_unknown_thing_is_stood_in_and_put_back() -> None:
    swapped = stand_ins("Is the tap silver?", ("tap",), KNOWN)
    assert swapped.asked == "Is the box silver?"
    assert swapped.restore("verify_attr(unique(select(scene(), box)), color, silver)") == (
        "verify_attr(unique(select(scene(), tap)), color, silver)"
    )


def test_a_plural_is_stood_in_by_a_plural_and_either_number_comes_back() -> None:
    swapped = stand_ins("Are the taps silver?", ("taps",), KNOWN)
    assert swapped.asked == "Are the boxes silver?"
    assert swapped.restore("exist(select(scene(), boxes))") == "exist(select(scene(), taps))"
    assert swapped.restore("exist(select(scene(), box))") == "exist(select(scene(), tap))"


def test_one_name_keeps_one_stand_in_in_either_number() -> None:
    swapped = stand_ins("Is the tap near the other taps?", ("tap", "taps"), KNOWN)
    assert swapped.asked == "Is the box near the other boxes?"
    program = "verify_rel(unique(select(scene(), box)), boxes, near, subject)"
    assert swapped.restore(program) == "verify_rel(unique(select(scene(), tap)), taps, near, subject)"


def test_an_unknown_thing_before_another_is_one_compound_name() -> None:
    swapped = stand_ins("Is the storage box empty?", ("storage", "box"), KNOWN)
    assert swapped.asked == "Is the bag empty?"  # the question says "box": the next stand-in
    assert swapped.restore("verify_attr(unique(select(scene(), bag)), state, empty)") == (
        "verify_attr(unique(select(scene(), storage_box)), state, empty)"
    )


def test_known_words_in_any_form_and_other_spellings_stay() -> None:
    question = "Who wears the trousers?"
    assert stand_ins(question, ("wears", "trousers"), KNOWN).asked == question


def test_without_a_free_stand_in_the_question_stays() -> None:
    question = "Is the tap near the " + ", the ".join(one for one, _ in STAND_INS) + "?"
    assert stand_ins(question, ("tap",), KNOWN).asked == question


def test_an_unknown_value_is_stood_in_and_put_back_of_no_category_in_particular() -> None:
    swapped = stand_ins("Is the box dull or shiny?", (), KNOWN, ("dull", "shiny"))
    assert swapped.asked == "Is the box striped or shiny?"  # "shiny" is known, and said: not a stand-in
    assert swapped.restore("choose_attr(unique(select(scene(), box)), pattern, striped, shiny)") == (
        "choose_attr(unique(select(scene(), box)), other, dull, shiny)"
    )
    assert swapped.restore("exist(filter(select(scene(), box), pattern, striped))") == (
        "exist(filter(select(scene(), box), other, dull))"
    )
    # A program the parser refuses gets its names back and is left to the translator's checks.
    assert swapped.restore("exist(striped)") == "exist(dull)"


def test_a_value_of_several_words_is_stood_in_whole() -> None:
    swapped = stand_ins("Is the tap black and white?", ("tap",), KNOWN, ("black_and_white", "black", "white"))
    assert swapped.asked == "Is the box striped?"
    assert swapped.restore("verify_attr(unique(select(scene(), box)), pattern, striped)") == (
        "verify_attr(unique(select(scene(), tap)), other, black_and_white)"
    )


def test_a_stand_in_written_where_its_word_cannot_go_refuses_the_program() -> None:
    # "want" read as a thing: a program relating the dog to it by its stand-in means nothing the question says.
    swapped = stand_ins("What does the dog want?", ("want",), KNOWN)
    assert swapped.asked == "What does the dog box?"
    assert swapped.restore("query(unique(relate_any(select(scene(), dog), box, object)), name)") is None
    assert swapped.restore("exist(select(scene(), box))") == "exist(select(scene(), want))"
    # A thing may be a value of its name; a value may be nothing but a value.
    tap = stand_ins("Is this a tap or a cup?", ("tap", "cup"), KNOWN)
    assert tap.restore("choose_attr(unique(select(scene(), this)), name, box, cup)") == (
        "choose_attr(unique(select(scene(), this)), name, tap, cup)"
    )
    dull = stand_ins("Is the box dull?", (), KNOWN, ("dull",))
    assert dull.restore("exist(select(scene(), striped))") is None


def test_a_word_after_to_is_no_value_to_stand_in() -> None:
    swapped = stand_ins("Where is the cup trying to go?", (), KNOWN, ("trying", "go"))
    assert swapped.asked == "Where is the cup striped to go?"


_WORDS = st.sampled_from(["the", "tap", "taps", "storage", "box", "man", "is", "near", "silver", "grinder", "cup"])


@given(st.lists(_WORDS, min_size=1, max_size=8), st.sets(_WORDS))
def test_every_swap_comes_back_as_the_question_words(words: list[str], things: set[str]) -> None:
    question = " ".join(words) + "?"
    swapped = stand_ins(question, things, KNOWN)
    for swap in swapped.swaps:
        assert swap.stand_in not in words
        assert swapped.restore(f"exist(select(scene(), {swap.stand_in}))") == f"exist(select(scene(), {swap.name}))"
        # Each word of the name is the question's (its head maybe in the singular).
        assert all(any(w.startswith(part) for w in words) for part in swap.name.split("_"))
    if not swapped.swaps:
        assert swapped.asked == question


def test_the_shipped_student_writes_a_thing_it_never_learnt(shipped_writer: StudentWriter) -> None:
    writer = shipped_writer
    question = "Does the staircase look metallic and white?"
    assert "staircase" not in writer.known()
    request = GenerationRequest(build_prompt(question, []), question, asked=question, things=("staircase",))
    text = StudentBackend(writer).generate(request).text
    assert "select(scene(), staircase)" in text and "box" not in text, text


def test_the_shipped_student_writes_a_value_it_never_learnt(shipped_writer: StudentWriter) -> None:
    writer = shipped_writer
    question = "Are the trees in front of the road leafless or bushy?"
    assert "bushy" not in writer.known()
    request = GenerationRequest(
        build_prompt(question, []), question, asked=question, things=("trees", "road"), values=("leafless", "bushy")
    )
    text = StudentBackend(writer).generate(request).text
    assert text.endswith("other, leafless, bushy)"), text
