"""Fixtures for every test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from scene.wordnet import chosen_wordnet_dir, use_wordnet_dir
from theory.cache import chosen_cache_dir, use_cache_dir
from translators.threads import threads_setting, use_threads


@pytest.fixture(autouse=True)
def _settings_handed_over_restored() -> Iterator[None]:
    # A test may point the process's cache folder, thread count or WordNet folder elsewhere
    # (directly or through Settings).
    saved = chosen_cache_dir(), threads_setting(), chosen_wordnet_dir()
    yield
    use_cache_dir(saved[0])
    use_threads(saved[1])
    use_wordnet_dir(saved[2])
