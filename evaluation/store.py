"""The results store: ``results.jsonl`` (append-only JSON Lines, repaired after a killed write) and ``job.json``.

Results are read line by line (a full GQA val run is 132,062 lines per setting). A record whose
status is ``retryable`` is not a result: a resumed job computes it again and appends the final
record, and readers take the latest record of each (run, setting, questionId).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeGuard

from evaluation.manifest import JobManifest
from evaluation.records import RETRYABLE, ResultJson, result_key
from evaluation.runs import Run

RESULTS_FILE = "results.jsonl"
MANIFEST_FILE = "job.json"


def _is_result(line: object) -> TypeGuard[ResultJson]:
    # What makes a line a result: the key's fields (older files lack later fields).
    return isinstance(line, dict) and "setting" in line and "questionId" in line


def iter_results(path: Path, repair: bool = True) -> Iterator[ResultJson]:
    """The complete records of a results file, read line by line; with `repair`, a torn last line
    (a killed write) is cut off once the whole file has been read.

    Readers that do not own the file (a report written while a job runs) pass ``repair=False``.
    """
    if not path.is_file():
        return
    good = 0
    with path.open("rb") as handle:
        for line in handle:
            if not line.endswith(b"\n"):
                break
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                break
            if _is_result(record):
                yield record
            good += len(line)
    if repair and good < path.stat().st_size:
        with path.open("r+b") as handle:
            handle.truncate(good)


def read_results(path: Path, repair: bool = True) -> list[ResultJson]:
    """The records of a results file, the latest per (run, setting, questionId): a record marked
    ``retryable`` is replaced by the result of the resumed job that computed it again."""
    latest: dict[tuple[str, str, str], ResultJson] = {}
    for record in iter_results(path, repair):
        key = result_key(record)
        latest.pop(key, None)  # re-inserted last: the file's order, with the final record's place
        latest[key] = record
    return list(latest.values())


def final_keys(path: Path, repair: bool = True) -> set[tuple[str, str, str]]:
    """The keys with a final result (not ``retryable``): what a resumed job skips."""
    states: dict[tuple[str, str, str], bool] = {}
    for record in iter_results(path, repair):
        states[result_key(record)] = record.get("status") != RETRYABLE
    return {key for key, final in states.items() if final}


def read_manifest(path: Path) -> JobManifest:
    """The manifest at `path` (an empty one when there is none)."""
    if not path.is_file():
        return {}
    data: JobManifest = json.loads(path.read_text(encoding="utf-8"))
    return data


def write_manifest(path: Path, runs: Sequence[Run], settings: Sequence[str], extra: JobManifest) -> None:
    """Record the job's runs, settings and inputs beside its results."""
    # Runs accumulate: a later invocation with other runs keeps the earlier runs' parameters.
    previous: JobManifest = {}
    try:
        previous = read_manifest(path)
    except (OSError, json.JSONDecodeError):
        previous = {}
    known = dict(previous.get("runs", {}))
    known.update({r.name: r.translation for r in runs})
    manifest: JobManifest = {**previous, **extra}
    manifest["runs"] = known
    # What each run's results came from (bank, prompt, model file): kept per run, like the runs.
    provenance = dict(previous.get("provenance", {})) | dict(extra.get("provenance", {}))
    if provenance:
        manifest["provenance"] = provenance
    manifest["settings"] = list(dict.fromkeys(list(previous.get("settings", [])) + list(settings)))
    # Written beside and renamed over: a job killed mid-write keeps the previous manifest whole.
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    partial.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(partial, path)
