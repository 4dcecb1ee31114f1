"""How sure an answer is: one number in [0, 1] and the parts it is made of.

The parts, each computed from what the pipeline already has:

- ``agreement``: with n > 1 translations (the same model shown the examples in rotated order, or
  sampled), the share of the n that mean the chosen program (grouped on generated scenes by
  translators.checks.consistency, not by text); None for n = 1 and for a filled program;
- ``source``: ``template`` when the program was filled from the bank's examples of the question's
  form (translators.rules.template_fill), else ``model``; ``fill_agreement``: the share of those
  examples whose filled program is the chosen one;
- ``min_token_probability``: the probability the model gave the least likely token of the program
  it wrote, the step it was least sure of: among the tokens the grammar allowed where the backend
  applies the grammar itself (llama.cpp at temperature 0), so that a token the grammar forces is
  little or no doubt; over the whole vocabulary at a temperature above 0; none from other backends;
- ``retrieval_similarity``: the retrieval score of the most similar example shown (question
  templates and words, translators.model.retrieval); for a filled program, of the most similar
  example retrieved for the question, as the model would have been shown (where a model is set);
- ``skeleton_agreement``: the share of the examples shown whose program skeleton (operations and
  dependencies, arguments blanked) is the chosen program's;
- ``retries``: failed attempts before a valid program (the model's output did not parse or
  validate and was fed back); ``schema_fixes``: deterministic fixes made to the program
  (translators.wording.schema). Both are reported; only ``retries`` is weighted, because the validation records
  of the translation benchmark that the weights were checked on did not keep schema fixes;
- ``word_coverage``: the share of the question's content words that the program's classes,
  values and relations mention (a filter or an object the model dropped lowers it), and
  ``word_grounding``: the share of the program's words that the question has (a word the model
  made up lowers it); both by word, with plurals folded;
- ``cost_margin``: on a scene with weights, the cost between the first and second answer (None:
  one answer only, or no translation);
- ``answer_share``: exp(-cost) of the top answer over the sum over every ranked answer (1 when it
  is the only one), the scene's own doubt.

The program part is a logistic model of the weighted translation parts, its weights fitted on the
tuning part of the GQA split (bench/confidence.py prints them), times the agreement when n > 1;
the confidence is that times ``answer_share``, so a sure program on an ambiguous scene is not sure.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat("scene(0). select(1, 0, cat). exist(2, 1). end(2).")
    >>> shown = (ShownExample(0.9, "scene(0). select(1, 0, dog). exist(2, 1). end(2)."),)
    >>> parts = confidence_parts(TranslationEvidence(program, "Is there a cat?", shown))
    >>> parts.skeleton_agreement, parts.retries
    (1.0, 0)
    >>> 0.0 < confidence(parts) <= 1.0
    True
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import TypedDict, cast

from pydantic import JsonValue

from theory.canonical import canonical
from theory.flat import parse_flat
from theory.operations import OPERATIONS
from theory.program import Program, ProgramError
from translators.evidence import FILLED_SOURCES, LEAST_LIKELY_READING, ShownExample, TranslationEvidence

__all__ = [
    "ConfidenceParts",
    "ShownExample",
    "TranslationEvidence",
    "answer_margin",
    "confidence",
    "confidence_parts",
    "program_confidence",
]

# Words a question uses for its form, not its content (a short list kept here: the few dozen words
# do not justify a corpus download).
FUNCTION_WORDS = frozenset(
    """a an the is are was were be been do does did of in on at to for with by from and or but not no
    this that these those it its there here what which who whom whose where when how why you your i me my
    we he she they them his her their one ones thing things kind type sort color colour side picture
    image photo look looks think made appear appears called item items other than both either same
    different any all as much many can could would should has have having""".split()
)
_WORDS = re.compile(r"[a-z]+")
_NAMED_ROLES = ("class", "value", "relation")
COST_UNIT = 1000.0  # cost = -1000 ln p (theory.scene_facts), so a cost difference maps back to a likelihood ratio


class ConfidencePartsJson(TypedDict, total=False):
    """`ConfidenceParts` as JSON (a results line, a response); older files may lack fields."""

    samples: int
    agreement: float | None
    retrieval_similarity: float | None
    skeleton_agreement: float | None
    retries: int
    schema_fixes: int
    word_coverage: float | None
    word_grounding: float | None
    cost_margin: float | None
    answer_share: float
    source: str
    fill_agreement: float | None
    min_token_probability: float | None


@dataclass(frozen=True)
class ConfidenceParts:
    """The evidence behind a confidence (see the module docstring)."""

    samples: int = 1
    agreement: float | None = None
    retrieval_similarity: float | None = None
    skeleton_agreement: float | None = None
    retries: int = 0
    schema_fixes: int = 0
    word_coverage: float | None = None
    word_grounding: float | None = None
    cost_margin: float | None = None
    answer_share: float = 1.0
    source: str = "model"
    fill_agreement: float | None = None
    min_token_probability: float | None = None

    def to_json(self) -> ConfidencePartsJson:
        """The parts as a JSON object (rounded)."""
        return cast(
            ConfidencePartsJson, {k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()}
        )


@dataclass(frozen=True)
class Weights:
    """A logistic model of "the program is right" over the translation parts of one translation."""

    intercept: float
    retrieval_similarity: float
    skeleton_agreement: float
    retries: float
    word_coverage: float = 0.0
    word_grounding: float = 0.0
    filled: float = 0.0
    fill_agreement: float = 0.0
    min_token_logprob: float = 0.0

    def program_confidence(self, parts: ConfidenceParts) -> float:
        """The model's probability that the program is right."""
        z = (
            self.intercept
            + self.retrieval_similarity * (parts.retrieval_similarity or 0.0)
            + self.skeleton_agreement * (parts.skeleton_agreement or 0.0)
            + self.retries * min(parts.retries, 3)
            + self.word_coverage * (parts.word_coverage if parts.word_coverage is not None else 1.0)
            + self.word_grounding * (parts.word_grounding if parts.word_grounding is not None else 1.0)
            + self.filled * (parts.source in FILLED_SOURCES)
            + self.fill_agreement * (parts.fill_agreement or 0.0)
            + self.min_token_logprob * token_logprob_feature(parts.min_token_probability)
        )
        return 1.0 / (1.0 + math.exp(-z))


