"""The typed failures of the GQA interpreter (`evaluation.interpreter`): why it cannot answer.

The failure's class name is the kind the evaluation records (`InterpreterFailure.kind`).
"""

from __future__ import annotations

from evaluation.errors import EvaluationError


class InterpreterFailure(EvaluationError):
    """The interpreter cannot answer; the subclass says why."""

    @property
    def kind(self) -> str:
        return type(self).__name__


class EmptyQuery(InterpreterFailure):
    """A step needs an object or a value and has none."""


class AmbiguousAnswer(InterpreterFailure):
    """More than one answer is possible."""


class MissingEdge(InterpreterFailure):
    """``choose rel`` finds neither relation."""


class EmptyChoice(InterpreterFailure):
    """``choose`` finds neither alternative."""


class NonTrivialCategory(InterpreterFailure):
    """A category the scene graph and the metadata cannot decide."""


class NotInWordnet(InterpreterFailure):
    """A class word no object is named and the taxonomy does not know."""


class IncompleteMetadata(InterpreterFailure):
    """The metadata lacks the category of a value the program needs."""


FAILURES: tuple[type[InterpreterFailure], ...] = (
    EmptyQuery,
    AmbiguousAnswer,
    MissingEdge,
    EmptyChoice,
    NonTrivialCategory,
    NotInWordnet,
    IncompleteMetadata,
)
