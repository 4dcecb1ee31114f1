"""Verifying a claim on a scene: each sub-claim solved, judged supported, refuted or unverifiable,
with the facts behind the verdict; the claim judged from its sub-claims in three-valued logic.

A sub-claim's check is solved for its two answers, yes and no, each at the cost of the cheapest
reading of the scene that gives it; costs are -1000 ln p, so they give the likelihood of yes.
- *supported*: the scene gives the answer the sub-claim needs, with likelihood at least
  `min_confidence`;
- *refuted*: it gives the other answer as surely;
- *unverifiable*: neither is that likely (uncertain detections, or a description that fits
  several objects differently), or the answer "no" rests on something the scene does not describe.

Scenes are closed for objects, positions and names (a scene graph or the detector's answer
lists every object asked for) and open for attributes and relations: that the scene gives the bus
no color does not make it not red. So "no" is taken as refuting an attribute only when the
objects have some value of that category (another color), and a relation only when the objects
are related to the other class's objects in some way; otherwise the sub-claim is unverifiable.
The category ``other`` (values of no known category) never refutes.

Example:
    >>> from theory.nested import parse_nested
    >>> from theory.scene_facts import SceneFacts
    >>> from trust.claims import Claim, as_claim
    >>> scene = SceneFacts.from_asp("object(1). has_attr(1,class,bus). has_attr(1,name,bus). has_attr(1,color,white).")
    >>> result = verify_claim(Claim(parse_nested("verify_attr(unique(select(scene(), bus)), color, red)")), scene)
    >>> result.verdict, [(s.subclaim.text, s.verdict) for s in result.subclaims]
    ('refuted', [('there is a bus', 'supported'), ('the bus is red', 'refuted')])
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Literal

from theory.operations import (
    DESCRIBING_NOTHING,
    OPERATIONS,
    OTHER_CATEGORY,
    RELATION_OPERATIONS,
    SAMENESS_OPERATIONS,
    Kind,
    operations_where,
)
from theory.program import Program, Step
from theory.scene_facts import SceneFacts
from theory.solver import Answer, SolveLimits, SolveStatus, solve
from theory.validate import ancestors
from trust.claims import Claim, as_claim
from trust.errors import TrustError
from trust.subclaims import Check, ClaimSplit, Formula, SubClaim, split_claim

Verdict = Literal["supported", "refuted", "unverifiable"]
VERDICTS: tuple[Verdict, ...] = ("supported", "refuted", "unverifiable")
MIN_CONFIDENCE = 0.8  # likelihood a verdict needs; below it the sub-claim is unverifiable
MAX_LISTED_FACTS = 60  # facts listed for an absence (the objects the scene does have)
_CLOSED_CATEGORIES = frozenset({"class", "name", "hposition", "vposition"})
# The steps of a check that read one named category of their objects (a check answers yes or no, so
# no step of it gives a value), and those that compare the values of several objects in one.
_ONE_CATEGORY = operations_where(
    lambda spec: spec.family == "attribute" and "category" in spec.arguments and spec.output is not Kind.VALUE
)
_SAMENESS_CHECKS = frozenset(name for name in SAMENESS_OPERATIONS if OPERATIONS[name].output is Kind.BOOL)


class VerificationError(TrustError, ValueError):
    """The claim or the scene cannot be verified at all (invalid program or scene)."""


@dataclass(frozen=True)
class SubClaimVerdict:
    """A sub-claim's verdict, the likelihood of what the scene says, the facts behind it and why."""

    subclaim: SubClaim
    verdict: Verdict
    confidence: float | None
    facts: list[str]
    reason: str


@dataclass(frozen=True)
class ClaimVerdict:
    """The claim's verdict from its sub-claims'."""

    verdict: Verdict
    claim: Claim
    subclaims: list[SubClaimVerdict]
    formula: Formula


class SceneIndex:
    """What a scene says about each object: its attribute values by category, its relations."""

    def __init__(self, scene: SceneFacts) -> None:
        self.values: dict[tuple[str, str], set[str]] = defaultdict(set)
        self.classes: dict[str, set[str]] = defaultdict(set)
        self.relations: list[tuple[str, str, str]] = []
        self.names: dict[str, str] = {}
        atoms = [*scene.facts, *scene.weighted]
        for atom in atoms:
            args = [str(a) for a in atom.arguments]
            if atom.name == "has_attr" and len(args) == 3:
                obj, category, value = args
                self.values[(obj, category)].add(value)
                if category == "class":
                    self.classes[obj].add(value)
                elif category == "name":
                    self.names[obj] = value
            elif atom.name == "has_rel" and len(args) == 3:
                self.relations.append((args[0], args[1], args[2]))

    def described(self, objects: list[str], category: str) -> list[str]:
        """The facts that give these objects a value of `category`."""
        return [f"has_attr({o},{category},{v})" for o in objects for v in sorted(self.values.get((o, category), ()))]

    def linking(self, objects: list[str], cls: str | None) -> list[str]:
        """The relations between these objects and objects of class `cls` (any class for None), either way."""
        chosen = set(objects)
        return [
            f"has_rel({s},{r},{o})"
            for s, r, o in self.relations
            if (s in chosen and (cls is None or cls in self.classes.get(o, ())))
            or (o in chosen and (cls is None or cls in self.classes.get(s, ())))
        ]

    def inventory(self) -> list[str]:
        """The name of every object (what a closed scene offers when something is absent)."""
        return [f"has_attr({o},name,{n})" for o, n in sorted(self.names.items())][:MAX_LISTED_FACTS]


