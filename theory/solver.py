"""Run clingo on theory + scene + question and rank the distinct answers by optimal cost.

Ranking: each round asks for the cheapest models that contain an answer not ranked yet
(``--opt-mode=optN``, projected on ``ans/1``); every new answer in those models is reachable at
that cost and no cheaper, so answers come out in order of the optimal cost at which each is
reachable. Ties are broken by the answer's text.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat("scene(0). select(1,0,ball). unique(2,1). query(3,2,color). end(3).")
    >>> result = solve(program, "object(1). has_attr(1,class,ball). has_attr(1,color,red).")
    >>> result.status.value, [a.answer for a in result.answers]
    ('ok', ['red'])
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache, wraps
from importlib import resources
from typing import Protocol, TypeVar

import clingo
from clingo import ast

from theory.data_text import CHOICE_PREFIX, NO_WEIGHT, SceneText, plain_scene
from theory.entailment import ENTAILMENT_PREDICATES, Entailments
from theory.flat import (
    FLAT_PREDICATES,
    argument_value,
    bare_constant,
    format_flat,
    parse_flat,
    step_symbol,
)
from theory.operations import OPERATIONS, RELATION_ANSWER_WORDS, SCENE_PREDICATES, STRUCTURAL_CATEGORIES
from theory.program import Program, ProgramError
from theory.relevance import Theory
from theory.scene_facts import SceneFacts
from theory.validate import normalise_negate, validate_program
from theory.watchdog import WATCHDOG


class SolveStatus(str, Enum):
    """How a solve ended."""

    OK = "ok"  # at least one answer
    NO_ANSWER = "no_answer"  # the program has no answer on this scene (unsatisfiable)
    TIMEOUT = "timeout"  # the time limit hit; answers ranked so far are kept
    TOO_LARGE = "too_large"  # the scene or the grounding exceeds the size limits
    INVALID_PROGRAM = "invalid_program"
    INVALID_SCENE = "invalid_scene"
    ERROR = "error"  # clingo failed for another reason


@dataclass(frozen=True)
class SolveLimits:
    """Time and size limits of one solve."""

    timeout_s: float = 10.0
    max_scene_facts: int = 200_000
    max_program_steps: int = 200
    max_ground_atoms: int = 2_000_000
    max_models_per_round: int = 1_000


@dataclass(frozen=True)
class Support:
    """Why an answer holds: each step's objects and values, and the scene facts the steps used."""

    steps: dict[int, list[str]]
    facts: list[str]

    def to_json(self) -> dict[str, object]:
        """JSON form: step ids as strings."""
        return {"steps": {str(k): v for k, v in self.steps.items()}, "facts": self.facts}


@dataclass(frozen=True)
class Approximation:
    """A fact the question asked for, read from a more general scene fact (the entailment table)."""

    asked: str
    scene: str

    def to_json(self) -> dict[str, str]:
        """JSON form."""
        return {"asked": self.asked, "scene": self.scene}


@dataclass(frozen=True)
class Answer:
    """One ranked answer and the cost of the cheapest scene interpretation that gives it."""

    answer: str
    cost: tuple[int, ...]
    support: Support
    approximations: tuple[Approximation, ...] = ()

    @property
    def approximate(self) -> bool:
        """Whether the answer reads some scene fact as a more specific word than the scene uses."""
        return bool(self.approximations)


@dataclass(frozen=True)
class SolveResult:
    """The ranked answers of one solve and how it ended."""

    status: SolveStatus
    answers: tuple[Answer, ...] = ()
    message: str | None = None
    optimal: bool = True
    seconds: float = 0.0
    stats: dict[str, int] = field(default_factory=dict)


def theory_statements(*files: str) -> list[ast.AST]:
    # Read and parsed once per process; adding the AST to each new Control skips re-parsing.
    folder = resources.files("theory") / "lp"
    text = "\n".join((folder / name).read_text() for name in files)
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return statements


_THEORY = Theory(theory_statements("operations.lp", "ranking.lp"), unfold=FLAT_PREDICATES)
_THEORY_WITH_ENTAILMENT = Theory(
    theory_statements("operations.lp", "ranking.lp", "entailment.lp"), unfold=FLAT_PREDICATES
)
_SCENE_SIGNATURES = frozenset(SCENE_PREDICATES.items())
ENTAILMENT_SIGNATURES = frozenset((name, 3) for name in ENTAILMENT_PREDICATES)


def program_facts(program: Program) -> list[clingo.Symbol]:
    """The flat facts of a validated program (the atoms `format_flat` prints)."""
    return [step_symbol(step) for step in program.steps] + [clingo.Function("end", [clingo.Number(program.answer)])]


