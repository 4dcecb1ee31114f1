"""One error type means "a model or data set is missing", whichever layer's loader raises it."""

from __future__ import annotations

import pytest

from scene.models import load_detector
from scene.wordnet import WordNetUnavailable
from theory.errors import ModelNotAvailableError
from translators.model.embeddings import SentenceEmbedder


def test_every_loader_raises_the_one_model_missing_error(tmp_path):
    assert issubclass(WordNetUnavailable, ModelNotAvailableError)
    with pytest.raises(ModelNotAvailableError, match="detector_model"):
        load_detector(tmp_path / "no-detector")
    with pytest.raises(ModelNotAvailableError, match="sentence-transformers"):
        SentenceEmbedder(tmp_path)
