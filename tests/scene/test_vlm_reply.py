"""The reply schema and its pydantic boundary agree; value likelihoods from token log-probabilities."""

from __future__ import annotations

import json
import math

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from scene.vlm_logprobs import TokenLogprob, ValueLikelihoods, value_spans
from scene.vlm_reply import REPLY_SCHEMA, SceneReply, response_format
from tests.scene.vlm_server import SCENE

WRONG = [
    {"objects": [{"id": "o1", "name": "mug", "box": [1, 2, 3]}], "relations": []},  # a box of three numbers
    {"objects": [{"id": "o1", "name": "mug", "box": [1, 2, 3, 4], "confidence": 1.5}], "relations": []},
    {"objects": [{"id": "o1", "label": "mug", "box": [1, 2, 3, 4]}], "relations": []},  # label for name
    {"objects": []},  # no relations
    {"objects": [], "relations": [{"subject": "o1", "relation": "on", "object": "o2", "extra": 1}]},
]


def test_the_example_scene_fits_both_the_schema_and_the_model() -> None:
    jsonschema.validate(SCENE, REPLY_SCHEMA)
    reply = SceneReply.model_validate(SCENE)
    assert [o.name for o in reply.objects] == ["mug", "table"]
    assert response_format()["type"] == "json_schema"


@pytest.mark.parametrize("wrong", WRONG)
def test_what_the_schema_refuses_the_model_refuses(wrong: dict[str, object]) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(wrong, REPLY_SCHEMA)
    with pytest.raises(ValidationError):
        SceneReply.model_validate(wrong)


def test_ids_must_resolve_and_be_unique() -> None:
    dangling = {**SCENE, "relations": [{"subject": "o1", "relation": "on", "object": "o9"}]}
    with pytest.raises(ValidationError, match="no object with id 'o9'"):
        SceneReply.model_validate(dangling)
    objects = SCENE["objects"]
    assert isinstance(objects, list)
    twice = {"objects": [objects[0], objects[0]], "relations": []}
    with pytest.raises(ValidationError, match="used more than once: o1"):
        SceneReply.model_validate(twice)


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


def _leaves(value: object, path: tuple[str | int, ...] = ()) -> dict[tuple[str | int, ...], object]:
    if isinstance(value, dict):
        return {k: v for key, item in value.items() for k, v in _leaves(item, (*path, key)).items()}
    if isinstance(value, list):
        return {k: v for n, item in enumerate(value) for k, v in _leaves(item, (*path, n)).items()}
    return {path: value}


@given(JSON_VALUES, st.sampled_from([None, 2]), st.booleans())
def test_every_scalar_is_found_where_it_is_written(value: object, indent: int | None, ascii: bool) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii)
    spans = value_spans(text)
    leaves = _leaves(value)
    assert set(spans) == set(leaves)
    for path, (start, end) in spans.items():
        written = text[start:end]
        assert json.loads(f'"{written}"' if isinstance(leaves[path], str) else written) == leaves[path]


def test_a_values_likelihood_is_the_product_of_its_tokens() -> None:
    text = '{"name": "coffee mug", "n": 2}'
    pieces = [('{"', 0), ("name", 0), ('":', 0), (' "', -0.05), ("coffee", -0.1), (" mug", -0.2), ('",', -0.3)]
    pieces += [(' "', 0), ("n", 0), ('":', 0), (" ", 0), ("2", -0.4), ("}", 0)]
    values = ValueLikelihoods(text, [TokenLogprob(t, lp) for t, lp in pieces])
    assert values.aligned
    # tokens of quotes and commas alone are not the value's
    assert values.likelihood(("name",)) == pytest.approx(math.exp(-0.1 - 0.2))
    # a token holding a quote and a character of the value counts whole
    straddling = [('{"name": "cof', -0.05), ("fee", -0.1), (' mug"', -0.2), (', "n": 2}', 0)]
    assert ValueLikelihoods(text, [TokenLogprob(t, lp) for t, lp in straddling]).likelihood(("name",)) == pytest.approx(
        math.exp(-0.05 - 0.1 - 0.2)
    )
    assert values.likelihood(("n",)) == pytest.approx(math.exp(-0.4))
    assert values.likelihood(("missing",)) is None


def test_tokens_are_placed_by_their_bytes() -> None:
    text = '{"name": "café"}'
    e_acute = "é".encode()
    tokens = [
        TokenLogprob('{"name": "caf', -0.1),
        TokenLogprob("\ufffd", -0.2, e_acute[:1]),  # a character split over two tokens
        TokenLogprob("\ufffd", -0.3, e_acute[1:]),
        TokenLogprob('"}', 0.0),
    ]
    values = ValueLikelihoods(text, tokens)
    assert values.aligned and values.likelihood(("name",)) == pytest.approx(math.exp(-0.6))


def test_tokens_that_do_not_spell_the_reply_give_nothing() -> None:
    values = ValueLikelihoods('{"name": "mug"}', [TokenLogprob('{"name": "cup"}', -0.1)])
    assert not values.aligned and values.likelihood(("name",)) is None
