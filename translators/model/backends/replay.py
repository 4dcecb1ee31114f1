"""A deterministic backend that returns recorded outputs, for tests and reproducible runs.

A recording is JSON Lines of ``{"question", "representation"?, "outputs": [text, ...]}``: the
n-th call for a question (attempt or sample, in call order) returns the n-th output. A question
without a recording is an error, never a made-up answer.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path

from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest


def _key(question: str, representation: str | None) -> tuple[str, str | None]:
    return (" ".join(question.split()), representation)


class ReplayBackend(Backend):
    """Returns recorded outputs in order, per question (and representation, when recorded)."""

    supports_grammar = False

    def __init__(self, recordings: dict[tuple[str, str | None], list[str]] | None = None, name: str = "replay") -> None:
        self.name = name
        self._outputs: dict[tuple[str, str | None], list[str]] = {
            _key(q, r): list(v) for (q, r), v in (recordings or {}).items()
        }
        self._calls: dict[tuple[str, str | None], int] = defaultdict(int)

    @classmethod
    def from_file(cls, path: str | Path) -> ReplayBackend:
        """Load a JSON Lines recording."""
        recordings: dict[tuple[str, str | None], list[str]] = {}
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                recordings[_key(record["question"], record.get("representation"))] = list(record["outputs"])
        return cls(recordings, name=f"replay:{Path(path).name}")

    def add(self, question: str, outputs: list[str], representation: str | None = None) -> None:
        """Record outputs for a question."""
        self._outputs[_key(question, representation)] = list(outputs)

    def generate(self, request: GenerationRequest) -> Generation:
        """The next recorded output for the request's question."""
        start = time.perf_counter()
        key = _key(request.question, request.prompt.representation)
        if key not in self._outputs:
            key = _key(request.question, None)
        outputs = self._outputs.get(key)
        if outputs is None:
            raise BackendError(f"no recorded output for question {request.question!r}")
        index = self._calls[key]
        if index >= len(outputs):
            raise BackendError(f"only {len(outputs)} recorded output(s) for question {request.question!r}")
        self._calls[key] += 1
        return Generation(outputs[index], time.perf_counter() - start, self.name)


class RecordingBackend(Backend):
    """Wraps a backend and appends every output to a JSON Lines recording that replay can read."""

    def __init__(self, inner: Backend, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)
        self.name = inner.name
        self.supports_grammar = inner.supports_grammar
        self._outputs: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._started = False

    def generate(self, request: GenerationRequest) -> Generation:
        generation = self.inner.generate(request)
        key = (request.question, request.prompt.representation)
        self._outputs[key].append(generation.text)
        # One line per call (not the whole recording again): replay keeps the last line per question.
        mode = "a" if self._started else "w"
        self._started = True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open(mode, encoding="utf-8") as handle:
            record = {"question": key[0], "representation": key[1], "outputs": self._outputs[key]}
            handle.write(json.dumps(record) + "\n")
        return generation
