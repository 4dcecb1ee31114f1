"""Offline evaluation: the GQA semantic interpreter and generous answer matching."""

from evaluation.interpreter import (
    FAILURES,
    AmbiguousAnswer,
    EmptyChoice,
    EmptyQuery,
    IncompleteMetadata,
    Interpreter,
    InterpreterFailure,
    MissingEdge,
    NonTrivialCategory,
    NotInWordnet,
    Scene,
    interpret,
    sanitise_answer,
)
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS, Matcher, MatchMode

__all__ = [
    "DEFAULT_HYPERNYM_LEVELS",
    "FAILURES",
    "AmbiguousAnswer",
    "EmptyChoice",
    "EmptyQuery",
    "IncompleteMetadata",
    "Interpreter",
    "InterpreterFailure",
    "MatchMode",
    "Matcher",
    "MissingEdge",
    "NonTrivialCategory",
    "NotInWordnet",
    "Scene",
    "interpret",
    "sanitise_answer",
]
