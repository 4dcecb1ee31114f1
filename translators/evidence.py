"""What a translation shows about how sure it is, in one frozen record made by the translation itself.

The service, the command line, `aspvqa calibrate` and the evaluation job all read a translation's
confidence from this record (trust.confidence.confidence_parts), so a calibration fitted on one
path holds on the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from theory.program import Program

if TYPE_CHECKING:
    from translators.records import ExampleRecord, FillShown

# A translation's `source` when its program was filled without the model: from examples of its
# form, or composed from its references and a form (`translators.rules.compositional_fill`).
FILLED_SOURCES = frozenset({"template", "composed"})
# How a model program's least likely token is read (`translators.model_attempts.least_likely`): among
# the tokens the grammar allowed. In the translation cache's key, so that translations stored with
# the reading over the whole vocabulary are made again, and in the confidence weights' digest, since
# the weights were fitted on it.
LEAST_LIKELY_READING = "allowed"


@dataclass(frozen=True)
class ShownExample:
    """A worked example the model was shown: its retrieval score and its program (flat ASP)."""

    score: float | None
    program: str | None


@dataclass(frozen=True)
class TranslationEvidence:
    """The evidence of one translated program: what was shown, tried, fixed and agreed on."""

    program: Program
    question: str | None = None
    examples: tuple[ShownExample, ...] = ()
    samples: int = 1  # translations made of the question (n)
    attempts: int = 1  # model calls for the chosen sample (1: the first output was valid)
    schema_fixes: int = 0
    agreement: float | None = None  # share of the n samples that mean the chosen program
    source: str = "model"
    fill_votes: int | None = None  # a filled program: its form's examples that give it ...
    fill_voters: int | None = None  # ... out of those that give a program
    fill_similarity: float | None = None  # ... and the best retrieval score of the question's examples
    min_logprob: float | None = None  # the least likely token the model wrote (None: filled, not reported)

    @classmethod
    def of(
        cls,
        program: Program,
        *,
        question: str | None = None,
        examples: Sequence[ExampleRecord] = (),
        samples: int = 1,
        attempts: int = 1,
        schema_fixes: int = 0,
        agreement: float | None = None,
        source: str = "model",
        fill: FillShown | None = None,
        min_logprob: float | None = None,
    ) -> TranslationEvidence:
        """The record from a translation's JSON parts (examples as shown, fill as {form, votes, voters})."""
        return cls(
            program=program,
            question=question,
            examples=tuple(ShownExample(e.get("score"), e.get("program")) for e in examples),
            samples=max(1, samples),
            attempts=max(1, attempts),
            schema_fixes=schema_fixes,
            agreement=agreement,
            source=source,
            fill_votes=fill.get("votes") if fill else None,
            fill_voters=fill.get("voters") if fill else None,
            fill_similarity=fill.get("similarity") if fill else None,
            min_logprob=min_logprob,
        )
