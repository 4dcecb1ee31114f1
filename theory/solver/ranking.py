"""Ranking the answers of a grounded question round by round, and reading each answer's support
from the atoms its model shows."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import clingo

from theory.flat import argument_value
from theory.solver.results import Answer, Approximation, SolveStatus, Support
from theory.watchdog import WATCHDOG


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
    return Support(support.steps, _natural_sorted(facts))


# A shown atom as clingo prints it: a name and arguments, nested at most twice, strings whole.
_STRING = r'"(?:[^"\\]|\\.)*"'
# Possessive: the alternatives begin with different characters, so giving back what one took never
# lets another match (and `findall` reads a model's atoms in half the time).
_PRINTED_ATOM = re.compile(rf"[a-z_][A-Za-z0-9_']*\((?:[^()\"]++|{_STRING}|\((?:[^()\"]++|{_STRING})*+\))*+\)")


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
        if text.startswith("support("):
            facts.add(text[text.index(",") + 1 : -1])
        elif text.startswith(("state(", "value(")):
            first, _, second = text[6:-1].partition(",")
            if first.lstrip("-").isdigit():
                steps.setdefault(int(first), []).append(second)
    return Support({k: _natural_sorted(v) for k, v in sorted(steps.items())}, _natural_sorted(facts))


def _natural_sorted(texts: Iterable[str]) -> list[str]:
    """Integers first, by value, then the rest by text (clingo prints each integer one way)."""
    numbers: list[str] = []
    words: list[str] = []
    for text in texts:
        (numbers if text.lstrip("-").isdigit() else words).append(text)
    numbers.sort(key=int)
    words.sort()
    return numbers + words


@dataclass(frozen=True)
class Ranking:
    """The answers ranked so far and how ranking ended (the status of the solve)."""

    answers: tuple[Answer, ...]
    status: SolveStatus
    message: str | None = None
    optimal: bool = True


@dataclass(frozen=True)
class RankingLimits:
    """When ranking stops: answers wanted, the clock's deadline, models kept per round."""

    top_k: int
    deadline: float
    models_per_round: int


@dataclass(frozen=True)
class _Model:
    """What a round keeps of a model: a Model must not outlive the callback that hands it over."""

    cost: tuple[int, ...]
    symbols: Sequence[clingo.Symbol]
    proven: bool
    costless: bool


@dataclass(frozen=True)
class _Round:
    """The models of one solve call and how it ended."""

    models: list[_Model]
    interrupted: bool
    unsatisfiable: bool
    exhausted: bool


_TIMED_OUT = "time limit reached"


def _solve_round(ctl: clingo.Control, deadline: float) -> _Round:
    """The cheapest models with an answer not ranked yet (optN), until the deadline."""
    models: list[_Model] = []

    def on_model(model: clingo.Model) -> None:
        # Without weak constraints every model costs nothing and is optimal. (Each property of a
        # model is a foreign call: read once.)
        cost = model.cost
        proven = not cost or model.optimality_proven
        # As a list: the sequence clingo hands over makes a new Symbol each time it is read.
        models.append(_Model(tuple(cost) or (0,), list(model.symbols(shown=True)), proven, not cost))

    # Solved in this thread: a thread per solve (async_=True) costs more than the solve itself.
    with WATCHDOG.watch(ctl, deadline):
        result = ctl.solve(on_model=on_model)
    return _Round(models, bool(result.interrupted), bool(result.unsatisfiable), bool(result.exhausted))


def _new_answers(
    candidates: Sequence[_Model],
    found: set[clingo.Symbol],
    answer_words: Mapping[str, str],
    approximate: bool,
) -> dict[clingo.Symbol, Answer]:
    """The answers of the round's cheapest models that no earlier round ranked, with their support."""
    best: dict[clingo.Symbol, Answer] = {}
    for model in candidates:
        texts = printed(model.symbols)
        new = [
            sym
            for sym, text in zip(model.symbols, texts)
            if text.startswith("ans(") and sym not in found and sym not in best
        ]
        if not new:
            continue
        support = _support_of(texts)
        approximations = _approximations_of(model.symbols) if approximate else ()
        if approximations:
            support = _with_scene_facts(support, approximations)
        for sym in new:
            word = argument_value(sym.arguments[0])
            best[sym] = Answer(answer_words.get(word, word), model.cost, support, approximations)
    return best


def rank_answers(
    ctl: clingo.Control, limits: RankingLimits, answer_words: Mapping[str, str], approximate: bool
) -> Ranking:
    """Up to `top_k` distinct answers of a grounded question, cheapest first (ties by text);
    with `approximate`, each with the entailment rows its model read."""
    ranked: list[Answer] = []
    found: set[clingo.Symbol] = set()
    optimal = True
    while len(ranked) < limits.top_k:
        if limits.deadline - time.perf_counter() <= 0:
            return Ranking(tuple(ranked), SolveStatus.TIMEOUT, _TIMED_OUT, False)
        round_ = _solve_round(ctl, limits.deadline)
        proven = [m for m in round_.models if m.proven]
        if round_.interrupted and not proven:
            return Ranking(tuple(ranked), SolveStatus.TIMEOUT, _TIMED_OUT, False)
        if round_.unsatisfiable or not round_.models:
            break
        # Without a proven optimum (interrupted), keep the best models seen and say so.
        candidates = proven or [min(round_.models, key=lambda m: m.cost)]
        optimal = optimal and bool(proven)
        best = _new_answers(candidates, found, answer_words, approximate)
        for sym in sorted(best, key=lambda s: best[s].answer):
            if len(ranked) < limits.top_k:
                ranked.append(best[sym])
            found.add(sym)
        if round_.interrupted:
            return Ranking(tuple(ranked), SolveStatus.TIMEOUT, _TIMED_OUT, optimal)
        every_model_seen = round_.exhausted and len(round_.models) < limits.models_per_round
        if not best or (every_model_seen and all(m.costless for m in round_.models)):
            # Without weak constraints every model is optimal: an exhausted round has shown
            # every answer, and another round would only prove that (0.1-0.2 ms at top-5).
            break
        if len(ranked) < limits.top_k:
            # Only for a next round: the first assignment prepares the solver (about 0.2 ms).
            for sym in best:
                ctl.assign_external(clingo.Function("found", [sym.arguments[0]]), True)
    if not ranked:
        message = "no answer: the question's conditions cannot be met in this scene"
        return Ranking((), SolveStatus.NO_ANSWER, message, optimal)
    return Ranking(tuple(ranked), SolveStatus.OK, None, optimal)
