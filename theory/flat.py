"""Flat ASP, the canonical syntax: one fact per step, step ids first, ``end/1`` marks the answer.

Example:
    >>> print(format_flat(parse_flat("scene(0). select(1,0,ball). exist(2,1). end(2).")))
    scene(0). select(1, 0, ball). exist(2, 1). end(2).
"""

from __future__ import annotations

import re

import clingo

from theory.asp_data import parse_data
from theory.operations import OPERATIONS
from theory.program import Program, ProgramSyntaxError, ProgramValidationError, Step
from theory.validate import validate_program

FLAT_PREDICATES: dict[str, int] = {name: spec.flat_arity for name, spec in OPERATIONS.items()} | {"end": 1}

_BARE_CONSTANT = re.compile(r"[a-z][A-Za-z0-9_]*\Z")
_INTEGER = re.compile(r"-?[0-9]+\Z")
_KEYWORDS = {"not"}


def bare_constant(value: str) -> bool:
    """Whether an argument is written as a bare ASP constant (see `argument_symbol`)."""
    return _BARE_CONSTANT.match(value) is not None and value not in _KEYWORDS


def argument_symbol(value: str) -> clingo.Symbol:
    """An argument as an ASP term: a bare constant or integer when possible, else a string."""
    if bare_constant(value):
        return clingo.Function(value)
    if _INTEGER.match(value) and str(int(value)) == value:  # "007" must stay text, not become 7
        return clingo.Number(int(value))
    return clingo.String(value)


def format_argument(value: str) -> str:
    """An argument as ASP text (see `argument_symbol`)."""
    return str(argument_symbol(value))


def step_symbol(step: Step) -> clingo.Symbol:
    """One step as the flat fact clingo sees."""
    ids = [clingo.Number(step.id), *(clingo.Number(d) for d in step.dependencies)]
    return clingo.Function(step.operation, ids + [argument_symbol(a) for a in step.arguments])


def argument_value(symbol: clingo.Symbol) -> str:
    """The argument string an ASP term stands for (inverse of `argument_symbol`)."""
    if symbol.type == clingo.SymbolType.String:
        return symbol.string
    if symbol.type == clingo.SymbolType.Number:
        return str(symbol.number)
    if symbol.type == clingo.SymbolType.Function and not symbol.arguments and symbol.name:
        return symbol.name
    raise ProgramSyntaxError(f"argument must be a constant, number or string, got {symbol}")


def format_step(step: Step) -> str:
    """One step as a flat fact, without the trailing period."""
    parts = [str(step.id), *map(str, step.dependencies), *map(format_argument, step.arguments)]
    return f"{step.operation}({', '.join(parts)})"


def format_flat(program: Program, separator: str = " ") -> str:
    """The program in flat ASP, steps in id order, ending with ``end(N).``."""
    facts = [f"{format_step(s)}." for s in program.steps] + [f"end({program.answer})."]
    return separator.join(facts)


def parse_flat(text: str, *, validate: bool = True) -> Program:
    """Parse flat ASP into a `Program`; raises a `ProgramError` subclass saying where and what."""
    program = _read_plain_flat(text)
    if program is None:
        program = _read_flat(text)
    if validate:
        validate_program(program)
    return program


