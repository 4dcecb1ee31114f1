"""Deriving the entailment table from a vocabulary (and WordNet where it is installed)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scene.entailments import derive_entailments, write_table
from scene.wordnet import load_wordnet, wordnet_available
from theory.entailment import bundled_entailments, load_entailments

RELATIONS = ["on", "in", "sitting on", "sitting on top of", "on top of", "in front of", "of", "near", "next to"]


def test_multi_word_relations_entail_their_last_words_but_not_function_words():
    table = derive_entailments(RELATIONS, {}, {})
    assert ("sitting_on", "on") in table.relations
    assert ("sitting_on_top_of", "on_top_of") in table.relations  # the longest known tail
    assert ("on_top_of", "on") in table.relations  # written by hand: no suffix rule finds it
    assert ("in_front_of", "of") not in table.relations
    assert ("next_to", "near") in table.relations


def test_a_general_word_covering_more_specific_ones_costs_more():
    table = derive_entailments(["on", "sitting on", "lying on", "at"], {"animal": ["dog", "cat"]}, {})
    assert (
        table.relations[("sitting_on", "on")]
        > derive_entailments(["on", "sitting on"], {}, {}).relations[("sitting_on", "on")]
    )
    assert table.attributes[("dog", "animal")] == table.attributes[("cat", "animal")]


def test_classes_entail_their_group_and_colour_shades_their_colour():
    table = derive_entailments([], {"animal": ["kitten", "dog"]}, {"color": ["blue", "dark blue"]})
    assert ("kitten", "animal") in table.attributes
    assert ("dark_blue", "blue") in table.attributes


@pytest.mark.skipif(not wordnet_available(), reason="WordNet is not installed: run `make wordnet`")
def test_wordnet_hypernyms_among_the_classes():
    table = derive_entailments([], {"animal": ["puppy", "dog", "cat"]}, {}, load_wordnet())
    assert ("puppy", "dog") in table.attributes
    assert ("cat", "dog") not in table.attributes


def test_the_command_writes_a_table_the_theory_reads(tmp_path: Path):
    ontology = tmp_path / "ontology.json"
    ontology.write_text(
        json.dumps({"relations": [{"relation": r} for r in RELATIONS], "classes": {}, "attributes": {}})
    )
    out = tmp_path / "table.tsv"
    write_table(["--ontology", str(ontology), "--out", str(out), "--no-wordnet"])
    assert ("sitting_on", "on") in load_entailments(out).relations


def test_the_shipped_table_holds_the_readings_of_the_shipped_vocabulary():
    table = bundled_entailments()
    assert len(table.relations) > 50 and len(table.attributes) > 500


@pytest.mark.skipif(not wordnet_available(), reason="WordNet is not installed: run `make wordnet`")
def test_every_synonym_pair_shares_a_wordnet_sense():
    from scene.entailments import SYNONYMS

    wordnet = load_wordnet()
    for first, second in SYNONYMS:
        assert set(wordnet.synsets(first)[:3]) & set(wordnet.synsets(second)[:3]), (first, second)


@pytest.mark.skipif(not wordnet_available(), reason="WordNet is not installed: run `make wordnet`")
def test_every_material_adjective_is_glossed_as_made_of_its_noun():
    from theory.entailment import MATERIAL_ADJECTIVES

    wordnet = load_wordnet()
    for noun, adjective in MATERIAL_ADJECTIVES:
        assert re.search(rf"\b{noun}\b", wordnet.synsets(adjective, "a")[0].definition()), (noun, adjective)


def test_the_shipped_table_reads_synonyms_both_ways():
    table = bundled_entailments()
    assert table.synonyms[("bike", "bicycle")] == table.synonyms[("bicycle", "bike")] == 0
    assert ("closed", "shut") in table.synonyms
