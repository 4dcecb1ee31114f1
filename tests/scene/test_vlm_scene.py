"""A vision-language model's reply as the weighted scene the solver reads, with each weight's source."""

from __future__ import annotations

import math

import pytest

from scene.concepts import concepts_from_program
from scene.image_scene import ImageSceneResult
from scene.positions import third
from scene.vlm_client import VLMClient
from scene.vlm_scene import VLMSceneBuilder, VLMSceneResult, VLMSceneSettings
from scene.vlm_spec import parse_vlm_spec
from tests.scene.test_vlm_client import png
from tests.scene.vlm_server import StandInVLM
from tests.support import DictTaxonomy
from theory import SolveStatus, solve
from theory.flat import parse_flat
from theory.scene_facts import likelihood_weight

TAXONOMY = DictTaxonomy({"furniture": {"table", "chair"}, "container": {"mug", "cup"}})
COLORS = {"color": ["white", "red", "brown"]}
MUG_COLOR = "scene(0). select(1,0,mug). unique(2,1). query(3,2,color). end(3)."
ON_TABLE = "scene(0). select(1,0,table). relate(2,1,mug,on,subject). unique(3,2). query(4,3,color). end(4)."


def build(server: StandInVLM, program: str = MUG_COLOR, **settings: float) -> VLMSceneResult:
    builder = VLMSceneBuilder(
        VLMClient(parse_vlm_spec(server.spec)),
        TAXONOMY,
        settings=VLMSceneSettings(**settings),  # type: ignore[arg-type]
    )
    return builder.build(png(), concepts_from_program(parse_flat(program), TAXONOMY, attributes=COLORS))


def by_fact(result: VLMSceneResult) -> dict[str, tuple[float, str]]:
    return {s.fact: (s.likelihood, s.source) for s in result.sources}


def test_the_scene_answers_from_the_models_objects(vlm_server: StandInVLM) -> None:
    result = build(vlm_server, ON_TABLE)
    assert isinstance(result, ImageSceneResult)  # what the image path gives, read the same way
    solved = solve(parse_flat(ON_TABLE), result.scene)
    assert solved.status is SolveStatus.OK, solved.message
    assert solved.answers[0].answer == "white"
    assert solve(parse_flat(MUG_COLOR), result.scene).answers[0].answer == "white"


def test_boxes_are_kept_and_give_positions_as_detections_do(vlm_server: StandInVLM) -> None:
    result = build(vlm_server)
    mug, table = result.detections
    assert (mug.label, table.label) == ("mug", "table")
    assert (mug.box.x0, mug.box.y0, mug.box.x1, mug.box.y1) == (100, 100, 200, 220)
    assert mug.categories == {"container"} and table.categories == {"furniture"}
    assert mug.hposition == third(150, 640, "hposition") == "left"
    assert mug.vposition == third(160, 480, "vposition") == "middle"
    assert "has_attr(2,vposition,bottom)." in result.scene.to_asp()


def test_likelihoods_come_from_the_tokens_when_the_server_sends_them(vlm_server: StandInVLM) -> None:
    vlm_server.value_logprobs = {"mug": -0.2, "white": -0.1, "on": -0.5}
    result = build(vlm_server, ON_TABLE)
    facts = by_fact(result)
    assert facts["object(1)"] == (pytest.approx(math.exp(-0.2)), "logprobs")
    assert facts["has_attr(1,color,white)"] == (pytest.approx(math.exp(-0.1)), "logprobs")
    assert facts["has_rel(1,on,2)"] == (pytest.approx(math.exp(-0.5)), "logprobs")
    assert result.logprobs == "used"
    assert result.source_summary == {"logprobs": 5, "stated": 0, "default": 0}
    assert f"has_obj_weight(1,{likelihood_weight(math.exp(-0.2))})." in result.scene.to_asp()


