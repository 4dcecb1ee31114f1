"""Scene encodings: certain facts plus weighted (uncertain) atoms, read from and written as ASP.

An uncertain atom with likelihood p is a free choice with two weak constraints: it costs
``weight(p)`` when chosen true and ``weight(1 - p)`` when chosen false. A scene crosses to another
process as plain terms (`PlainFacts`, what pickling a `SceneFacts` gives), made into clingo
symbols again there: no text is printed or read on the way.

Example:
    >>> scene = SceneFacts()
    >>> scene.add_fact("object", 1)
    >>> scene.add_likely("has_attr", (1, "color", "red"), 0.9)
    >>> print(scene.to_asp())
    object(1).
    { has_attr(1,color,red) }.
    :~ has_attr(1,color,red). [105,has_attr(1,color,red),1]
    :~ not has_attr(1,color,red). [2302,has_attr(1,color,red),0]
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import clingo

from theory.asp_data import DataStatements, parse_data
from theory.operations import SCENE_PREDICATES
from theory.program import UnsafeProgramError

MAX_WEIGHT = 5000
_CONSTANT_UNSAFE = re.compile(r"[^a-z0-9_]+")


def likelihood_weight(p: float) -> int:
    """``int(min(-1000 ln p, 5000))``: the cost of believing something of likelihood p."""
    if p <= 0.0:
        return MAX_WEIGHT
    return int(min(-1000.0 * math.log(min(p, 1.0)), MAX_WEIGHT))


@lru_cache(maxsize=65536)
def asp_constant(word: str) -> str:
    """A word as an ASP constant: lower case, runs of other characters to one underscore."""
    text = _CONSTANT_UNSAFE.sub("_", word.strip().lower()).strip("_")
    if not text:
        raise ValueError(f"cannot make an ASP constant of {word!r}")
    return text if text[0].isalpha() else f"v_{text}"


def to_symbol(value: int | str | clingo.Symbol) -> clingo.Symbol:
    """A Python value as a clingo term: ints as numbers, strings as constants (normalised)."""
    if isinstance(value, clingo.Symbol):
        return value
    if isinstance(value, bool):
        raise TypeError("booleans are not scene terms")
    if isinstance(value, int):
        return _number(value)
    return _constant(value)


# Symbols are immutable: scenes repeat the same few words and ids thousands of times.
@lru_cache(maxsize=65536)
def _constant(word: str) -> clingo.Symbol:
    return clingo.Function(asp_constant(word))


@lru_cache(maxsize=65536)
def _number(value: int) -> clingo.Symbol:
    return clingo.Number(value)


@lru_cache(maxsize=65536)
def _named(name: str) -> clingo.Symbol:
    return clingo.Function(name)


# A clingo term as plain Python data: a number, a constant, a string as a 1-tuple, any other
# function or tuple as (name, positive, arguments); #inf and #sup as functions of the names no
# function has.
PlainTerm = int | str | tuple[str] | tuple[str, bool, tuple["PlainTerm", ...]]
_INFIMUM, _SUPREMUM = "#inf", "#sup"


# Kept per symbol (clingo's symbols are interned, and reading one's parts is a foreign call each):
# scenes repeat the same few words and ids thousands of times.
@lru_cache(maxsize=65536)
def plain_term(symbol: clingo.Symbol) -> PlainTerm:
    """`symbol` as plain data (`term_symbol` makes it again)."""
    kind = symbol.type
    if kind is clingo.SymbolType.Number:
        return symbol.number
    if kind is clingo.SymbolType.Function:
        arguments = symbol.arguments
        if not arguments and symbol.positive and symbol.name:
            return symbol.name
        return (symbol.name, symbol.positive, tuple(plain_term(a) for a in arguments))
    if kind is clingo.SymbolType.String:
        return (symbol.string,)
    return (_INFIMUM if kind is clingo.SymbolType.Infimum else _SUPREMUM, True, ())


def term_symbol(term: PlainTerm) -> clingo.Symbol:
    """The clingo symbol of a plain term (see `plain_term`)."""
    if isinstance(term, int):
        return _number(term)
    if isinstance(term, str):
        return _named(term)
    if len(term) == 1:
        return clingo.String(term[0])
    name, positive, arguments = term
    if name == _INFIMUM:
        return clingo.Infimum
    if name == _SUPREMUM:
        return clingo.Supremum
    return clingo.Function(name, [term_symbol(a) for a in arguments], positive)


@dataclass
class WeightedAtom:
    """An atom the solver may take true (paying `cost_true`) or false (paying `cost_false`)."""

    atom: clingo.Symbol
    cost_true: int = 0
    cost_false: int = 0


@dataclass
class SceneFacts:
    """The facts of one scene: certain atoms and weighted choices, in insertion order."""

    facts: list[clingo.Symbol] = field(default_factory=list)
    weighted: dict[clingo.Symbol, WeightedAtom] = field(default_factory=dict)

    def add_fact(self, predicate: str, *arguments: int | str | clingo.Symbol) -> None:
        """Add a certain fact, e.g. ``add_fact("has_attr", 3, "color", "red")``."""
        self.facts.append(clingo.Function(predicate, [to_symbol(a) for a in arguments]))

    def add_likely(self, predicate: str, arguments: Iterable[int | str | clingo.Symbol], p: float) -> None:
        """Add an uncertain atom with likelihood `p` in [0, 1]."""
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"likelihood must be in [0, 1], got {p}")
        atom = clingo.Function(predicate, [to_symbol(a) for a in arguments])
        self.weighted[atom] = WeightedAtom(atom, likelihood_weight(p), likelihood_weight(1.0 - p))

    def add_vocabulary(self, vocabulary: Mapping[str, Iterable[str]]) -> None:
        """``is_attr(C)`` and ``is_attr_value(C, V)`` for each category and its values, sorted."""
        for category in sorted(vocabulary):
            self.add_fact("is_attr", category)
            for value in sorted(vocabulary[category]):
                self.add_fact("is_attr_value", category, value)

    def __len__(self) -> int:
        return len(self.facts) + len(self.weighted)

    @property
    def weak_constraint_count(self) -> int:
        return sum((w.cost_true > 0) + (w.cost_false > 0) for w in self.weighted.values())

    def __reduce__(self) -> tuple[Callable[[PlainFacts], SceneFacts], tuple[PlainFacts]]:
        # A clingo symbol pickles as a pointer into its own process's symbol table: a scene is
        # pickled as its plain terms and made again from them.
        return (_scene_of, (PlainFacts.of(self),))

    def to_asp(self) -> str:
        """The scene as ASP text (facts, choice rules, weak constraints)."""
        lines = [f"{f}." for f in self.facts]
        for w in self.weighted.values():
            lines.append(f"{{ {w.atom} }}.")
            if w.cost_true:
                lines.append(f":~ {w.atom}. [{w.cost_true},{w.atom},1]")
            if w.cost_false:
                lines.append(f":~ not {w.atom}. [{w.cost_false},{w.atom},0]")
        return "\n".join(lines)

    @classmethod
    def from_asp(cls, text: str) -> SceneFacts:
        """Read a scene written as ASP; anything but scene facts, choices and weak constraints is refused."""
        return cls.from_statements(parse_data(text, what="scene", allow_choices=True, allowed=SCENE_PREDICATES))

    @classmethod
    def from_statements(cls, data: DataStatements) -> SceneFacts:
        """The scene of statements read from text; a weak constraint on an atom that is no choice is refused."""
        scene = cls(facts=[f.symbol for f in data.facts])
        for choice in data.choices:
            scene.weighted.setdefault(choice.symbol, WeightedAtom(choice.symbol))
        for wc in data.weak_constraints:
            target = scene.weighted.get(wc.atom)
            if target is None:
                raise UnsafeProgramError(
                    f"weak constraint on {wc.atom}, which is not a choice {{ {wc.atom} }}", f"line {wc.line}"
                )
            if wc.negated:
                target.cost_false += wc.weight
            else:
                target.cost_true += wc.weight
        return scene


@dataclass(frozen=True)
class PlainFacts:
    """A `SceneFacts` as plain terms, in its order: what crosses to another process (a solver
    worker), where `scene_facts` makes the same scene from them, reading no text."""

    facts: tuple[PlainTerm, ...]
    weighted: tuple[tuple[PlainTerm, int, int], ...]  # (atom, cost when true, cost when false)

    @classmethod
    def of(cls, scene: SceneFacts) -> PlainFacts:
        """The plain terms of `scene` (clingo is read: in a threaded process, hold `CLINGO_LOCK`)."""
        return cls(
            tuple(plain_term(f) for f in scene.facts),
            tuple((plain_term(w.atom), w.cost_true, w.cost_false) for w in scene.weighted.values()),
        )

    def scene_facts(self) -> SceneFacts:
        """The scene of these terms, its clingo symbols made in this process."""
        scene = SceneFacts(facts=[term_symbol(f) for f in self.facts])
        for term, cost_true, cost_false in self.weighted:
            atom = term_symbol(term)
            scene.weighted[atom] = WeightedAtom(atom, cost_true, cost_false)
        return scene

    def __len__(self) -> int:
        return len(self.facts) + len(self.weighted)


def _scene_of(plain: PlainFacts) -> SceneFacts:
    return plain.scene_facts()
