"""The one place the pipeline's typed outcomes become response bodies.

`POST /answer` and `aspvqa answer --json` print the same `AnswerResponse`, `POST /verify` and
`aspvqa verify --json` the same `VerifyResponse`, `POST /translate` a `TranslateResponse`.
"""

from __future__ import annotations

from app.api.schemas import (
    AbstentionShown,
    AnswerResponse,
    ApproximationShown,
    CheckShown,
    ConfidencePartsShown,
    ExplanationShown,
    ProgramShown,
    RankedAnswer,
    SubClaimShown,
    TranslateResponse,
    VerifyResponse,
)
from app.components import TranslationOutcome
from app.pipeline import AnswerOutcome, VerifyOutcome, show_program
from theory import format_flat
from theory.operations import TEXT_REPRESENTATIONS
from trust.verify import SubClaimVerdict


def translation_response(
    question: str, representation: str, translation: TranslationOutcome, timings: dict[str, float]
) -> TranslateResponse:
    """The body of one translation."""
    return TranslateResponse(
        question=question,
        representation=representation,
        program=show_program(translation.program, representation),
        flat=format_flat(translation.program),
        raw=translation.raw,
        examples=translation.examples,
        timings=timings,
        details=translation.details,
    )


def answer_response(outcome: AnswerOutcome, question: str | None) -> AnswerResponse:
    """The body of an answer: ranked answers, program, support, explanation, confidence and abstention."""
    translation = None
    if outcome.translation is not None:
        translation = translation_response(
            question or "",
            outcome.representation,
            outcome.translation,
            {"translate": outcome.timings.get("translate", 0.0)},
        )
    explanation, abstention = outcome.explanation, outcome.abstention
    return AnswerResponse(
        status=outcome.status.value,
        message=outcome.message,
        answers=[
            RankedAnswer(
                answer=a.answer,
                cost=list(a.cost),
                score=a.score,
                approximate=a.approximate,
                approximations=[ApproximationShown(asked=x.asked, scene=x.scene) for x in a.approximations],
            )
            for a in outcome.answers
        ],
        program=ProgramShown(
            representation=outcome.representation, text=outcome.program_text, flat=format_flat(outcome.program)
        ),
        concepts=outcome.concepts,
        detections=outcome.detections,
        support=outcome.support.to_json() if outcome.support is not None else {},
        timings=outcome.timings,
        translation=translation,
        explanation=ExplanationShown(
            step=explanation.step,
            operation=explanation.operation,
            message=explanation.message,
            nearest=list(explanation.nearest),
            objects=list(explanation.objects),
        )
        if explanation is not None
        else None,
        confidence=outcome.confidence,
        confidence_parts=ConfidencePartsShown(**outcome.confidence_parts.to_json())
        if outcome.confidence_parts is not None
        else None,
        abstained=abstention.abstained if abstention is not None else None,
        abstention=AbstentionShown(**abstention.to_json()) if abstention is not None else None,
    )


def shown_representation(
    service_representation: str, *, program_representation: str | None, given_program: bool, claim: bool
) -> str:
    """The syntax a verified program is shown in: a given program's own, the nested syntax claims
    are translated in, else the service's (GQA programs are JSON: flat ASP instead)."""
    if given_program:
        shown = program_representation or "flat"
    else:
        shown = "nested" if claim else service_representation
    return shown if shown in TEXT_REPRESENTATIONS else "flat"


def verify_response(outcome: VerifyOutcome, text: str, representation: str) -> VerifyResponse:
    """The body of a verification: the verdict, each sub-claim's with its facts, and the program."""
    translation = None
    if outcome.translation is not None:
        translation = translation_response(
            text, representation, outcome.translation, {"translate": outcome.timings.get("translate", 0.0)}
        )
    return VerifyResponse(
        verdict=outcome.verdict,
        holds=outcome.holds,
        program=ProgramShown(
            representation=representation,
            text=show_program(outcome.program, representation),
            flat=format_flat(outcome.program),
        ),
        subclaims=[_subclaim(s) for s in outcome.subclaims],
        detections=outcome.detections,
        timings=outcome.timings,
        translation=translation,
    )


def _subclaim(judged: SubClaimVerdict) -> SubClaimShown:
    sub = judged.subclaim
    return SubClaimShown(
        id=sub.id,
        kind=sub.kind,
        text=sub.text,
        verdict=judged.verdict,
        confidence=None if judged.confidence is None else round(judged.confidence, 4),
        facts=judged.facts,
        reason=judged.reason,
        checks=[CheckShown(program=format_flat(c.program), expected="yes" if c.expected else "no") for c in sub.checks],
    )
