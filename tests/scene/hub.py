"""A stand-in for the model hub: the hub client's functions as transformers calls them, serving
saved folders into a test's own hub cache, and its errors; nothing here reaches a network."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import huggingface_hub
import pytest
from huggingface_hub import constants
from huggingface_hub.errors import LocalEntryNotFoundError, OfflineModeIsEnabled, RepositoryNotFoundError

import scene.models as models

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def empty_hub_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty hub cache for one test (the client reads the folder from its constants at each call)."""
    folder = tmp_path / "hub"
    folder.mkdir()
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(folder))
    return folder


def go_online(monkeypatch: pytest.MonkeyPatch) -> None:
    """Offline mode off, for one test that stands in for the hub (every way out is replaced by the test)."""
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(huggingface_hub, "get_hf_file_metadata", refuse)  # a test that expects the hub asked says so
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # refused at once if anything slips through
    import transformers.utils.hub as transformers_hub

    monkeypatch.setattr(transformers_hub, "_hf_api", _NoHubApi())  # what transformers' hf_api() hands out


def refuse(*args: Any, **kwargs: Any) -> None:
    raise AssertionError("the model hub was asked")


def _cache_file(cache: Path, repo_id: str, filename: str, source: Path) -> str:
    storage = cache / f"models--{repo_id.replace('/', '--')}"
    (storage / "refs").mkdir(parents=True, exist_ok=True)
    (storage / "refs" / "main").write_text(COMMIT)
    target = storage / "snapshots" / COMMIT / filename
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return str(target)


def fill_cache(cache: Path, repo_id: str, folder: Path) -> None:
    """Put a saved model into the hub cache's layout, as a download would."""
    for file in folder.iterdir():
        _cache_file(cache, repo_id, file.name, file)


class _NoHubApi:
    """transformers' other questions to the hub (revisions, template listings): the hub is not there."""

    def snapshot_download(self, *args: Any, **kwargs: Any) -> str:
        raise LocalEntryNotFoundError("the stand-in hub lists nothing")

    def __getattr__(self, name: str) -> Callable[..., Any]:
        return raising(OfflineModeIsEnabled(f"the stand-in hub answers no {name}"))


class StandInHub:
    """The hub client's download functions as transformers calls them, serving saved folders."""

    def __init__(self, cache: Path, repos: dict[str, Path]) -> None:
        self.cache, self.repos = cache, repos
        self.downloads: list[tuple[str, str]] = []
        self.bars: list[Any] = []

    def hf_hub_download(self, repo_id: str, filename: str, **kwargs: Any) -> str:
        from huggingface_hub.errors import EntryNotFoundError

        if kwargs.get("local_files_only"):  # the client's answer from its cache
            cached = self.cache / f"models--{repo_id.replace('/', '--')}" / "snapshots" / COMMIT / filename
            if not cached.is_file():
                raise LocalEntryNotFoundError(f"{filename} of {repo_id} is not cached")
            return str(cached)
        source = self.repos[repo_id] / filename
        if not source.is_file():
            raise EntryNotFoundError(f"{filename} is not in {repo_id}")
        if kwargs.get("tqdm_class") is not None:
            bar = kwargs["tqdm_class"](total=source.stat().st_size, desc=filename, unit="B", unit_scale=True)
            bar.update(source.stat().st_size)
            bar.close()
            self.bars.append(kwargs["tqdm_class"])
        self.downloads.append((repo_id, filename))
        return _cache_file(self.cache, repo_id, filename, source)

    def snapshot_download(self, repo_id: str, allow_patterns: list[str] | None = None, **kwargs: Any) -> str:
        for name in allow_patterns or [p.name for p in self.repos[repo_id].iterdir()]:
            if (self.repos[repo_id] / name).is_file():
                self.hf_hub_download(repo_id, name, **kwargs)
        return str(self.cache)

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        import transformers.utils.hub as transformers_hub

        monkeypatch.setattr(transformers_hub, "hf_hub_download", self.hf_hub_download)
        monkeypatch.setattr(transformers_hub, "snapshot_download", self.snapshot_download)
        monkeypatch.setattr(models, "reach_hub", lambda repo_id: None if repo_id in self.repos else _missing(repo_id))


def response(status: int) -> httpx2.Response:
    return httpx2.Response(status, request=httpx2.Request("HEAD", "http://hub.test/config.json"))


def _missing(repo_id: str) -> None:
    raise RepositoryNotFoundError(f"404: {repo_id}", response=response(404))


def raising(error: BaseException) -> Callable[..., None]:
    def fail(*args: Any, **kwargs: Any) -> None:
        raise error

    return fail
