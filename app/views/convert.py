"""The one place the pipeline's typed outcomes become response bodies (`app.views.models`)."""

from __future__ import annotations

from app.outcomes import AnswerOutcome, Detected, PerceptionReport, TranslationOutcome, VerifyOutcome
from app.pipeline import show_program
from app.views.models import (
    AbstentionShown,
    AnswerResponse,
    ApproximationShown,
    CheckShown,
    ConfidencePartsShown,
    DetectionShown,
    ExplanationShown,
    PerceptionShown,
    ProgramShown,
    RankedAnswer,
    SubClaimShown,
    SupportShown,
    TranslateResponse,
    VerifyResponse,
)
from theory import format_flat
from translators.checks.read_back import reading
from trust.calibration import Abstention
from trust.verify import SubClaimVerdict


def translation_response(
    question: str,
    representation: str,
    translation: TranslationOutcome,
    timings: dict[str, float],
    decision: tuple[float | None, Abstention | None] = (None, None),
) -> TranslateResponse:
    """The body of one translation, with its confidence and the calibration's decision on it."""
    score, abstention = decision
    held_back = abstention is not None and abstention.abstained is True
    return TranslateResponse(
        question=question,
        status="abstained" if held_back else "ok",
        confidence=score,
        reason=abstention.reason if held_back and abstention is not None else None,
        reads_as=reading(translation.program),
        representation=representation,
        program=show_program(translation.program, representation),
        flat=format_flat(translation.program),
        raw=translation.raw,
        examples=translation.examples,
        timings=timings,
        details=translation.details.to_json() if translation.details is not None else {},
    )


def answer_response(outcome: AnswerOutcome, question: str | None) -> AnswerResponse:
    """The body of an answer: ranked answers, program, support, explanation, confidence and abstention."""
    explanation, abstention = outcome.explanation, outcome.abstention
    return AnswerResponse(
        status=outcome.status.value,
        message=outcome.message,
        answers=[
            RankedAnswer(
                answer=a.answer,
                cost=list(a.cost),
                score=outcome.score(a),
                approximate=a.approximate,
                approximations=[ApproximationShown(**x.to_json()) for x in a.approximations],
            )
            for a in outcome.answers
        ],
        program=ProgramShown(
            representation=outcome.representation, text=outcome.program_text, flat=format_flat(outcome.program)
        ),
        concepts=outcome.concepts,
        detections=_detections(outcome.detections),
        support=_support(outcome),
        timings=outcome.timings,
        translation=_translation(outcome, question or "", outcome.representation),
        explanation=ExplanationShown.model_validate(explanation.to_json()) if explanation is not None else None,
        confidence=outcome.confidence,
        confidence_parts=ConfidencePartsShown(**outcome.confidence_parts.to_json())
        if outcome.confidence_parts is not None
        else None,
        abstained=abstention.abstained if abstention is not None else None,
        abstention=AbstentionShown(**abstention.to_json()) if abstention is not None else None,
        perception=_perception(outcome.perception),
    )


def verify_response(outcome: VerifyOutcome, text: str) -> VerifyResponse:
    """The body of a verification: the verdict, each sub-claim's with its facts, and the program."""
    representation = outcome.representation
    return VerifyResponse(
        verdict=outcome.verdict,
        holds=outcome.holds,
        program=ProgramShown(
            representation=representation,
            text=show_program(outcome.program, representation),
            flat=format_flat(outcome.program),
        ),
        subclaims=[_subclaim(s) for s in outcome.subclaims],
        detections=_detections(outcome.detections),
        timings=outcome.timings,
        translation=_translation(outcome, text, representation),
    )


def _translation(outcome: AnswerOutcome | VerifyOutcome, text: str, representation: str) -> TranslateResponse | None:
    """The translation part of a body (None for a given program), timed as the outcome timed it."""
    if outcome.translation is None:
        return None
    return translation_response(
        text, representation, outcome.translation, {"translate": outcome.timings.get("translate", 0.0)}
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


def _detections(found: tuple[Detected, ...]) -> list[DetectionShown]:
    # The body's fields are the record's, read by name (tests/app/test_view_records.py holds them equal).
    return [DetectionShown.model_validate(d, from_attributes=True) for d in found]


def _support(outcome: AnswerOutcome) -> SupportShown | dict[str, list[str]]:
    support = outcome.support
    if support is None:
        return {}
    return SupportShown(steps={str(k): v for k, v in support.steps.items()}, facts=support.facts)


def _perception(report: PerceptionReport | None) -> PerceptionShown | None:
    if report is None:
        return None
    return PerceptionShown(
        method=report.method,
        model=report.model,
        likelihoods=dict(report.likelihoods),
        logprobs=report.logprobs,
        dropped=report.dropped,
    )
