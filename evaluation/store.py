"""The results store: ``results.jsonl`` (append-only JSON Lines, repaired after a killed write) and ``job.json``."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluation.runs import Run

RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "job.json"


def read_results(path: Path, repair: bool = True) -> list[dict[str, Any]]:
    """The complete records of a results file; with `repair`, a torn last line (a killed write) is cut off.

    Readers that do not own the file (a report written while a job runs) pass ``repair=False``.
    """
    if not path.is_file():
        return []
    data = path.read_bytes()
    records: list[dict[str, Any]] = []
    good = 0
    offset = 0
    for line in data.splitlines(keepends=True):
        offset += len(line)
        if not line.endswith(b"\n"):
            break
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            break
        if isinstance(record, dict) and "setting" in record and "questionId" in record:
            records.append(record)
        good = offset
    if repair and good < len(data):
        with path.open("r+b") as handle:
            handle.truncate(good)
    return records


def write_manifest(path: Path, runs: Sequence[Run], settings: Sequence[str], extra: Mapping[str, Any]) -> None:
    """Record the job's runs, settings and inputs beside its results."""
    # Runs accumulate: a later invocation with other runs keeps the earlier runs' parameters.
    previous: dict[str, Any] = {}
    if path.is_file():
        try:
            previous = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            previous = {}
    known = dict(previous.get("runs", {}))
    known.update({r.name: r.translation for r in runs})
    manifest = dict(previous) | dict(extra)
    manifest["runs"] = known
    manifest["settings"] = list(dict.fromkeys(list(previous.get("settings", [])) + list(settings)))
    path.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
