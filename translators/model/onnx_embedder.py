"""The sentence embedder on ONNX Runtime: the same sentence-transformers model, exported once.

On two cores PyTorch spends most of a short question's 10-15 ms in per-operator overhead; ONNX
Runtime runs the same graph in about 3 ms. The graph is exported from the local model folder on
first use (PyTorch is needed then, about a second) and kept in the cache folder under the model
files' digest, so later starts load it in 0.2 s without importing PyTorch. The vectors are the
model's own in float32 (cosine to PyTorch's 1.0 to six places), so stored bank indexes stay valid.
"""

from __future__ import annotations

import hashlib
import json
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from theory.cache import cache_dir, replaced_whole
from theory.errors import ModelNotAvailableError
from translators.model.backends.file_digest import sha256_of
from translators.model.threads import model_threads

# The modules a folder may chain for the export to reproduce `SentenceTransformer.encode`.
_EXPORTABLE_MODULES = {
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
    "sentence_transformers.models.Dense",
}
_EXPORT_LOCK = threading.Lock()


def exportable(folder: Path) -> bool:
    """Whether `folder` is a sentence-transformers model this module can export and tokenize."""
    try:
        modules = json.loads((folder / "modules.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    kinds = {m.get("type", "") for m in modules}
    return (folder / "tokenizer.json").exists() and bool(kinds) and kinds <= _EXPORTABLE_MODULES


def _folder_digest(folder: Path) -> str:
    """A digest of every file of the model folder (weights by their remembered SHA-256)."""
    record = cache_dir() / "models" / "digests.json"
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(folder)).encode())
        digest.update(sha256_of(path, record).encode())
    return digest.hexdigest()[:16]


def _export(folder: Path, target: Path, output: str = "sentence_embedding") -> None:
    """Export the model's whole forward pass (token ids to `output`: the sentence embedding, or each
    token's state, ``token_embeddings``) to `target`."""
    import torch
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu", local_files_only=True).eval()
    names = list(model.tokenizer.model_input_names)

    class Forward(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
            return self.model(dict(zip(names, inputs)))[output]

    sample = model.tokenizer(["a sample question?", "another one"], return_tensors="pt", padding=True)
    out_axes = {0: "batch"} if output == "sentence_embedding" else {0: "batch", 1: "tokens"}
    axes = {name: {0: "batch", 1: "tokens"} for name in names} | {"embedding": out_axes}
    with replaced_whole(target) as temporary, torch.inference_mode(), warnings.catch_warnings():
        # The tracer warns of shapes taken as constants; each is constant for this graph (one
        # attention mask per text), which the tests check against PyTorch on a padded batch.
        warnings.simplefilter("ignore")
        # The TorchScript exporter: it needs no further packages and handles BERT-like encoders.
        torch.onnx.export(
            Forward(),
            tuple(sample[name] for name in names),
            str(temporary),
            input_names=names,
            output_names=["embedding"],
            dynamic_axes=axes,
            opset_version=17,
            dynamo=False,
        )


def _max_length(folder: Path, tokenizer) -> int:  # noqa: ANN001
    try:
        config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(config["max_seq_length"])
    except (OSError, ValueError, KeyError):
        return int((tokenizer.truncation or {}).get("max_length", 512))


def onnx_session(folder: Path, name: str, threads: int, output: str = "sentence_embedding"):  # noqa: ANN201
    """(ONNX Runtime session, tokenizer) of the model folder's forward pass to `output`, the graph
    exported on first use and kept in the cache folder under the folder's digest."""
    try:
        import onnxruntime
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ModelNotAvailableError(f"ONNX Runtime is not installed ({exc.name})") from exc
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
    kind = "" if output == "sentence_embedding" else f".{output}"
    graph = cache_dir() / "models" / f"{safe}-{_folder_digest(folder)}{kind}.onnx"
    with _EXPORT_LOCK:
        if not graph.exists():
            _export(folder, graph, output)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    # Threads that spin after a call would take the cores the language model needs next.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(graph), options, providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # The file's own padding may be to a fixed length; pad a batch to its longest text instead,
    # and truncate where sentence-transformers does.
    padding = tokenizer.padding or {}
    tokenizer.enable_padding(pad_id=padding.get("pad_id", 0), pad_token=padding.get("pad_token", "[PAD]"))
    tokenizer.enable_truncation(_max_length(folder, tokenizer))
    return session, tokenizer


class OnnxSentenceEmbedder:
    """A sentence-transformers model folder run by ONNX Runtime (same `Embedder` protocol)."""

    def __init__(self, path: Path, name: str, *, threads: int | None = None) -> None:
        if not exportable(path):
            raise ModelNotAvailableError(f"{path} is not a sentence-transformers model ONNX Runtime can run here")
        self.path = path
        self.name = name
        self.threads = threads or model_threads()
        self._session = None
        self._tokenizer = None
        self._inputs: list[str] = []
        self._lock = threading.Lock()

    def _load(self):  # noqa: ANN202 - onnxruntime and tokenizers are optional imports
        """(session, tokenizer), built on first use."""
        with self._lock:
            if self._session is None:
                self._session, self._tokenizer = onnx_session(self.path, self.name, self.threads)
                self._inputs = [i.name for i in self._session.get_inputs()]
        return self._session, self._tokenizer

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Normalised embeddings of `texts`, shape (len(texts), dim), float32."""
        session, tokenizer = self._load()
        if len(texts) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = []
        for start in range(0, len(texts), 64):
            encodings = tokenizer.encode_batch(list(texts[start : start + 64]))
            arrays = {
                "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
                "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
                "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
            }
            rows.append(session.run(None, {name: arrays[name] for name in self._inputs})[0])
        vectors = np.concatenate(rows).astype(np.float32, copy=False)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.ascontiguousarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)

    @property
    def dimension(self) -> int:
        """Length of one embedding."""
        width = self._load()[0].get_outputs()[0].shape[-1]
        return width if isinstance(width, int) else int(self.encode(["?"]).shape[1])
