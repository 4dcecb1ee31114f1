"""A bank example's program with the question's words put in its slots' words (`swap`), with a
value of another category taking its category along (`swap_categories`), and with a category named
by its word standing for another named so (`swap_category_word`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection

from theory.operations import OPERATIONS
from theory.program import Program, ProgramError, Step
from theory.validate import validate_program
from translators.wording.grounded_words import singular

Slots = tuple[tuple[str, str | None], ...]  # (role, the words it stands for; None for a plain word)

# The argument roles that hold the question's own words.
_WORD_ROLES = frozenset({"class", "value", "relation"})


def swap_categories(
    program: Program, example_slots: Slots, slots: Slots, categories: Collection[str]
) -> Program | None:
    """`swap`, where a value of another category than the example's takes its category along: each
    step that names the example's category does so for that slot's values only (a `query` of it, or
    the category said as a word of the question, keeps the example's program from filling)."""
    renamed: dict[str, str] = {}
    values: dict[str, set[str]] = defaultdict(set)
    # A category said as a word may move along where the question says the category its values move
    # to ("Does the hat have large size?" from "... have red color?"; checked below).
    said_as: dict[str, str] = {}
    for (role, words), (ours_role, ours) in zip(example_slots, slots):
        if words is None:
            said_as[role] = ours_role.replace(" ", "_") if ours is None else ""
    for (theirs_role, theirs), (ours_role, ours) in zip(example_slots, slots):
        theirs_category, ours_category = theirs_role.replace(" ", "_"), ours_role.replace(" ", "_")
        if theirs is None or ours is None or theirs_category not in categories:
            continue
        if renamed.setdefault(theirs_category, ours_category) != ours_category:
            return None
        values[theirs_category].add(theirs)
    renamed = {old: new for old, new in renamed.items() if old != new}
    if not renamed:
        return None
    for old, new in renamed.items():
        if any(said_as.get(word, new) != new for word in (old, *old.split("_"))):
            return None  # the example's category is said where the question does not say the new one
    moved = {value: category for category in renamed for value in values[category]}
    # A value the example's program never names only says which category is asked ("How big is the
    # dog?" asks `query(size)`): the question's value of another category asks that one.
    named_anywhere = {a for step in program for a in step.arguments}
    signalling = {value for value, asked in moved.items() if value not in named_anywhere and asked in named_anywhere}
    steps = []
    for step in program:
        roles = OPERATIONS[step.operation].arguments
        named = [a for role, a in zip(roles, step.arguments) if role == "category" and a in renamed]
        step_categories = {a for role, a in zip(roles, step.arguments) if role == "category"}
        values_moved = [a for role, a in zip(roles, step.arguments) if role == "value" and a in moved]
        if any(moved[a] not in step_categories for a in values_moved):
            return None  # the example's program files the value under another category than its role
        if named:
            step_values = [a for role, a in zip(roles, step.arguments) if role == "value"]
            if not step_values and not values[named[0]] <= signalling:
                return None
            if any(v not in values[named[0]] for v in step_values):
                return None
            arguments = tuple(
                renamed[a] if role == "category" and a in renamed else a for role, a in zip(roles, step.arguments)
            )
            step = Step(step.id, step.operation, step.dependencies, arguments)
        steps.append(step)
    try:
        recategorised = Program(tuple(steps), program.answer)
    except ProgramError:
        return None
    # A signalling value has no argument to swap: the question's word takes its slot as it is.
    example_slots = tuple(
        ours if theirs[1] in signalling else theirs for theirs, ours in zip(example_slots, slots, strict=True)
    )
    return swap(recategorised, example_slots, slots)


def swap(program: Program, example_slots: Slots, slots: Slots) -> Program | None:
    """`program` with each slot word of its example replaced by the question's word in that slot;
    None when a word would map two ways, or when the question's word differs from one that does
    not appear among the program's arguments."""
    mapping: dict[str, str] = {}
    for (_, theirs), (_, ours) in zip(example_slots, slots):
        if theirs is None or ours is None:
            continue
        if mapping.setdefault(theirs, ours) != ours:
            return None
    used = {
        a
        for step in program
        for role, a in zip(OPERATIONS[step.operation].arguments, step.arguments)
        if role in _WORD_ROLES
    }
    for theirs in [w for w in mapping if w not in used]:
        ours = mapping.pop(theirs)
        if ours == theirs:
            continue  # the same word, unread by the program ("How big is ...?" asks the size)
        # "Are there both spoons and bowls?" names `spoon`: the question's word goes in the singular too.
        if singular(theirs) not in used or mapping.setdefault(singular(theirs), singular(ours)) != singular(ours):
            return None
    # Only words stand for the question's words: a class called "object" leaves positions as they are.
    steps = tuple(
        Step(
            s.id,
            s.operation,
            s.dependencies,
            tuple(
                mapping.get(a, a) if role in _WORD_ROLES else a
                for role, a in zip(OPERATIONS[s.operation].arguments, s.arguments)
            ),
        )
        for s in program
    )
    try:
        return validate_program(Program(steps, program.answer))
    except ProgramError:
        return None


def swap_category_word(program: Program, example_slots: Slots, slots: Slots) -> Program | None:
    """`swap`, where the question names another category by its word than the example does ("What
    pattern is the shirt?" from "What color is the cup?"): each step that reads the example's
    category reads the question's. None when the program never names the example's category."""
    renamed: dict[str, str] = {}
    for (theirs, theirs_words), (ours, ours_words) in zip(example_slots, slots, strict=True):
        if theirs_words is None and ours_words is None and theirs != ours:
            new = ours.replace(" ", "_")
            if renamed.setdefault(theirs.replace(" ", "_"), new) != new:
                return None
    steps = []
    for step in program:
        roles = OPERATIONS[step.operation].arguments
        arguments = tuple(
            renamed.get(a, a) if role == "category" else a for role, a in zip(roles, step.arguments, strict=True)
        )
        steps.append(Step(step.id, step.operation, step.dependencies, arguments))
    named = {
        a
        for step in program
        for role, a in zip(OPERATIONS[step.operation].arguments, step.arguments)
        if role == "category"
    }
    if not renamed or not set(renamed) <= named:
        return None
    try:
        recategorised = Program(tuple(steps), program.answer)
    except ProgramError:
        return None
    return swap(recategorised, example_slots, slots)
