"""Why a program has no answer on a scene: the first step whose result comes up empty, and the
nearest words the scene has in its place, with the scene's objects that carry them.

The program is solved once with a relaxed theory (``unique`` keeps every candidate, no
constraints, no ranking) for its brave consequences: every object or value a step has in some
reading of the scene. A step without any is empty in every reading, and the first such step (its
inputs are not empty) is where the answer was lost.

Example:
    >>> from theory.flat import parse_flat
    >>> program = parse_flat(
    ...     "scene(0). select(1,0,cat). relate_any(2,1,sitting_on,object). query(3,2,name). end(3)."
    ... )
    >>> scene = "object(1). has_attr(1,class,cat). object(2). has_attr(2,class,chair). has_rel(1,on,2)."
    >>> explanation = explain_no_answer(program, scene)
    >>> explanation.step, explanation.nearest, explanation.objects
    (2, ('on',), ('chair (2)',))
    >>> print(explanation.message.split(": ", 1)[1])
    the cat is not `sitting_on` anything; the scene has `on` from the cat (1) to the chair (2)
"""

from __future__ import annotations

import difflib
import heapq
import weakref
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache

import clingo
from clingo import ast

from theory.data_text import SceneText, symbols_of
from theory.entailment import Entailments
from theory.flat import FLAT_PREDICATES
from theory.operations import OPERATIONS, THIS_CLASS, Kind
from theory.program import Program, ProgramError, Step
from theory.relevance import Theory
from theory.scene_facts import SceneFacts
from theory.solver.grounding import ground_question
from theory.solver.ranking import printed
from theory.solver.rules import theory_statements
from theory.solver.scene_readings import kept_per_text, read_scene

NEAREST = 3  # words the scene has, shown in place of a missing one
_NAMES_SHOWN = 3
_IDS_SHOWN = 3

# How alike two words are, 0..1 (e.g. Wu-Palmer similarity in WordNet, scene.taxonomy).
Similarity = Callable[[str, str], float]


@dataclass(frozen=True)
class Explanation:
    """The step whose result is empty (None: no single step), what it asked, the nearest words, and
    the scene's objects that have them as ``name (id)`` (a select or relation step), nearest first."""

    step: int | None
    operation: str | None
    message: str
    nearest: tuple[str, ...] = ()
    objects: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """JSON form."""
        return {
            "step": self.step,
            "operation": self.operation,
            "message": self.message,
            "nearest": list(self.nearest),
            "objects": list(self.objects),
        }


