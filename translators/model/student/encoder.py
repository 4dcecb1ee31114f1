"""The student's reading of a question: the bundled MiniLM's state of each of its tokens.

The same model folder the retrieval embeds questions with, exported once more to ONNX with each
token's last hidden state as its output (`onnx_session`), so training and the service read a
question through one graph.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from translators.model.embeddings import default_model_path
from translators.model.onnx_embedder import onnx_session
from translators.model.threads import model_threads

TOKEN_STATES = "token_embeddings"


class TokenStates:
    """Token states of questions: (batch, tokens, 384) float32 and the (batch, tokens) mask."""

    def __init__(self, path: Path | None = None, *, threads: int | None = None) -> None:
        self.path = path or default_model_path()
        self.threads = threads or model_threads()
        self._loaded = None
        self._lock = threading.Lock()

    def load(self):  # noqa: ANN201 - onnxruntime is an optional import
        """(session, tokenizer, input names), built on first use."""
        with self._lock:
            if self._loaded is None:
                session, tokenizer = onnx_session(self.path, "all-MiniLM-L6-v2", self.threads, TOKEN_STATES)
                self._loaded = session, tokenizer, [i.name for i in session.get_inputs()]
        return self._loaded

    def states(self, questions: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """The states and the mask of a batch of questions, padded to the longest."""
        session, tokenizer, inputs = self.load()
        encodings = tokenizer.encode_batch(list(questions))
        arrays = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        states = session.run(None, {name: arrays[name] for name in inputs})[0]
        return states.astype(np.float32, copy=False), arrays["attention_mask"].astype(bool)
