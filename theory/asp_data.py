"""Reading untrusted ASP text as data: facts only (plus, for scenes, weighted choices).

Question programs and scene encodings come from language models and users, so clingo must never
ground them as code. Text in the plain form (`theory.data_text`: what the project itself prints)
is admitted by a regular grammar and its atoms read by clingo's term parser. Any other text is
first scanned for directives (``#include`` would make clingo's parser open files), then parsed
with clingo's own AST parser, and every statement is checked to be a ground fact (or, where
allowed, a choice of one scene atom or a weak constraint on one).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import clingo
from clingo import ast

from theory.data_text import PlainStatement, scan, symbols_of
from theory.program import ProgramSyntaxError, UnsafeProgramError


@dataclass(frozen=True)
class Fact:
    """A ground atom read from text, with where it was written."""

    symbol: clingo.Symbol
    line: int
    column: int

    @property
    def name(self) -> str:
        return self.symbol.name

    @property
    def arguments(self) -> list[clingo.Symbol]:
        return list(self.symbol.arguments)


@dataclass(frozen=True)
class WeakConstraint:
    """``:~ [not] atom. [weight]``: pay `weight` when the atom is true (or false when negated)."""

    atom: clingo.Symbol
    negated: bool
    weight: int
    line: int


@dataclass
class DataStatements:
    """The statements of a data program, by kind."""

    facts: list[Fact]
    choices: list[Fact]
    weak_constraints: list[WeakConstraint]


# What clingo's lexer reads as one unit that may hold any character: a string exactly as clingo
# reads one (only the escapes \\ \" \n, no line break), a block comment, a line comment. A quote
# that opens no such string is a lexer error after which clingo reads on from the next character.
_OPAQUE = re.compile(r'"(?:[^"\\\n]|\\[\\"n])*"|%\*.*?(?:\*%|\Z)|%[^\n]*', re.DOTALL)
_NOTABLE = re.compile(r'["%#]|[^\x00-\x7f]')


def _hazard_position(text: str) -> tuple[int, int, str] | None:
    """Line, column and text of the first ``#`` word or non-ASCII character outside strings and comments.

    Written by hand because clingo acts on some directives while parsing (``#include`` opens a
    file), and because its lexer reports a non-ASCII character as one byte of it, which its
    Python logger cannot decode: the process aborts (clingo 5.8.3). Block comments nest in clingo
    but not here, which only ever treats more text as code.
    """
    position = 0
    while (found := _NOTABLE.search(text, position)) is not None:
        i = found.start()
        ch = text[i]
        if ch in '"%':
            opaque = _OPAQUE.match(text, i)
            position = opaque.end() if opaque else i + 1
            continue
        line = text.count("\n", 0, i) + 1
        column = i - (text.rfind("\n", 0, i) + 1) + 1
        if ch == "#":
            word = re.match(r"#[A-Za-z0-9_]*", text[i:])
            return line, column, word.group() if word else "#"
        return line, column, ch
    return None


# clingo >= 5.8 reports comments as statements.
_COMMENT = ast.ASTType.Comment


def _term_symbol(term: ast.AST) -> clingo.Symbol | None:
    """The ground symbol a term denotes, or None when it is not ground data."""
    if term.ast_type == ast.ASTType.SymbolicTerm:
        symbol: clingo.Symbol = term.symbol  # clingo's AST nodes are untyped
        return symbol
    if term.ast_type == ast.ASTType.UnaryOperation and term.operator_type == ast.UnaryOperator.Minus:
        inner = _term_symbol(term.argument)
        if inner is not None and inner.type == clingo.SymbolType.Number:
            return clingo.Number(-inner.number)
    if term.ast_type == ast.ASTType.Function and not term.external:
        args = [_term_symbol(a) for a in term.arguments]
        if all(a is not None for a in args):
            return clingo.Function(term.name, args)  # type: ignore[arg-type]
    return None


def _atom_symbol(literal: ast.AST) -> tuple[clingo.Symbol, bool] | None:
    """(atom, negated) of a literal over a ground atom, else None."""
    if literal.ast_type != ast.ASTType.Literal or literal.atom.ast_type != ast.ASTType.SymbolicAtom:
        return None
    if literal.sign == ast.Sign.DoubleNegation:
        return None
    symbol = _term_symbol(literal.atom.symbol)
    if symbol is None or symbol.type != clingo.SymbolType.Function:
        return None
    return symbol, literal.sign == ast.Sign.Negation


def _plain_statements(plain: list[PlainStatement]) -> DataStatements:
    """The statements the plain grammar admitted, as the AST reader would give them."""
    result = DataStatements([], [], [])
    for statement, symbol in zip(plain, symbols_of([s.atom for s in plain])):
        if statement.kind == "fact":
            result.facts.append(Fact(symbol, statement.line, statement.column))
        elif statement.kind == "choice":
            result.choices.append(Fact(symbol, statement.line, statement.column))
        else:
            result.weak_constraints.append(WeakConstraint(symbol, statement.negated, statement.weight, statement.line))
    return result


def _check_text(text: str, what: str) -> None:
    """Refuse text clingo would misread: not encodable as UTF-8, or with a NUL character."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ProgramSyntaxError(
            f"{what} is not valid text: character {exc.start + 1} cannot be encoded as UTF-8"
        ) from None
    if "\x00" in text:
        # clingo reads C strings: a NUL would silently end the text there.
        raise ProgramSyntaxError(f"{what} contains a NUL character at {text.index(chr(0)) + 1}")


