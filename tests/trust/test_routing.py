"""Routing: a linear classifier on question embeddings, and translation through the predicted type's pool."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluation.splits import split_questions
from tests.support import GQA_DIR
from translators.examples.bank import legacy_bank
from translators.model.backends.replay import ReplayBackend
from translators.model.retrieval import Retriever
from translators.translate import TranslationSettings
from trust.question_types import program_types
from trust.routing import LinearHead, QuestionRouter, RoutedTranslator


class WordEmbedder:
    """Bag of a few words: enough to tell yes/no, open and choice questions apart."""

    name = "words"
    WORDS = ("is", "are", "what", "which", "who", "or", "both", "same", "there", "color", "where", "does")

    def encode(self, texts):
        rows = [[float(w in t.lower().replace("?", "").split()) for w in self.WORDS] for t in texts]
        matrix = np.asarray(rows, dtype=np.float32) + 1e-3
        return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_linear_head_round_trip(tmp_path):
    features = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0.1, 0]], dtype=np.float32)
    head = LinearHead.fit(features, ["a", "b", "c", "a"])
    router = QuestionRouter(head, head)
    router.save(tmp_path / "r.npz")
    again = QuestionRouter.load(tmp_path / "r.npz")
    assert again.structural.predict(features) == head.predict(features) == ["a", "b", "c", "a"]


def test_router_learns_types_from_the_bank_programs():
    bank = legacy_bank()
    embedder = WordEmbedder()
    router = QuestionRouter.train(bank, embedder.encode(bank.questions))
    predicted = router.classify(embedder.encode(bank.questions))
    truth = [program_types(e.program).structural for e in bank]
    assert np.mean([p.structural == t for p, t in zip(predicted, truth)]) > 0.8


def test_routed_translator_shows_only_examples_of_the_predicted_type():
    bank = legacy_bank()
    embedder = WordEmbedder()
    router = QuestionRouter.train(bank, embedder.encode(bank.questions))
    backend = ReplayBackend(
        {("Is the cup red or blue?", None): ["choose_attr(unique(select(scene(), cup)), color, red, blue)"]}
    )
    settings = TranslationSettings(llm="replay", sampling="bert", template_retrieval=False, schema_decoding=False)
    routed = RoutedTranslator(
        settings, bank, backend, retriever=Retriever(bank, embedder), embedder=embedder, router=router
    )
    result = routed.translate("Is the cup red or blue?")
    assert result.route is not None and result.route["structural"] == "choose"
    shown = [bank[bank.index_of(e["id"])] for e in result.examples]
    assert shown and all(program_types(e.program).structural == "choose" for e in shown)
    assert result.program is not None
    assert routed.translators["choose"].settings.prompt_version == "v3-choose"
    # The fixed examples are the whole bank's, so the prompt's start is the same for every type.
    assert routed.translators["choose"].fixed == routed.translators["query"].fixed


def test_structural_type_of_unseen_questions(tmp_path, monkeypatch):
    path = GQA_DIR / "questions" / "val_balanced_sample.json"
    if not path.exists():
        pytest.skip(f"no GQA questions at {path}")
    pytest.importorskip("sentence_transformers")
    from translators.examples.bundled import default_bank
    from translators.model.embeddings import load_embedder
    from translators.wording.ontology import bundled_ontology
    from translators.wording.templating import Templater
    from trust.routing import router_for

    data = json.loads(path.read_text(encoding="utf-8"))
    test = [data[q] for q in split_questions(data).validation]
    bank, embedder = default_bank(), load_embedder()
    router = router_for(bank, Retriever(bank, embedder, templater=Templater(bundled_ontology())))
    predicted = router.classify(embedder.encode([r["question"] for r in test]))
    accuracy = np.mean([p.structural == r["types"]["structural"] for p, r in zip(predicted, test)])
    assert accuracy >= 0.9
