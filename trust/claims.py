"""Claims as programs: a yes/no program and what the claim says it answers.

A claim ("the red bus is to the left of the white car") is a question program whose answer step
is yes/no (exist, verify_attr, verify_rel, same/different, and/or), with `holds` saying whether
the claim asserts yes or no. Counts use the operations there are: "at least n dogs" is ``exist``
of the dogs with n - 1 of them taken away one at a time (``negate(unique(D), D)``); a claim of n
things means exactly n.

Another model's answer to a question becomes a claim deterministically (`claim_from_answer`): its
last query, choose or common step and the answer become the matching verify step; a yes/no
question with its answer is the claim that the program answers that.

Example:
    >>> from theory.nested import parse_nested
    >>> from theory.representations import format_program
    >>> claim = claim_from_answer(parse_nested("query(unique(select(scene(), bus)), color)"), "red")
    >>> format_program(claim.program, "nested"), claim.holds
    ('verify_attr(unique(select(scene(), bus)), color, red)', True)
"""

from __future__ import annotations

from dataclasses import dataclass

from theory.operations import OPERATIONS, OTHER_CATEGORY, Kind, operations_where
from theory.program import Program, ProgramError, Step
from theory.scene_facts import asp_constant
from theory.validate import validate_program
from translators.wording.ontology import bundled_ontology
from trust.errors import TrustError

YES_WORDS = frozenset({"yes", "true", "y"})
NO_WORDS = frozenset({"no", "false", "n"})
IDENTITY_CATEGORIES = frozenset({"name", "class"})
# The answer steps that give an attribute's value (a query, a choice of two values): the claim is
# that the object has the answer as that attribute.
_ASKING_A_VALUE = operations_where(lambda spec: spec.family == "attribute" and spec.output is Kind.VALUE)


class ClaimError(TrustError, ValueError):
    """Something that cannot be made into a claim; the message says why."""


@dataclass(frozen=True)
class Claim:
    """A yes/no program and whether the claim asserts that it answers yes (`holds`) or no."""

    program: Program
    holds: bool = True


def as_claim(program: Program, holds: bool = True) -> Claim:
    """`program` as a claim; raises `ClaimError` unless it is a valid program that answers yes or no."""
    try:
        validate_program(program)
    except ProgramError as exc:
        raise ClaimError(f"not a valid program: {exc}") from None
    answer = program.step(program.answer)
    if OPERATIONS[answer.operation].output is not Kind.BOOL:
        raise ClaimError(
            f"a claim is a yes/no program (exist, verify_attr, verify_rel, same/different, and/or); "
            f"this one ends with {answer.operation}"
        )
    return Claim(program, holds)


def _with_answer(program: Program, step: Step) -> Program:
    """`program` with its answer step replaced by `step` (same id)."""
    return Program(tuple(s for s in program.steps if s.id != step.id) + (step,), answer=step.id)


def _relation_answer(answer: str, options: tuple[str, str]) -> str:
    """The relation an answer names: itself, or the option it is a word of ("left" -> to_the_left_of)."""
    if answer in options:
        return answer
    matching = [o for o in options if answer in o.split("_")]
    return matching[0] if len(matching) == 1 else answer


def claim_from_answer(program: Program, answer: str) -> Claim:
    """The claim that `answer` answers the question `program` (see the module docstring)."""
    try:
        validate_program(program)
        word = asp_constant(answer)
    except ProgramError as exc:
        raise ClaimError(f"not a valid program: {exc}") from None
    except ValueError:
        raise ClaimError(f"answer {answer!r} has no words") from None
    last = program.step(program.answer)
    op, args = last.operation, last.arguments
    if OPERATIONS[op].output is Kind.BOOL:
        if word not in YES_WORDS | NO_WORDS:
            raise ClaimError(f"the question is answered yes or no, not {answer!r}")
        return Claim(program, word in YES_WORDS)
    if op in _ASKING_A_VALUE:
        category = "class" if args[0] in IDENTITY_CATEGORIES else args[0]
        if category == OTHER_CATEGORY:
            # GQA's bare "red or green?": the ontology's category of the answer, where it has one.
            category = bundled_ontology().category_of(word) or OTHER_CATEGORY
        if category == OTHER_CATEGORY:
            # A value of no known category: any category of the object may hold it.
            extra = Step(last.id, "filter_any", last.dependencies, (word,))
            top = Step(max(s.id for s in program.steps) + 1, "exist", (last.id,))
            return Claim(Program(tuple(s for s in program.steps if s.id != last.id) + (extra, top), answer=top.id))
        return Claim(_with_answer(program, Step(last.id, "verify_attr", last.dependencies, (category, word))))
    if op == "choose_rel":
        cls, first, second, position = args
        relation = _relation_answer(word, (first, second))
        return Claim(_with_answer(program, Step(last.id, "verify_rel", last.dependencies, (cls, relation, position))))
    if op == "common":
        return Claim(_with_answer(program, Step(last.id, "two_same", last.dependencies, (word,))))
    raise ClaimError(f"no claim can be made from a question ending with {op}")


def at_least(program_steps: list[Step], base: int, count: int) -> int:
    """Append to `program_steps` the steps of "at least `count` objects of step `base`"; the id of the
    set that is not empty exactly then (`base` itself for 1)."""
    current = base
    for _ in range(count - 1):
        next_id = max(s.id for s in program_steps) + 1
        chosen = Step(next_id, "unique", (current,))
        rest = Step(next_id + 1, "negate", (next_id, current))
        program_steps += [chosen, rest]
        current = rest.id
    return current


def count_level(program: Program, step_id: int) -> tuple[int, int] | None:
    """For a step of the "at least n" form, (the step counted, n); None for any other step."""
    level, current = 1, step_id
    while True:
        step = program.step(current)
        if step.operation != "negate":
            break
        removed, base = step.dependencies
        chosen = program.step(removed)
        if chosen.operation != "unique" or chosen.dependencies != (base,):
            break
        level, current = level + 1, base
    return (current, level) if level > 1 else None
