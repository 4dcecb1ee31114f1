"""Grounding a question: the part of the theory its program can use, its facts, the scene (as
text, or as symbols handed to rules that make facts of them) and the entailment rows it needs."""

from __future__ import annotations

from functools import lru_cache

import clingo
from clingo import ast

from theory.data_text import SceneText
from theory.entailment import Entailments
from theory.flat import FLAT_PREDICATES, bare_constant, format_flat
from theory.program import Program
from theory.relevance import Theory
from theory.scene_facts import SceneFacts
from theory.solver.narrowing import narrowed
from theory.solver.rules import (
    ENTAILMENT_SIGNATURES,
    SCENE_SIGNATURES,
    parsed_rules,
    program_facts,
    scene_choice_rules,
    weighted_text,
)
from theory.solver.scene_readings import certain_text


class FactFeed:
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

    def with_rows(self, rows: dict[str, list[clingo.Symbol]]) -> FactFeed:
        """This feed with the entailment rows too, each predicate's to its own rule."""
        return FactFeed(self.facts, self.signatures | ENTAILMENT_SIGNATURES, {**(self.by_name or {}), **rows})


@lru_cache(maxsize=256)
def fed_rules(signatures: frozenset[tuple[str, int]]) -> tuple[ast.AST, ...]:
    """For each predicate, ``P(X0,...) :- P(X0,...) = @scene_fact("P").``: the facts `FactFeed`
    holds become facts of the program, each as a rule instance with no body left, as written facts are."""
    statements: list[ast.AST] = []
    for name, arity in sorted(signatures):
        atom = f"{name}({','.join(f'X{i}' for i in range(arity))})" if arity else name
        ast.parse_string(f'{atom} :- {atom} = @scene_fact("{name}").', statements.append)
    return tuple(s for s in statements if s.ast_type == ast.ASTType.Rule)


# Below this many facts, parsing them as program text costs less than the rules that read them.
FED_FACTS_FROM = 32
# From this many certain facts given as objects on, printing and narrowing them costs less than
# grounding those no rule reads (measured on GQA pairs: 0.08 ms less from 150 facts, 0.23 ms on
# whole scene graphs; up to 0.06 ms more below 100, as the program's own part of a graph is).
NARROWED_OBJECTS_FROM = 128


def fed_scene(scene: SceneText, reads: frozenset[tuple[str, int]]) -> FactFeed | None:
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
        return FactFeed([], frozenset((name, arity) for name, arity, _ in terms), by_name)
    text = scene.text
    if '"' in text or "%" in text or text.count(".") < FED_FACTS_FROM:
        return None
    # Plain text without strings or comments: every period ends a fact, and a tuple of the facts
    # is a term clingo's term parser reads (a trailing comma is allowed).
    facts = clingo.parse_term(f"({text.replace('.', ',')})").arguments
    return FactFeed(facts, scene.signatures & reads)


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

    With `narrow`, facts of a certain scene that the kept rules cannot read are left out (`narrowed`).
    """
    if narrow and isinstance(scene, SceneFacts) and len(scene.facts) >= NARROWED_OBJECTS_FROM:
        # Certain facts are narrowed as their text is: most of a scene graph is about words a
        # question does not name (a fifth of a whole scene graph's solve).
        scene = certain_text(scene) or scene
    # Text names the predicates it uses: rules over absent ones (has_obj_weight, exclusive on a
    # certain scene) are left out too.
    given = set(scene.signatures if isinstance(scene, SceneText) else SCENE_SIGNATURES)
    given |= {(step.operation, FLAT_PREDICATES[step.operation]) for step in program.steps} | {("end", 1)}
    rows: dict[str, list[clingo.Symbol]] = {}
    asked: set[str] = set()
    if entailments:
        asked = {a for step in program.steps for a in step.arguments if bare_constant(a)}
        # As symbols made once per set of words, fed to a rule per predicate: parsing them as text
        # cost about 3 us a row (40-50 rows a question, twice for a why-not answer).
        rows = entailments.facts_by_predicate(asked)
        given |= ENTAILMENT_SIGNATURES
    signatures = frozenset(given)
    feed = None
    if narrow and isinstance(scene, SceneText):
        reads = theory.reads(signatures)
        entailed = entailments.words(asked) if entailments else (frozenset(), frozenset())
        scene = narrowed(scene, program, reads, words=True, entailed=entailed)
        feed = fed_scene(scene, reads)
    elif isinstance(scene, SceneFacts) and len(scene.facts) >= FED_FACTS_FROM:
        # Certain facts as symbols already: handed to each fed rule in one callback, where the
        # backend takes two foreign calls from Python per fact (0.3 ms of a GQA question's 100).
        feed = FactFeed(scene.facts, SCENE_SIGNATURES & theory.reads(signatures))
    scene_fed = feed is not None
    if rows:
        feed = (feed or FactFeed([], frozenset(), {})).with_rows(rows)
    with ast.ProgramBuilder(ctl) as builder:
        # Only the rules this program's operations can use: grounding the rest costs ~4 ms.
        for statement in (
            *theory.relevant(signatures),
            *(fed_rules(feed.signatures) if feed else ()),
            *instances(theory, signatures, program),
        ):
            builder.add(statement)
    facts_read = program if theory.reads_program else None
    if not scene_fed:
        add_scene(ctl, scene, facts_read)
    else:
        rules = ""
        if isinstance(scene, SceneText) and scene.weighted_count:
            rules = scene_choice_rules(scene.weighted_predicates)
        elif isinstance(scene, SceneFacts) and scene.weighted:
            rules = weighted_text(scene)  # as `add_scene` hands them over
        if facts_read or rules:
            ctl.add("base", [], f"{format_flat(facts_read) if facts_read else ''}\n{rules}")
    ctl.ground([("base", [])], context=feed)


@lru_cache(maxsize=1024)
def instances(theory: Theory, given: frozenset[tuple[str, int]], program: Program) -> tuple[ast.AST, ...]:
    """The theory's rules that read one step each, as instances for the program's steps (kept for
    the last programs asked: writing them is a few hundredths of a millisecond a question)."""
    return tuple(parsed_rules(theory.unfolded(given, program)))
