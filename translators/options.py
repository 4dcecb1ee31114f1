"""The translation options a caller may choose: representation, examples, sampling, cover_operators.

Declared once here and shared by the app's `Settings` (the defaults), the REST request schema
(per-request overrides) and `translators.translate.TranslationSettings` (the translator's own).

Example:
    >>> TranslationOptions(examples=5).with_overrides(sampling="jaccard", examples=None).model_dump(mode="json")
    {'representation': 'nested', 'examples': 5, 'sampling': 'jaccard', 'cover_operators': False}
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from theory.operations import REPRESENTATIONS as REPRESENTATIONS
from theory.operations import ProgramRepresentation
from translators.model.sampling import Sampling

SAMPLING_METHODS: tuple[str, ...] = tuple(s.value for s in Sampling)

# Field types with their limits, so that an optional override checks what the option checks.
Examples = Annotated[int, Field(ge=0, le=64, description="number of worked examples shown (k)")]


class TranslationOptions(BaseModel):
    """What a request may choose about a translation (everything else is the service's setting)."""

    representation: ProgramRepresentation = Field("nested", description="program syntax the model writes")
    examples: Examples = 3
    sampling: Sampling = Field(Sampling.BERT, description="how the worked examples are chosen")
    cover_operators: bool = Field(False, description="add examples until every operation appears")

    def options(self) -> TranslationOptions:
        """Only the translation options (of a larger model that extends them)."""
        return TranslationOptions.model_validate(self.model_dump(include=set(OPTION_NAMES)))

    def with_overrides(self, **overrides: Any) -> TranslationOptions:
        """These options with the given ones (None: keep) replaced, validated."""
        given = {k: v for k, v in overrides.items() if v is not None}
        return TranslationOptions.model_validate(self.model_dump(include=set(OPTION_NAMES)) | given)


OPTION_NAMES: tuple[str, ...] = tuple(TranslationOptions.model_fields)
