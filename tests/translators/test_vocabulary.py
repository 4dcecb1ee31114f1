import pytest

from theory.flat import parse_flat
from translators.wording.vocabulary import Grounder, Vocabulary

from .conftest import gqa_dir

VOCAB = Vocabulary(
    classes={"car", "person", "cup"},
    values={"color": {"red", "blue"}, "health": set(), "material": {"wood"}},
    relations={"on", "holding"},
)


def test_known_words_stay_and_nothing_is_reported():
    program = parse_flat("scene(0). select(1, 0, car). unique(2, 1). query(3, 2, color). end(3).")
    grounding = Grounder(VOCAB).ground(program)
    assert grounding.program == program and grounding.mappings == () and grounding.unknown == ()


def test_related_terms_map_unknown_words_first():
    program = parse_flat(
        "scene(0). select(1, 0, automobile). relate_any(2, 1, carrying, subject). exist(3, 2). end(3)."
    )
    related = {"automobile": ["motor_vehicle", "car"], "carrying": ["holding"]}
    grounding = Grounder(VOCAB, related_terms=lambda w: related.get(w, [])).ground(program)
    assert [s.arguments for s in grounding.program.steps if s.arguments] == [("car",), ("holding", "subject")]
    assert [(m.word, m.term, m.method) for m in grounding.mappings] == [
        ("automobile", "car", "related"),
        ("carrying", "holding", "related"),
    ]


def test_values_are_checked_within_their_category():
    program = parse_flat("scene(0). select(1, 0, cup). filter(2, 1, material, red). exist(3, 2). end(3).")
    grounding = Grounder(VOCAB).ground(program)
    assert grounding.unknown == ((2, "value", "red"),)


def test_embeddings_map_what_related_terms_do_not_know(embedder):
    program = parse_flat("scene(0). select(1, 0, mug). unique(2, 1). verify_attr(3, 2, colour, red). end(3).")
    grounding = Grounder(VOCAB, embedder=embedder).ground(program)
    assert [(m.word, m.term, m.method) for m in grounding.mappings] == [
        ("mug", "cup", "embedding"),
        ("colour", "color", "embedding"),
    ]
    assert all(m.score >= 0.55 for m in grounding.mappings)


def test_words_far_from_everything_stay_unknown(embedder):
    program = parse_flat("scene(0). select(1, 0, xylophone). exist(2, 1). end(2).")
    grounding = Grounder(VOCAB, embedder=embedder, threshold=0.9).ground(program)
    assert grounding.unknown == ((1, "class", "xylophone"),)


def test_vocabulary_from_gqa_metadata():
    folder = gqa_dir() / "metadata"
    if not folder.exists():
        pytest.skip(f"GQA metadata not found at {folder}")
    vocabulary = Vocabulary.from_gqa_metadata(folder)
    assert {"color", "material", "hposition"} <= vocabulary.categories
    assert "red" in vocabulary.values["color"] and "to_the_left_of" in vocabulary.relations
    assert len(vocabulary.classes) > 100
