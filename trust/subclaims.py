"""A claim split into sub-claims: one per object, attribute, relation and count it states, and how
their verdicts combine into the claim's.

Every sub-claim is a small yes/no program of its own (or two, for "exactly n"). The steps a
yes/no step reads must describe something that exists ("the bus is red" presupposes a bus), so
each object, attribute and relation step on the way becomes a sub-claim that it is not empty;
the yes/no step itself is the last one. A claim that something does not hold keeps those
presuppositions, except "there is no ...", which presupposes nothing. The claim's verdict is
the sub-claims' combined by `and`/`or` in three-valued logic (`Formula`).

Example:
    >>> from theory.nested import parse_nested
    >>> from trust.claims import Claim
    >>> split = split_claim(Claim(parse_nested("verify_attr(unique(select(scene(), bus)), color, red)")))
    >>> [(s.kind, s.text) for s in split.subclaims]
    [('object', 'there is a bus'), ('attribute', 'the bus is red')]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from theory.canonical import canonical
from theory.flat import format_flat
from theory.operations import DESCRIBING_NOTHING, OPERATIONS, POSITION_VALUES, RELATING_OPERATIONS, Kind
from theory.program import Program, Step
from theory.validate import ancestors
from trust.claims import Claim, at_least, count_level

SubClaimKind = Literal["object", "attribute", "relation", "count", "comparison"]

# What the objects of a step are described by, by the family of the step's operation (a step of
# one of the input's objects is described by what describes the input).
_DESCRIBED_BY: dict[str, SubClaimKind] = {
    "objects": "object",
    "class": "object",
    "attribute": "attribute",
    "difference": "attribute",
    "relation": "relation",
    "sameness": "relation",
    "comparison": "comparison",
}
# What a yes/no step checks, by its family (any other: a comparison, of values or of counts).
_CHECKED_BY: dict[str, SubClaimKind] = {"attribute": "attribute", "relation": "relation"}
# The steps whose class must be there for the step to hold ("the cup on the table": a table).
_NAMING_OTHERS = frozenset(name for name in RELATING_OPERATIONS if "class" in OPERATIONS[name].arguments)
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


@dataclass(frozen=True)
class Check:
    """One yes/no program and the answer the sub-claim needs from it."""

    program: Program
    expected: bool


@dataclass(frozen=True)
class SubClaim:
    """One object, attribute, relation, count or comparison the claim states."""

    id: int
    kind: SubClaimKind
    text: str
    checks: tuple[Check, ...]


@dataclass(frozen=True)
class Formula:
    """How sub-claim verdicts combine: a sub-claim (`subclaim`), or all / any of `parts`."""

    connective: str  # "sub", "all" or "any"
    subclaim: int | None = None
    parts: tuple[Formula, ...] = ()


@dataclass
class ClaimSplit:
    """The sub-claims of a claim and the formula that gives the claim's verdict from theirs."""

    subclaims: list[SubClaim] = field(default_factory=list)
    formula: Formula = Formula("all")


def _words(constant: str) -> str:
    return constant.replace("_", " ")


def _article(phrase: str) -> str:
    return ("an " if phrase[:1] in "aeiou" else "a ") + phrase


def _plural(phrase: str) -> str:
    head, _, rest = phrase.partition(" that ")
    noun = head if head.endswith("s") else head + ("es" if head.endswith(("x", "ch", "sh")) else "s")
    return f"{noun} that {rest}" if rest else noun