@lru_cache(maxsize=32)
def choice_rules(name: str, arity: int, true: bool, false: bool) -> str:
    """The rules that read the ``scene_choice_NAME(ARGS,T,F)`` facts of one predicate: a choice, and
    the weak constraints (when true, when false) with the very tuples the scene's own statements have."""
    variables = [f"X{i}" for i in range(arity)]
    atom = f"{name}({','.join(variables)})" if arity else name

    def fact(*weights: str) -> str:
        return f"{CHOICE_PREFIX}{name}({','.join([*variables, *weights])})"

    # Named variables where `_` would do: the grounder projects out anonymous ones through an
    # auxiliary predicate (0.7 ms more on 756 choices).
    rules = [f"{{ {atom} }} :- {fact('T', 'F')}."]
    # Weak constraints only of a sign the scene has: grounding such a rule costs about 1 us a choice.
    if true:
        rules.append(f":~ {fact('W', 'F')}, {atom}, W != {NO_WEIGHT}. [W,{atom},1]")
    if false:
        rules.append(f":~ {fact('T', 'W')}, not {atom}, W != {NO_WEIGHT}. [W,{atom},0]")
    return "\n".join(rules) + "\n"


def weighted_text(scene: SceneFacts | SceneText) -> str:
    """The scene's uncertain atoms as one fact each and the rules that read them; for plain text
    with certain facts only, the text as it is; for other plain text, with its certain facts."""
    # One fact per choice rather than a statement per choice and weak constraint: clingo parses
    # and grounds each statement at a cost (about 3 us for one with a nested atom), and the
    # grounder makes the same choices and weak constraints from fewer of them.
    if isinstance(scene, SceneText):
        if not scene.weighted_count:
            return scene.text
        text, predicates = scene.clingo_text, scene.weighted_predicates
    else:
        lines = []
        for w in scene.weighted.values():
            name, _, arguments = str(w.atom).partition("(")
            true = w.cost_true if w.cost_true else NO_WEIGHT
            false = w.cost_false if w.cost_false else NO_WEIGHT
            # `arguments` ends with the atom's closing parenthesis (none for a name alone).
            lines.append(f"{CHOICE_PREFIX}{name}({arguments[:-1]}{',' if arguments else ''}{true},{false}).")
        true_any = any(w.cost_true for w in scene.weighted.values())
        false_any = any(w.cost_false for w in scene.weighted.values())
        names = sorted({w.atom.name for w in scene.weighted.values()})
        text, predicates = "\n".join(lines), tuple((name, true_any, false_any) for name in names)
    return f"{text}\n{scene_choice_rules(predicates)}"


def scene_choice_rules(predicates: Sequence[tuple[str, bool, bool]]) -> str:
    """`choice_rules` of each (predicate, weights when true, weights when false)."""
    return "".join(choice_rules(name, SCENE_PREDICATES[name], true, false) for name, true, false in predicates)


class _FactFeed:
    """The grounding context that hands facts to the rules of `fed_rules`: all of them to each rule,
    or, where they come by predicate, those of the rule's own."""

    __slots__ = ("by_name", "facts", "signatures")

    def __init__(
        self,
        facts: list[clingo.Symbol],
        signatures: frozenset[tuple[str, int]],
        by_name: dict[str, list[clingo.Symbol]] | None = None,
    ) -> None:
        self.facts = facts
        self.signatures = signatures
        self.by_name = by_name

    def scene_fact(self, name: clingo.Symbol) -> list[clingo.Symbol]:
        own = None if self.by_name is None else self.by_name.get(name.string)
        return self.facts if own is None else own

    def with_rows(self, rows: dict[str, list[clingo.Symbol]]) -> _FactFeed:
        """This feed with the entailment rows too, each predicate's to its own rule."""
        return _FactFeed(self.facts, self.signatures | ENTAILMENT_SIGNATURES, {**(self.by_name or {}), **rows})


@lru_cache(maxsize=256)
def fed_rules(signatures: frozenset[tuple[str, int]]) -> tuple[ast.AST, ...]:
    """For each predicate, ``P(X0,...) :- P(X0,...) = @scene_fact("P").``: the facts `_FactFeed`
    holds become facts of the program, each as a rule instance with no body left, as written facts are."""
    statements: list[ast.AST] = []
    for name, arity in sorted(signatures):
        atom = f"{name}({','.join(f'X{i}' for i in range(arity))})" if arity else name
        ast.parse_string(f'{atom} :- {atom} = @scene_fact("{name}").', statements.append)
    return tuple(s for s in statements if s.ast_type == ast.ASTType.Rule)


# Below this many facts, parsing them as program text costs less than the rules that read them.
FED_FACTS_FROM = 32


