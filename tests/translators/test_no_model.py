"""`none`: template fill and composition alone; what they cannot write is declined, and nothing of
the model path (retrieval's sentence encoder) is loaded."""

import pytest

from translators.model.backends.base import BackendError, GenerationRequest
from translators.model.backends.no_model import NO_MODEL, NoModel
from translators.model.backends.registry import get_backend
from translators.model.prompts import build_prompt
from translators.translate import TranslationSettings, Translator


def _translator(bank) -> Translator:
    # BERT sampling is the default: with a model it would load the sentence encoder here.
    return Translator(TranslationSettings(llm=NO_MODEL, sampling="bert"), bank, get_backend(NO_MODEL))


def test_the_registry_names_it_and_it_writes_no_programs():
    backend = get_backend("none")
    assert isinstance(backend, NoModel) and not backend.writes_programs


def test_asked_anyway_it_says_why(bank):
    request = GenerationRequest(build_prompt("Is there a cup?", list(bank)[:2]), "Is there a cup?")
    with pytest.raises(BackendError, match="ASPVQA_LLM=none"):
        NoModel().generate(request)


def test_what_the_rules_write_needs_no_retrieval(bank):
    translator = _translator(bank)
    assert translator.retriever.embedder is None  # no encoder loaded for a translator that asks no model
    result = translator.translate("Is there a red cup?")
    assert result.program is not None and result.source in {"template", "composed"}
    assert result.fill is not None and "similarity" not in result.fill  # no retrieval score looked up
    assert translator.retriever.embedder is None


def test_a_question_the_rules_cannot_write_is_declined_with_the_reason(bank):
    result = _translator(bank).translate("Which animal is left of the small thing that is on the table?")
    assert result.program is None
    assert result.unsupported == NO_MODEL
    assert "no language model is configured" in (result.error or "")
