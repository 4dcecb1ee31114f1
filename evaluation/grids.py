"""Experiment grids as configuration files (TOML or JSON): which translation settings to run.

A grid names the evaluation settings, parameters every run shares (``fixed``), and either axes
whose Cartesian product gives the runs (``axes``: examples k x sampling x cover_operators, the
representations, the models...) or an explicit list of runs (``runs``), or both::

    name = "arq1-examples"
    settings = ["translation", "isolated"]
    [fixed]
    representation = "nested"
    [axes]
    examples = [0, 2, 4, 8]
    sampling = ["bert", "jaccard", "random"]
    cover_operators = [false, true]

Parameters are those of `translators.translate.TranslationSettings` (representation, examples,
sampling, cover_operators, llm, prompt_version, constrained, samples, temperature, ...); every run
is validated against it, so a typo fails when the grid is read, not hours into a job.
"""

from __future__ import annotations

import itertools
import json
import tomllib
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError, field_validator

from evaluation.errors import EvaluationError
from evaluation.job import Run, run_name, validate_settings
from translators.translate import TranslationSettings

GRID_DIR = Path(__file__).parent / "grids"


class GridError(EvaluationError, ValueError):
    """A grid file that cannot be read or names unknown parameters or values."""


class GridRun(BaseModel):
    """One explicit run of a grid."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None


class Grid(BaseModel):
    """An experiment grid file."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    settings: list[str] = Field(default_factory=list)
    fixed: dict[str, JsonValue] = Field(default_factory=dict)
    axes: dict[str, list[JsonValue]] = Field(default_factory=dict)
    runs: list[GridRun] = Field(default_factory=list)

    @field_validator("settings")
    @classmethod
    def _known_settings(cls, value: list[str]) -> list[str]:
        return list(validate_settings(value)) if value else value

    @field_validator("axes")
    @classmethod
    def _non_empty_axes(cls, value: dict[str, list[JsonValue]]) -> dict[str, list[JsonValue]]:
        empty = [k for k, v in value.items() if not v]
        if empty:
            raise ValueError(f"axes without values: {', '.join(empty)}")
        return value

    def expand(self, base: Mapping[str, JsonValue] | None = None) -> list[Run]:
        """The grid's runs: `base` <- fixed <- each axes combination, then the explicit runs."""
        points: list[tuple[str | None, dict[str, JsonValue]]] = []
        if self.axes or not self.runs:
            keys = list(self.axes)
            for values in itertools.product(*(self.axes[k] for k in keys)):
                points.append((None, dict(zip(keys, values))))
        for run in self.runs:
            extra = dict(run.model_extra or {})
            points.append((run.name, extra))
        runs: list[Run] = []
        for name, point in points:
            params = dict(base or {}) | self.fixed | point
            check_parameters(params)
            runs.append(Run(name or run_name(params), params))
        names = [r.name for r in runs]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise GridError(f"grid {self.name!r} gives several runs named {', '.join(duplicates)}")
        return runs


def check_parameters(params: Mapping[str, JsonValue]) -> None:
    """Raise `GridError` unless `params` are valid translation settings."""
    unknown = sorted(set(params) - set(TranslationSettings.model_fields))
    if unknown:
        known = ", ".join(sorted(TranslationSettings.model_fields))
        raise GridError(f"unknown translation parameter(s) {', '.join(unknown)}; known: {known}")
    try:
        TranslationSettings(**params)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise GridError(f"translation parameter {where}: {first['msg']}") from None


def load_grid(path: str | Path) -> Grid:
    """Read a grid from a ``.toml`` or ``.json`` file."""
    file = Path(path)
    if not file.is_file():
        bundled = GRID_DIR / f"{path}.toml"
        if bundled.is_file():
            file = bundled
        else:
            raise GridError(f"grid file not found: {path}")
    try:
        text = file.read_text(encoding="utf-8")
        data = tomllib.loads(text) if file.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise GridError(f"cannot read grid {file}: {exc}") from None
    try:
        return Grid.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "grid"
        raise GridError(f"grid {file}: {where}: {first['msg']}") from None


def bundled_grids() -> list[Path]:
    """The example grid files shipped with the project."""
    return sorted(GRID_DIR.glob("*.toml"))
