"""Choosing the worked examples a prompt shows: embedding similarity, word overlap, or random.

`Retriever.retrieve` returns up to `k` examples, most similar first. With `cover_operators`, it
then adds, for every operation none of them uses, the most similar example that uses it. The
target question itself (by id, by the ids the caller excludes, by exact text unless the example is a
generated one, and any example that lists an excluded id among its `equivalent` paraphrases) is
never shown.

With a `templater` (translators.wording.templating), embedding similarity is mostly that of the questions'
templates (ontology words replaced by their roles: "is there a thing that is color"), plus
`raw_weight` times that of the questions themselves, so examples of the same form rank first
whatever their words; on the tuning part of the GQA split this put an example with the gold
program's skeleton among the top 3 for 87 % of questions, against 66 % for plain similarity (first
bundled bank; 88 % with the current one). Ranking by word pairs of the templates on top of this
was tried and did not help (88 % either way), so word order is left to the embeddings.

Jaccard scores over the whole bank are one `bincount` over an inverted index. Embedding scores
are one matrix-vector product for banks up to `EXACT_LIMIT` examples; above that, a matrix-vector
product over every row is memory-bound (~40 ms for 100,000 x 384 floats on 2 cores), so faiss'
inverted-file index finds the nearest candidates and only they are scored exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from theory.cache import replaced_whole
from theory.operations import OPERATIONS
from translators.examples.bank import Example, ExampleBank, normalise_question
from translators.model.embeddings import Embedder, index_paths, load_index, save_index
from translators.model.sampling import Sampling

_WORD = re.compile(r"[a-z0-9]+")
EXACT_LIMIT = 20_000  # above this many examples, embedding retrieval goes through an ANN index
RAW_WEIGHT = 0.25  # weight of plain question similarity beside template similarity (chosen on the tuning part)


@dataclass(frozen=True)
class Retrieved:
    """One chosen example, its score and why it was chosen (`similar` or `cover:<op>`)."""

    example: Example
    score: float
    reason: str = "similar"


def words(text: str) -> set[str]:
    """The lower-case word set of a text (for Jaccard overlap)."""
    return set(_WORD.findall(text.lower()))


class QuestionTemplater(Protocol):
    """A question's template (`translators.wording.templating.Templater`); `key` names the templating in
    stored indexes, so that another ontology's templates are not read back."""

    key: str

    def __call__(self, question: str) -> str: ...


