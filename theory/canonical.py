"""A canonical form of question programs, so that equal programs compare equal.

Canonical means: steps that do not reach the answer are dropped, identical sub-computations (same
operation, same arguments, same canonical inputs) are merged into one step, and the steps are
renumbered 0..n-1 in a depth-first post-order from the answer, inputs left to right.

Merging identical steps is what the nested and code-like syntaxes mean (a repeated expression is
one value), so ``flat -> nested -> flat`` is exact on canonical programs.

Example:
    >>> from theory.flat import format_flat, parse_flat
    >>> p = parse_flat("scene(5). select(7,5,cup). select(6,5,cup). unique(8,7). unique(9,6). "
    ...                "two_same(10,8,9,color). end(10).")
    >>> format_flat(canonical(p))
    'scene(0). select(1, 0, cup). unique(2, 1). two_same(3, 2, 2, color). end(3).'
"""

from __future__ import annotations

from theory.program import Program, ProgramValidationError, Step
from theory.validate import validate_program

_Key = tuple[str, tuple[int, ...], tuple[str, ...]]


def canonical(program: Program) -> Program:
    """The canonical form of `program` (validated first; raises `ProgramValidationError`)."""
    validate_program(program)
    new_id: dict[int, int] = {}  # old step id -> canonical id
    by_key: dict[_Key, int] = {}  # hash-consing table
    steps: list[Step] = []

    # Iterative post-order: question programs from models can be deep, recursion limits are small.
    stack: list[tuple[int, bool]] = [(program.answer, False)]
    while stack:
        step_id, expanded = stack.pop()
        if step_id in new_id:
            continue
        step = program.step(step_id)
        if not expanded:
            stack.append((step_id, True))
            for dep in reversed(step.dependencies):
                if dep not in new_id:
                    stack.append((dep, False))
            continue
        key = (step.operation, tuple(new_id[d] for d in step.dependencies), step.arguments)
        existing = by_key.get(key)
        if existing is None:
            existing = len(steps)
            by_key[key] = existing
            steps.append(Step(existing, step.operation, key[1], step.arguments))
        new_id[step_id] = existing
    return Program(tuple(steps), answer=new_id[program.answer])


def same_program(a: Program, b: Program) -> bool:
    """True when the two programs have the same canonical form."""
    try:
        return canonical(a) == canonical(b)
    except ProgramValidationError:
        return a == b
