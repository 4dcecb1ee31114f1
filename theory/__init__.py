"""The symbolic core: question programs, the ASP theory and the clingo runner."""

from theory.flat import format_flat, parse_flat
from theory.operations import OPERATIONS, Kind, OperationSpec
from theory.program import (
    Program,
    ProgramError,
    ProgramSyntaxError,
    ProgramValidationError,
    Step,
    UnsafeProgramError,
)
from theory.scene_facts import SceneFacts, likelihood_weight
from theory.solver import Answer, SolveLimits, SolveResult, SolveStatus, Support, solve
from theory.validate import validate_program

__all__ = [
    "OPERATIONS",
    "Answer",
    "Kind",
    "OperationSpec",
    "Program",
    "ProgramError",
    "ProgramSyntaxError",
    "ProgramValidationError",
    "SceneFacts",
    "SolveLimits",
    "SolveResult",
    "SolveStatus",
    "Step",
    "Support",
    "UnsafeProgramError",
    "format_flat",
    "likelihood_weight",
    "parse_flat",
    "solve",
    "validate_program",
]