def _check_hazards(text: str, what: str) -> None:
    """Refuse directives and non-ASCII characters outside strings and comments, before clingo parses."""
    found = _hazard_position(text)
    if found is None:
        return
    line, col, word = found
    if word.startswith("#"):
        raise UnsafeProgramError(f"directive {word} is not allowed in a {what}", f"line {line}:{col}")
    raise ProgramSyntaxError(
        f"character {word!r} outside a quoted string (a word with other letters than a-z must be quoted)",
        f"line {line}:{col}",
    )


def _ast_statements(text: str, what: str) -> list[ast.AST]:
    """The statements clingo's AST parser reads from `text`, its first message as the error."""
    statements: list[ast.AST] = []
    messages: list[str] = []
    try:
        ast.parse_string(text, statements.append, logger=lambda _code, msg: messages.append(msg))
    except RuntimeError:
        detail = messages[0].strip() if messages else "syntax error"
        detail = detail.replace("<string>:", "line ").replace("\n", " ")
        raise ProgramSyntaxError(f"{what} is not valid ASP: {' '.join(detail.split())}") from None
    return statements


@dataclass(frozen=True)
class _Reader:
    """How the statements of one text are checked: what the text is, whether choices and weak
    constraints are allowed, and the predicates allowed (None: any)."""

    what: str
    allow_choices: bool
    allowed: Mapping[str, int] | None

    def check(self, symbol: clingo.Symbol, line: int, column: int) -> None:
        """Refuse an atom of a predicate not allowed, or with another arity."""
        if self.allowed is None:
            return
        arity = self.allowed.get(symbol.name)
        if arity is None:
            raise UnsafeProgramError(
                f"unknown predicate {symbol.name}/{len(symbol.arguments)} in {self.what}", f"line {line}:{column}"
            )
        if arity != len(symbol.arguments):
            raise ProgramSyntaxError(
                f"{symbol.name} takes {arity} arguments, got {len(symbol.arguments)}: {symbol}", f"line {line}:{column}"
            )

    def read(self, stmt: ast.AST, result: DataStatements) -> None:
        """Add one statement to `result`, or raise why it is not data."""
        kind = stmt.ast_type
        if kind == _COMMENT:
            return
        where = f"line {stmt.location.begin.line}:{stmt.location.begin.column}"
        if kind == ast.ASTType.Program:
            if stmt.name != "base" or stmt.parameters:
                raise UnsafeProgramError(f"#program is not allowed in a {self.what}", where)
        elif kind == ast.ASTType.Rule:
            self._rule(stmt, result, where)
        elif kind == ast.ASTType.Minimize and self.allow_choices:
            self._weak_constraint(stmt, result, where)
        else:
            raise UnsafeProgramError(f"{str(stmt).split()[0]} statements are not allowed in a {self.what}", where)

    def _rule(self, stmt: ast.AST, result: DataStatements, where: str) -> None:
        """A ground fact, or (where allowed) a choice of one atom."""
        loc = stmt.location.begin
        head = stmt.head
        if stmt.body:
            raise UnsafeProgramError(f"rules are not allowed in a {self.what}, only facts: {stmt}", where)
        if head.ast_type == ast.ASTType.Literal:
            parsed = _atom_symbol(head)
            if parsed is None or parsed[1]:
                raise UnsafeProgramError(f"not a ground fact: {stmt}", where)
            self.check(parsed[0], loc.line, loc.column)
            result.facts.append(Fact(parsed[0], loc.line, loc.column))
            return
        choice = _choice_symbol(head) if self.allow_choices else None
        if choice is None:
            raise UnsafeProgramError(f"not a ground fact: {stmt}", where)
        self.check(choice, loc.line, loc.column)
        result.choices.append(Fact(choice, loc.line, loc.column))

    def _weak_constraint(self, stmt: ast.AST, result: DataStatements, where: str) -> None:
        """A weak constraint on one atom (or its negation) at priority 0."""
        loc = stmt.location.begin
        weight = _term_symbol(stmt.weight)
        priority = _term_symbol(stmt.priority)
        parsed = _atom_symbol(stmt.body[0]) if len(stmt.body) == 1 else None
        if parsed is None or weight is None or weight.type != clingo.SymbolType.Number or priority != clingo.Number(0):
            raise UnsafeProgramError(f"only weak constraints on one scene atom are allowed: {stmt}", where)
        self.check(parsed[0], loc.line, loc.column)
        result.weak_constraints.append(WeakConstraint(parsed[0], parsed[1], weight.number, loc.line))


