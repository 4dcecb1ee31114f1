"""How a served program was made (`TranslationDetails`): what the service shows as a translation's
`details`, made once from the translation and the settings it was made with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from translators.records import FillShown, FixShown, MappingShown, Source
from translators.translation import Translation


@dataclass(frozen=True)
class TranslationDetails:
    """The model, the calls, the timings, the fixes, the vote and the source of one translated program."""

    model: str
    attempts: int  # model calls made (0: filled without the model)
    timings: Mapping[str, float]
    mappings: tuple[MappingShown, ...]
    schema_fixes: tuple[FixShown, ...]
    cached: bool
    samples: int  # translations asked for (the setting)
    agreement: float | None
    source: Source
    fill: FillShown | None
    usage: Mapping[str, float | int]
    min_logprob: float | None
    route: Mapping[str, str] | None = None  # the predicted question types, when the translator routes

    @classmethod
    def of(cls, result: Translation, *, model: str, samples: int) -> TranslationDetails:
        """The details of `result`, made with language model `model` asked for `samples` translations."""
        return cls(
            model=model,
            attempts=len(result.attempts),
            timings={k: round(v, 6) for k, v in result.timings.items()},
            mappings=tuple(result.mappings),
            schema_fixes=tuple(result.schema_fixes),
            cached=result.cached,
            samples=samples,
            agreement=result.agreement,
            source=result.source,
            fill=result.fill,
            usage=result.usage,
            min_logprob=result.min_logprob,
            route=result.route,
        )

    def to_json(self) -> dict[str, object]:
        """The details as the service shows them (`route` only when the translator routes)."""
        shown: dict[str, object] = {
            "model": self.model,
            "attempts": self.attempts,
            "timings": dict(self.timings),
            "mappings": list(self.mappings),
            "schema_fixes": list(self.schema_fixes),
            "cached": self.cached,
            "samples": self.samples,
            "agreement": self.agreement,
            "source": self.source,
            "fill": self.fill,
            "usage": dict(self.usage),
            "min_logprob": self.min_logprob,
        }
        if self.route is not None:
            shown["route"] = dict(self.route)
        return shown