# A hand-written reader for the plain form (what `format_flat` prints, any spacing): for a typical
# question it takes about 30 us where the general reader takes about 400 us, most of it in
# foreign calls on clingo symbols. It admits a strict subset of what `_read_flat` admits and gives
# the same `Program`; anything else (comments, odd spacing or terms, any mistake) goes to
# `_read_flat`, so that errors keep their line:column messages.
_SPACE = r"[ \t\r\n]*"
_PLAIN_ARGUMENT = (
    r"(?:0|-?[1-9][0-9]{0,8}"  # no leading zeros, never past 32 bits
    r"|(?!not(?![A-Za-z0-9_]))[a-z][A-Za-z0-9_]*"  # ``not`` is a keyword, not a constant
    r'|"(?:[^"\\\n\r\x00\ud800-\udfff]|\\[\\"n])*")'  # only the escapes clingo knows
)
_PLAIN_NAME = "|".join(sorted(FLAT_PREDICATES, key=len, reverse=True))
_PLAIN_STATEMENT = re.compile(
    rf"{_SPACE}({_PLAIN_NAME}){_SPACE}\({_SPACE}({_PLAIN_ARGUMENT}(?:{_SPACE},{_SPACE}{_PLAIN_ARGUMENT})*)"
    rf"{_SPACE}\){_SPACE}\."
)
_PLAIN_SPLIT = re.compile(rf"{_SPACE},{_SPACE}")
_PLAIN_TRAILER = re.compile(rf"{_SPACE}\Z")
_ESCAPE = re.compile(r"\\(.)")


def _plain_value(token: str) -> str:
    """The argument string of one admitted term, as `argument_value` reads clingo's symbol."""
    if token[0] != '"':
        return token
    inner = token[1:-1]
    return _ESCAPE.sub(lambda m: "\n" if m[1] == "n" else m[1], inner) if "\\" in inner else inner


def _read_plain_flat(text: str) -> Program | None:
    """The program of a text in the plain flat form, or None for `_read_flat` to read (and explain)."""
    steps: dict[int, Step] = {}
    ends: set[int] = set()
    position = 0
    while (match := _PLAIN_STATEMENT.match(text, position)) is not None:
        position = match.end()
        name, arguments = match[1], _PLAIN_SPLIT.split(match[2])
        if len(arguments) != FLAT_PREDICATES[name]:
            return None
        count = 1 if name == "end" else 1 + len(OPERATIONS[name].inputs)
        if not all(t[0] in "-0123456789" for t in arguments[:count]):
            return None  # a step id that is no integer: `_read_flat` says where
        ids = [int(t) for t in arguments[:count]]
        if name == "end":
            ends.add(ids[0])
            continue
        step = Step(ids[0], name, tuple(ids[1:]), tuple(_plain_value(t) for t in arguments[count:]))
        if steps.setdefault(step.id, step) != step:
            return None
    if _PLAIN_TRAILER.match(text, position) is None or not steps or len(ends) != 1:
        return None
    return Program(tuple(steps.values()), answer=ends.pop())


def _read_flat(text: str) -> Program:
    """Any flat ASP text through clingo's parser (`parse_data`), without validating the program."""
    data = parse_data(text, what="question program", allowed=FLAT_PREDICATES)
    steps: dict[int, Step] = {}
    ends: list[int] = []
    for fact in data.facts:
        where = f"line {fact.line}:{fact.column}"
        args = fact.arguments
        ids = args[0:1] if fact.name == "end" else args[: 1 + len(OPERATIONS[fact.name].inputs)]
        for term in ids:
            if term.type != clingo.SymbolType.Number:
                raise ProgramSyntaxError(f"{fact.name}: step ids must be integers, got {term} in {fact.symbol}", where)
        if fact.name == "end":
            ends.append(args[0].number)
            continue
        step = Step(
            id=args[0].number,
            operation=fact.name,
            dependencies=tuple(t.number for t in ids[1:]),
            arguments=tuple(argument_value(t) for t in args[len(ids) :]),
        )
        if step.id in steps:
            if steps[step.id] == step:
                continue  # a repeated identical fact is the same set of atoms to clingo
            raise ProgramValidationError(f"step {step.id} is defined twice", where)
        steps[step.id] = step
    if not steps:
        raise ProgramSyntaxError("question program has no steps")
    if len(set(ends)) != 1:
        raise ProgramValidationError(
            "question program needs exactly one end(N) fact" if not ends else f"several end facts: {sorted(set(ends))}"
        )
    return Program(tuple(steps.values()), answer=ends[0])