# Fitted on the 300 tuning-part questions of the GQA split that bench/confidence_data.py translated
# twice: with the service's translator (template fill and composition on, each filled program with
# its question's retrieval score) and with the model alone, so that the model's own parts are
# weighed on its programs (bench/confidence.py --fit; scikit-learn's L2 logistic regression). The
# least likely token is read among the tokens the grammar allowed. The model was the bundled 1.5B
# one; the student's programs, the default writer's now, are weighed with the same weights.
WEIGHTS = Weights(
    intercept=-1.538,
    retrieval_similarity=3.278,
    skeleton_agreement=1.022,
    retries=-0.711,
    word_coverage=0.387,
    word_grounding=-0.571,
    filled=0.476,
    fill_agreement=0.513,
    min_token_logprob=1.403,
)


LOGPROB_FLOOR = -10.0  # below e^-10 the model has ruled the token out; lower values say nothing more


def token_logprob_feature(probability: float | None) -> float:
    """The log of the least likely written token's probability, floored; 0 when not reported (a
    filled program, a backend without logits), which the `filled` weight and the intercept absorb."""
    if probability is None:
        return 0.0
    return max(math.log(probability), LOGPROB_FLOOR) if probability > 0 else LOGPROB_FLOOR


def program_skeleton(program: Program) -> str:
    """The canonical program with its arguments blanked: ``select[0] exist[1]``."""
    return " ".join(f"{s.operation}[{','.join(map(str, s.dependencies))}]" for s in canonical(program).steps)


def _skeleton_of(text: str | None) -> str | None:
    if not text:
        return None
    try:
        return program_skeleton(parse_flat(text))
    except ProgramError:
        return None