@dataclass
class _Reading:
    """The scene's answer to one check."""

    decided: bool | None  # yes/no, None when no reading answers
    confidence: float | None
    answer: Answer | None
    others: list[Answer] = field(default_factory=list)


def _likelihood_of_yes(yes: Answer | None, no: Answer | None) -> float:
    if yes is None or no is None:
        return 1.0 if no is None else 0.0
    gap = ((yes.cost[0] if yes.cost else 0) - (no.cost[0] if no.cost else 0)) / 1000.0
    return 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, gap))))


class ClaimVerifier:
    """Verifies claims on one scene (the scene index and solve limits are shared by its sub-claims)."""

    def __init__(
        self, scene: SceneFacts, *, limits: SolveLimits | None = None, min_confidence: float = MIN_CONFIDENCE
    ) -> None:
        self.scene, self.limits, self.min_confidence = scene, limits or SolveLimits(), min_confidence
        self.index = SceneIndex(scene)

    def verify(self, claim: Claim) -> ClaimVerdict:
        """The claim's verdict and each sub-claim's; `ClaimError` when its program does not answer yes or no."""
        split: ClaimSplit = split_claim(as_claim(claim.program, claim.holds))
        judged = [self.judge(s) for s in split.subclaims]
        by_id = {j.subclaim.id: j.verdict for j in judged}
        return ClaimVerdict(combine(split.formula, by_id), claim, judged, split.formula)

    def judge(self, subclaim: SubClaim) -> SubClaimVerdict:
        """One sub-claim: every check must come out as it expects."""
        verdicts: list[Verdict] = []
        facts: list[str] = []
        reasons: list[str] = []
        confidences: list[float] = []
        for check in subclaim.checks:
            verdict, confidence, check_facts, reason = self._judge_check(check)
            verdicts.append(verdict)
            facts += [f for f in check_facts if f not in facts]
            if confidence is not None:
                confidences.append(confidence)
            if verdict != "supported":
                reasons.append(reason)
        verdict = _all(verdicts)
        reason = "; ".join(reasons) if reasons else "the scene shows it"
        return SubClaimVerdict(subclaim, verdict, min(confidences) if confidences else None, facts, reason)

    # --- one check ----------------------------------------------------------------------------

    def _solve(self, program: Program) -> _Reading:
        result = solve(program, self.scene, top_k=2, limits=self.limits)
        if result.status in (SolveStatus.INVALID_PROGRAM, SolveStatus.INVALID_SCENE):
            raise VerificationError(result.message or "invalid input")
        if result.status in (SolveStatus.TIMEOUT, SolveStatus.TOO_LARGE, SolveStatus.ERROR) and not result.answers:
            return _Reading(None, None, None)
        by_value = {a.answer: a for a in result.answers}
        yes, no = by_value.get("yes"), by_value.get("no")
        if yes is None and no is None:
            return _Reading(None, None, None)
        p_yes = _likelihood_of_yes(yes, no)
        decided = p_yes >= 0.5
        chosen, other = (yes, no) if decided else (no, yes)
        return _Reading(decided, max(p_yes, 1.0 - p_yes), chosen, [other] if other is not None else [])

    def _judge_check(self, check: Check) -> tuple[Verdict, float | None, list[str], str]:
        reading = self._solve(check.program)
        if reading.decided is None:
            return self._unanswered(check)
        facts = list(reading.answer.support.facts) if reading.answer is not None else []
        confidence = reading.confidence or 0.0
        if confidence < self.min_confidence:
            for other in reading.others:
                facts += [f for f in other.support.facts if f not in facts]
            return "unverifiable", confidence, facts, f"the scene is not sure (likelihood {confidence:.2f})"
        if reading.decided is False:
            open_reason, evidence = self._open_world(check.program, reading.answer)
            facts += [f for f in evidence if f not in facts]
            if open_reason is not None:
                return "unverifiable", confidence, facts, open_reason
        verdict: Verdict = "supported" if reading.decided == check.expected else "refuted"
        said = "yes" if reading.decided else "no"
        return verdict, confidence, facts, f"the scene answers {said}"

    def _unanswered(self, check: Check) -> tuple[Verdict, float | None, list[str], str]:
        """No reading answers: a 'the ...' names nothing (or several things inconsistently), or a
        count ran out of objects to take away (then there are fewer: the answer is no)."""
        program = check.program
        counting = {s.dependencies[0] for s in program.steps if s.operation == "negate"}
        for step in program.steps:
            if step.operation != "unique":
                continue
            base = step.dependencies[0]
            steps = [program.step(i) for i in sorted(ancestors(program, base) | {base})]
            top = Step(max(s.id for s in program.steps) + 1, "exist", (base,))
            verdict, confidence, facts, reason = self._judge_check(Check(Program((*steps, top), answer=top.id), True))
            if verdict == "supported":
                continue
            if step.id in counting and verdict == "refuted":
                counted: Verdict = "refuted" if check.expected else "supported"
                return counted, confidence, facts, "there are fewer"
            return verdict, confidence, facts, f"what the claim names is not there: {reason}"
        return "unverifiable", None, [], "no reading of the scene answers the check"

    def _open_world(self, program: Program, answer: Answer | None) -> tuple[str | None, list[str]]:
        """Why a 'no' rests on what the scene does not describe (None: it does not), and the facts it has."""
        states = answer.support.steps if answer is not None else {}
        failing = _failing_step(program, states)
        if failing is None:
            return None, []
        step, inputs = failing
        objects = [str(o) for o in states.get(inputs[0], [])] if inputs else []
        op, args = step.operation, step.arguments
        category = None
        if op in _ONE_CATEGORY:
            category = args[0]
        elif op in _SAMENESS_CHECKS:
            category = args[0]
            objects += [str(o) for d in inputs[1:] for o in states.get(d, [])]
        if category is not None:
            if category in _CLOSED_CATEGORIES:
                return None, self.index.described(objects, category)
            described = self.index.described(objects, category)
            if category == OTHER_CATEGORY or not described:
                return f"the scene does not describe the {category} of {_objects(objects)}", described
            return None, described
        if op == "filter_any":
            return f"the scene does not list every property of {_objects(objects)}", []
        if op in RELATION_OPERATIONS:
            cls = args[0] if "class" in OPERATIONS[op].arguments else None
            if cls is not None and not any(cls in c for c in self.index.classes.values()):
                return None, self.index.inventory()
            linking = self.index.linking(objects, cls)
            if not linking:
                what = f"any {cls}" if cls else "anything"
                return f"the scene relates {_objects(objects)} to {what} in no way", []
            return None, linking
        if op == "select":
            return None, self.index.inventory()
        return None, []


