from theory.flat import parse_flat
from translators.details import TranslationDetails
from translators.translation import Attempt, Translation


def _translation(route: dict[str, str] | None = None) -> Translation:
    program = parse_flat("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
    return Translation(
        question="Is there a cat?",
        question_id=None,
        program=program,
        error=None,
        attempts=[Attempt("exist(select(scene(), cat))", None, 0.5, prompt_tokens=10, output_tokens=4)],
        examples=[],
        timings={"retrieval_s": 0.1234567, "total_s": 0.5},
        schema_fixes=[{"rule": "place", "step": 1, "before": "place", "after": "scene"}],
        route=route,
    )


def test_the_details_show_the_keys_the_service_has_always_shown_in_order():
    shown = TranslationDetails.of(_translation(), model="replay:x", samples=1).to_json()
    assert list(shown) == [
        "model",
        "attempts",
        "timings",
        "mappings",
        "schema_fixes",
        "cached",
        "samples",
        "agreement",
        "source",
        "fill",
        "usage",
        "min_logprob",
    ]
    assert shown["timings"] == {"retrieval_s": 0.123457, "total_s": 0.5}
    assert shown["usage"] == {"prompt_tokens": 10, "output_tokens": 4} and shown["attempts"] == 1
    assert shown["schema_fixes"] == [{"rule": "place", "step": 1, "before": "place", "after": "scene"}]


def test_a_routed_translation_shows_its_route_last():
    route = {"structural": "verify", "semantic": "attr"}
    shown = TranslationDetails.of(_translation(route), model="replay:x", samples=3).to_json()
    assert list(shown)[-1] == "route" and shown["route"] == route and shown["samples"] == 3
