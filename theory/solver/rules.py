"""The theory's rule text: the `.lp` files as parsed once per process, and the rules that turn a
weighted scene's ``scene_choice_P`` facts into choices and weak constraints."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

import clingo
from clingo import ast

from theory.data_text import CHOICE_PREFIX, NO_WEIGHT, SceneText
from theory.entailment import ENTAILMENT_PREDICATES
from theory.flat import FLAT_PREDICATES, step_symbol
from theory.operations import SCENE_PREDICATES
from theory.program import Program
from theory.relevance import Theory
from theory.scene_facts import SceneFacts


def theory_statements(*files: str) -> list[ast.AST]:
    # Read and parsed once per process; adding the AST to each new Control skips re-parsing.
    folder = resources.files("theory") / "lp"
    text = "\n".join((folder / name).read_text() for name in files)
    statements: list[ast.AST] = []
    ast.parse_string(text, statements.append)
    return statements


THEORY = Theory(theory_statements("operations.lp", "ranking.lp"), unfold=FLAT_PREDICATES)
THEORY_WITH_ENTAILMENT = Theory(
    theory_statements("operations.lp", "ranking.lp", "entailment.lp"), unfold=FLAT_PREDICATES
)
SCENE_SIGNATURES = frozenset(SCENE_PREDICATES.items())
ENTAILMENT_SIGNATURES = frozenset((name, 3) for name in ENTAILMENT_PREDICATES)


# Parsed once per instance text: parsing a rule costs clingo about as much as grounding it, and
# questions share most of their steps' instances (a select of one word, the answer's rule).
_PARSED: dict[str, tuple[ast.AST, ...]] = {}
_PARSED_KEPT = 8192


def parsed_rules(text: str) -> list[ast.AST]:
    """The statements of a text of rules one a line, each line parsed once per process."""
    lines = text.split("\n") if text else []
    found = {line: _PARSED.get(line) for line in lines}
    missing = [line for line, statements in found.items() if statements is None]
    if missing:
        by_line: dict[int, list[ast.AST]] = {}
        # One call for all new lines; a statement says on which line it begins.
        ast.parse_string("\n".join(missing), lambda s: by_line.setdefault(s.location.begin.line, []).append(s))
        if len(_PARSED) + len(missing) > _PARSED_KEPT:
            _PARSED.clear()
        for number, line in enumerate(missing, start=1):
            kept = tuple(s for s in by_line.get(number, ()) if s.ast_type != ast.ASTType.Program)
            found[line] = _PARSED[line] = kept
    return [statement for line in lines for statement in found[line] or ()]


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
