"""Taxonomies: WordNet closure, curated GQA files, attribute categories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scene.taxonomy import (
    CuratedTaxonomy,
    HeuristicAttributes,
    Taxonomy,
    WordNetTaxonomy,
)
from scene.wordnet import wordnet_available
from tests.support import GQA_DIR

METADATA = GQA_DIR / "metadata"
needs_wordnet = pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`")
needs_gqa = pytest.mark.skipif(
    not (METADATA / "gqa_all_class.json").is_file(), reason=f"GQA metadata not in {METADATA}"
)


@pytest.fixture(scope="module")
def wordnet_taxonomy() -> WordNetTaxonomy:
    return WordNetTaxonomy()


@needs_wordnet
class TestWordNetTaxonomy:
    def test_is_a_follows_hyponym_closure(self, wordnet_taxonomy):
        assert isinstance(wordnet_taxonomy, Taxonomy)
        assert wordnet_taxonomy.is_a("puppy", "dog")
        assert wordnet_taxonomy.is_a("dog", "animal")
        assert wordnet_taxonomy.is_a("table", "furniture")  # second sense: table.n.02
        assert wordnet_taxonomy.is_a("man", "person")
        assert wordnet_taxonomy.is_a("dog", "dog")
        assert not wordnet_taxonomy.is_a("dog", "puppy")
        assert not wordnet_taxonomy.is_a("suv", "truck")

    def test_rare_senses_are_left_out_unless_asked_for(self, wordnet_taxonomy):
        # wall.n.07 (a fence) was never tagged in text; the default ignores it.
        assert not wordnet_taxonomy.is_a("wall", "fence")
        assert WordNetTaxonomy(senses="all").is_a("wall", "fence")
        assert WordNetTaxonomy(max_senses=1).categories_of("table") <= wordnet_taxonomy.categories_of("table")

    def test_a_word_is_meant_in_its_frequent_senses(self, wordnet_taxonomy):
        # "head" is a domestic animal and a person in chief only in a few tagged uses of 254.
        assert wordnet_taxonomy.is_a("head", "body part")
        assert not wordnet_taxonomy.is_a("head", "animal")
        assert not wordnet_taxonomy.is_a("head", "person")
        assert WordNetTaxonomy(senses="tagged").is_a("head", "animal")
        assert not wordnet_taxonomy.is_a("man", "animal")  # homo.n.02: 29 of 1218 uses
        # The category side too: the anatomical sense of "structure" is 3 of its 47 uses.
        assert not wordnet_taxonomy.is_a("ear", "structure")
        assert wordnet_taxonomy.is_a("wall", "structure")
        # A category word covers its other senses of the same kind: food.n.02 "solid food".
        assert wordnet_taxonomy.is_a("apple", "food")
        assert wordnet_taxonomy.is_a("apple", "fruit")

    def test_members_agree_with_is_a(self, wordnet_taxonomy):
        animals = wordnet_taxonomy.members("animal")
        assert {"horse", "dog", "puppy"} <= animals
        assert "head" not in animals and "man" not in animals
        assert "head" not in wordnet_taxonomy.members("person")
        assert {"apple", "sauce"} <= wordnet_taxonomy.members("food")

    def test_categories_and_members(self, wordnet_taxonomy):
        categories = wordnet_taxonomy.categories_of("dog")
        assert {"canine", "domestic animal", "animal", "entity"} <= categories
        assert "dog" not in categories
        members = wordnet_taxonomy.members("furniture")
        assert {"table", "chair", "sofa"} <= members
        assert "furniture" not in members

    def test_phrases_fall_back_to_their_head(self, wordnet_taxonomy):
        assert wordnet_taxonomy.knows("tennis racket")
        assert wordnet_taxonomy.is_a("brick wall", "wall")
        assert wordnet_taxonomy.is_a("brick wall", "structure")
        assert not wordnet_taxonomy.knows("xyzzy")
        assert wordnet_taxonomy.categories_of("xyzzy") == set()

    def test_senses_argument_is_checked(self):
        with pytest.raises(ValueError):
            WordNetTaxonomy(senses="some")


def _write(folder: Path, classes: dict, attributes: dict | None = None) -> Path:
    (folder / "gqa_all_class.json").write_text(json.dumps(classes))
    if attributes is not None:
        (folder / "gqa_all_attribute.json").write_text(json.dumps(attributes))
    return folder


class TestCuratedTaxonomy:
    def test_reads_gqa_format(self, tmp_path):
        folder = _write(
            tmp_path, {"animal": ["dog", "cat"], "pet": ["dog"]}, {"color": ["red", "Dark"], "tone": ["dark"]}
        )
        taxonomy = CuratedTaxonomy.from_dir(folder)
        assert isinstance(taxonomy, Taxonomy)
        assert taxonomy.categories_of("dog") == {"animal", "pet"}
        assert taxonomy.members("animal") == {"dog", "cat"}
        assert taxonomy.is_a("cat", "animal") and taxonomy.is_a("cat", "cat") and not taxonomy.is_a("cat", "pet")
        assert taxonomy.knows("animal") and taxonomy.knows("dog") and not taxonomy.knows("horse")
        attributes = taxonomy.attribute_categories()
        assert attributes is not None
        assert attributes.categories_of("dark") == {"color", "tone"}
        assert attributes.categories_of("blue") == set()
        assert attributes.categories() == {"color", "tone"}

    def test_attribute_file_is_optional(self, tmp_path):
        assert CuratedTaxonomy.from_dir(_write(tmp_path, {"animal": ["dog"]})).attribute_categories() is None

    def test_missing_or_malformed_files(self, tmp_path):
        with pytest.raises(FileNotFoundError):
            CuratedTaxonomy.from_dir(tmp_path)
        (tmp_path / "gqa_all_class.json").write_text('{"animal": "dog"}')
        with pytest.raises(ValueError, match="lists of names"):
            CuratedTaxonomy.from_dir(tmp_path)
        (tmp_path / "gqa_all_class.json").write_text("{not json")
        with pytest.raises(ValueError, match="cannot read"):
            CuratedTaxonomy.from_dir(tmp_path)

    @settings(max_examples=60, deadline=None)
    @given(
        st.dictionaries(
            st.sampled_from(["animal", "vehicle", "food", "thing"]),
            st.lists(st.sampled_from(["dog", "cat", "car", "bus", "apple", "animal"]), max_size=5),
            max_size=4,
        ),
        st.sampled_from(["dog", "cat", "car", "bus", "apple", "animal"]),
        st.sampled_from(["animal", "vehicle", "food", "thing", "dog"]),
    )
    def test_membership_is_what_the_file_says(self, classes, name, category):
        taxonomy = CuratedTaxonomy({k: frozenset(v) for k, v in classes.items()})
        assert taxonomy.is_a(name, category) == (name == category or name in classes.get(category, []))
        assert taxonomy.members(category) == set(classes.get(category, [])) - {category}
        assert all(name in classes[c] for c in taxonomy.categories_of(name))

    @needs_gqa
    def test_real_gqa_metadata(self):
        taxonomy = CuratedTaxonomy.from_dir(METADATA)
        assert taxonomy.is_a("dog", "animal") and taxonomy.is_a("table", "furniture")
        assert not taxonomy.is_a("dog", "furniture")
        assert len(taxonomy.classes) == 53
        attributes = taxonomy.attribute_categories()
        assert attributes.categories_of("white") == {"color"}
        assert attributes.categories_of("short") == {"length", "height"}


@needs_wordnet
class TestHeuristicAttributes:
    def test_the_one_vocabulary_then_wordnet_then_other(self):
        attributes = HeuristicAttributes()
        assert attributes.categories_of("white") == {"color"}
        assert attributes.categories_of("Wooden") == {"material"}
        assert attributes.categories_of("dark") == {"color", "tone", "brightness"}
        assert attributes.categories_of("wet") == {"state"}  # the translator's category too
        assert attributes.categories_of("crimson") == {"color"}  # WordNet: crimson.n.01 is a red, a color
        assert attributes.categories_of("fluffy") == {"texture"}  # the ontology files it
        assert attributes.categories_of("squiggly") == {"other"}
        assert HeuristicAttributes(use_wordnet=False).categories_of("crimson") == {"other"}
        assert {"color", "material", "other"} <= attributes.categories()

    @needs_gqa
    def test_agrees_with_the_curated_gqa_attribute_file(self):
        data = json.loads((METADATA / "gqa_all_attribute.json").read_text())
        attributes = HeuristicAttributes()
        pairs = [(category.lower(), value) for category, values in data.items() for value in values]
        agree = sum(category in attributes.categories_of(value) for category, value in pairs)
        assert agree / len(pairs) >= 0.75, f"{agree}/{len(pairs)}"


class _WatchedReader:
    """A stand-in WordNet reader that records any read made without holding READER_LOCK."""

    def __init__(self) -> None:
        self.unlocked_reads: list[str] = []

    def _check(self, what: str) -> None:
        import threading

        from scene.wordnet import READER_LOCK

        free: list[bool] = []

        def probe() -> None:  # another thread can take the lock only if this one does not hold it
            if READER_LOCK.acquire(blocking=False):
                READER_LOCK.release()
                free.append(True)

        thread = threading.Thread(target=probe)
        thread.start()
        thread.join()
        if free:
            self.unlocked_reads.append(what)

    def synsets(self, word: str, pos: str | None = None) -> list:
        self._check(f"synsets({word})")
        return []

    def morphy(self, word: str, pos: str | None = None) -> str:
        self._check(f"morphy({word})")
        return word


def test_every_wordnet_read_holds_the_reader_lock(monkeypatch):
    # NLTK's reader shares file objects between threads; unlocked concurrent reads return each
    # other's lines (an AssertionError that reached the service as a 500).
    reader = _WatchedReader()
    monkeypatch.setattr("scene.taxonomy.load_wordnet", lambda _folder=None: reader)
    taxonomy, attributes = WordNetTaxonomy(), HeuristicAttributes()
    taxonomy.categories_of("brick wall")
    taxonomy.members("furniture")
    taxonomy.knows("zebra")
    attributes.categories_of("glittery")
    assert reader.unlocked_reads == []