def describe(program: Program, step_id: int) -> str:
    """The objects of a step as a noun phrase ("white car to the left of the bus")."""
    step = program.step(step_id)
    op, args, deps = step.operation, step.arguments, step.dependencies
    inner = describe(program, deps[0]) if deps else ""
    if op == "scene":
        return "thing"
    if op == "select":
        return _words(args[0]) if inner == "thing" else f"{inner} that is {_article(_words(args[0]))}"
    if op in ("filter", "filter_any"):
        value = _words(args[-1])
        if op == "filter" and args[0] in POSITION_VALUES:
            return f"{inner} on the {value}" if args[0] == "hposition" else f"{inner} at the {value}"
        return f"{value} {inner}"
    if op == "relate":
        cls, relation, position = _words(args[0]), _words(args[1]), args[2]
        return f"{cls} {relation} the {inner}" if position == "subject" else f"{cls} that the {inner} is {relation}"
    if op == "relate_any":
        relation, position = _words(args[0]), args[1]
        return f"thing {relation} the {inner}" if position == "subject" else f"thing that the {inner} is {relation}"
    if op == "relate_attr":
        return f"{_words(args[0])} with the same {_words(args[1])} as the {inner}"
    if op == "unique":
        return inner
    if op == "negate":
        counted = count_level(program, step_id)
        if counted is not None:
            return describe(program, counted[0])
        base = describe(program, deps[1])
        return f"{base} that is not the {describe(program, deps[0])}"
    if op == "compare":
        first, second = describe(program, deps[0]), describe(program, deps[1])
        quality = _words(args[0]) if args[1] == "true" else f"less {_words(args[0])}"
        return f"more {quality} of the {first} and the {second}"
    return inner


def _statement(program: Program, step_id: int) -> str:
    step = program.step(step_id)
    op, args, deps = step.operation, step.arguments, step.dependencies
    if op == "exist":
        counted = count_level(program, deps[0])
        if counted is not None:
            base, n = counted
            number = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
            return f"there are at least {number} {_plural(describe(program, base))}"
        return f"there is {_article(describe(program, deps[0]))}"
    subject = describe(program, deps[0]) if deps else ""
    if op == "verify_attr":
        category, value = args
        if category in POSITION_VALUES:
            where = "on the" if category == "hposition" else "at the"
            return f"the {subject} is {where} {_words(value)}"
        if category in ("class", "name"):
            return f"the {subject} is {_article(_words(value))}"
        return f"the {subject} is {_words(value)}"
    if op == "verify_rel":
        cls, relation, position = _words(args[0]), _words(args[1]), args[2]
        if position == "object":
            return f"the {subject} is {relation} {_article(cls)}"
        return f"{_article(cls)} is {relation} the {subject}"
    if op in ("two_same", "two_different"):
        same = "the same" if op == "two_same" else "different"
        return f"the {subject} and the {describe(program, deps[1])} have {same} {_words(args[0])}"
    if op in ("all_same", "all_different"):
        same = "the same" if op == "all_same" else "different"
        return f"all the {_plural(subject)} have {same} {_words(args[0])}"
    return f"{op} holds"


def _chain(program: Program, step_id: int) -> list[Step]:
    """The step and every step it reads, in id order."""
    ids = ancestors(program, step_id) | {step_id}
    return [program.step(i) for i in sorted(ids)]


def _exist_program(program: Program, step_id: int) -> Program:
    """'The objects of this step exist' as a program."""
    steps = _chain(program, step_id)
    top = Step(max(s.id for s in steps) + 1, "exist", (step_id,))
    return Program((*steps, top), answer=top.id)


def _check_program(program: Program, step_id: int) -> Program:
    return Program(tuple(_chain(program, step_id)), answer=step_id)


def _kind(program: Program, step_id: int) -> SubClaimKind:
    """What the objects of a step are described by: the last describing step on the way to it."""
    step = program.step(step_id)
    if step.operation == "unique":
        return _kind(program, step.dependencies[0])
    if step.operation == "negate" and count_level(program, step_id) is not None:
        return "count"
    return _DESCRIBED_BY.get(OPERATIONS[step.operation].family, "object")


