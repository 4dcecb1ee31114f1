"""The translator's settings: everything that changes a translation, and so is part of its cache key."""

from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator

from translators.model.backends.registry import DEFAULT_WRITER
from translators.model.prompts import DEFAULT_PROMPT, PROMPTS
from translators.model.repair import MAX_REPAIRS
from translators.options import TranslationOptions


class TranslationSettings(TranslationOptions):
    """Everything that changes a translation (and so is part of the cache key): the options plus the model's."""

    model_config = ConfigDict(frozen=True)

    llm: str = DEFAULT_WRITER
    prompt_version: str = DEFAULT_PROMPT
    constrained: bool = True
    template_retrieval: bool = (
        True  # rank examples by the similarity of question templates (translators.wording.templating)
    )
    schema_decoding: bool = True  # constrain and repair categories, values and relations with the ontology
    # A question of a form the bank has examples of gets their program with its words, without the model.
    template_fill: bool = True
    max_repairs: int = Field(MAX_REPAIRS, ge=0, le=MAX_REPAIRS)
    max_tokens: int = Field(160, ge=16, le=2048)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    samples: int = Field(1, ge=1, le=16)
    seed: int = 0
    # Every content word of a question must be accounted for by its program, which must read back
    # as the question (translators.checks.meaning, translators.checks.read_back); else the next candidate, or a decline.
    meaning_check: bool = True

    @field_validator("prompt_version")
    @classmethod
    def _known_prompt(cls, value: str) -> str:
        if value not in PROMPTS:
            raise ValueError(f"prompt version must be one of {', '.join(PROMPTS)}")
        return value
