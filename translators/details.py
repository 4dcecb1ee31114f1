"""How a served program was made (`TranslationDetails`): what the service shows as a translation's
`details`, read from the translation itself and the settings it was made with."""

from __future__ import annotations

from dataclasses import dataclass

from translators.records import Source
from translators.translation import Translation


@dataclass(frozen=True)
class TranslationDetails:
    """The translation of one program, with the model asked and the number of translations asked for."""

    translation: Translation
    model: str
    samples: int  # translations asked for (the setting)

    @classmethod
    def of(cls, result: Translation, *, model: str, samples: int) -> TranslationDetails:
        """The details of `result`, made with language model `model` asked for `samples` translations."""
        return cls(result, model, samples)

    @property
    def source(self) -> Source:
        """Where the program came from (see `Source`)."""
        return self.translation.source

    def to_json(self) -> dict[str, object]:
        """The details as the service shows them (`route` only when the translator routes)."""
        result = self.translation
        shown: dict[str, object] = {
            "model": self.model,
            "attempts": len(result.attempts),  # model calls made (0: filled without the model)
            "timings": {k: round(v, 6) for k, v in result.timings.items()},
            "mappings": list(result.mappings),
            "schema_fixes": list(result.schema_fixes),
            "cached": result.cached,
            "samples": self.samples,
            "agreement": result.agreement,
            "source": result.source,
            "fill": result.fill,
            "usage": dict(result.usage),
            "min_logprob": result.min_logprob,
        }
        if result.route is not None:
            shown["route"] = dict(result.route)
        return shown