class Retriever:
    """Retrieval over one bank; embeddings are computed lazily (or read from the bank's index)."""

    def __init__(
        self,
        bank: ExampleBank,
        embedder: Embedder | None = None,
        matrix: np.ndarray | None = None,
        templater: QuestionTemplater | None = None,
        raw_weight: float = RAW_WEIGHT,
    ) -> None:
        self.bank = bank
        self.embedder = embedder
        self._matrix = matrix
        self.templater = templater
        self.raw_weight = raw_weight
        self._template_matrix: np.ndarray | None = None
        n = len(bank)
        self._duplicates: dict[str, list[int]] = defaultdict(list)
        # Paraphrases: an example listing a question id as equivalent is that question in other words.
        self._paraphrases: dict[str, list[int]] = defaultdict(list)
        rows_by_op: dict[str, list[int]] = defaultdict(list)
        # Inverted index for Jaccard: word -> rows, plus each example's word count.
        postings: dict[str, list[int]] = defaultdict(list)
        sizes = np.zeros(n, dtype=np.float32)
        for row, example in enumerate(bank):
            # A generated example with the target's very words is the template doing its job, not a leak.
            if example.source != "generated":
                self._duplicates[normalise_question(example.question)].append(row)
            for other in example.equivalent:
                self._paraphrases[other].append(row)
            for op in example.operations:
                rows_by_op[op].append(row)
            tokens = words(example.question)
            sizes[row] = len(tokens)
            for token in tokens:
                postings[token].append(row)
        self._op_rows = {op: np.asarray(rows_by_op.get(op, []), dtype=np.int64) for op in sorted(OPERATIONS)}
        self._postings = {t: np.asarray(r, dtype=np.int64) for t, r in postings.items()}
        self._sizes = sizes
        self._ann = None
        self.nprobe = 16
        self.exact_limit = EXACT_LIMIT

    def restricted(self, rows: Sequence[int]) -> Retriever:
        """A retriever over the examples at `rows` only (in that order), sharing this one's embeddings:
        nothing is encoded again. Routing uses it to show only examples of one question type."""
        index = np.asarray(rows, dtype=np.int64)
        subset = ExampleBank([self.bank[int(r)] for r in index])
        matrix = self.matrix[index] if self.embedder is not None or self._matrix is not None else None
        view = Retriever(subset, self.embedder, matrix=matrix, templater=self.templater, raw_weight=self.raw_weight)
        if self.templater is not None and self.embedder is not None:
            view._template_matrix = np.ascontiguousarray(self.template_matrix[index])
        view.nprobe, view.exact_limit = self.nprobe, self.exact_limit
        return view

    # --- scores -----------------------------------------------------------------------------
    @property
    def matrix(self) -> np.ndarray:
        """The bank's embedding matrix (rows L2-normalised)."""
        if self._matrix is None:
            if self.embedder is None:
                raise ValueError("embedding retrieval needs an embedder")
            fingerprint = self.bank.fingerprint()
            stored = load_index(self.bank.path, self.embedder.name, fingerprint) if self.bank.path else None
            if stored is None or len(stored) != len(self.bank):
                stored = self.embedder.encode(self.bank.questions)
                if self.bank.path is not None:
                    save_index(self.bank.path, self.embedder.name, fingerprint, stored)
            self._matrix = np.ascontiguousarray(stored, dtype=np.float32)
        return self._matrix

    def _stored(self, texts: Callable[[], list[str]], name_suffix: str) -> np.ndarray:
        if self.embedder is None:
            raise ValueError("embedding retrieval needs an embedder")
        name = self.embedder.name + name_suffix
        fingerprint = self.bank.fingerprint()
        stored = load_index(self.bank.path, name, fingerprint) if self.bank.path else None
        if stored is None or len(stored) != len(self.bank):
            stored = self.embedder.encode(texts())
            if self.bank.path is not None:
                save_index(self.bank.path, name, fingerprint, stored)
        return np.ascontiguousarray(stored, dtype=np.float32)

    @property
    def template_matrix(self) -> np.ndarray:
        """The embeddings of the examples' templates (only with a templater)."""
        if self.templater is None:
            raise ValueError("template retrieval needs a templater")
        if self._template_matrix is None:
            templater = self.templater
            key = templater.key
            self._template_matrix = self._stored(lambda: [templater(q) for q in self.bank.questions], f".{key}")
        return self._template_matrix

    def _vectors(self, question: str, vector: np.ndarray | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The question's embedding and, with a templater, its template's (one encoder call)."""
        if self.embedder is None and (vector is None or self.templater is not None):
            raise ValueError("embedding retrieval needs an embedder")
        if self.templater is None:
            vector = self.embedder.encode([question])[0] if vector is None else vector  # type: ignore[union-attr]  # checked above
            return np.asarray(vector, dtype=np.float32), None
        if vector is None:
            both = self.embedder.encode([question, self.templater(question)])  # type: ignore[union-attr]
            return np.asarray(both[0], dtype=np.float32), np.asarray(both[1], dtype=np.float32)
        return np.asarray(vector, dtype=np.float32), np.asarray(
            self.embedder.encode([self.templater(question)])[0],  # type: ignore[union-attr]
            dtype=np.float32,
        )

    def embedding_scores(self, question: str, vector: np.ndarray | None = None) -> np.ndarray:
        """Similarity of the question with every example (template-weighted with a templater)."""
        vector, template = self._vectors(question, vector)
        if template is None:
            return self.matrix @ vector
        return self.template_matrix @ template + self.raw_weight * (self.matrix @ vector)

    def jaccard_scores(self, question: str) -> np.ndarray:
        """Jaccard word overlap of the question with every example."""
        tokens = words(question)
        lists = [self._postings[t] for t in tokens if t in self._postings]
        n = len(self.bank)
        if not lists:
            return np.zeros(n, dtype=np.float32)
        shared = np.bincount(np.concatenate(lists), minlength=n).astype(np.float32)
        union = len(tokens) + self._sizes - shared
        return shared / np.maximum(union, 1.0)

    def random_scores(self, question: str, seed: int) -> np.ndarray:
        """Reproducible random scores: the same question and seed give the same examples."""
        digest = hashlib.sha256(f"{seed}:{question}".encode()).digest()
        rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
        return rng.random(len(self.bank), dtype=np.float32)

    # --- selection --------------------------------------------------------------------------
    def retrieve(
        self,
        question: str,
        k: int,
        sampling: Sampling | str = Sampling.BERT,
        *,
        cover_operators: bool = False,
        exclude_ids: Collection[str] = (),
        seed: int = 0,
        vector: np.ndarray | None = None,
    ) -> list[Retrieved]:
        """Up to `k` examples, most similar first, then (optionally) operation-covering ones."""
        sampling = Sampling(sampling)
        if len(self.bank) == 0 or k < 0:
            return []
        if sampling is Sampling.BERT and len(self.bank) > self.exact_limit:
            return self._retrieve_approximate(question, k, cover_operators, exclude_ids, vector)
        if sampling is Sampling.BERT:
            scores = self.embedding_scores(question, vector)
        elif sampling is Sampling.JACCARD:
            scores = self.jaccard_scores(question)
        else:
            scores = self.random_scores(question, seed)
        scores = np.array(scores, dtype=np.float32, copy=True)
        banned = self._banned(question, exclude_ids)
        if banned:
            scores[np.asarray(banned, dtype=np.int64)] = -np.inf
        available = int(np.isfinite(scores).sum())
        take = min(k, available)
        chosen: list[Retrieved] = []
        if take > 0:
            top = np.argpartition(-scores, take - 1)[:take] if take < len(scores) else np.arange(len(scores))
            top = top[np.lexsort((top, -scores[top]))]  # score descending, then bank order: deterministic
            chosen = [Retrieved(self.bank[int(r)], float(scores[r])) for r in top]
        if cover_operators:
            chosen += self._cover(scores, chosen)
        return chosen

    def _banned(self, question: str, exclude_ids: Collection[str]) -> list[int]:
        """Rows never shown: the question's own text, the excluded ids and their paraphrases."""
        banned = list(self._duplicates.get(normalise_question(question), ()))
        banned += [row for row in map(self.bank.index_of, exclude_ids) if row is not None]
        for excluded in exclude_ids:
            banned += self._paraphrases.get(excluded, ())
        return banned

    def _ann_index(self):  # noqa: ANN202 - faiss is an optional import
        if self._ann is None:
            import faiss

            # With a templater the search runs on templates, the dominant part of the score.
            matrix = self.template_matrix if self.templater is not None else self.matrix
            lists = int(min(4096, max(64, 4 * np.sqrt(len(matrix)))))
            # Training takes 1.5 s for the bundled bank: the trained index is kept beside the bank's
            # embedding index and read back (0.1 s) while the bank, the embeddings and faiss are the same.
            stored = self._ann_paths()
            identity = {"fingerprint": self.bank.fingerprint(), "rows": len(matrix), "lists": lists}
            identity["faiss"] = faiss.__version__
            index = _read_ann(stored, identity) if stored else None
            if index is None:
                quantizer = faiss.IndexFlatIP(matrix.shape[1])
                index = faiss.IndexIVFFlat(quantizer, matrix.shape[1], lists, faiss.METRIC_INNER_PRODUCT)
                rng = np.random.default_rng(0)
                sample = matrix[rng.choice(len(matrix), size=min(len(matrix), 40 * lists), replace=False)]
                index.train(sample)
                index.add(matrix)
                if stored:
                    _write_ann(stored, identity, index)
            index.nprobe = self.nprobe
            self._ann = index
        return self._ann

    def _ann_paths(self) -> tuple[Path, Path] | None:
        """Where this bank's trained ANN index and its identity are kept (None: a bank without a file)."""
        if self.bank.path is None or self.embedder is None:
            return None
        name = self.embedder.name + (f".{self.templater.key}" if self.templater else "")
        matrix_path, _ = index_paths(self.bank.path, name)
        return matrix_path.with_suffix(".ivf"), matrix_path.with_suffix(".ivf.json")

    def _retrieve_approximate(
        self, question: str, k: int, cover_operators: bool, exclude_ids: Collection[str], vector: np.ndarray | None
    ) -> list[Retrieved]:
        vector, template = self._vectors(question, vector)
        banned = set(self._banned(question, exclude_ids))
        pool = max(256 if cover_operators else 64, 8 * k)
        _, rows = self._ann_index().search((template if template is not None else vector)[None, :], pool + len(banned))
        found = np.asarray([int(r) for r in rows[0] if r >= 0 and int(r) not in banned], dtype=np.int64)
        exact = _LazyScores(self.matrix, vector, banned, self._template_matrix, template, self.raw_weight)
        scores = exact[found] if len(found) else np.zeros(0, dtype=np.float32)
        order = np.lexsort((found, -scores))  # exact score descending, then bank order
        candidates = [(int(found[i]), float(scores[i])) for i in order]
        chosen = [Retrieved(self.bank[r], s) for r, s in candidates[:k]]
        if cover_operators:
            chosen += self._cover(exact, chosen, candidates[k:])
        return chosen

    def _cover(
        self, scores: np.ndarray | _LazyScores, chosen: list[Retrieved], pool: Sequence[tuple[int, float]] = ()
    ) -> list[Retrieved]:
        """For each operation not yet used, the best example using it: from `pool` (rows with
        scores, best first) when one there uses it, else by scoring every example that uses it."""
        covered: set[str] = set()
        used = {self.bank.index_of(r.example.id) for r in chosen}
        for r in chosen:
            covered |= r.example.operations
        extra: list[Retrieved] = []
        for op in sorted(OPERATIONS):
            if op in covered:
                continue
            picked = next(((r, sc) for r, sc in pool if r not in used and op in self.bank[r].operations), None)
            if picked is not None:
                example = self.bank[picked[0]]
                extra.append(Retrieved(example, picked[1], f"cover:{op}"))
                used.add(picked[0])
                covered |= example.operations
                continue
            rows = self._op_rows[op]
            if len(rows) == 0:
                continue
            candidate_scores = np.array(scores[rows], dtype=np.float32)
            if used:
                candidate_scores[np.isin(rows, [u for u in used if u is not None])] = -np.inf
            best = int(np.argmax(candidate_scores))
            if not np.isfinite(candidate_scores[best]):
                continue
            row = int(rows[best])
            example = self.bank[row]
            extra.append(Retrieved(example, float(scores[row]), f"cover:{op}"))
            used.add(row)
            covered |= example.operations
        return extra


class _LazyScores:
    """Exact similarities computed only for the rows asked for (large banks)."""

    def __init__(
        self,
        matrix: np.ndarray,
        vector: np.ndarray,
        banned: set[int],
        template_matrix: np.ndarray | None = None,
        template: np.ndarray | None = None,
        raw_weight: float = 1.0,
    ) -> None:
        self.matrix, self.vector, self.banned = matrix, vector, banned
        self.template_matrix, self.template, self.raw_weight = template_matrix, template, raw_weight

    def __getitem__(self, rows):  # noqa: ANN001, ANN204 - numpy-style indexing
        single = np.isscalar(rows)
        rows = np.atleast_1d(np.asarray(rows, dtype=np.int64))
        values = self.matrix[rows] @ self.vector
        if self.template is not None:
            values = self.template_matrix[rows] @ self.template + self.raw_weight * values
        if self.banned:
            values[np.isin(rows, list(self.banned))] = -np.inf
        return float(values[0]) if single else values


def _read_ann(paths: tuple[Path, Path], identity: dict[str, object]):  # noqa: ANN202 - a faiss index or None
    """The stored ANN index when it was built for `identity`, else None."""
    import faiss

    index_path, meta_path = paths
    try:
        if json.loads(meta_path.read_text(encoding="utf-8")) != identity:
            return None
        return faiss.read_index(str(index_path))
    except (OSError, ValueError, RuntimeError):
        return None  # absent, stale or unreadable: trained again


def _write_ann(paths: tuple[Path, Path], identity: dict[str, object], index) -> None:  # noqa: ANN001
    """Store a trained ANN index (whole or not at all); a folder that is not writable is no error."""
    import faiss

    index_path, meta_path = paths
    try:
        with replaced_whole(index_path) as temporary:
            faiss.write_index(index, str(temporary))
        meta_path.write_text(json.dumps(identity), encoding="utf-8")
    except (OSError, RuntimeError):
        return
