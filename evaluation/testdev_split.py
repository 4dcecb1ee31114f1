"""The test-dev sample split by image, once, before any of its questions were read.

``../shared/data/gqa/questions/testdev_balanced_sample800.json`` holds 800 real GQA test-dev
questions on 152 images. Images are ranked by a seeded digest of their id and the first half of
the ranking (by image count) is the *development* half, used freely; the rest is the *test* half,
scored once, at the end, by ``bench/testdev_score.py``. The ids of both halves are committed in
``bench/data/testdev_split.json``, written by ``python -m evaluation.testdev_split --write`` from
question ids and image ids alone (the question text is never read to make it).

Example:
    >>> split_images(["a", "b", "c", "d"], seed="s") == split_images(["d", "c", "b", "a"], seed="s")
    True
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SEED = "aspvqa-testdev-split-1"
SPLIT_FILE = Path(__file__).resolve().parents[1] / "bench" / "data" / "testdev_split.json"
TESTDEV_FILE_NAME = "testdev_balanced_sample800.json"

Half = Literal["development", "test"]


@dataclass(frozen=True)
class TestdevSplit:
    """Question ids of the development half and of the test half (disjoint by image)."""

    development: tuple[str, ...]
    test: tuple[str, ...]

    def half(self, name: Half) -> tuple[str, ...]:
        """The ids of one half, by its name."""
        return self.development if name == "development" else self.test


def _rank(image_id: str, seed: str) -> str:
    return hashlib.sha256(f"{seed}|{image_id}".encode()).hexdigest()


def split_images(image_ids: Iterable[str], seed: str = SEED) -> tuple[frozenset[str], frozenset[str]]:
    """(development images, test images): the seeded ranking's first half of the images and the rest."""
    ranked = sorted(set(image_ids), key=lambda image: _rank(image, seed))
    cut = len(ranked) // 2
    return frozenset(ranked[:cut]), frozenset(ranked[cut:])


def split_by_image(image_of: Mapping[str, str], seed: str = SEED) -> TestdevSplit:
    """Split question ids (question id -> image id) into halves whose images do not overlap."""
    development_images, _ = split_images(image_of.values(), seed)
    development = tuple(sorted(q for q, image in image_of.items() if image in development_images))
    test = tuple(sorted(q for q, image in image_of.items() if image not in development_images))
    return TestdevSplit(development, test)


def load_split(path: Path = SPLIT_FILE) -> TestdevSplit:
    """The committed split."""
    data = json.loads(path.read_text())
    return TestdevSplit(tuple(data["development"]), tuple(data["test"]))


def _image_ids(testdev_file: Path) -> dict[str, str]:
    records = json.loads(testdev_file.read_text())
    return {str(qid): str(record["imageId"]) for qid, record in records.items()}


def write_split(argv: list[str] | None = None) -> int:
    """Write (or check) the committed split from the shared test-dev file's ids."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gqa-dir", type=Path, default=Path(__file__).resolve().parents[2] / "shared/data/gqa")
    parser.add_argument("--write", action="store_true", help="write bench/data/testdev_split.json")
    args = parser.parse_args(argv)
    image_of = _image_ids(args.gqa_dir / "questions" / TESTDEV_FILE_NAME)
    split = split_by_image(image_of)
    dev_images = {image_of[q] for q in split.development}
    test_images = {image_of[q] for q in split.test}
    summary = {
        "source": f"questions/{TESTDEV_FILE_NAME}",
        "seed": SEED,
        "how": "images ranked by sha256(seed|imageId); the first half of the images is development",
        "images": {"development": len(dev_images), "test": len(test_images)},
        "questions": {"development": len(split.development), "test": len(split.test)},
        "development": list(split.development),
        "test": list(split.test),
    }
    if args.write:
        SPLIT_FILE.write_text(json.dumps(summary, indent=1) + "\n")
    elif load_split() != split:
        print("the committed split differs from the one the seed gives")
        return 1
    print(json.dumps({k: summary[k] for k in ("images", "questions")}))
    return 0


if __name__ == "__main__":
    raise SystemExit(write_split())
