"""Fixtures for every test."""

from __future__ import annotations

import os
from collections.abc import Iterator

# Tests never touch the network: the vision models are read from local files only, by the
# project's setting and by the hub client's own offline mode (read when the client is imported,
# so set before anything imports it; child processes inherit both). A test of the download path
# turns them off itself, around a stand-in for the hub.
os.environ["ASPVQA_OFFLINE"] = "1"
os.environ["HF_HUB_OFFLINE"] = "1"

import pytest

from scene.wordnet import chosen_wordnet_dir, use_wordnet_dir
from theory.cache import chosen_cache_dir, use_cache_dir
from translators.model.threads import threads_setting, use_threads

# The stand-in vision-language model server (`vlm_server`), for the scene and the service tests.
pytest_plugins = ["tests.scene.vlm_server"]


@pytest.fixture(autouse=True)
def _settings_handed_over_restored() -> Iterator[None]:
    # A test may point the process's cache folder, thread count or WordNet folder elsewhere
    # (directly or through Settings).
    saved = chosen_cache_dir(), threads_setting(), chosen_wordnet_dir()
    yield
    use_cache_dir(saved[0])
    use_threads(saved[1])
    use_wordnet_dir(saved[2])