def _fold(word: str) -> str:
    # Plurals folded so that "shoes" meets "shoe"; enough for matching, not a lemmatiser.
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def word_overlap(question: str, program: Program) -> tuple[float | None, float | None]:
    """(share of the question's content words the program names, share of the program's words in the question)."""
    asked = {_fold(w) for w in _WORDS.findall(question.lower()) if w not in FUNCTION_WORDS}
    named: set[str] = set()
    for step in program.steps:
        for role, value in zip(OPERATIONS[step.operation].arguments, step.arguments):
            if role in _NAMED_ROLES:
                named |= {_fold(w) for w in _WORDS.findall(value.lower()) if w not in FUNCTION_WORDS}
    coverage = len(asked & named) / len(asked) if asked else None
    grounding = len(asked & named) / len(named) if named else None
    return coverage, grounding


def answer_margin(costs: Sequence[Sequence[int]]) -> tuple[float | None, float]:
    """(cost between the first and second answer, the top answer's share) from the ranked costs."""
    if not costs:
        return None, 1.0
    totals = [sum(c) for c in costs]
    best = totals[0]
    share = 1.0 / sum(math.exp(-(t - best) / COST_UNIT) for t in totals)
    return (float(totals[1] - best) if len(totals) > 1 else None), share


def confidence_parts(
    evidence: TranslationEvidence | None, answer_costs: Sequence[Sequence[int]] = ()
) -> ConfidenceParts:
    """The parts of a translation's confidence from its evidence, and its answers' when costs are given.

    The one formula the service, the command line, `aspvqa calibrate` and the evaluation job share;
    without a translation (a given program) only the answers' parts.
    """
    margin, share = answer_margin(answer_costs)
    if evidence is None:
        return ConfidenceParts(cost_margin=margin, answer_share=share)
    examples = evidence.examples
    scores = [e.score for e in examples if e.score is not None]
    known = [s for s in (_skeleton_of(e.program) for e in examples) if s is not None]
    own = program_skeleton(evidence.program)
    question = evidence.question
    coverage, grounding = word_overlap(question, evidence.program) if question else (None, None)
    filled = evidence.source in FILLED_SOURCES
    votes, voters = evidence.fill_votes, evidence.fill_voters
    return ConfidenceParts(
        samples=evidence.samples,
        agreement=evidence.agreement if evidence.samples > 1 and not filled else None,
        source=evidence.source,
        fill_agreement=votes / voters if votes is not None and voters else None,
        min_token_probability=math.exp(evidence.min_logprob) if evidence.min_logprob is not None else None,
        # A filled program's examples are its form's, unscored: the question's retrieval score stands in.
        retrieval_similarity=max(scores) if scores else evidence.fill_similarity,
        skeleton_agreement=sum(s == own for s in known) / len(known) if known else None,
        retries=max(evidence.attempts - 1, 0),
        schema_fixes=evidence.schema_fixes,
        word_coverage=coverage,
        word_grounding=grounding,
        cost_margin=margin,
        answer_share=share,
    )


def program_confidence(parts: ConfidenceParts) -> float:
    """The probability that the translated program is right (the score a calibration thresholds).

    With n > 1 samples it is the one-translation model's times the agreement: not fitted (no
    tuning data with samples fitted in this machine's budget), and a calibration made with the
    same n still gives its guarantee, since the threshold is fitted to whatever the score is.
    """
    single = WEIGHTS.program_confidence(parts)
    return single * parts.agreement if parts.samples > 1 and parts.agreement is not None else single


def confidence(parts: ConfidenceParts) -> float:
    """The answer's confidence: the program's, times the top answer's share on the scene."""
    return round(program_confidence(parts) * parts.answer_share, 6)


def weights_digest() -> str:
    """A short digest of the fitted weights and the token reading they were fitted on: a calibration
    holds for these only."""
    text = repr(WEIGHTS) + "|agreement-factor|" + LEAST_LIKELY_READING
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def calibration_settings(translation: Mapping[str, JsonValue], bank: str) -> dict[str, JsonValue]:
    """The settings a calibration is tied to: the translator's, the bank's digest and the weights'."""
    return dict(translation) | {"bank": bank, "confidence_weights": weights_digest()}
