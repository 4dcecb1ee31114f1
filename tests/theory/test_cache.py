"""One cache folder setting: ASPVQA_CACHE_DIR, with the older ASPVQA_CACHE read when it is unset."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.config import Settings
from theory.cache import cache_dir, replaced_whole


def test_the_cache_folder_setting_and_its_deprecated_alias(monkeypatch, tmp_path):
    # Read once, by the settings, which hand the folder to every layer.
    monkeypatch.delenv("ASPVQA_CACHE_DIR", raising=False)
    monkeypatch.setenv("ASPVQA_CACHE", str(tmp_path / "old"))
    with pytest.warns(DeprecationWarning, match="ASPVQA_CACHE_DIR"):
        Settings()
    assert cache_dir() == tmp_path / "old"
    monkeypatch.setenv("ASPVQA_CACHE_DIR", str(tmp_path / "new"))
    Settings()
    assert cache_dir() == tmp_path / "new"
    monkeypatch.delenv("ASPVQA_CACHE_DIR")
    monkeypatch.delenv("ASPVQA_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    Settings()
    assert cache_dir() == Path(tmp_path / "xdg" / "aspvqa")


def test_a_file_is_replaced_whole_or_not_at_all(tmp_path):
    target = tmp_path / "deeper" / "index.bin"
    with replaced_whole(target) as temporary:
        assert temporary.parent == target.parent and not target.exists()
        temporary.write_bytes(b"new")
    assert target.read_bytes() == b"new"
    with pytest.raises(RuntimeError), replaced_whole(target) as temporary:
        temporary.write_bytes(b"half")
        raise RuntimeError("the writer failed")
    assert target.read_bytes() == b"new"  # the old file stays
    assert sorted(p.name for p in target.parent.iterdir()) == ["index.bin"]  # no temporary left
