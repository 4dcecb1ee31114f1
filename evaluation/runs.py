"""Runs (points of an experiment grid), the parts a run needs, and the tasks of a job."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from pydantic import JsonValue

from evaluation.questions import Question
from scene.concepts import Concepts
from theory.program import Program
from theory.scene_facts import SceneFacts
from translators.evidence import TranslationEvidence
from translators.options import OPTION_NAMES

# The run name of the settings whose result does not depend on the run (no translation).
REFERENCE_RUN = "reference"


@dataclass(frozen=True)
class Run:
    """One point of an experiment grid: translation parameters and a stable name."""

    name: str
    translation: dict[str, JsonValue] = field(default_factory=dict)

    def __hash__(self) -> int:
        return hash((self.name, json.dumps(self.translation, sort_keys=True)))


def run_name(translation: Mapping[str, JsonValue]) -> str:
    """A short stable name for translation parameters, e.g. ``nested-k8-bert-cover-qwen2.5-coder-1.5b``."""
    if not translation:
        return "default"
    parts = []
    if "representation" in translation:
        parts.append(str(translation["representation"]))
    if "examples" in translation:
        parts.append(f"k{translation['examples']}")
    if "sampling" in translation:
        parts.append(str(translation["sampling"]))
    if "cover_operators" in translation:
        parts.append("cover" if translation["cover_operators"] else "nocover")
    if translation.get("llm"):
        parts.append(str(translation["llm"]).replace("/", "_").replace(":", "_"))
    named = {*OPTION_NAMES, "llm"}
    parts += [f"{k}={translation[k]}" for k in sorted(translation) if k not in named]
    return "-".join(parts)


class TranslationLike(Protocol):
    """What the job reads of a translation (`translators.translate.Translation` fits)."""

    program: Program | None
    error: str | None
    retryable: bool  # the model could not be asked: no verdict, ask again on resume

    @property
    def evidence(self) -> TranslationEvidence | None:
        """What the translation shows about how sure it is (None without a program)."""
        ...


Translate = Callable[[str, str], TranslationLike]  # (question, questionId) -> translation
ImageSceneFn = Callable[[Path, Concepts, str], SceneFacts]  # (image path, concepts, image id) -> scene


@dataclass
class RunParts:
    """The parts one run needs, built inside a worker process."""

    translate: Translate | None = None
    image_scene: ImageSceneFn | None = None


class PartsFactory(Protocol):
    """Builds the parts of one run; must pickle (it travels to worker processes)."""

    def __call__(self, run: Run, settings: Sequence[str]) -> RunParts: ...


def no_parts(run: Run, settings: Sequence[str]) -> RunParts:
    """The factory for settings that need neither a translator nor images."""
    return RunParts()


@dataclass(frozen=True)
class Task:
    """One question of one run, with the settings still to compute."""

    run: Run
    question: Question
    settings: tuple[str, ...]