@dataclass
class _Scene:
    """The scene facts a reading may use, indexed for describing objects and their neighbours."""

    attributes: dict[str, dict[str, set[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(set)))
    relations: list[tuple[str, str, str]] = field(default_factory=list)

    def name(self, obj: str) -> str:
        values = self.attributes[obj]
        names = values.get("name") or values.get("class") or {obj}
        return sorted(names)[0]

    def names(self, objects: Iterable[str]) -> str:
        found = sorted({self.name(o) for o in objects})
        shown = ", ".join(found[:_NAMES_SHOWN]) + (" ..." if len(found) > _NAMES_SHOWN else "")
        return f"the {shown}"

    def has_class(self, obj: str, cls: str) -> bool:
        return cls in self.attributes[obj].get("class", ())

    def labelled(self, objects: Iterable[str]) -> str:
        """The objects of one name with their ids: ``window (722340, 722341)``."""
        ids = sorted(set(objects), key=_id_order)
        shown = ", ".join(ids[:_IDS_SHOWN]) + (", ..." if len(ids) > _IDS_SHOWN else "")
        return f"{self.name(ids[0])} ({shown})"


def _id_order(obj: str) -> tuple[int, int, str]:
    return (0, int(obj), "") if obj.lstrip("-").isdigit() else (1, 0, obj)


@cache
def _diagnosis_theory(entailment: bool) -> Theory:
    # Constraints and weak constraints only remove readings, and unique's choice is replaced by
    # "every candidate": what is left derives every atom that any reading could derive.
    files = ("operations.lp", "entailment.lp") if entailment else ("operations.lp",)
    kept = []
    for statement in theory_statements(*files):
        if statement.ast_type == ast.ASTType.Minimize:
            continue
        if statement.ast_type == ast.ASTType.Rule:
            head = statement.head
            if head.ast_type == ast.ASTType.Literal and head.atom.ast_type == ast.ASTType.BooleanConstant:
                continue
            if head.ast_type == ast.ASTType.Aggregate and "state(" in str(head):
                continue
        kept.append(statement)
    # Brave consequences are taken over shown atoms only: the steps' results. The scene's words
    # come from the scene itself (`_scene_view`): shown too, a weighted scene's 756 atoms were
    # read back for each of the ~800 models of the enumeration (0.1-0.2 s a why-not answer).
    ast.parse_string("state(S,O) :- unique(S,D), state(D,O). #show state/2. #show value/2.", kept.append)
    return Theory(kept, unfold=FLAT_PREDICATES)


def _ground(program: Program, scene: SceneFacts | SceneText, entailments: Entailments | None) -> clingo.Control:
    ctl = clingo.Control(["--enum-mode=brave", "--opt-mode=ignore", "--warn=none"])
    # Narrowed as `solve` narrows: facts no kept rule can read change no step's candidates.
    ground_question(ctl, program, scene, _diagnosis_theory(bool(entailments)), entailments, narrow=True)
    return ctl


def _brave_atoms(ctl: clingo.Control) -> list[clingo.Symbol]:
    """The atoms true in some stable model (the last model of brave enumeration)."""
    last: list[clingo.Symbol] = []

    def keep(model: clingo.Model) -> None:
        last[:] = model.symbols(shown=True)

    ctl.solve(on_model=keep)
    return last


def _results_and_scene(atoms: Sequence[clingo.Symbol]) -> tuple[dict[int, set[str]], _Scene]:
    results: dict[int, set[str]] = defaultdict(set)
    scene = _Scene()
    # Read from clingo's printed atoms: the brave model shows every scene fact, and reading each
    # argument through Symbol attributes costs a foreign call (two thirds of a why-not answer).
    for sym, text in zip(atoms, printed(atoms)):
        name, _, rest = text.partition("(")
        if name not in ("state", "value", "has_attr", "has_rel"):
            continue
        args = rest[:-1].split(",") if '"' not in rest and "(" not in rest else [str(a) for a in sym.arguments]
        if name in ("state", "value") and len(args) == 2 and args[0].lstrip("-").isdigit():
            results[int(args[0])].add(args[1])
        elif name == "has_attr" and len(args) == 3:
            scene.attributes[args[0]][args[1]].add(args[2])
        elif name == "has_rel" and len(args) == 3:
            scene.relations.append((args[0], args[1], args[2]))
    return results, scene


_VIEWS: dict[int, tuple[weakref.ref[SceneFacts], _Scene]] = {}
_VIEWS_KEPT = 64


def _scene_view(scene: SceneFacts | SceneText) -> _Scene:
    """The words of a whole scene, read once per scene object (a cached encoding serves many requests)."""
    if isinstance(scene, SceneText):
        return _text_view(scene)
    kept = _VIEWS.get(id(scene))
    if kept is not None and kept[0]() is scene:
        return kept[1]
    _, view = _results_and_scene([*scene.facts, *scene.weighted])
    if len(_VIEWS) >= _VIEWS_KEPT:
        _VIEWS.clear()
    _VIEWS[id(scene)] = (weakref.ref(scene), view)
    return view


@kept_per_text
def _text_view(scene: SceneText) -> _Scene:
    """The words of a scene given as text (read once per text: several questions ask one scene)."""
    return _results_and_scene(symbols_of(scene.atoms(frozenset({"has_attr", "has_rel"}))))[1]


def _nearest(
    word: str,
    candidates: Iterable[str],
    entailments: Entailments | None,
    similarity: Similarity | None = None,
    related: Iterable[str] = (),
) -> tuple[str, ...]:
    """Up to NEAREST candidates, most alike first: entailed general words (and `related` ones, whose
    objects are of a general class of `word`), shared general words, `similarity`, shared word parts,
    spelling."""
    general = set(entailments.generalisations(word)) | set(related) if entailments else set(related)
    parts = set(word.split("_"))

    def kind(candidate: str) -> tuple[bool, bool, float, int]:
        # A general word for the asked one first, then a word with a general word in common (dog, cat).
        siblings = bool(entailments and general & set(entailments.generalisations(candidate)))
        alike = round(similarity(word, candidate), 3) if similarity else 0.0
        return (candidate in general, siblings, alike, len(parts & set(candidate.split("_"))))

    groups: dict[tuple[bool, bool, float, int], list[str]] = defaultdict(list)
    for candidate in set(candidates) - {word}:
        groups[kind(candidate)].append(candidate)
    ranked: list[str] = []
    for key in sorted(groups, reverse=True):
        ranked += _most_alike(word, groups[key], NEAREST - len(ranked))
        if len(ranked) >= NEAREST:
            break
    return tuple(ranked)


def _most_alike(word: str, candidates: list[str], count: int) -> list[str]:
    """The `count` candidates spelled most like `word` (difflib's ratio, ties: the later word first)."""
    # difflib's cheap upper bounds skip the exact ratio of candidates that cannot make the cut,
    # as `difflib.get_close_matches` does; the asked word's analysis is made once.
    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(word)
    best: list[tuple[float, str]] = []
    for candidate in candidates:
        matcher.set_seq1(candidate)
        floor = best[0] if len(best) >= count else None
        if floor is not None and (
            (matcher.real_quick_ratio(), candidate) < floor or (matcher.quick_ratio(), candidate) < floor
        ):
            continue
        entry = (matcher.ratio(), candidate)
        if floor is None:
            heapq.heappush(best, entry)
        elif entry > floor:
            heapq.heapreplace(best, entry)
    return [candidate for _, candidate in sorted(best, reverse=True)]


def _links(scene: _Scene, inputs: set[str], position: str, cls: str | None) -> list[tuple[str, str, str]]:
    """(input, relation, other) for every relation of the step's input objects in the asked direction."""
    found = []
    for subject, relation, obj in scene.relations:
        new, old = (subject, obj) if position == "subject" else (obj, subject)
        if old in inputs and (cls is None or scene.has_class(new, cls)):
            found.append((old, relation, new))
    return found


def _relation_message(
    step: Step,
    scene: _Scene,
    inputs: set[str],
    relations: Sequence[str],
    cls: str | None,
    position: str,
    entailments: Entailments | None,
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    what = f"any `{cls}`" if cls else "anything"
    asked = " or ".join(f"`{r}`" for r in relations)
    if position == "subject":
        text = f"no {'`' + cls + '`' if cls else 'object'} is {asked} {scene.names(inputs)}"
    else:
        text = f"{scene.names(inputs)} is not {asked} {what}"
    links = _links(scene, inputs, position, cls) or _links(scene, inputs, position, None)
    if not links:
        side = "subject" if position == "object" else "object"
        return f"{text}; {scene.names(inputs)} is the {side} of no relation in the scene", (), ()
    nearest = _nearest(relations[0], {r for _, r, _ in links}, entailments)
    shown, others = [], []
    for relation in nearest:
        old, _, new = next(link for link in links if link[1] == relation)
        a, b = (new, old) if position == "subject" else (old, new)
        shown.append(f"`{relation}` from the {scene.labelled([a])} to the {scene.labelled([b])}")
        others.append(scene.labelled([new]))
    return f"{text}; the scene has {', '.join(shown)}", nearest, tuple(dict.fromkeys(others))


def _select_message(
    cls: str,
    shown: str | None,
    where: str,
    inputs: set[str],
    scene: _Scene,
    entailments: Entailments | None,
    similarity: Similarity | None,
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """The objects `inputs` has in place of a missing class, by their own names and ids; `shown` says
    what was looked for where it is not the class itself."""
    by_name: dict[str, list[str]] = defaultdict(list)
    for obj in inputs:
        by_name[scene.name(obj)].append(obj)
    # A GQA graph gives each object every category above its name (artifact, whole ...): of those,
    # only a general word of the asked class brings its objects forward (a dog for a missing cat).
    general = set(entailments.generalisations(cls)) if entailments else set()
    related = {n for n, objs in by_name.items() if any(scene.attributes[o].get("class", set()) & general for o in objs)}
    nearest = _nearest(cls, by_name, entailments, similarity, related)
    objects = tuple(scene.labelled(by_name[n]) for n in nearest)
    return (
        f"no object {where} is {shown or f'a `{cls}`'}" + (f"; the scene has {', '.join(objects)}" if objects else ""),
        nearest,
        objects,
    )


def _looked_for(cls: str, program: Program) -> tuple[str, str | None]:
    """The class a select looks for, and how to say it when that is not the class itself: `this` is
    whatever a name a choice offers fits (operations.lp), so those names are said ("a `truck` or a
    `bus`") and the first stands for them."""
    offered = [v for s in program if s.operation == "choose_attr" and s.arguments[0] == "name" for v in s.arguments[1:]]
    if cls != THIS_CLASS or not offered:
        return cls, None
    return offered[0], " or ".join(f"a `{name}`" for name in offered)


def _describe(
    step: Step,
    program: Program,
    results: dict[int, set[str]],
    scene: _Scene,
    entailments: Entailments | None,
    similarity: Similarity | None,
) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """What the empty step asked that the scene lacks, the nearest words the scene has, and the
    objects that have them."""
    inputs = results[step.dependencies[0]] if step.dependencies else set()
    args = step.arguments
    op = step.operation

    def values(category: str) -> set[str]:
        return {v for o in inputs for v in scene.attributes[o].get(category, ())}

    if op == "scene":
        return "the scene has no objects", (), ()
    if op == "select":
        where = (
            "in the scene"
            if program.step(step.dependencies[0]).operation == "scene"
            else f"among {scene.names(inputs)}"
        )
        return _select_message(*_looked_for(args[0], program), where, inputs, scene, entailments, similarity)
    if op == "filter":
        category, value = args
        nearest = _nearest(value, values(category), entailments)
        has = f"their {category}: {', '.join(nearest)}" if nearest else f"they have no {category} at all"
        return f"{scene.names(inputs)} has no {category} `{value}`; {has}", nearest, ()
    if op == "filter_any":
        every = {v for o in inputs for vs in scene.attributes[o].values() for v in vs}
        nearest = _nearest(args[0], every, entailments)
        return (
            f"{scene.names(inputs)} is not `{args[0]}` in any way; it is {', '.join(nearest) or 'nothing known'}",
            nearest,
            (),
        )
    if op == "relate":
        return _relation_message(step, scene, inputs, [args[1]], args[0], args[2], entailments)
    if op == "relate_any":
        return _relation_message(step, scene, inputs, [args[0]], None, args[1], entailments)
    if op == "choose_rel":
        return _relation_message(step, scene, inputs, [args[1], args[2]], args[0], args[3], entailments)
    if op == "relate_attr":
        return f"no other `{args[0]}` shares a {args[1]} with {scene.names(inputs)}", (), ()
    if op == "negate":
        return f"every object of step {step.dependencies[1]} is also in step {step.dependencies[0]}", (), ()
    if op == "compare":
        both = results[step.dependencies[0]] | results[step.dependencies[1]]
        return f"not exactly one of {scene.names(both)} has `{args[0]}`", (), ()
    if op == "query":
        categories = {c for o in inputs for c in scene.attributes[o]}
        nearest = _nearest(args[0], categories, entailments)
        return f"{scene.names(inputs)} has no {args[0]}; it has {', '.join(nearest) or 'no attributes'}", nearest, ()
    if op == "choose_attr":
        category, first, second = args
        nearest = _nearest(first, values(category), entailments)
        has = f"its {category}: {', '.join(nearest)}" if nearest else f"it has no {category} at all"
        return f"{scene.names(inputs)} is neither `{first}` nor `{second}`; {has}", nearest, ()
    if op == "common":
        both = results[step.dependencies[0]] | results[step.dependencies[1]]
        return f"{scene.names(both)} share no attribute value", (), ()
    return "its result is empty", (), ()


def _label(step: Step) -> str:
    words = [a for a in step.arguments if a not in ("subject", "object", "true", "false")]
    return " ".join([step.operation, *words[:2]])


def explain_no_answer(
    program: Program,
    scene: SceneFacts | SceneText | str,
    entailments: Entailments | None = None,
    nearness: Entailments | None = None,
    *,
    whole: SceneFacts | None = None,
    similarity: Similarity | None = None,
) -> Explanation:
    """Why `program` has no answer on `scene`: the first empty step and the nearest scene words.

    `entailments` as given to `solve`; `nearness` (default: `entailments`) ranks the scene's words
    by how near they are to a missing one. Call it after `solve` said ``no_answer``. `scene` may be
    the part of a scene the program can read (as `solve` was given it) when `whole` is the whole
    scene: the steps are read on the part, the nearest words taken from the whole. `similarity`
    (e.g. the taxonomy's) ranks the scene's object names for a missing class; only names the scene
    has are offered.
    """
    nearness = nearness or entailments
    if isinstance(scene, str):
        scene = read_scene(scene)
    try:
        atoms = _brave_atoms(_ground(program, scene, entailments))
    except (RuntimeError, ProgramError) as exc:
        return Explanation(None, None, f"the program could not be checked step by step: {exc}")
    results, _ = _results_and_scene(atoms)
    # Grounding the whole scene only to list its words costs more than the solve itself.
    facts = _scene_view(whole if whole is not None else scene)
    for step in program:
        producing = OPERATIONS[step.operation].output in (Kind.STATE, Kind.VALUE)
        if producing and not results[step.id] and all(results[d] for d in step.dependencies):
            text, nearest, objects = _describe(step, program, results, facts, nearness, similarity)
            message = f"step {step.id} ({_label(step)}) is empty: {text}"
            return Explanation(step.id, step.operation, message, nearest, objects)
    return Explanation(
        None, None, "every step has candidates, but no single reading of the scene meets all of them together"
    )
