"""Structural validation of question programs: known operations, arities, a well-typed DAG."""

from __future__ import annotations

from dataclasses import replace

from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from theory.program import Program, ProgramValidationError


def validate_program(program: Program) -> Program:
    """Check that `program` is a well-formed question program; return it unchanged or raise."""
    for step in program.steps:
        where = f"step {step.id}"
        spec = OPERATIONS.get(step.operation)
        if spec is None:
            raise ProgramValidationError(f"unknown operation {step.operation!r}", where)
        if len(step.dependencies) != len(spec.inputs):
            raise ProgramValidationError(
                f"{step.operation} reads {len(spec.inputs)} earlier step(s), got {len(step.dependencies)}", where
            )
        if len(step.arguments) != len(spec.arguments):
            raise ProgramValidationError(
                f"{step.operation} takes {len(spec.arguments)} argument(s) ({', '.join(spec.arguments) or 'none'}), "
                f"got {len(step.arguments)}",
                where,
            )
        for name, value in zip(spec.arguments, step.arguments):
            if not value:
                raise ProgramValidationError(f"{step.operation}: empty {name}", where)
            allowed = ARGUMENT_CHOICES.get(name)
            if allowed is not None and value not in allowed:
                raise ProgramValidationError(
                    f"{step.operation}: {name} must be one of {', '.join(allowed)}, got {value!r}", where
                )
        for dep, expected in zip(step.dependencies, spec.inputs):
            if dep not in program:
                raise ProgramValidationError(f"{step.operation} reads step {dep}, which does not exist", where)
            produced = OPERATIONS[program.step(dep).operation].output
            if produced is not expected:
                raise ProgramValidationError(
                    f"{step.operation} needs a {expected.value} from step {dep}, but {program.step(dep).operation} "
                    f"gives a {produced.value}",
                    where,
                )
    _check_acyclic(program)
    if program.answer not in program:
        raise ProgramValidationError(f"end({program.answer}) names a step that does not exist")
    answer_kind = OPERATIONS[program.step(program.answer).operation].output
    if answer_kind is Kind.STATE:
        raise ProgramValidationError(
            f"end({program.answer}) names a {program.step(program.answer).operation} step, which gives objects, "
            "not an answer (end with query, verify, choose, exist, same/different, common, count, and/or)"
        )
    return program


def _check_acyclic(program: Program) -> None:
    done: set[int] = set()
    active: set[int] = set()

    def visit(step_id: int) -> None:
        if step_id in done:
            return
        if step_id in active:
            raise ProgramValidationError(f"steps depend on each other in a cycle through step {step_id}")
        active.add(step_id)
        for dep in program.step(step_id).dependencies:
            visit(dep)
        active.discard(step_id)
        done.add(step_id)

    for step in program.steps:
        visit(step.id)


def ancestors(program: Program, step_id: int) -> set[int]:
    """All steps that `step_id` reads, directly or indirectly."""
    seen: set[int] = set()
    stack = list(program.step(step_id).dependencies)
    while stack:
        dep = stack.pop()
        if dep not in seen:
            seen.add(dep)
            stack.extend(program.step(dep).dependencies)
    return seen


def normalise_negate(program: Program) -> Program:
    """Put ``negate`` arguments in the documented order (REMOVED, BASE).

    Earlier material wrote both orders; the removed set is always derived from the base, so when
    the first argument is an ancestor of the second the two were swapped.
    """
    steps = []
    changed = False
    for step in program.steps:
        if step.operation == "negate":
            first, second = step.dependencies
            if first in ancestors(program, second):
                step = replace(step, dependencies=(second, first))
                changed = True
        steps.append(step)
    return Program(tuple(steps), program.answer) if changed else program
