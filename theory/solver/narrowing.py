"""Leaving out of a scene text the facts and choices no rule kept for a program can read."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from functools import lru_cache

from theory.data_text import CHOICE_PREFIX, NO_WEIGHT, SceneText
from theory.operations import OPERATIONS
from theory.program import Program
from theory.solver.scene_readings import kept_per_text
from theory.solver.word_index import EVERY_CATEGORY, named_facts, named_places, place_by_words

_SPACE = r"[ \t\r\n]*"


@lru_cache(maxsize=64)
def _unread_facts(names: tuple[str, ...]) -> re.Pattern[str] | None:
    """The facts of `names` (statements that begin a line, as printed scenes have them)."""
    # Anchored, the search takes a quarter of the time an unanchored one does.
    return re.compile(rf"(?m)^{_SPACE}(?:{'|'.join(names)})\([^()]*\){_SPACE}\.") if names else None


# Where a step's argument of each role stands in the scene facts the theory reads for it.
MIDDLE_ROLES = frozenset({"category", "relation"})  # has_attr(O,A,_), has_rel(_,R,_)
LAST_ROLES = frozenset({"class", "value"})  # has_attr(O,class,C), has_attr(O,_,V)


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
    facts = named_facts(scene.text, middle, last, scene.signatures & reads, every_category)
    return replace(scene, text=".\n".join(facts) + ".\n" if facts else "")


def _named_words(
    program: Program, entailed: tuple[frozenset[str], frozenset[str]]
) -> tuple[frozenset[str], frozenset[str], bool]:
    """The categories and relations, the classes and values the program's steps and the entailment
    rows name, and whether a step reads every category."""
    middle: set[str] = set(entailed[0])
    last: set[str] = set(entailed[1])
    for step in program.steps:
        for role, argument in zip(OPERATIONS[step.operation].arguments, step.arguments):
            if role in MIDDLE_ROLES:
                middle.add(argument)
            elif role in LAST_ROLES:
                last.add(argument)
    every_category = any(step.operation in EVERY_CATEGORY for step in program.steps)
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
            place_by_words(index, name, arguments[1].strip().decode(), arguments[2].strip().decode(), (group, at))
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
    chosen = named_places(index, middle, last, attributes, relations, every_category) | set(index.kept)
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