def fed_scene(scene: SceneText, reads: frozenset[tuple[str, int]]) -> _FactFeed | None:
    """A text of certain facts without strings or comments as symbols read by clingo's term parser in
    one call, and the predicates among `reads` it has; with choices, its certain facts and its
    ``scene_choice_P`` facts, by predicate; None for other text or for few facts."""
    # clingo parses a fact of program text in about 2 us and grounds it in less than 1 us more;
    # the term parser reads it in about 0.3 us, and one rule per predicate makes the facts of it.
    if scene.weighted_count:
        if len(scene) < FED_FACTS_FROM or not scene.clingo_atoms:
            return None
        # With choices, every fact (as the text path grounds them: the same atoms) read by
        # predicate: each rule is handed its own (hundreds of atoms, a few predicates).
        terms = scene.clingo_terms
        by_name = {name: list(clingo.parse_term(atoms).arguments) for name, _, atoms in terms}
        return _FactFeed([], frozenset((name, arity) for name, arity, _ in terms), by_name)
    text = scene.text
    if '"' in text or "%" in text or text.count(".") < FED_FACTS_FROM:
        return None
    # Plain text without strings or comments: every period ends a fact, and a tuple of the facts
    # is a term clingo's term parser reads (a trailing comma is allowed).
    facts = clingo.parse_term(f"({text.replace('.', ',')})").arguments
    return _FactFeed(facts, scene.signatures & reads)


def add_scene(ctl: clingo.Control, scene: SceneFacts | SceneText, program: Program | None, rules: str = "") -> None:
    """Hand the scene, the program's facts and the given rule text to clingo: plain text (validated
    by `plain_scene`) together with the rest in one `Control.add`, objects through the backend.
    Without `program`, its facts are left out (the rules in hand read none of them)."""
    if isinstance(scene, SceneText):
        # One parse in C for all: cheaper than the term parser plus a backend call per fact,
        # whose Python overhead is most of the cost (measured 0.1 ms less per GQA question).
        ctl.add("base", [], f"{weighted_text(scene)}\n{format_flat(program) if program else ''}\n{rules}")
        return
    with ctl.backend() as backend:
        for fact in [*scene.facts, *(program_facts(program) if program else ())]:
            backend.add_rule([backend.add_atom(fact)])
    if scene.weighted or rules:
        # Uncertain atoms as program text, not through the backend: the grounder may leave out
        # rule instances over non-fact atoms the backend added before grounding (it did for
        # all_different on a weighted scene once the theory had no choice over state/2).
        ctl.add("base", [], f"{weighted_text(scene) if scene.weighted else ''}\n{rules}")


def _approximations_of(symbols: Sequence[clingo.Symbol]) -> tuple[Approximation, ...]:
    """The approximate readings a model used, as (asked fact, scene fact) pairs."""
    found = []
    for sym in symbols:
        if sym.name == "approx_rel":
            a, r, b, g = sym.arguments
            found.append(Approximation(f"has_rel({a},{r},{b})", f"has_rel({a},{g},{b})"))
        elif sym.name == "approx_attr":
            o, c, v, g = sym.arguments
            found.append(Approximation(f"has_attr({o},{c},{v})", f"has_attr({o},{c},{g})"))
    return tuple(sorted(found, key=lambda x: x.asked))


def _with_scene_facts(support: Support, approximations: tuple[Approximation, ...]) -> Support:
    """The support with each approximately read fact replaced by the scene fact it was read from."""
    scene_fact = {a.asked: a.scene for a in approximations}
    facts = {scene_fact.get(f, f) for f in support.facts}
    return Support(support.steps, sorted(facts, key=_natural))


# A shown atom as clingo prints it: a name and arguments, nested at most twice, strings whole.
_STRING = r'"(?:[^"\\]|\\.)*"'
_PRINTED_ATOM = re.compile(rf"[a-z_][A-Za-z0-9_']*\((?:[^()\"]|{_STRING}|\((?:[^()\"]|{_STRING})*\))*\)")


def printed(symbols: Sequence[clingo.Symbol]) -> list[str]:
    """Each symbol as clingo prints it, cut from one printed tuple of them all; checked to add up."""
    # Printing a symbol takes four foreign calls: one tuple of a model's ~30 atoms costs a third.
    if len(symbols) > 1:
        whole = str(clingo.Tuple_(symbols))
        texts = _PRINTED_ATOM.findall(whole)
        if len(texts) == len(symbols) and f"({','.join(texts)})" == whole:
            return texts
    return [str(sym) for sym in symbols]


def _support_of(texts: list[str]) -> Support:
    """The support of a model, from its shown atoms printed by clingo."""
    steps: dict[int, list[str]] = {}
    facts: set[str] = set()
    # Read from clingo's printed atoms rather than through Symbol attributes: each attribute is a
    # foreign call, and a model shows hundreds of atoms. The theory shows state/2, value/2 and
    # support/2 with a step number first, so the first comma ends the first argument.
    for text in texts:
        name, _, rest = text.partition("(")
        if name in ("state", "value", "support"):
            first, _, second = rest[:-1].partition(",")
            if name == "support":
                facts.add(second)
            elif first.lstrip("-").isdigit():
                steps.setdefault(int(first), []).append(second)
    return Support({k: sorted(v, key=_natural) for k, v in sorted(steps.items())}, sorted(facts, key=_natural))


def _natural(text: str) -> tuple[int, int | str]:
    return (0, int(text)) if text.lstrip("-").isdigit() else (1, text)


