"""Bank pairs with one object described further, in the question and the program alike."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from theory.nested import parse_nested
from translators.model.student.composed import MAX_TOKENS, Describer, composed_pairs, describe_pair
from translators.model.student.pairs import Pair
from translators.model.student.vocabulary import program_text, program_tokens
from translators.wording.ontology import bundled_ontology

ONTOLOGY = bundled_ontology()


def _pair(question: str, program: str) -> Pair:
    return Pair(question, tuple(program_tokens(program)), "generated")


PAIRS = (
    _pair("What color is the cup?", "query(unique(select(scene(), cup)), color)"),
    _pair(
        "Is the dog large and brown?",
        "and(verify_attr(unique(select(scene(), dog)), size, large), "
        "verify_attr(unique(select(scene(), dog)), color, brown))",
    ),
    _pair("What is on the table?", "query(unique(relate_any(select(scene(), table), on, subject)), name)"),
    _pair("Who is wearing the hat?", "query(unique(relate(select(scene(), hat), person, wearing, subject)), name)"),
    _pair(
        "Is the man to the left or to the right of the car?",
        "choose_rel(unique(select(scene(), car)), man, to_the_left_of, to_the_right_of, subject)",
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(PAIRS))
def test_a_description_keeps_the_program_whole_and_its_words_in_the_question(seed: int, pair: Pair) -> None:
    described = describe_pair(pair, Describer(ONTOLOGY, random.Random(seed)), ONTOLOGY.classes)
    if described is None:
        return
    text = program_text(described.tokens)
    parse_nested(text)
    assert len(described.tokens) <= MAX_TOKENS
    assert len(described.question) > len(pair.question) and described.question.endswith("?")
    # Every class and value the description adds is said in the question (a relation may be said
    # by its verb: "crossing" as "crosses").
    original = set(pair.tokens) | set(ONTOLOGY.relations) | {"subject", "object"}
    for token in set(described.tokens) - original:
        if token in ONTOLOGY.classes or any(token in values for values in ONTOLOGY.categories.values()):
            assert token.replace("_", " ") in described.question.lower(), (token, described.question)


def test_the_category_asked_is_never_the_one_that_describes() -> None:
    pair = PAIRS[0]
    for seed in range(200):
        described = describe_pair(pair, Describer(ONTOLOGY, random.Random(seed)), ONTOLOGY.classes)
        if described is not None:
            assert program_text(described.tokens).count("color") == 1, described.question


def test_an_object_already_described_is_not_described_again() -> None:
    # "the cup on the table": the program relates to cups, so only the table may be described.
    pair = _pair(
        "What color is the cup on the table?",
        "query(unique(relate(select(scene(), table), cup, on, subject)), color)",
    )
    for seed in range(100):
        described = describe_pair(pair, Describer(ONTOLOGY, random.Random(seed)), ONTOLOGY.classes)
        if described is not None:
            assert described.question.startswith("What color is the cup on the ")
            assert ", cup, on, subject)" in program_text(described.tokens)
            assert "relate(select(scene(), table), cup, on, subject)" not in program_text(described.tokens)


def test_a_longer_class_name_is_not_taken_for_its_first_word() -> None:
    cls = next(c for c in sorted(ONTOLOGY.classes) if "_" in c and c.split("_")[0] in ONTOLOGY.classes)
    head, words = cls.split("_")[0], cls.replace("_", " ")
    pair = _pair(
        f"Are the {words} and the {head} the same color?",
        f"two_same(unique(select(scene(), {cls})), unique(select(scene(), {head})), color)",
    )
    described_head = 0
    for seed in range(100):
        described = describe_pair(pair, Describer(ONTOLOGY, random.Random(seed)), ONTOLOGY.classes)
        if described is not None and f"unique(select(scene(), {head}))" not in program_text(described.tokens):
            described_head += 1
            assert described.question.startswith(f"Are the {words} and the "), described.question
    assert described_head


def test_a_relation_description_names_the_other_object_and_the_relation() -> None:
    found = set()
    for seed in range(300):
        described = describe_pair(PAIRS[1], Describer(ONTOLOGY, random.Random(seed)), ONTOLOGY.classes)
        if described is None:
            continue
        text = program_text(described.tokens)
        relation = re.search(r"relate\(select\(scene\(\), ([a-z_]+)\), dog, ([a-z_]+), (subject|object)\)", text)
        if relation:
            other, name, side = relation.groups()
            assert other.replace("_", " ") in described.question
            found.add(side)
        # The same dog is asked of twice: both verify steps read the same description.
        assert text.count("dog") == 2
    assert found == {"subject", "object"}


def test_the_draw_is_the_same_for_the_same_seed() -> None:
    first = list(composed_pairs(PAIRS * 20, ONTOLOGY, seed=3))
    assert first == list(composed_pairs(PAIRS * 20, ONTOLOGY, seed=3))
    assert first and all(p.source == "composed" for p in first)


def test_descriptions_nest_within_the_token_limit() -> None:
    made = list(composed_pairs(PAIRS * 10, ONTOLOGY, seed=1))
    assert all(len(p.tokens) <= MAX_TOKENS for p in made)
    # A described pair is drawn from in turn: "the cup" gets two descriptions in some.
    steps = ("relate(", "filter(", "filter_any(", "negate(")
    cups = [program_text(p.tokens) for p in made if p.question.startswith("What color is the ")]
    assert any(sum(text.count(step) for step in steps) >= 2 for text in cups)
    for pair in made:
        parse_nested(program_text(pair.tokens))
