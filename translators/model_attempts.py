"""Asking the model for one prompt's program: each output cleaned, parsed and checked, and its error
fed back for another try, up to `max_repairs` times."""

from __future__ import annotations

from dataclasses import dataclass, replace

from theory.canonical import canonical
from theory.flat import format_flat
from theory.program import Program
from translators.checks.consistency import Vote
from translators.checks.meaning_checks import Judge, QuestionJudge
from translators.model.backends.base import Backend, BackendError, Generation, GenerationRequest, RetryableBackendError
from translators.model.backends.models import ModelFileError
from translators.model.prompts import Prompt
from translators.model.repair import interpret_output
from translators.model.retrieval import Retrieved
from translators.records import ExampleRecord, FixShown, fix_shown
from translators.rules.as_asked import said_as_asked
from translators.settings import TranslationSettings
from translators.translation import Attempt
from translators.wording.ontology import Ontology
from translators.wording.schema import repair_program


@dataclass
class Candidates:
    """The model's program of each sample (None: none valid), the fixes made to each, and the last error."""

    programs: list[Program | None]
    fixes: list[list[FixShown]]
    error: str | None
    retryable: bool  # the model could not be asked: no verdict

    def chosen(self, vote: Vote | None) -> tuple[Program | None, list[FixShown]]:
        """The candidate the vote chose (the first without one), and its fixes."""
        chosen = 0
        if vote is not None and vote.majority is not None:
            chosen = next(i for i, p in enumerate(self.programs) if p is not None and canonical(p) == vote.majority)
        return self.programs[chosen], (self.fixes[chosen] if self.fixes else [])


@dataclass(frozen=True)
class Request:
    """One prompt to ask: for which question, which sample, and in which grammar (None: free)."""

    question: str
    prompt: Prompt
    sample: int
    grammar: str | None
    asked: str | None = None  # the question as read (`GenerationRequest.asked`)
    things: tuple[str, ...] = ()  # its words that may name a thing (`GenerationRequest.things`)
    values: tuple[str, ...] = ()  # its words that may be attribute values (`GenerationRequest.values`)


def ask_model(
    backend: Backend,
    settings: TranslationSettings,
    request: Request,
    judge: QuestionJudge,
    meaning: tuple[Judge, Judge],
    attempts: list[Attempt],
) -> tuple[Program | None, str]:
    """The model's program for one prompt (else None and why), each call added to `attempts`;
    `meaning` checks the first output strictly (every word), later ones leniently (a writer without a
    grammar's all strictly, its first lenient one kept for when none passes)."""
    repairs: list[tuple[str, str]] = []
    error = "no attempt was made"
    # A first output refused only for leaving out an attribute value: kept when no repair comes.
    lenient_fallback: Program | None = None
    for attempt in range(settings.max_repairs + 1):
        try:
            generation = backend.generate(_generation_request(settings, request, attempt, repairs))
        except (RetryableBackendError, ModelFileError):
            raise  # no other attempt can help: the caller says the model is unavailable
        except BackendError as exc:
            attempts.append(Attempt("", str(exc), 0.0))
            if lenient_fallback is not None:
                return lenient_fallback, ""
            # The reason the earlier output was refused matters more than why no repair came.
            return None, f"{repairs[-1][1]}; then {exc}" if repairs else str(exc)
        outcome = interpret_output(generation.text, settings.representation)
        # A writer without a grammar ranks all its programs at once, so each is held to every word
        # before one that leaves out an attribute value is let through: a lenient second program
        # otherwise drops a value the question asks about ("... empty and black?" checked for empty).
        lenient = attempt > 0 and backend.supports_grammar
        problem = judge.problems(outcome.program, meaning[lenient]) if outcome.program is not None else None
        if outcome.program is not None and problem is not None:
            if not lenient and lenient_fallback is None and judge.problems(outcome.program, meaning[1]) is None:
                lenient_fallback = outcome.program
            if not backend.supports_grammar:
                # A writer without a grammar (the student) is refused for an invented word where a
                # constrained model's program would be refused for a question word it leaves out: its
                # program is read for those too, so that a question no program can mean is declined
                # with the word. (A constrained model's invented word is a slip, reported as it is.)
                meaning[1](outcome.program)
            # Never answer with a word the question does not say: fed back like a parse error.
            outcome = replace(outcome, program=None, error=problem)
        attempts.append(_attempt(generation, outcome.error))
        if outcome.program is not None:
            return outcome.program, ""
        error = f"no valid program after {attempt + 1} attempt(s): {outcome.error}"
        repairs.append((outcome.cleaned or generation.text, outcome.error or "invalid program"))
    return (lenient_fallback, "") if lenient_fallback is not None else (None, error)


def _generation_request(
    settings: TranslationSettings, request: Request, attempt: int, repairs: list[tuple[str, str]]
) -> GenerationRequest:
    return GenerationRequest(
        prompt=request.prompt,
        question=request.question,
        max_tokens=settings.max_tokens,
        temperature=settings.temperature,
        seed=settings.seed,
        grammar=request.grammar,
        attempt=attempt,
        sample=request.sample,
        repair=tuple(repairs),
        asked=request.asked,
        things=request.things,
        values=request.values,
    )


def _attempt(generation: Generation, error: str | None) -> Attempt:
    return Attempt(
        generation.text,
        error,
        generation.seconds,
        generation.prompt_tokens,
        generation.evaluated_tokens,
        generation.completion_tokens,
        generation.prompt_seconds,
        generation.output_seconds,
        least_likely(generation),
    )


def least_likely(generation: Generation) -> float | None:
    """The log-probability of the least likely token `generation` wrote: among the tokens the grammar
    allowed where the backend reports that (a forced token is not a doubt), else over the vocabulary."""
    logprobs = generation.allowed_logprobs or generation.token_logprobs
    return min(logprobs) if logprobs else None


def retrieved_shown(retrieved: Retrieved) -> ExampleRecord:
    """A retrieved example as a translation shows it."""
    return {
        "id": retrieved.example.id,
        "question": retrieved.example.question,
        "reason": retrieved.reason,
        "score": round(retrieved.score, 4),
        "program": format_flat(retrieved.example.program),
    }


def repaired(
    program: Program | None, judge: QuestionJudge, ontology: Ontology | None
) -> tuple[Program | None, list[FixShown]]:
    """The model's program with the ontology's repairs (where they keep it the question's) and said as asked."""
    made: list[FixShown] = []
    if program is not None and ontology is not None:
        fixed, repairs = repair_program(program, ontology)
        # A repair that would name a word the question lacks is not made.
        if judge.problems(fixed, judge.to_compose(False)) is None:
            program, made = fixed, [fix_shown(f) for f in repairs]
    if program is not None:
        program, said = said_as_asked(program, judge.asked, ontology, judge.kinship)
        made += [fix_shown(f) for f in said]
    return program, made