def test_without_logprobs_the_stated_confidence_then_the_default(vlm_server: StandInVLM) -> None:
    vlm_server.mode = "no_logprobs"
    result = build(vlm_server, ON_TABLE, default_likelihood=0.6)
    facts = by_fact(result)
    assert facts["object(1)"] == (0.9, "stated")
    assert facts["has_attr(1,color,white)"] == (0.8, "stated")
    assert facts["has_rel(1,on,2)"] == (0.7, "stated")
    assert facts["object(2)"] == (0.6, "default")  # the table came without a confidence
    assert facts["has_attr(2,color,brown)"] == (0.6, "default")
    assert result.logprobs == "absent"
    assert result.source_summary == {"logprobs": 0, "stated": 3, "default": 2}


def test_tokens_that_do_not_spell_the_reply_are_not_used(vlm_server: StandInVLM) -> None:
    vlm_server.spoil_tokens = True
    result = build(vlm_server, ON_TABLE)
    assert result.logprobs == "unaligned"
    assert result.source_summary == {"logprobs": 0, "stated": 3, "default": 2}


def test_a_relation_the_question_does_not_ask_for_is_dropped(vlm_server: StandInVLM) -> None:
    result = build(vlm_server, MUG_COLOR)
    assert result.dropped.relations == ("on",) and "has_rel" not in result.scene.to_asp()


def test_words_that_map_nowhere_are_dropped_and_counted(vlm_server: StandInVLM) -> None:
    vlm_server.mode = "no_logprobs"
    vlm_server.scene = {
        "objects": [
            {"id": "a", "name": "mug", "box": [0, 0, 10, 10], "attributes": [{"category": "mood", "value": "happy"}]},
            {"id": "b", "name": "???", "box": [10, 10, 20, 20]},
            {"id": "c", "name": "cup", "box": [20, 20, 30, 30], "attributes": [{"category": "colour", "value": "red"}]},
        ],
        "relations": [
            {"subject": "a", "relation": "sitting on", "object": "c"},
            {"subject": "a", "relation": "admiring", "object": "c"},
            {"subject": "a", "relation": "on", "object": "b"},
        ],
    }
    result = build(vlm_server, ON_TABLE)
    assert [d.label for d in result.detections] == ["mug", "cup"]
    assert result.dropped.objects == ("???",) and result.dropped.attributes == ("happy",)
    assert result.dropped.relations == ("admiring",) and result.dropped.count == 3
    text = result.scene.to_asp()
    assert "has_attr(2,color,red)" in text  # "red" is a colour the question lists
    assert "has_rel(1,on,2)" in text  # "sitting on" read as the asked "on"
    assert "mood" not in text and "admiring" not in text


class KnownWords(DictTaxonomy):
    def knows(self, word: str) -> bool:
        return word in {w for members in self.table.values() for w in members} | set(self.table)


def test_an_object_name_the_taxonomy_does_not_know_is_dropped(vlm_server: StandInVLM) -> None:
    vlm_server.scene = {
        "objects": [
            {"id": "a", "name": "blorf", "box": [0, 0, 10, 10]},
            {"id": "b", "name": "cup", "box": [0, 0, 9, 9]},
        ],
        "relations": [{"subject": "a", "relation": "on", "object": "b"}],
    }
    taxonomy = KnownWords(TAXONOMY.table)
    builder = VLMSceneBuilder(VLMClient(parse_vlm_spec(vlm_server.spec)), taxonomy)
    result = builder.build(png(), concepts_from_program(parse_flat(ON_TABLE), taxonomy))
    assert [d.label for d in result.detections] == ["cup"] and result.dropped.objects == ("blorf",)
    assert "has_rel" not in result.scene.to_asp()  # its relation went with it


def test_an_empty_scene_is_a_scene(vlm_server: StandInVLM) -> None:
    vlm_server.scene = {"objects": [], "relations": []}
    result = build(vlm_server)
    assert result.detections == [] and result.source_summary == {"logprobs": 0, "stated": 0, "default": 0}
    assert solve(parse_flat(MUG_COLOR), result.scene).status is not SolveStatus.OK
