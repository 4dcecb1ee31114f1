"""What an evaluation result was computed with, for the manifest: enough to run it again.

Per run: the language model and its file's SHA-256 (a local GGUF), endpoint (OpenAI-compatible)
or recording (replay), the prompt version, the example bank's digest and the ontology's. For the
job: the input files' sizes and digests, the package versions, the device and the calibration.
The job reads them from the composition root (`app.components.Components`) through `JobParts`.
"""

from __future__ import annotations

import hashlib
import platform
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pydantic import JsonValue

from evaluation.manifest import FileDigest, JobProvenance, ModelIdentity, RunProvenance
from evaluation.runs import Run
from evaluation.workers import GIB, Footprint
from translators.model.backends.registry import STUDENT, is_local_model

if TYPE_CHECKING:
    from translators.examples.bank import ExampleBank
    from translators.translate import TranslationSettings
    from translators.wording.ontology import Ontology

PACKAGES = (
    "aspvqa", "clingo", "pydantic", "ijson", "tenacity", "httpx", "nltk", "numpy", "torch", "transformers",
    "sentence-transformers", "faiss-cpu", "llama_cpp_python", "ray",
)  # fmt: skip
# What one worker holds of its own, beyond the shared memory-mapped model file (estimates): the
# interpreter, WordNet and scene caches; llama.cpp's context (KV cache at 4,096 tokens) and buffers
# for a 1.5B model; the sentence encoder with torch and the bank's embedding matrices; OWL-ViT and
# CLIP base in fp32. bench/worker_plan.py found the translated settings' sum (1.75 GiB) a little
# above what `isolated` workers with the bundled Qwen2.5-Coder-1.5B used over 20 questions: 1.50-1.58
# GiB of private memory (RssAnon) at peak, plus 1.22 GiB of file-backed pages (the 1.04 GiB model
# file and libraries), shared by every worker but counted in each one's peak RSS (2.7-2.8 GiB).
# The image models' share was not measured.
BASE_BYTES = GIB // 2
LLAMA_CONTEXT_BYTES = GIB * 3 // 4
EMBEDDER_BYTES = GIB // 2
VISION_BYTES = GIB * 3 // 2


class Device(Protocol):
    """Where the models run (`app.devices.DeviceChoice` fits)."""

    @property
    def llama_gpu_layers(self) -> int: ...

    def to_json(self) -> Mapping[str, JsonValue]: ...


class JobParts(Protocol):
    """What the manifest reads of the composition root (`app.components.Components` fits)."""

    @property
    def bank(self) -> ExampleBank: ...

    @property
    def ontology(self) -> Ontology: ...

    @property
    def device(self) -> Device: ...

    def translation_settings(self, overrides: Mapping[str, JsonValue] | None = None) -> TranslationSettings: ...


def file_digest(path: str | Path | None) -> FileDigest | None:
    """Path, size and SHA-256 of a file (None for none; a folder: its path only)."""
    if path is None:
        return None
    file = Path(path)
    if not file.is_file():
        return {"path": str(file)}
    with file.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256").hexdigest()
    return {"path": str(file), "bytes": file.stat().st_size, "sha256": digest}


def package_versions() -> dict[str, str | None]:
    """Installed versions of the packages a result depends on (None: not installed)."""
    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def model_identity(name: str) -> ModelIdentity:
    """The language model `name` as a rerun needs it: a local file's digest, an endpoint, a recording."""
    if is_local_model(name):
        from translators.model.backends.models import model_path

        try:
            return {"name": name, "file": file_digest(model_path(name.removeprefix("local:")))}
        except Exception as exc:  # noqa: BLE001 - a missing model is reported by the job itself
            return {"name": name, "file": None, "error": str(exc)}
    if name.startswith("replay:"):
        return {"name": name, "recording": file_digest(name.removeprefix("replay:"))}
    if name == STUDENT:
        from translators.model.student.writer import WEIGHTS_DIR

        return {"name": name, "file": file_digest(WEIGHTS_DIR / "weights.npz")}
    if name.startswith("openai:"):
        model, _, rest = name.removeprefix("openai:").partition("@")
        return {"name": name, "model": model, "endpoint": rest.partition("#")[0]}
    return {"name": name}


def run_provenance(components: JobParts, run: Run) -> RunProvenance:
    """What a translated run's results depend on besides its parameters."""
    options = components.translation_settings(run.translation)
    bank = components.bank
    return {
        "model": model_identity(options.llm),
        "prompt_version": options.prompt_version,
        "bank": {
            "path": str(bank.path) if bank.path else None,
            "examples": len(bank),
            "digest": bank.fingerprint(),
            "file": file_digest(bank.path) if bank.path and Path(bank.path).is_file() else None,
        },
        "ontology": components.ontology.digest(),
        "schema_decoding": options.schema_decoding,
    }


def job_provenance(
    components: JobParts,
    runs: Sequence[Run],
    translated: bool,
    inputs: dict[str, str | None],
    calibration: str | None = None,
) -> JobProvenance:
    """The manifest's provenance: per run (translated settings only), inputs, packages, device and
    the `calibration` file."""
    return {
        "provenance": {run.name: run_provenance(components, run) for run in runs} if translated else {},
        "input_files": {name: file_digest(path) for name, path in inputs.items() if path},
        "packages": package_versions(),
        "device": components.device.to_json(),
        # The calibration the confidence columns' abstentions come from (translated settings only).
        "calibration": file_digest(calibration) if translated else None,
    }


def job_footprint(components: JobParts, runs: Sequence[Run], translated: bool, images: bool) -> Footprint:
    """What one worker of the job loads, for the worker plan."""
    names = {components.translation_settings(r.translation).llm for r in runs} if translated else set()
    local = [n for n in names if is_local_model(n)]
    shared = 0
    for name in local:
        from translators.model.backends.models import model_path

        try:  # memory-mapped by llama.cpp: in memory once, whatever the number of workers
            shared += model_path(name.removeprefix("local:")).stat().st_size
        except Exception:  # noqa: BLE001 - a missing model is reported by the job itself
            continue
    per_worker = BASE_BYTES
    per_worker += LLAMA_CONTEXT_BYTES * len(local) + (EMBEDDER_BYTES if translated else 0)
    per_worker += VISION_BYTES if images else 0
    offloaded = bool(local) and components.device.llama_gpu_layers != 0
    return Footprint(
        uses_model=bool(local) or images, shared_bytes=shared, per_worker_bytes=per_worker, offloaded=offloaded
    )
