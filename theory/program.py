"""The `Program` model shared by every representation: numbered steps and an answer step.

Example:
    >>> p = Program((Step(0, "scene"), Step(1, "select", (0,), ("ball",)), Step(2, "exist", (1,))), answer=2)
    >>> p.step(1).arguments
    ('ball',)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from theory.errors import TheoryError


class ProgramError(TheoryError, ValueError):
    """A program is malformed; `message` says what, `location` (if known) where."""

    def __init__(self, message: str, location: str | None = None) -> None:
        self.message = message
        self.location = location
        super().__init__(f"{location}: {message}" if location else message)


class ProgramSyntaxError(ProgramError):
    """The text is not a program of the expected syntax."""


class UnsafeProgramError(ProgramError):
    """The text contains something other than data (directives, rules, unknown predicates)."""


class ProgramValidationError(ProgramError):
    """The program parses but is not a well-formed question program."""


@dataclass(frozen=True)
class Step:
    """One operation applied to the results of earlier steps."""

    id: int
    operation: str
    dependencies: tuple[int, ...] = ()
    arguments: tuple[str, ...] = ()


@dataclass(frozen=True)
class Program:
    """A question program: its steps (sorted by id) and the id of the step that answers."""

    steps: tuple[Step, ...]
    answer: int
    _by_id: dict[int, Step] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        ordered = tuple(sorted(self.steps, key=lambda s: s.id))
        object.__setattr__(self, "steps", ordered)
        object.__setattr__(self, "_by_id", {s.id: s for s in ordered})

    def step(self, step_id: int) -> Step:
        """The step with this id (KeyError when absent)."""
        return self._by_id[step_id]

    def __contains__(self, step_id: object) -> bool:
        return step_id in self._by_id

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    def __len__(self) -> int:
        return len(self.steps)

    @property
    def operations(self) -> set[str]:
        """The distinct operations the program uses."""
        return {s.operation for s in self.steps}

    def uses(self, step_id: int) -> list[int]:
        """Ids of the steps that read the result of `step_id`."""
        return [s.id for s in self.steps if step_id in s.dependencies]