def read_scene(text: str) -> SceneFacts | SceneText:
    """Scene text for clingo: plain facts as they are, anything else through the reader that
    explains errors (raises `ProgramError`)."""
    plain = _plain_text(text)
    return plain if plain is not None else SceneFacts.from_asp(text)


# Several questions are asked of one scene (GQA asks about 10 per image): the reading of the last
# few scene texts is kept (a `SceneText` is immutable), which is a third of a whole scene graph's
# solve. Of this many texts, each up to this size: at most a few megabytes per process.
KEPT_SCENE_TEXTS = 8
KEPT_SCENE_CHARS = 1 << 19

_Text = TypeVar("_Text", str, SceneText)
_Result = TypeVar("_Result")


def kept_per_text(function: Callable[[_Text], _Result]) -> Callable[[_Text], _Result]:
    """A function of one scene text (or of its reading) whose result is kept for the last
    `KEPT_SCENE_TEXTS` texts of at most `KEPT_SCENE_CHARS` characters; longer ones are computed
    every time, as a text may be megabytes."""
    kept = lru_cache(maxsize=KEPT_SCENE_TEXTS)(function)

    @wraps(function)
    def call(argument: _Text) -> _Result:
        text = argument if isinstance(argument, str) else argument.text
        return kept(argument) if len(text) <= KEPT_SCENE_CHARS else function(argument)

    return call


@kept_per_text
def _plain_text(text: str) -> SceneText | None:
    return plain_scene(text, SCENE_PREDICATES)


@kept_per_text
def _compact(text: str) -> str:
    """Scene text without blanks, after a period (kept per text, as the reading is)."""
    return "." + text.translate(_BLANKS)


_SPACE = r"[ \t\r\n]*"


