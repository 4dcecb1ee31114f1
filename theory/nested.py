"""Nested ASP: each step written as a call whose leading arguments are the steps it reads.

``scene()`` is the root; there is no ``end``: the outermost call is the answer. A repeated
sub-expression denotes one step (it is merged), which makes flat -> nested -> flat exact on
canonical programs.

Example:
    >>> p = parse_nested("exist(filter(select(scene(), ball), color, red))")
    >>> format_nested(p)
    'exist(filter(select(scene(), ball), color, red))'

The expression reader here is shared with the code-like syntax (`theory.codelike`). It is a small
hand-written recursive-descent parser rather than a parser generator or clingo's term parser:
the grammar is a handful of tokens, and what matters is model-facing error messages that say
exactly where and what (which parenthesis is unbalanced, which operation has the wrong arity,
which argument should have been a step), which neither gives without re-deriving them.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass

from theory.flat import format_argument
from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from theory.program import Program, ProgramSyntaxError, ProgramValidationError, Step
from theory.validate import validate_program

MAX_DEPTH = 200  # deeper nesting than any real question; keeps recursion bounded on hostile input
MAX_NESTED_CALLS = 100_000  # shared steps are repeated in nested form: bound the blow-up

_TOKEN = re.compile(
    r"""(?P<space>[ \t\r\n]+)
      | (?P<comment>%[^\n]*)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<number>-?[0-9]+)
      | (?P<string>"(?:[^"\\\n]|\\.)*")
      | (?P<open>\()
      | (?P<close>\))
      | (?P<comma>,)
      | (?P<equals>=)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class Token:
    kind: str  # name | number | string | open | close | comma | equals | end
    text: str
    offset: int


@dataclass(frozen=True)
class Atom:
    """A word argument (constant, number or quoted string), or a bare name."""

    value: str
    offset: int
    bare: bool  # an unquoted identifier: may be a variable in the code-like syntax


@dataclass(frozen=True)
class Call:
    """``operation(item, ...)`` as written."""

    operation: str
    items: tuple[Call | Atom, ...]
    offset: int
    close_offset: int


Item = Call | Atom

KIND_WORDS = {Kind.STATE: "objects", Kind.VALUE: "a word", Kind.BOOL: "yes/no", Kind.NUMBER: "a number"}


def location(text: str, offset: int) -> str:
    """``line L:C`` (1-based) of a character offset in `text`."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}:{column}"


def _unescape(quoted: str) -> str:
    body = quoted[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`, ending with an ``end`` token; raises on a character outside the syntax."""
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            char = text[pos]
            hint = " (unterminated string)" if char == '"' else ""
            raise ProgramSyntaxError(f"unexpected character {char!r}{hint}", location(text, pos))
        kind = match.lastgroup or ""
        if kind not in ("space", "comment"):
            tokens.append(Token(kind, match.group(), pos))
        pos = match.end()
    tokens.append(Token("end", "", len(text)))
    return tokens


