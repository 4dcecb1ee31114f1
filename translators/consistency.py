"""Self-consistency: several sampled programs, the majority one, and how much they agree.

Programs are compared in canonical form (theory.canonical), so samples that differ only in step
numbering or duplicated steps count as the same program.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from theory.canonical import canonical
from theory.flat import format_flat
from theory.program import Program


@dataclass(frozen=True)
class Vote:
    """The outcome of a vote over samples (None stands for a sample that gave no program)."""

    programs: tuple[Program | None, ...]
    majority: Program | None
    agreement: float  # share of all samples that gave the majority program
    counts: dict[str, int]  # flat text of each distinct program -> how many samples gave it


def majority_vote(programs: Sequence[Program | None]) -> Vote:
    """The most frequent valid program (ties: the one sampled first) and its share of the samples."""
    keys: list[str | None] = [format_flat(canonical(p)) if p is not None else None for p in programs]
    counts = Counter(k for k in keys if k is not None)
    if not counts:
        return Vote(tuple(programs), None, 0.0, {})
    best = max(counts, key=lambda k: (counts[k], -keys.index(k)))
    majority = programs[keys.index(best)]
    return Vote(tuple(programs), canonical(majority), counts[best] / len(programs), dict(counts))
