"""Self-consistency: several candidate programs, the majority one, and how much they agree.

Candidates are grouped by meaning, not text: equal canonical forms (theory.canonical) are one
group, and so are programs that answer alike on generated scenes (theory.equivalence), so
``filter(select(car), color, red)`` read before or after another step still counts as one vote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from theory.canonical import canonical
from theory.equivalence import equivalent
from theory.flat import format_flat
from theory.program import Program


@dataclass(frozen=True)
class Vote:
    """The outcome of a vote over samples (None stands for a sample that gave no program)."""

    programs: tuple[Program | None, ...]
    majority: Program | None
    agreement: float  # share of all samples that gave the majority program
    counts: dict[str, int]  # flat text of each distinct program -> how many samples gave it


def majority_vote(programs: Sequence[Program | None], scenes: int = 12) -> Vote:
    """The program of the largest group of equivalent candidates (ties: the group sampled first)
    and that group's share of the candidates; `counts` maps each group's first program to its size."""
    keys: list[str | None] = []
    representatives: list[tuple[str, Program]] = []
    for program in programs:
        if program is None:
            keys.append(None)
            continue
        text = format_flat(canonical(program))
        same = next(
            (
                key
                for key, other in representatives
                if key == text or equivalent(program, other, scenes=scenes).equivalent
            ),
            None,
        )
        if same is None:
            representatives.append((text, program))
            same = text
        keys.append(same)
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return Vote(tuple(programs), None, 0.0, {})
    best = max(counts, key=lambda k: (counts[k], -keys.index(k)))
    majority = dict(representatives)[best]  # the first program of the largest group
    return Vote(tuple(programs), canonical(majority), counts[best] / len(programs), dict(counts))
