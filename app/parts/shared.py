"""Pieces every part of a process shares, loaded once per process."""

from __future__ import annotations

import gc
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import PipelineError

if TYPE_CHECKING:
    from scene.taxonomy import CuratedTaxonomy, WordNetTaxonomy
    from translators.checks.meaning import WordKinship


def bundled_calibration_path() -> Path:
    """The calibration shipped with the service (app/data/calibration.json, made by
    `bench/declines.py --write-calibration` on the validation part of the GQA split)."""
    return Path(str(resources.files("app") / "data" / "calibration.json"))


@lru_cache(maxsize=1)
def word_kinship() -> WordKinship | None:
    """WordNet's synonyms and senses for question coverage (translators.checks.meaning), loaded once per
    process; None where WordNet is missing, and coverage then matches spellings and stems only."""
    from scene.word_kinship import WordNetKinship

    kinship = WordNetKinship()
    try:
        kinship.wordnet  # noqa: B018
    except Exception:  # noqa: BLE001 - the taxonomy reports a missing WordNet by name; coverage degrades
        return None
    return kinship


@lru_cache(maxsize=4)
def load_taxonomy_once(taxonomy_dir: str | None) -> CuratedTaxonomy | WordNetTaxonomy:
    """The curated taxonomy in `taxonomy_dir`, else WordNet (loaded once per process)."""
    from scene.taxonomy import WordNetTaxonomy, load_taxonomy

    if taxonomy_dir:
        try:
            return load_taxonomy(taxonomy_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"taxonomy in {taxonomy_dir} (ASPVQA_TAXONOMY_DIR): {exc}"
            ) from None
    try:
        taxonomy = load_taxonomy()
        # Loads now, so that a missing WordNet is reported here and not mid-request.
        if isinstance(taxonomy, WordNetTaxonomy):
            taxonomy.wordnet  # noqa: B018
        return taxonomy
    except Exception as exc:  # noqa: BLE001 - the WordNet loader's own error names the fix
        raise PipelineError("model_unavailable", f"WordNet: {exc}") from None


def keep_loaded() -> None:
    """Leave what is loaded now (models, WordNet, the bank, the entailment table) out of the
    collector's full passes, which would otherwise walk it all while a request waits."""
    # A full collection in a loaded solver worker took 150-190 ms, four times in 3,000 solves
    # (a request that meets one waits that long); with the loaded objects frozen, 6-37 ms
    # (bench/collection_pause.py).
    gc.collect()
    gc.freeze()
