"""Every content word of a question is accounted for by its program, or the program means another question."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scene.word_kinship import WordNetKinship
from tests.support import GQA_DIR
from theory.flat import parse_flat
from theory.nested import parse_nested
from translators.checks.meaning import NOT_CONTENT, content_words, inexpressible, uncovered, value_words
from translators.checks.meaning_checks import (
    WordStems,
    not_relations,
    one_read_as_two,
    relations_as_things,
    things_as_values,
    values_as_things,
)
from translators.checks.misreadings import misread
from translators.wording.grounded_words import question_words, stem
from translators.wording.ontology import bundled_ontology
from translators.wording.question_text import read_as_scene

QUESTIONS = GQA_DIR / "questions"


def _query(cls: str, category: str) -> str:
    return f"scene(0). select(1, 0, {cls}). unique(2, 1). query(3, 2, {category}). end(3)."


@pytest.mark.parametrize(
    ("question", "program", "left_out"),
    [
        ("What brand is the sauce?", _query("sauce", "name"), ("brand",)),
        ("How expensive is the sofa?", _query("sofa", "weight"), ("expensive",)),
        ("What color is the sofa?", _query("sofa", "color"), ()),
        ("What colour is the sofa?", _query("sofa", "color"), ()),
        ("What is the bench made of?", _query("bench", "material"), ()),
        ("What is the bench made of?", _query("bench", "color"), ("made",)),
        ("How many dogs are there?", "scene(0). select(1, 0, dog). count(2, 1). end(2).", ()),
        ("Is the tennis racket black?", "scene(0). select(1, 0, racket). verify_attr(2, 1, color, black). end(2).", ()),
        # A word whose usual name is two words ("tshirt" is GQA's t-shirt) is said by that name.
        ("What color is the tshirt?", _query("t_shirt", "color"), ()),
        (
            "Are the sofa and the lamp the same color?",
            "scene(0). select(1, 0, sofa). unique(2, 1). select(3, 0, lamp). unique(4, 3). "
            "two_same(5, 2, 4, color). end(5).",
            (),
        ),
    ],
)
def test_words_the_program_leaves_out_are_named(question, program, left_out):
    assert uncovered(question, parse_flat(program)) == left_out


def test_wordnet_relates_synonyms_and_more_general_words():
    kin = WordNetKinship()
    bike = parse_flat("scene(0). select(1, 0, bicycle). exist(2, 1). end(2).")
    horse = parse_flat(_query("horse", "color"))
    assert uncovered("Is there a bike?", bike) == ("bike",)
    assert uncovered("Is there a bike?", bike, kin) == ()
    assert uncovered("What color is the animal?", horse, kin) == ()
    assert uncovered("What color is the sauce?", horse, kin) == ("sauce",)


def _known(word: str) -> bool:
    o = bundled_ontology()
    words = {*o.classes, *o.categories, *o.relations, *(v for vs in o.categories.values() for v in vs)}
    return stem(word) in {stem(p) for w in words for p in w.split("_")}


@pytest.mark.parametrize(
    "question",
    [
        "What brand is the sauce?",
        "What is the price of the apple?",
        "What year was the bus made?",
        "Who owns the horse?",
    ],
)
def test_words_no_scene_holds_are_found_before_any_program(question):
    assert inexpressible(question, _known, WordNetKinship())


def test_a_noun_before_a_thing_is_part_of_its_name():
    kin = WordNetKinship()
    # "video" alone is a broadcast, "storage" an act; before "camera" and "box" they name the thing.
    assert inexpressible("Is the man holding a phone or a video camera?", _known, kin) == ()
    assert inexpressible("Is the storage box black?", _known, kin) == ()
    assert inexpressible("What brand is the video camera?", _known, kin) == ("brand",)


def test_a_thing_is_no_value_to_filter_by():
    values = WordStems.of(bundled_ontology()).values
    kin = WordNetKinship()
    storage = parse_nested("exist(filter_any(select(scene(), box), storage))")
    assert things_as_values(storage, values, kin) == ("storage",)
    wire = parse_nested("choose_attr(unique(filter(select(scene(), fence), material, wire)), name, cow, sheep)")
    assert things_as_values(wire, values, kin) == ()
    assert things_as_values(storage, values, None) == ()


def test_a_value_is_no_thing_to_select():
    classes = bundled_ontology().classes
    kin = WordNetKinship()
    program = parse_nested(
        "and(verify_attr(unique(select(scene(), dull)), color, brown), exist(select(scene(), poster)))"
    )
    assert values_as_things(program, classes, kin) == ("dull",)
    assert values_as_things(parse_nested("exist(select(scene(), staircase))"), classes, kin) == ()
    # "the nuts": WordNet's "nuts" is also an adjective, but the plural of a class names things.
    assert values_as_things(parse_nested("query(unique(select(scene(), nuts)), color)"), classes, kin) == ()


def test_a_relation_selected_as_a_thing_is_found():
    ontology = bundled_ontology()
    # "What is the person near the painting playing?" read with `playing` as what is selected.
    misread = parse_nested(
        "query(unique(relate(filter(select(scene(), playing), activity, painting), person, near, subject)), name)"
    )
    assert relations_as_things(misread, ontology) == ("playing",)
    read = "query(unique(relate_any(relate(select(scene(), painting), person, near, subject), playing, object)), name)"
    assert relations_as_things(parse_nested(read), ontology) == ()
    # "Is the man wearing shorts?" read as a man whose height is `wearing`.
    height = parse_nested("verify_attr(unique(select(scene(), man)), height, wearing)")
    assert relations_as_things(height, ontology) == ("wearing",)
    assert (
        relations_as_things(parse_nested("verify_attr(unique(select(scene(), man)), pose, standing)"), ontology) == ()
    )


def test_a_class_or_a_value_written_as_a_relation_is_no_relation():
    ontology = bundled_ontology()
    man = "unique(select(scene(), man))"
    assert not_relations(parse_nested(f"verify_rel({man}, beard, beard, object)"), ontology) == ("beard",)
    assert not_relations(parse_nested(f"verify_rel({man}, hair, long, object)"), ontology) == ("long",)
    assert not_relations(parse_nested(f"verify_rel({man}, hat, wearing, object)"), ontology) == ()
    # A relation the ontology lacks, named by no class or value, is the question's own.
    assert not_relations(parse_nested(f"verify_rel({man}, kite, flying, object)"), ontology) == ()


def test_the_values_a_question_may_say_include_runs_of_three_words():
    kin = WordNetKinship()
    assert value_words("Is the poster dull or black and white?", kin) == ("black_and_white", "dull", "black", "white")
    assert value_words("Is the poster dull?", None) == ()


def test_without_wordnet_nothing_is_ruled_out_early():
    assert inexpressible("What brand is the sauce?", _known, None) == ()


# Questions of words the rule treats differently: glue words, numbers, other spellings, and any word.
_WORDS = st.sampled_from(["What", "is", "the", "colour", "Grey", "coloured", "cats", "2", "dog's", "on", "RED"])
_QUESTIONS = st.one_of(
    st.text(max_size=120),
    st.lists(st.one_of(_WORDS, st.text(alphabet="abcXYZ019'’-", min_size=1, max_size=6)), max_size=12).map(" ".join),
)
_RESPELLED = {"colour": "color", "colours": "color", "coloured": "color", "grey": "gray"}


@given(_QUESTIONS)
def test_content_words_are_the_questions_own_words_but_glue_and_numbers(text):
    """Each content word is a word the question writes (lower case; British spellings and "grey"
    respelled), in the order first written, without repeats; every other written word is glue
    (NOT_CONTENT) or a number."""
    words = content_words(text)
    written = [_RESPELLED.get(w, w) for w in re.findall(r"[a-z0-9]+", text.lower().replace("’", "'"))]
    assert len(set(words)) == len(words)
    assert all(w.isalnum() and w == w.lower() and not w.isdigit() and w not in NOT_CONTENT for w in words)
    assert list(words) == list(dict.fromkeys(w for w in written if w not in NOT_CONTENT and not w.isdigit()))


@pytest.mark.skipif(not QUESTIONS.is_dir(), reason="the real GQA sample (../shared/data/gqa) is absent")
def test_at_most_one_real_gqa_question_in_a_hundred_is_ruled_out_by_its_words():
    sample = json.loads((QUESTIONS / "val_balanced_sample.json").read_text())
    train = json.loads((QUESTIONS / "train_balanced_sample50.json").read_text())
    questions = [q["question"] for q in sample.values()] + [q["question"] for q in train]
    kin = WordNetKinship()
    ruled_out = [q for q in questions if inexpressible(read_as_scene(q), _known, kin)]
    assert len(ruled_out) <= len(questions) // 100, ruled_out


@pytest.mark.parametrize(
    ("question", "category"), [("How big is the tent?", "size"), ("How clean is the tent?", "cleanliness")]
)
def test_the_degree_after_how_is_said_by_a_query(question, category):
    program = parse_nested(f"query(unique(select(scene(), {question.split()[-1][:-1]})), {category})")
    categories_of = bundled_ontology().categories_of
    assert uncovered(question, program, WordNetKinship(), categories_of) == ()
    # A program that asks nothing of the kind, or another category, leaves the degree word unsaid.
    there = parse_nested(f"exist(select(scene(), {question.split()[-1][:-1]}))")
    assert uncovered(question, there, WordNetKinship(), categories_of) == (question.split()[1],)
    other = parse_nested(f"query(unique(select(scene(), {question.split()[-1][:-1]})), color)")
    assert uncovered(question, other, WordNetKinship(), categories_of) == (question.split()[1],)


def test_two_words_that_name_one_thing_are_not_two_objects():
    kin = WordNetKinship()
    two = parse_nested(
        "and(verify_attr(unique(select(scene(), laptop)), color, white), "
        "verify_attr(unique(select(scene(), computer)), shape, rectangular))"
    )
    assert one_read_as_two(two, "Is the laptop computer white and rectangular?", kin) == ("laptop", "computer")
    near = parse_nested("verify_rel(unique(select(scene(), laptop)), computer, near, subject)")
    assert one_read_as_two(near, "Is the laptop near the computer?", kin) is None


@pytest.mark.skipif(not QUESTIONS.is_dir(), reason="the real GQA sample (../shared/data/gqa) is absent")
def test_no_gqa_program_is_refused_by_the_checks_of_how_a_program_reads_its_question(tuning_programs):
    """`misread` (checks joined by a word the question says, no check of the value an object was picked
    by, values said together checked of one object, no value said of one thing filtering another, no
    relation read more often than said, no name of what someone is doing, no side unasked), and one
    thing named by two words selected once."""
    kin = WordNetKinship()
    refused = [
        q
        for q, program in tuning_programs
        if misread(program, question_words(q).surface) is not None or one_read_as_two(program, q, kin) is not None
    ]
    assert refused == []