class Parser:
    """Reads items (calls and atoms) from a token list; positions refer to the original text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> Token:
        token = self.peek()
        self.pos += 1
        return token

    def error(self, message: str, offset: int) -> ProgramSyntaxError:
        return ProgramSyntaxError(message, location(self.text, offset))

    def describe(self, token: Token) -> str:
        return "the end of the text" if token.kind == "end" else repr(token.text)

    def item(self, depth: int = 0) -> Item:
        """One call or atom."""
        token = self.next()
        if token.kind == "string":
            return Atom(_unescape(token.text), token.offset, bare=False)
        if token.kind == "number":
            return Atom(str(int(token.text)), token.offset, bare=False)
        if token.kind == "close":
            raise self.error("unbalanced parenthesis: ')' closes nothing", token.offset)
        if token.kind != "name":
            raise self.error(f"expected an operation or a word, got {self.describe(token)}", token.offset)
        if self.peek().kind != "open":
            return Atom(token.text, token.offset, bare=True)
        if depth >= MAX_DEPTH:
            raise self.error(f"nesting deeper than {MAX_DEPTH} calls", token.offset)
        opened = self.next()
        items: list[Item] = []
        if self.peek().kind == "close":
            return Call(token.text, (), token.offset, self.next().offset)
        while True:
            if self.peek().kind == "end":
                raise self.error(f"unbalanced parenthesis: '(' of {token.text} is never closed", opened.offset)
            items.append(self.item(depth + 1))
            sep = self.next()
            if sep.kind == "close":
                return Call(token.text, tuple(items), token.offset, sep.offset)
            if sep.kind == "end":
                raise self.error(f"unbalanced parenthesis: '(' of {token.text} is never closed", opened.offset)
            if sep.kind != "comma":
                previous = self.tokens[self.pos - 2]
                if "\n" in self.text[previous.offset : sep.offset]:
                    # A new line that starts like a new statement: most likely a missing ')'.
                    raise self.error(
                        f"unbalanced parenthesis: '(' of {token.text} is not closed by the end of its line "
                        f"(or a ',' is missing before {location(self.text, sep.offset)})",
                        opened.offset,
                    )
                raise self.error(f"expected ',' or ')' in {token.text}(...), got {self.describe(sep)}", sep.offset)


def _describe_item(item: Item) -> str:
    return f"{item.operation}(...)" if isinstance(item, Call) else repr(item.value)


class ProgramBuilder:
    """Turns calls into `Program` steps, merging identical sub-expressions (hash-consing).

    `resolve_name` maps a bare name in an input position to a step id (code-like variables);
    when it is None, a bare name there is an error.
    """

    def __init__(self, text: str, resolve_name: Callable[[Atom], int] | None = None) -> None:
        self.text = text
        self.resolve_name = resolve_name
        self.steps: list[Step] = []
        self._by_key: dict[tuple[str, tuple[int, ...], tuple[str, ...]], int] = {}

    def error(self, message: str, offset: int) -> ProgramSyntaxError:
        return ProgramSyntaxError(message, location(self.text, offset))

    def kind_of(self, step_id: int) -> Kind:
        return OPERATIONS[self.steps[step_id].operation].output

    def add(self, call: Call) -> int:
        """The step id of `call` (and of everything it reads)."""
        spec = OPERATIONS.get(call.operation)
        if spec is None:
            close = difflib.get_close_matches(call.operation, OPERATIONS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise self.error(f"unknown operation {call.operation!r}{hint}", call.offset)
        wanted = len(spec.inputs) + len(spec.arguments)
        if len(call.items) != wanted:
            names = ["input"] * len(spec.inputs) + list(spec.arguments)
            raise self.error(
                f"{call.operation} takes {wanted} argument(s) ({', '.join(names) or 'none'}), got {len(call.items)}",
                call.offset,
            )
        deps: list[int] = []
        for index, (item, kind) in enumerate(zip(call.items, spec.inputs), start=1):
            if isinstance(item, Call):
                dep = self.add(item)
            elif item.bare and self.resolve_name is not None:
                dep = self.resolve_name(item)
            else:
                raise self.error(
                    f"{call.operation}: argument {index} must be a step such as scene() or select(...), "
                    f"got {_describe_item(item)}",
                    item.offset,
                )
            produced = self.kind_of(dep)
            if produced is not kind:
                raise self.error(
                    f"{call.operation}: argument {index} must be a step giving {KIND_WORDS[kind]}, but "
                    f"{self.steps[dep].operation} gives {KIND_WORDS[produced]}",
                    item.offset,
                )
            deps.append(dep)
        arguments: list[str] = []
        for index, (item, name) in enumerate(zip(call.items[len(spec.inputs) :], spec.arguments), start=len(deps) + 1):
            if isinstance(item, Call):
                raise self.error(
                    f"{call.operation}: argument {index} ({name}) must be a word, got {_describe_item(item)}",
                    item.offset,
                )
            allowed = ARGUMENT_CHOICES.get(name)
            if allowed is not None and item.value not in allowed:
                raise self.error(
                    f"{call.operation}: {name} must be one of {', '.join(allowed)}, got {item.value!r}", item.offset
                )
            if not item.value:
                raise self.error(f"{call.operation}: empty {name}", item.offset)
            arguments.append(item.value)
        key = (call.operation, tuple(deps), tuple(arguments))
        step_id = self._by_key.get(key)
        if step_id is None:
            step_id = len(self.steps)
            self._by_key[key] = step_id
            self.steps.append(Step(step_id, call.operation, key[1], key[2]))
        return step_id

    def program(self, answer: int, offset: int) -> Program:
        """The program answering with step `answer`, validated."""
        if self.kind_of(answer) is Kind.STATE:
            raise self.error(
                f"the answer {self.steps[answer].operation}(...) gives objects, not an answer "
                "(end with query, verify, choose, exist, same/different, common, count, and/or)",
                offset,
            )
        program = Program(tuple(self.steps), answer)
        try:
            return validate_program(program)
        except ProgramValidationError as exc:  # the builder's checks should make this unreachable
            raise self.error(exc.message, offset) from exc


def parse_nested(text: str) -> Program:
    """Parse one nested expression into a validated `Program`; errors say ``line L:C`` and what."""
    parser = Parser(text)
    if parser.peek().kind == "end":
        raise ProgramSyntaxError("empty program", location(text, 0))
    root = parser.item()
    if not isinstance(root, Call):
        raise parser.error(f"expected an operation call such as exist(...), got {root.value!r}", root.offset)
    extra = parser.peek()
    if extra.kind == "close":
        raise parser.error("unbalanced parenthesis: ')' closes nothing", extra.offset)
    if extra.kind != "end":
        raise parser.error(f"unexpected {extra.text!r} after the end of the program", extra.offset)
    builder = ProgramBuilder(text)
    return builder.program(builder.add(root), root.offset)


def format_call(step: Step, inputs: list[str]) -> str:
    """``op(inputs..., arguments...)`` with arguments written as ASP terms."""
    return f"{step.operation}({', '.join([*inputs, *map(format_argument, step.arguments)])})"


def format_nested(program: Program) -> str:
    """The program as one nested expression (steps that do not reach the answer are left out).

    Shared steps are written out at each use; a program whose expansion exceeds
    `MAX_NESTED_CALLS` calls raises `ProgramValidationError` (write it code-like instead).
    """
    validate_program(program)  # also rules out cycles, which the expansion below would chase forever
    size = _expanded_size(program, program.answer, {})
    if size > MAX_NESTED_CALLS:
        raise ProgramValidationError(
            f"the nested form would have {size} calls (limit {MAX_NESTED_CALLS}): "
            "too many shared steps, use the code-like form"
        )
    return nested_step(program, program.answer)


def nested_step(program: Program, step_id: int, memo: dict[int, str] | None = None) -> str:
    """Step `step_id` and all it reads as one nested expression: the same text for the same objects
    or answer, whatever the steps' ids (shared steps written out at each use, `memo` keeping each once)."""
    memo = {} if memo is None else memo
    if step_id not in memo:
        step = program.step(step_id)
        memo[step_id] = format_call(step, [nested_step(program, d, memo) for d in step.dependencies])
    return memo[step_id]


def _expanded_size(program: Program, step_id: int, sizes: dict[int, int]) -> int:
    """Number of calls in the nested expansion of `step_id` (memoised, iterative)."""
    stack = [step_id]
    while stack:
        current = stack[-1]
        if current in sizes:
            stack.pop()
            continue
        pending = [d for d in program.step(current).dependencies if d not in sizes]
        if pending:
            stack.extend(pending)
            continue
        sizes[current] = 1 + sum(sizes[d] for d in program.step(current).dependencies)
        stack.pop()
    return sizes[step_id]