@lru_cache(maxsize=64)
def _unread_facts(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """The facts of `names` (statements that begin a line, as printed scenes have them)."""
    # Anchored, the search takes a quarter of the time an unanchored one does.
    return re.compile(rf"(?m)^{_SPACE}(?:{'|'.join(names)})\([^()]*\){_SPACE}\.") if names else None


@lru_cache(maxsize=64)
def _facts_of(names: tuple[str, ...]) -> re.Pattern[str]:
    """Every fact of `names` in text without blanks that starts with a period."""
    return re.compile(rf"\.((?:{'|'.join(names)})\([^()]*\))")


_BLANKS = str.maketrans("", "", " \t\r\n")
_ATTRIBUTE_FACT = re.compile(r"\.(has_attr\([^,()]*,([^,()]*),[^()]*\))")
# Operations that read has_attr(O,A,V) for any A their step does not name (and any V).
_EVERY_CATEGORY = frozenset({"common"})


_Place = TypeVar("_Place")


class _WordIndex(Protocol[_Place]):
    """Where has_attr facts stand by category and by value, has_rel facts by relation."""

    @property
    def attribute_category(self) -> dict[str, list[_Place]]: ...
    @property
    def attribute_value(self) -> dict[str, list[_Place]]: ...
    @property
    def relation(self) -> dict[str, list[_Place]]: ...


def _named_places(
    index: _WordIndex[_Place],
    middle: frozenset[str],
    last: frozenset[str],
    attributes: bool,
    relations: bool,
    every_category: bool,
) -> set[_Place]:
    """The places of the has_attr and has_rel facts the theory reads for the words named (see `narrowed`)."""
    chosen: set[_Place] = set()
    for words, by_word, read in (
        (middle, index.attribute_category, attributes),
        (last, index.attribute_value, attributes),
        (middle, index.relation, relations),
    ):
        if read:
            for word in words:
                chosen.update(by_word.get(word, ()))
    if every_category and attributes:
        for category, places in index.attribute_category.items():
            if category not in STRUCTURAL_CATEGORIES:
                chosen.update(places)
    return chosen


@dataclass(frozen=True)
class _FactIndex:
    """The facts of a compact scene text (in text order) by the words where the theory reads them."""

    facts: list[str]
    attribute_category: dict[str, list[int]]  # has_attr(O,A,V) by A
    attribute_value: dict[str, list[int]]  # has_attr(O,A,V) by V
    relation: dict[str, list[int]]  # has_rel(S,R,O) by R
    predicate: dict[str, list[int]]  # every fact by its predicate


# Up to this many words a question's facts are found by `str.find` on the text (0.07 ms on a whole
# scene graph for a question's dozen words); with more, as with the entailment table's 40-70 words
# (0.5-0.8 ms by `str.find`), or from the third question about one text on, through an index of the
# text (0.3 ms to build, 0.02 to use), kept per text. (Built at the first or second question, it
# cost more than it saved where a text is asked about twice, as a question at top-1 and top-5.)
_PROBED_WORDS = 16
_INDEXED_FROM = 3
_INDEXES: dict[str, _FactIndex | int] = {}  # an index, or how often the text was asked about
_INDEXES_KEPT = KEPT_SCENE_TEXTS


def _keep_index(text: str, index: _FactIndex | int) -> None:
    if text not in _INDEXES and len(_INDEXES) >= _INDEXES_KEPT:
        _INDEXES.pop(next(iter(_INDEXES)), None)
    _INDEXES[text] = index


_FACT = re.compile(r"\.(([a-z][A-Za-z0-9_']*)\(([^()]*)\))")


def _fact_index(compact: str) -> _FactIndex:
    """The index of a compact text of certain facts without strings or comments."""
    index = _FactIndex([], defaultdict(list), defaultdict(list), defaultdict(list), defaultdict(list))
    for at, (fact, name, arguments) in enumerate(_FACT.findall(compact)):
        index.facts.append(fact)
        index.predicate[name].append(at)
        if name == "has_attr" or name == "has_rel":
            _, middle, last = arguments.split(",")
            _place_by_words(index, name, middle, last, at)
    return index


def _place_by_words(index: _WordIndex[_Place], name: str, middle: str, last: str, place: _Place) -> None:
    """Where a has_attr(O,middle,last) or has_rel(S,middle,O) fact stands, under the words the theory reads it by."""
    if name == "has_attr":
        index.attribute_category[middle].append(place)
        index.attribute_value[last].append(place)
    else:
        index.relation[middle].append(place)


def _named_facts(
    text: str, middle: frozenset[str], last: frozenset[str], reads: frozenset[tuple[str, int]], every_category: bool
) -> list[str]:
    """The facts of a text of certain facts without strings or comments that the theory can read
    for steps naming the categories and relations `middle` and the classes and values `last`:
    has_attr(O,A,V) with A or V named (with `every_category`, also any A that is not structural),
    has_rel(S,R,O) with R named, and every fact of the other predicates of `reads`."""
    # Text without blanks: a category or relation W stands between commas (",W,": the category of
    # has_attr, the relation of has_rel), a class or value before the closing parenthesis (",W)":
    # the value of has_attr), and each fact runs from the period before it to the next. str.find
    # scans in C: a dozen words cost less than one pass of a pattern made for them (compiling
    # one costs 0.5 ms, for every question with new words).
    given, kept = text, len(text) <= KEPT_SCENE_CHARS
    text = _compact(text)
    attributes, relations = ("has_attr", 3) in reads, ("has_rel", 3) in reads
    others = tuple(
        sorted(name for name, _ in reads if name in SCENE_PREDICATES and name not in ("has_attr", "has_rel"))
    )
    # Kept by the text as given: its hash is already known (the reading is kept by it too).
    index = _INDEXES.get(given, 0) if kept else 0
    if not isinstance(index, _FactIndex):
        if index + 1 >= _INDEXED_FROM or len(middle) + len(last) > _PROBED_WORDS:
            index = _fact_index(text)
        if kept:
            _keep_index(given, index + 1 if isinstance(index, int) else index)
    if isinstance(index, _FactIndex):
        chosen = _named_places(index, middle, last, attributes, relations, every_category)
        for name in others:
            chosen.update(index.predicate.get(name, ()))
        return [index.facts[position] for position in sorted(chosen)]
    found: dict[int, str] = {}
    probes = [(f",{word},", relations) for word in middle] + [(f",{word})", False) for word in last]
    for probe, relation in probes:
        at = text.find(probe)
        while at >= 0:
            start = text.rfind(".", 0, at) + 1
            if (attributes and text.startswith("has_attr(", start)) or (
                relation and text.startswith("has_rel(", start)
            ):
                found[start] = text[start : text.find(".", at)]
            at = text.find(probe, at + 1)
    facts = [found[start] for start in sorted(found)]
    if every_category and attributes:
        named = set(facts)
        facts += [
            fact
            for fact, category in _ATTRIBUTE_FACT.findall(text)
            if category not in STRUCTURAL_CATEGORIES and fact not in named
        ]
    return facts + (_facts_of(others).findall(text) if others else [])


# Where a step's argument of each role stands in the scene facts the theory reads for it.
_MIDDLE_ROLES = frozenset({"category", "relation"})  # has_attr(O,A,_), has_rel(_,R,_)
_LAST_ROLES = frozenset({"class", "value"})  # has_attr(O,class,C), has_attr(O,_,V)


def narrowed(
    scene: SceneText,
    program: Program,
    reads: frozenset[tuple[str, int]],
    words: bool,
    entailed: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset()),
) -> SceneText:
    """The scene without the facts no kept rule can read: facts of predicates the kept rules do not
    mention and, with `words`, has_attr and has_rel facts about words neither the program nor the
    entailment rows given with it name (`entailed`: their relations and their values)."""
    # clingo parses about 4 us a fact and grounds a given one in about 1 us, and most facts of a
    # scene are about words a question does not name (a GQA scene graph gives each object every
    # class above its own: 660 of the 865 facts of the asp-oracle scene of a `common` question).
    # The theory reads has_attr(O,A,V) only for an A or a V that a step names (`common`: any A
    # but the structural categories) and has_rel(S,R,O) only for an R a step names, so the rest
    # changes no answer, cost or support. With the entailment table a scene word stands for an
    # asked one only through a row that names both (theory/lp/entailment.lp reads has_rel(A,S,B)
    # and has_attr(O,A,S) only for an S of a row), so the rows' words are kept too. Only certain
    # facts without strings or comments: there a predicate name and its parenthesis can only begin
    # a statement, which ends at the next period.
    if scene.weighted_count:
        return _narrowed_choices(scene, *_named_words(program, entailed), reads) if words else scene
    if '"' in scene.text or "%" in scene.text:
        return scene
    if not words:
        names = tuple(sorted(name for name, arity in scene.signatures if (name, arity) not in reads))
        pattern = _unread_facts(names)
        return scene if pattern is None else replace(scene, text=pattern.sub("", scene.text))
    middle, last, every_category = _named_words(program, entailed)
    facts = _named_facts(scene.text, middle, last, scene.signatures & reads, every_category)
    return replace(scene, text="".join(f"{fact}.\n" for fact in facts))


