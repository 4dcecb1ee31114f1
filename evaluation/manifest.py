"""The layout of ``job.json``, the manifest beside a job's results: its runs, settings and provenance.

The manifest accumulates over the invocations of one job, so every key may be missing from an
older or a partial file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NotRequired, TypedDict

from pydantic import JsonValue

from evaluation.workers import WorkerPlanJson


class FileDigest(TypedDict):
    """A file's path, size and SHA-256 (a folder or a missing file: its path only)."""

    path: str
    bytes: NotRequired[int]
    sha256: NotRequired[str]


class ModelIdentity(TypedDict):
    """A language model as a rerun needs it: a local file, a recording or an endpoint."""

    name: str
    file: NotRequired[FileDigest | None]
    error: NotRequired[str]
    recording: NotRequired[FileDigest | None]
    model: NotRequired[str]
    endpoint: NotRequired[str]


class BankProvenance(TypedDict):
    """The example bank a run's prompts were built from."""

    path: str | None
    examples: int
    digest: str
    file: FileDigest | None


class RunProvenance(TypedDict):
    """What a translated run's results depend on besides its parameters."""

    model: ModelIdentity
    prompt_version: str
    bank: BankProvenance
    ontology: str
    schema_decoding: bool


class JobProvenance(TypedDict):
    """The manifest's provenance keys."""

    provenance: dict[str, RunProvenance]
    input_files: dict[str, FileDigest | None]
    packages: dict[str, str | None]
    device: Mapping[str, JsonValue]
    calibration: FileDigest | None


class JobManifest(TypedDict, total=False):
    """``job.json``: the job's inputs, runs (name -> translation parameters), settings and provenance."""

    questions: str
    scene_graphs: str | None
    images: str | None
    taxonomy: str | None
    grid: str | None
    hypernym_levels: int
    limit: int | None
    worker_plan: WorkerPlanJson
    runs: dict[str, dict[str, JsonValue]]
    settings: list[str]
    provenance: dict[str, RunProvenance]
    input_files: dict[str, FileDigest | None]
    packages: dict[str, str | None]
    device: Mapping[str, JsonValue]
    calibration: FileDigest | None
