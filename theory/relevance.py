"""The part of the theory a question can use: rules whose positive body can never hold are left out.

Grounding every operation's rules costs about 4 ms even on an empty scene, while a question uses
three or four operations. A rule needs every predicate of its positive body literals; a
predicate is available when the scene or the program may give it facts, or when a kept rule
derives it. Rules that need an unavailable predicate derive nothing in any answer set, so
leaving them out changes no answer and no cost. Everything else (directives, ``#external``,
``#show``, constraints without a positive body, conditions and aggregates) is kept, except
comments and the ``#defined`` of predicates no kept statement mentions (both only tell clingo
what not to warn about).

A theory made with `unfold` hands its rules that read one operation atom over as instances for
the program's steps (`theory.unfolding`) instead of as rules: `relevant` leaves them out and
`unfolded` writes their instances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

from clingo import ast

from theory.program import Program
from theory.unfolding import Unfolding

Signature = tuple[str, int]
_COMMENT = ast.ASTType.Comment  # clingo 5.8 reports comments as statements
_CACHE_LIMIT = 4096  # distinct operation sets seen; questions use a few hundred at most


def _function_signatures(term: ast.AST) -> set[Signature]:
    """Predicate signatures a term of an atom can stand for (pools give several)."""
    if term.ast_type == ast.ASTType.Function:
        return {(term.name, len(term.arguments))}
    if term.ast_type == ast.ASTType.Pool:
        return set().union(*(_function_signatures(t) for t in term.arguments))
    return set()


class _Atoms(ast.Transformer):
    """Every predicate the visited part mentions (in a head, choice conditions too: an over-estimate)."""

    def __init__(self) -> None:
        self.found: set[Signature] = set()

    def visit_SymbolicAtom(self, node: ast.AST) -> ast.AST:  # noqa: N802 (clingo's visitor naming)
        self.found |= _function_signatures(node.symbol)
        return node


def _needs_and_gives(statement: ast.AST) -> tuple[frozenset[Signature], frozenset[Signature]]:
    """(positive body predicates, predicates it may make true) of one statement."""
    heads = _Atoms()
    if statement.ast_type == ast.ASTType.External:
        heads(statement.atom)  # an external atom may be switched on from Python
        return frozenset(), frozenset(heads.found)
    if statement.ast_type not in (ast.ASTType.Rule, ast.ASTType.Minimize):
        return frozenset(), frozenset()  # directives and #show: always kept, derive nothing
    needs: set[Signature] = set()
    for literal in statement.body:
        if (
            literal.ast_type == ast.ASTType.Literal
            and literal.sign == ast.Sign.NoSign
            and literal.atom.ast_type == ast.ASTType.SymbolicAtom
        ):
            signatures = _function_signatures(literal.atom.symbol)
            if len(signatures) == 1:  # a pool over several predicates needs only one of them
                needs |= signatures
    if statement.ast_type == ast.ASTType.Rule:
        heads(statement.head)
    return frozenset(needs), frozenset(heads.found)


def _mentions(statement: ast.AST) -> frozenset[Signature]:
    if statement.ast_type == ast.ASTType.ShowSignature:  # shows the facts too
        return frozenset({(statement.name, statement.arity)})
    atoms = _Atoms()
    atoms(statement)
    return frozenset(atoms.found)


# (statements to ground as written, predicates they mention, indices of the unfolded ones kept)
_Selection = tuple[tuple[ast.AST, ...], frozenset[Signature], frozenset[int]]


class Theory:
    """Parsed theory statements, and the subset each set of given predicates can use (cached)."""

    # The statements are read when first needed, not when the theory is made: a process makes two
    # theories (with and without the entailment rules) and often uses one, or none (a command that
    # never solves), and a question needs the mentions and rule texts of a few statements only.
    def __init__(self, statements: Sequence[ast.AST], unfold: Mapping[str, int] | None = None) -> None:
        self.statements = tuple(s for s in statements if s.ast_type != _COMMENT)
        self._unfold = dict(unfold or {})
        self._mentioned: dict[int, frozenset[Signature]] = {}
        self._cache: dict[frozenset[Signature], _Selection] = {}

    @cached_property
    def _rules(self) -> list[tuple[frozenset[Signature], frozenset[Signature]]]:
        return [_needs_and_gives(s) for s in self.statements]

    def _mentions_of(self, index: int) -> frozenset[Signature]:
        # Read for the statements a selection keeps, once each.
        found = self._mentioned.get(index)
        if found is None:
            found = self._mentioned[index] = _mentions(self.statements[index])
        return found

    @cached_property
    def _unfolding(self) -> Unfolding:
        return Unfolding(self.statements, self._unfold)

    @cached_property
    def reads_program(self) -> bool:
        """Whether a statement left as written reads the program's facts (else they need not be given)."""
        operations = set(self._unfold.items())
        return not operations or any(
            needs & operations for i, (needs, _) in enumerate(self._rules) if i not in self._unfolding.unfolded
        )

    def relevant(self, given: Iterable[Signature]) -> tuple[ast.AST, ...]:
        """The statements that can derive something when facts may exist for `given` predicates
        (without the unfolded ones: see `unfolded`)."""
        return self._selected(frozenset(given))[0]

    def unfolded(self, given: Iterable[Signature], program: Program) -> str:
        """The instances, for the program's steps, of the unfolded rules that `given` can use."""
        kept = self._selected(frozenset(given))[2]
        return self._unfolding.text(program.steps, kept, program.answer) if kept else ""

    def reads(self, given: Iterable[Signature]) -> frozenset[Signature]:
        """The predicates the statements `relevant` keeps mention (read, derive or show)."""
        return self._selected(frozenset(given))[1]

    def _selected(self, key: frozenset[Signature]) -> _Selection:
        found = self._cache.get(key)
        if found is None:
            if len(self._cache) >= _CACHE_LIMIT:
                self._cache.clear()
            found = self._cache[key] = self._select(key)
        return found

    def _select(self, given: frozenset[Signature]) -> _Selection:
        available = set(given)
        keep = [False] * len(self._rules)
        changed = True
        while changed:  # a fixpoint: what a kept statement derives may enable further rules
            changed = False
            for i, (needs, gives) in enumerate(self._rules):
                if not keep[i] and needs <= available:
                    keep[i] = changed = True
                    available |= gives
        mentioned: set[Signature] = set()
        for index, (statement, kept) in enumerate(zip(self.statements, keep)):
            if kept and statement.ast_type != ast.ASTType.Defined:
                mentioned |= self._mentions_of(index)
        unfolded = self._unfolding.unfolded
        statements = tuple(
            s
            for i, (s, k) in enumerate(zip(self.statements, keep))
            if k and i not in unfolded and (s.ast_type != ast.ASTType.Defined or (s.name, s.arity) in mentioned)
        )
        return statements, frozenset(mentioned), frozenset(i for i in unfolded if keep[i])