def _named_words(
    program: Program, entailed: tuple[frozenset[str], frozenset[str]]
) -> tuple[frozenset[str], frozenset[str], bool]:
    """The categories and relations, the classes and values the program's steps and the entailment
    rows name, and whether a step reads every category."""
    middle: set[str] = set(entailed[0])
    last: set[str] = set(entailed[1])
    for step in program.steps:
        for role, argument in zip(OPERATIONS[step.operation].arguments, step.arguments):
            if role in _MIDDLE_ROLES:
                middle.add(argument)
            elif role in _LAST_ROLES:
                last.add(argument)
    every_category = any(step.operation in _EVERY_CATEGORY for step in program.steps)
    return frozenset(middle), frozenset(last), every_category


@dataclass(frozen=True)
class _ChoiceIndex:
    """The atoms of a weighted scene text (`SceneText.clingo_atoms`, by group) by the words where the
    theory reads them, and those that stay whatever the program reads."""

    attribute_category: dict[str, list[tuple[int, int]]]
    attribute_value: dict[str, list[tuple[int, int]]]
    relation: dict[str, list[tuple[int, int]]]
    kept: list[tuple[int, int]]


_NO_WEIGHT_B = NO_WEIGHT.encode()


@kept_per_text
def _choice_index(scene: SceneText) -> _ChoiceIndex:
    """The index of a weighted scene text's atoms."""
    index = _ChoiceIndex(defaultdict(list), defaultdict(list), defaultdict(list), [])
    for group, (predicate, _, atoms) in enumerate(scene.clingo_atoms):
        choice = predicate.startswith(CHOICE_PREFIX)
        name = predicate[len(CHOICE_PREFIX) :] if choice else predicate
        if not choice and name not in ("has_attr", "has_rel"):
            continue  # certain facts kept or dropped with their predicate
        for at, atom in enumerate(atoms):
            arguments = atom[atom.index(b"(") + 1 : -1].split(b",")
            if choice:
                # A choice no rule reads costs nothing only when it is false and paying when true
                # is no gain: a weight when false or a negative one when true is paid in every
                # answer, so such an atom stays.
                *arguments, true, false = arguments
                if false.strip() != _NO_WEIGHT_B or true.strip().startswith(b"-"):
                    index.kept.append((group, at))
                    continue
            if b'"' in atom or len(arguments) != 3 or name not in ("has_attr", "has_rel"):
                continue  # kept or dropped with its predicate
            _place_by_words(index, name, arguments[1].strip().decode(), arguments[2].strip().decode(), (group, at))
    return index


def _narrowed_choices(
    scene: SceneText,
    middle: frozenset[str],
    last: frozenset[str],
    every_category: bool,
    reads: frozenset[tuple[str, int]],
) -> SceneText:
    """A weighted scene text without the atoms no kept rule can read (as `narrowed`), but for
    choices whose weights every answer pays."""
    # The theory reads a choice's atom as it reads a certain fact; unread, a choice with a weight
    # only when true is false in every optimal reading, so leaving it out changes no answer or cost.
    index = _choice_index(scene)
    attributes, relations = ("has_attr", 3) in reads, ("has_rel", 3) in reads
    chosen = _named_places(index, middle, last, attributes, relations, every_category) | set(index.kept)
    by_group: dict[int, list[int]] = defaultdict(list)
    for group, at in sorted(chosen):
        by_group[group].append(at)
    groups = []
    for group, (predicate, arity, atoms) in enumerate(scene.clingo_atoms):
        choice = predicate.startswith(CHOICE_PREFIX)
        name = predicate[len(CHOICE_PREFIX) :] if choice else predicate
        read = (name, arity - 2 if choice else arity) in reads
        if read and name not in ("has_attr", "has_rel"):
            groups.append((predicate, arity, atoms))  # every atom of a predicate the rules read
            continue
        strings = () if not read else tuple(a for a in atoms if b'"' in a)  # not indexed: kept
        kept = tuple(atoms[at] for at in by_group.get(group, ())) + strings
        if kept:
            groups.append((predicate, arity, kept))
    # Choice rules only for predicates with choices left: rules over none ground to nothing, and
    # clingo says so in a message per rule.
    left = {predicate for predicate, _, _ in groups}
    predicates = tuple(p for p in scene.weighted_predicates if CHOICE_PREFIX + p[0] in left)
    return replace(scene, clingo_atoms=tuple(groups), weighted_predicates=predicates)


