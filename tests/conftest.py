"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from theory.cache import chosen_cache_dir, use_cache_dir


@pytest.fixture(autouse=True)
def _cache_folder_restored() -> Iterator[None]:
    # A test may point the process's cache folder elsewhere (directly or through Settings).
    saved = chosen_cache_dir()
    yield
    use_cache_dir(saved)