class _Splitter:
    def __init__(self, program: Program) -> None:
        self.program = program
        self.split = ClaimSplit()
        self._by_key: dict[tuple[tuple[str, bool], ...], int] = {}

    def add(self, kind: SubClaimKind, text: str, checks: tuple[Check, ...]) -> Formula:
        key = tuple((format_flat(canonical(c.program)), c.expected) for c in checks)
        if key not in self._by_key:
            self._by_key[key] = len(self.split.subclaims) + 1
            self.split.subclaims.append(SubClaim(self._by_key[key], kind, text, checks))
        return Formula("sub", self._by_key[key])

    def exists(self, step_id: int) -> Formula:
        """The sub-claim that the objects of a step exist (a count: that there are exactly that many)."""
        counted = count_level(self.program, step_id)
        if counted is not None:
            base, n = counted
            steps = _chain(self.program, step_id)
            more = at_least(steps, base, n + 1)
            top = Step(max(s.id for s in steps) + 1, "exist", (more,))
            exactly = (
                Check(_exist_program(self.program, step_id), True),
                Check(Program((*steps, top), answer=top.id), False),
            )
            number = _NUMBERS[n] if n < len(_NUMBERS) else str(n)
            return self.add("count", f"there are exactly {number} {_plural(describe(self.program, base))}", exactly)
        text = f"there is {_article(describe(self.program, step_id))}"
        return self.add(_kind(self.program, step_id), text, (Check(_exist_program(self.program, step_id), True),))

    def presuppositions(self, step_id: int, seen: set[int]) -> list[Formula]:
        """Sub-claims that every describing step the step reads is not empty (inputs first)."""
        if step_id in seen:
            return []
        seen.add(step_id)
        step = self.program.step(step_id)
        counted = count_level(self.program, step_id)
        if counted is not None:
            return [*self.presuppositions(counted[0], seen), self.exists(step_id)]
        found: list[Formula] = []
        readable = step.dependencies[1:] if step.operation == "negate" else step.dependencies
        for dep in readable:  # what negate removes need not exist
            found += self.presuppositions(dep, seen)
        if step.operation in _NAMING_OTHERS:
            found.append(self.named_object(step.arguments[0]))
        if step.operation not in DESCRIBING_NOTHING:
            found.append(self.exists(step_id))
        return found

    def named_object(self, cls: str) -> Formula:
        select = Program((Step(0, "scene"), Step(1, "select", (0,), (cls,)), Step(2, "exist", (1,))), answer=2)
        return self.add("object", f"there is {_article(_words(cls))}", (Check(select, True),))

    def boolean(self, step_id: int, holds: bool) -> Formula:
        step = self.program.step(step_id)
        if step.operation in ("and", "or"):
            branches = tuple(self.boolean(d, holds) for d in step.dependencies)
            # not (a and b) = not a or not b, and not (a or b) = not a and not b.
            return Formula("all" if (step.operation == "and") == holds else "any", parts=branches)
        if step.operation == "exist":
            if holds:
                return Formula("all", parts=tuple(self.presuppositions(step.dependencies[0], set())))
            text = f"there is no {describe(self.program, step.dependencies[0])}"
            kind = _kind(self.program, step.dependencies[0])
            return self.add(kind, text, (Check(_check_program(self.program, step_id), False),))
        parts: list[Formula] = []
        seen: set[int] = set()
        for dep in step.dependencies:
            parts += self.presuppositions(dep, seen)
        if step.operation == "verify_rel" and holds:
            parts.append(self.named_object(step.arguments[0]))
        kind = _CHECKED_BY.get(OPERATIONS[step.operation].family, "comparison")
        text = _statement(self.program, step_id)
        parts.append(
            self.add(kind, text if holds else f"not: {text}", (Check(_check_program(self.program, step_id), holds),))
        )
        return Formula("all", parts=tuple(parts))


def split_claim(claim: Claim) -> ClaimSplit:
    """The sub-claims of `claim` (each once, in the order they are met) and their formula."""
    if OPERATIONS[claim.program.step(claim.program.answer).operation].output is not Kind.BOOL:
        raise ValueError("a claim's program answers yes or no")
    splitter = _Splitter(claim.program)
    splitter.split.formula = splitter.boolean(claim.program.answer, claim.holds)
    return splitter.split