def ground_question(
    ctl: clingo.Control,
    program: Program,
    scene: SceneFacts | SceneText,
    theory: Theory,
    entailments: Entailments | None = None,
    *,
    narrow: bool = False,
) -> None:
    """Ground the part of `theory` the program can use, the scene, the program's facts and the
    entailment rows about its words; raises RuntimeError when clingo fails.

    With `narrow`, facts of a text scene that the kept rules cannot read are left out (`narrowed`).
    """
    # Text names the predicates it uses: rules over absent ones (has_obj_weight, exclusive on a
    # certain scene) are left out too.
    given = scene.signatures if isinstance(scene, SceneText) else _SCENE_SIGNATURES
    given |= {(step.operation, FLAT_PREDICATES[step.operation]) for step in program.steps} | {("end", 1)}
    rows: dict[str, list[clingo.Symbol]] = {}
    asked: set[str] = set()
    if entailments:
        asked = {a for step in program.steps for a in step.arguments if bare_constant(a)}
        # As symbols made once per set of words, fed to a rule per predicate: parsing them as text
        # cost about 3 us a row (40-50 rows a question, twice for a why-not answer).
        rows = entailments.facts_by_predicate(asked)
        given |= ENTAILMENT_SIGNATURES
    feed = None
    if narrow and isinstance(scene, SceneText):
        reads = theory.reads(given)
        entailed = entailments.words(asked) if entailments else (frozenset(), frozenset())
        scene = narrowed(scene, program, reads, words=True, entailed=entailed)
        feed = fed_scene(scene, reads)
    elif isinstance(scene, SceneFacts) and len(scene.facts) >= FED_FACTS_FROM:
        # Certain facts as symbols already: handed to each fed rule in one callback, where the
        # backend takes two foreign calls from Python per fact (0.3 ms of a GQA question's 100).
        feed = _FactFeed(scene.facts, _SCENE_SIGNATURES & theory.reads(given))
    scene_fed = feed is not None
    if rows:
        feed = (feed or _FactFeed([], frozenset(), {})).with_rows(rows)
    with ast.ProgramBuilder(ctl) as builder:
        # Only the rules this program's operations can use: grounding the rest costs ~4 ms.
        for statement in theory.relevant(given):
            builder.add(statement)
        if feed is not None:
            for statement in fed_rules(feed.signatures):
                builder.add(statement)
    # The theory's rules that read one step each come as instances for this program's steps.
    rules = theory.unfolded(given, program)
    facts_read = program if theory.reads_program else None
    if not scene_fed:
        add_scene(ctl, scene, facts_read, rules)
    else:
        if isinstance(scene, SceneText) and scene.weighted_count:
            rules += scene_choice_rules(scene.weighted_predicates)
        elif isinstance(scene, SceneFacts) and scene.weighted:
            rules = f"{weighted_text(scene)}\n{rules}"  # as `add_scene` hands them over
        ctl.add("base", [], f"{format_flat(facts_read) if facts_read else ''}\n{rules}")
    ctl.ground([("base", [])], context=feed)