def _failing_step(program: Program, states: dict[int, list[str]]) -> tuple[Step, tuple[int, ...]] | None:
    """The step where the answer turned to no: the first describing step with no objects whose inputs
    have some, else the answer step itself."""
    answer = program.step(program.answer)
    for step in program.steps:
        if step.operation in DESCRIBING_NOTHING or step.id == answer.id or not step.dependencies:
            continue
        if step.id in ancestors(program, answer.id) and not states.get(step.id):
            if all(states.get(d) for d in step.dependencies[-1:]):
                return step, step.dependencies if step.operation != "negate" else step.dependencies[1:]
    if answer.operation == "exist":
        return None
    return answer, answer.dependencies


def _objects(objects: list[str]) -> str:
    if not objects:
        return "those objects"
    return ("object " if len(objects) == 1 else "objects ") + ", ".join(objects)


def _all(verdicts: list[Verdict]) -> Verdict:
    if "refuted" in verdicts:
        return "refuted"
    return "unverifiable" if "unverifiable" in verdicts else "supported"


def _any(verdicts: list[Verdict]) -> Verdict:
    if "supported" in verdicts:
        return "supported"
    return "unverifiable" if "unverifiable" in verdicts else "refuted"


def combine(formula: Formula, verdicts: dict[int, Verdict]) -> Verdict:
    """The verdict of a formula over sub-claim verdicts (Kleene's three-valued and/or)."""
    if formula.connective == "sub":
        return verdicts[formula.subclaim or 0]
    parts = [combine(p, verdicts) for p in formula.parts]
    return _all(parts) if formula.connective == "all" else _any(parts)


def verify_claim(
    claim: Claim, scene: SceneFacts, *, limits: SolveLimits | None = None, min_confidence: float = MIN_CONFIDENCE
) -> ClaimVerdict:
    """Verify one claim on one scene (see the module docstring)."""
    return ClaimVerifier(scene, limits=limits, min_confidence=min_confidence).verify(claim)