def _choice_symbol(head: ast.AST) -> clingo.Symbol | None:
    """The atom of ``{ atom }`` (one ground atom, no condition, no bounds), else None."""
    if head.ast_type != ast.ASTType.Aggregate or head.left_guard or head.right_guard:
        return None
    if len(head.elements) != 1 or head.elements[0].condition:
        return None
    parsed = _atom_symbol(head.elements[0].literal)
    return parsed[0] if parsed is not None and not parsed[1] else None


def parse_data(
    text: str,
    *,
    what: str = "program",
    allow_choices: bool = False,
    allowed: Mapping[str, int] | None = None,
) -> DataStatements:
    """Parse `text` as ground data, raising a one-line error for anything else.

    `allowed` maps predicate names to arities; atoms outside it are rejected.
    """
    _check_text(text, what)
    if allowed is not None:
        plain = scan(text, allowed, allow_choices=allow_choices)
        if plain is not None:
            return _plain_statements(plain)
    return _read_ast(text, what, allow_choices, allowed)


def read_ast(
    text: str,
    *,
    what: str = "program",
    allow_choices: bool = False,
    allowed: Mapping[str, int] | None = None,
) -> DataStatements:
    """`parse_data` through clingo's AST reader alone, for any text the plain grammar admits too."""
    _check_text(text, what)
    return _read_ast(text, what, allow_choices, allowed)


def _read_ast(text: str, what: str, allow_choices: bool, allowed: Mapping[str, int] | None) -> DataStatements:
    _check_hazards(text, what)
    reader = _Reader(what, allow_choices, allowed)
    result = DataStatements([], [], [])
    for stmt in _ast_statements(text, what):
        reader.read(stmt, result)
    return result