def solve(
    program: Program | str,
    scene: SceneFacts | SceneText | str,
    top_k: int = 5,
    limits: SolveLimits | None = None,
    entailments: Entailments | None = None,
) -> SolveResult:
    """Answer `program` on `scene`: up to `top_k` distinct answers, cheapest first.

    With `entailments`, a general scene word may stand for a more specific asked one at a cost;
    such answers rank below every exact answer and list their approximations.
    Never raises for bad input: the status and message say what went wrong.
    """
    limits = limits or SolveLimits()
    started = time.perf_counter()
    stats: dict[str, int] = {}
    ranked: list[Answer] = []
    optimal = True

    def done(status: SolveStatus, message: str | None = None) -> SolveResult:
        return SolveResult(status, tuple(ranked), message, optimal, time.perf_counter() - started, stats)

    try:
        program = parse_flat(program) if isinstance(program, str) else validate_program(program)
    except ProgramError as exc:
        return done(SolveStatus.INVALID_PROGRAM, str(exc))
    try:
        # Plain text goes to clingo as it is; other text through the AST reader, which explains errors.
        if isinstance(scene, str):
            scene = read_scene(scene)
    except ProgramError as exc:
        return done(SolveStatus.INVALID_SCENE, str(exc))
    if len(program) > limits.max_program_steps:
        return done(SolveStatus.TOO_LARGE, f"program has {len(program)} steps, limit {limits.max_program_steps}")
    if len(scene) > limits.max_scene_facts:
        return done(SolveStatus.TOO_LARGE, f"scene has {len(scene)} facts, limit {limits.max_scene_facts}")
    program = normalise_negate(program)
    # A choice between two relations answers in GQA's words (the side), as the evaluator compares.
    answer_words = RELATION_ANSWER_WORDS if program.step(program.answer).operation == "choose_rel" else {}

    messages: list[str] = []
    options = [
        "--opt-mode=optN",
        "--opt-strategy=usc,k,0",
        "--project=project",
        f"--models={limits.max_models_per_round}",
    ]
    # Core-guided optimisation (usc) suits scenes of many independent weighted choices. Without
    # any, the program is a few hundred atoms: clasp's equivalence preprocessing finds nothing to
    # merge there and costs about 0.05 ms of a 1.3 ms solve.
    certain = not (scene.weighted_count if isinstance(scene, SceneText) else scene.weighted)
    ctl = clingo.Control(
        [*options, "--eq=0"] if certain else options,
        logger=lambda _code, msg: messages.append(msg.strip()),
        message_limit=20,
    )
    try:
        theory = _THEORY_WITH_ENTAILMENT if entailments else _THEORY
        ground_question(ctl, program, scene, theory, entailments, narrow=True)
    except RuntimeError as exc:
        if "bad_alloc" in str(exc):  # the process's memory limit, not a fault of the program
            return done(SolveStatus.TOO_LARGE, "grounding needs more memory than solving may use")
        return done(SolveStatus.ERROR, f"grounding failed: {'; '.join(messages) or exc}")
    atoms = len(ctl.symbolic_atoms)
    stats.update(ground_atoms=atoms, scene_facts=len(scene), weak_constraints=scene.weak_constraint_count)
    if atoms > limits.max_ground_atoms:
        return done(SolveStatus.TOO_LARGE, f"grounding has {atoms} atoms, limit {limits.max_ground_atoms}")

    found: set[clingo.Symbol] = set()
    deadline = started + limits.timeout_s
    while len(ranked) < top_k:
        best: dict[clingo.Symbol, Answer] = {}
        round_models: list[tuple[tuple[int, ...], Sequence[clingo.Symbol], bool]] = []
        costless: list[bool] = []

        def on_model(model: clingo.Model) -> None:
            # A Model must not outlive the callback: keep copies of what we need.
            # Without weak constraints every model costs nothing and is optimal.
            cost = tuple(model.cost) or (0,)
            # Called only while this round solves, so the round's lists are the right ones.
            round_models.append((cost, model.symbols(shown=True), model.optimality_proven or not model.cost))  # noqa: B023
            costless.append(not model.cost)  # noqa: B023

        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            optimal = False
            return done(SolveStatus.TIMEOUT, "time limit reached")
        # Solved in this thread: a thread per solve (async_=True) costs more than the solve itself.
        with WATCHDOG.watch(ctl, deadline):
            result = ctl.solve(on_model=on_model)
        timed_out = result.interrupted
        proven = [m for m in round_models if m[2]]
        if timed_out and not proven:
            optimal = False
            return done(SolveStatus.TIMEOUT, "time limit reached")
        if result.unsatisfiable or not round_models:
            break
        # Without a proven optimum (interrupted), keep the best models seen and say so.
        candidates = proven or [min(round_models, key=lambda m: m[0])]
        optimal = optimal and bool(proven)
        for cost, symbols, _ in candidates:
            texts = printed(symbols)
            new = [
                sym
                for sym, text in zip(symbols, texts)
                if text.startswith("ans(") and sym not in found and sym not in best
            ]
            if not new:
                continue
            support = _support_of(texts)
            approximations = _approximations_of(symbols) if entailments else ()
            if approximations:
                support = _with_scene_facts(support, approximations)
            for sym in new:
                word = argument_value(sym.arguments[0])
                best[sym] = Answer(answer_words.get(word, word), cost, support, approximations)
        for sym in sorted(best, key=lambda s: best[s].answer):
            if len(ranked) < top_k:
                ranked.append(best[sym])
            found.add(sym)
        if timed_out:
            return done(SolveStatus.TIMEOUT, "time limit reached")
        if not best or (result.exhausted and all(costless) and len(round_models) < limits.max_models_per_round):
            # Without weak constraints every model is optimal: an exhausted round has shown
            # every answer, and another round would only prove that (0.1-0.2 ms at top-5).
            break
        if len(ranked) < top_k:
            # Only for a next round: the first assignment prepares the solver (about 0.2 ms).
            for sym in best:
                ctl.assign_external(clingo.Function("found", [sym.arguments[0]]), True)
    if not ranked:
        return done(SolveStatus.NO_ANSWER, "no answer: the question's conditions cannot be met in this scene")
    return done(SolveStatus.OK)
