"""Theory rules with the question's operation facts put in: one rule instance per matching step.

A rule such as ``state(S,O) :- select(S,D,C), state(D,O), has_attr(O,class,C).`` reads the
program's ``select/3`` facts; for the step ``select(1,0,ball)`` it means exactly
``state(1,O) :- state(0,O), has_attr(O,class,ball).`` Unfolding a body atom whose predicate has
only facts, and one fact per step, is an equivalence transformation: the ground program clingo
solves is the same, so answers, costs and support are too. It pays because clingo prepares every
rule for grounding before any fact (about 4 us a rule and 3.5 us a body literal, and most of a
perfect-information solve): instances of operations the program does not use vanish, the
variants that do not match (``relate(...,object)`` for a subject step) vanish, and each instance
has one body literal less.

Only rules and weak constraints with exactly one positive operation atom in their body are
unfolded; anything else is left for the grounder as written.

Example:
    >>> from clingo import ast
    >>> rules = []
    >>> ast.parse_string("p(S,X) :- select(S,_,X), q(X).", rules.append)
    >>> unfolding = Unfolding(rules, {"select": 3})
    >>> from theory.program import Step
    >>> unfolding.text([Step(1, "select", (0,), ("ball",))], range(len(rules)))
    'p(1,ball) :- q(ball).'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import clingo
from clingo import ast

from theory.flat import format_argument
from theory.program import Step

_MARK = "aspvqa_unfolded_argument_"  # a constant no theory or question can write: a placeholder
_MARKED = re.compile(rf"{_MARK}(\d+)")


@lru_cache(maxsize=4096)
def _printed_argument(value: str) -> str:
    # Cached: building and printing a clingo symbol takes three foreign calls, and questions repeat
    # their words.
    return format_argument(value)


def step_arguments(step: Step) -> tuple[str, ...]:
    """The printed arguments of a step's flat fact: its id, its inputs, then its words."""
    return (str(step.id), *map(str, step.dependencies), *map(_printed_argument, step.arguments))


@dataclass(frozen=True)
class RuleTemplate:
    """One rule with the arguments of its operation atom left open (``{i}`` in `text`)."""

    statement: int  # the rule's index among the theory's statements
    operation: str
    rule: ast.AST = field(repr=False, compare=False)  # the theory's statement, its text written on first use
    literal: int  # the position of the operation atom in the rule's body
    positions: Mapping[str, int] = field(repr=False, compare=False)  # the atom's variables by argument position
    constants: tuple[tuple[int, str], ...]  # (position, printed constant) the step must have
    same: tuple[tuple[int, int], ...]  # positions a repeated variable makes equal

    @cached_property
    def text(self) -> str:
        """The rule for str.format with the step's printed arguments."""
        # Written on first use: a question uses a few of the theory's rules, and writing all of
        # them took most of the time a process's first solve spent reading the theory.
        body = [literal for index, literal in enumerate(self.rule.body) if index != self.literal]
        rest = _Substitute(self.positions)(self.rule.update(body=body))
        return _MARKED.sub(r"{\1}", str(rest).replace("{", "{{").replace("}", "}}"))

    def instance(self, arguments: Sequence[str]) -> str | None:
        """The rule for a step with these printed arguments, or None when the step does not match."""
        for position, constant in self.constants:
            if arguments[position] != constant:
                return None
        for first, second in self.same:
            if arguments[first] != arguments[second]:
                return None
        return self.text.format(*arguments)


class _Substitute(ast.Transformer):
    """Replaces the named variables by placeholder constants."""

    def __init__(self, positions: Mapping[str, int]) -> None:
        self.positions = positions

    def visit_Variable(self, node: ast.AST) -> ast.AST:  # noqa: N802 (clingo's visitor naming)
        position = self.positions.get(node.name)
        if position is None:
            return node
        return ast.SymbolicTerm(node.location, clingo.Function(f"{_MARK}{position}"))


def _operation_literals(statement: ast.AST, operations: Mapping[str, int]) -> list[int]:
    """The positions in the body of the positive operation atoms."""
    found = []
    for index, literal in enumerate(statement.body):
        if (
            literal.ast_type == ast.ASTType.Literal
            and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.SymbolicAtom
            and literal.atom.symbol.ast_type == ast.ASTType.Function
            and operations.get(literal.atom.symbol.name) == len(literal.atom.symbol.arguments)
        ):
            found.append(index)
    return found


def _template(index: int, statement: ast.AST, operations: Mapping[str, int]) -> RuleTemplate | None:
    """The template of a rule or weak constraint with exactly one operation atom, else None."""
    if statement.ast_type not in (ast.ASTType.Rule, ast.ASTType.Minimize):
        return None
    literals = _operation_literals(statement, operations)
    if len(literals) != 1:
        return None
    atom = statement.body[literals[0]].atom.symbol
    positions: dict[str, int] = {}
    constants: list[tuple[int, str]] = []
    same: list[tuple[int, int]] = []
    for position, term in enumerate(atom.arguments):
        if term.ast_type == ast.ASTType.Variable:
            if term.name == "_":
                continue
            if term.name in positions:
                same.append((positions[term.name], position))
            else:
                positions[term.name] = position
        elif term.ast_type == ast.ASTType.SymbolicTerm:
            constants.append((position, str(term.symbol)))
        else:
            return None  # an argument pattern such as f(X) or X+1: left to the grounder
    return RuleTemplate(index, atom.name, statement, literals[0], positions, tuple(constants), tuple(same))


class Unfolding:
    """The theory's rules that read one operation atom, as templates to instantiate per step."""

    def __init__(self, statements: Sequence[ast.AST], operations: Mapping[str, int]) -> None:
        templates = [_template(i, s, operations) for i, s in enumerate(statements)]
        self.unfolded = frozenset(t.statement for t in templates if t is not None)
        self._by_operation: dict[str, list[RuleTemplate]] = {}
        for template in templates:
            if template is not None:
                self._by_operation.setdefault(template.operation, []).append(template)

    def text(self, steps: Iterable[Step], kept: Iterable[int], answer: int | None = None) -> str:
        """The instances, for these steps (and ``end(answer)``), of the unfolded rules in `kept`."""
        wanted = set(kept)
        facts = [(step.operation, step_arguments(step)) for step in steps]
        if answer is not None:
            facts.append(("end", (str(answer),)))
        rules = []
        for operation, arguments in facts:
            for template in self._by_operation.get(operation, ()):
                if template.statement in wanted:
                    rule = template.instance(arguments)
                    if rule is not None:
                        rules.append(rule)
        return "\n".join(rules)
