"""Routing by question type: predict GQA's structural and semantic type of a question without a
model call, then translate it with the examples and the prompt made for that structural type.

The classifier is a logistic regression over the question's sentence embedding (the vector
retrieval computes anyway), trained on the bank the translator uses, each example labelled by
its own program (`trust.question_types.program_types`): no dataset question is needed. The
trained weights are kept in the cache folder per bank and encoder, so a process trains once.

Example:
    >>> import numpy as np
    >>> head = LinearHead.fit(np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]]), ["a", "a", "b", "b"])
    >>> head.predict(np.array([[0.8, 0.2], [0.2, 0.8]]))
    ['a', 'b']
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from theory.cache import cache_dir
from translators.checks.meaning import WordKinship
from translators.examples.bank import ExampleBank
from translators.model.backends.base import Backend
from translators.model.embeddings import Embedder
from translators.model.prompts import routed_prompt
from translators.model.retrieval import Retriever
from translators.translate import Translation, TranslationSettings, Translator
from translators.wording.ontology import Ontology
from trust.question_types import QuestionType, program_types

# Training rows per class. A cap of 3,000 trained in half the time but read the semantic type of
# 82 % of tuning questions against 91 % with every example, so the cap is above the largest class.
PER_CLASS = 20_000


@dataclass(frozen=True)
class LinearHead:
    """A multinomial linear classifier: the class of the largest score ``x @ coef.T + intercept``."""

    classes: tuple[str, ...]
    coef: np.ndarray
    intercept: np.ndarray

    @classmethod
    def fit(
        cls, features: np.ndarray, labels: Sequence[str], *, per_class: int = PER_CLASS, seed: int = 0
    ) -> LinearHead:
        """Logistic regression (scikit-learn) on at most `per_class` rows of each label."""
        from sklearn.linear_model import LogisticRegression

        rows: dict[str, list[int]] = defaultdict(list)
        for row, label in enumerate(labels):
            rows[label].append(row)
        rng = random.Random(seed)
        chosen = sorted(r for members in rows.values() for r in rng.sample(members, min(per_class, len(members))))
        model = LogisticRegression(max_iter=500).fit(features[chosen], [labels[r] for r in chosen])
        coef, intercept = np.asarray(model.coef_, dtype=np.float32), np.asarray(model.intercept_, dtype=np.float32)
        classes = tuple(str(c) for c in model.classes_)
        if len(classes) == 2:  # scikit-learn keeps one row for two classes: make it a score per class
            coef, intercept = np.vstack([-coef, coef]), np.concatenate([-intercept, intercept])
        return cls(classes, coef, intercept)

    def predict(self, features: np.ndarray) -> list[str]:
        """The most likely class of each row."""
        scores = np.atleast_2d(features) @ self.coef.T + self.intercept
        return [self.classes[i] for i in np.argmax(scores, axis=1)]


@dataclass(frozen=True)
class QuestionRouter:
    """Predicts both GQA types of a question from its sentence embedding."""

    structural: LinearHead
    semantic: LinearHead

    @classmethod
    def train(cls, bank: ExampleBank, matrix: np.ndarray) -> QuestionRouter:
        """Trained on the bank's examples (rows of `matrix`), each labelled by its program."""
        types = [program_types(e.program) for e in bank]
        return cls(
            LinearHead.fit(matrix, [t.structural for t in types]),
            LinearHead.fit(matrix, [t.semantic for t in types]),
        )

    def classify(self, vectors: np.ndarray) -> list[QuestionType]:
        """The predicted types of each embedded question."""
        pairs = zip(self.structural.predict(vectors), self.semantic.predict(vectors))
        return [QuestionType(s, m) for s, m in pairs]  # type: ignore[arg-type]  # labels come from program_types

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        arrays: dict[str, np.ndarray] = {}
        for name, head in (("structural", self.structural), ("semantic", self.semantic)):
            arrays |= {f"{name}_classes": np.asarray(head.classes), f"{name}_coef": head.coef}
            arrays[f"{name}_intercept"] = head.intercept
        with path.open("wb") as handle:
            np.savez(handle, **arrays)  # type: ignore[arg-type]  # numpy's stub reads the first keyword as allow_pickle

    @classmethod
    def load(cls, path: Path) -> QuestionRouter:
        with np.load(path) as data:
            heads = [
                LinearHead(tuple(str(c) for c in data[f"{n}_classes"]), data[f"{n}_coef"], data[f"{n}_intercept"])
                for n in ("structural", "semantic")
            ]
        return cls(*heads)


def router_for(bank: ExampleBank, retriever: Retriever) -> QuestionRouter:
    """The router of this bank and encoder: read from the cache folder, else trained and stored there."""
    if retriever.embedder is None:
        raise ValueError("routing needs the sentence encoder")
    path = cache_dir() / "routing" / f"router-{bank.fingerprint()}-{retriever.embedder.name}.npz"
    if path.exists():
        try:
            return QuestionRouter.load(path)
        except (OSError, ValueError, KeyError):
            pass  # a damaged file is trained again
    router = QuestionRouter.train(bank, retriever.matrix)
    try:
        router.save(path)
    except OSError:
        pass  # a read-only cache trains on each start
    return router


class RoutedTranslator:
    """Translates with the examples and the prompt of the question's predicted structural type.

    One `Translator` per type shares the backend, the fixed examples (so the prompt's cached
    prefix is the same for every type) and the embeddings of the whole bank.
    """

    def __init__(
        self,
        settings: TranslationSettings,
        bank: ExampleBank,
        backend: Backend,
        *,
        retriever: Retriever,
        embedder: Embedder,
        ontology: Ontology | None = None,
        router: QuestionRouter | None = None,
        kinship: WordKinship | None = None,
    ) -> None:
        self.settings, self.embedder = settings, embedder
        self.router = router or router_for(bank, retriever)
        fixed = [e for e in bank if e.source == "project"]
        rows: dict[str, list[int]] = defaultdict(list)
        for row, example in enumerate(bank):
            rows[program_types(example.program).structural].append(row)
        self.translators: dict[str, Translator] = {}
        for structural, members in sorted(rows.items()):
            pool = retriever.restricted(members)
            typed = settings.model_copy(update={"prompt_version": routed_prompt(settings.prompt_version, structural)})
            self.translators[structural] = Translator(
                typed,
                pool.bank,
                backend,
                embedder=embedder,
                retriever=pool,
                ontology=ontology,
                fixed=fixed,
                kinship=kinship,
            )
        # A type with no examples in the bank keeps the whole bank and the plain prompt.
        self.fallback = Translator(
            settings, bank, backend, embedder=embedder, retriever=retriever, ontology=ontology, kinship=kinship
        )

    def route(self, question: str) -> tuple[QuestionType, np.ndarray]:
        """The question's predicted types, and its embedding (reused by retrieval)."""
        vector = self.embedder.encode([question])[0]
        return self.router.classify(vector[None, :])[0], vector

    def translate(
        self, question: str, question_id: str | None = None, exclude_ids: Collection[str] = ()
    ) -> Translation:
        """Translate one question through its type's translator; `details['route']` in the result says which."""
        types, vector = self.route(question)
        translator = self.translators.get(types.structural, self.fallback)
        result = translator.translate(question, question_id, exclude_ids, vector=vector)
        result.route = {"structural": types.structural, "semantic": types.semantic}
        return result
