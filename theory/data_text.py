"""Fast reading of data text in its plain form, at the speed of the C regular-expression engine.

A regular grammar admits only plain statements: ground facts of the allowed predicates (with
their arities) over constants, integers and strings, and, for scenes, ``{ atom }.``, the two
weak-constraint forms that `SceneFacts.to_asp` prints and the ``:~ atom. [W, (TERMS)]`` form of
other scene writers; plus whitespace and ``%`` line comments.
Text it admits holds no rule, directive, variable, block comment or arithmetic, so clingo may
parse it directly. Text it does not admit is not rejected here: callers hand it to the AST
reader in `theory.asp_data`, which accepts the rest of the data syntax and gives the exact
``line:column`` errors. Everything here works on the UTF-8 bytes so that columns count bytes,
as clingo's do.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache

import clingo

# Terms are written by hand as regular expressions because clingo offers no validating lexer
# that stops before grounding; each is a strict subset of clingo's own term syntax, so clingo
# reads the admitted text exactly as the AST reader would:
# - constants: no leading underscore, and not the keyword ``not``;
# - integers: no leading zeros, no ``-0``, at most nine digits (so never past 32 bits);
# - strings: no newline or carriage return inside, only the escapes \\ \" \n.
_CONSTANT = rb"(?!not(?![A-Za-z0-9_']))[a-z][A-Za-z0-9_']*+"
_INTEGER = rb"(?:0|-?[1-9][0-9]{0,8})"
_STRING = rb'"(?:[^"\\\n\r\x00]|\\[\\"n])*"'
_TERM = rb"(?:" + _CONSTANT + rb"|" + _INTEGER + rb"|" + _STRING + rb")"
_SPACE = rb"[ \t\r\n]*+"
_COMMENT = rb"%(?!\*)[^\n\x00]*+"  # a line comment; a block comment (%* *%) goes to the AST reader


def _atom(allowed: Mapping[str, int], space: bytes) -> bytes:
    """Any allowed predicate with exactly its arity; `space` is what may stand between tokens."""
    by_arity: dict[int, list[str]] = {}
    for name, arity in allowed.items():
        if arity > 0 and re.fullmatch(r"[a-z][A-Za-z0-9_]*", name):
            by_arity.setdefault(arity, []).append(name)
    parts = []
    for arity, names in sorted(by_arity.items()):
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))
        arguments = (space + b"," + space).join([_TERM] * arity)
        parts.append(b"(?:" + alternatives + rb")\(" + space + arguments + space + rb"\)")
    return b"(?:" + b"|".join(parts) + b")" if parts else b"(?!)"


@dataclass(frozen=True)
class _Grammar:
    """The compiled patterns for one set of predicates."""

    whole: re.Pattern[bytes]  # the text is nothing but admitted statements
    # One statement or comment; groups: fact, choice, then atom and weight of `:~ a.` and
    # `:~ not a.` as `to_asp` prints them, then of `:~ a. [W, (TERMS)]` (the tuple form).
    token: re.Pattern[bytes]
    weighted: re.Pattern[bytes]  # a choice or weak constraint; the groups of `token` but the fact


@lru_cache(maxsize=8)
def _grammar(allowed: tuple[tuple[str, int], ...], choices: bool) -> _Grammar:
    names = dict(allowed)
    fact = b"(" + _atom(names, _SPACE) + b")" + _SPACE + rb"\."  # any spacing: duplicates are harmless
    if choices:
        # No spacing inside the atom of a choice or weak constraint, so that equal text means equal
        # atom; a weak constraint names its own atom and flags its sign, as `to_asp` prints it.
        tight = _atom(names, b"")
        choice = rb"\{[ \t]*+(" + tight + rb")[ \t]*+\}" + _SPACE + rb"\."
        weight = rb"(0|-?[1-9][0-9]{0,8})"
        # Two alternatives, not one with a conditional group: Python's `re` keeps a group's value
        # from an earlier repetition, so a conditional would see the previous statement's sign.
        true = rb":~[ \t]*+(?P<true>" + tight + rb")[ \t]*+\.[ \t]*+\[" + weight + rb",(?P=true),1\]"
        false = rb":~[ \t]*+not[ \t]++(?P<false>" + tight + rb")[ \t]*+\.[ \t]*+\[" + weight + rb",(?P=false),0\]"
        # The form other scene writers use (GS-VQA's): `{ a }.` with spaces in the atom, and
        # `:~ a. [W, (TERMS)]` at priority 0. Its terms name the constraint; a reader that admits
        # it keeps one weak constraint of a sign per atom (`plain_scene`), so the terms change nothing.
        loose = _atom(names, rb"[ \t]*+")
        gap = rb"[ \t]*+"
        terms = _TERM + rb"(?:" + gap + b"," + gap + _TERM + rb")*+"
        choice = rb"\{[ \t]*+(" + loose + rb")[ \t]*+\}" + _SPACE + rb"\."
        tuple_weak = (
            rb":~" + gap + b"(" + loose + b")" + gap + rb"\." + gap + rb"\[" + gap + weight
            + gap + b"," + gap + rb"\(" + gap + terms + gap + rb"\)" + gap + rb"\]"
        )  # fmt: skip
    else:
        # Never match; keep the group numbers.
        choice, true, false, tuple_weak = rb"()(?!)", rb"()()(?!)", rb"()()(?!)", rb"()()(?!)"
    token = b"|".join(b"(?:" + a + b")" for a in (_COMMENT, fact, choice, true, false, tuple_weak))
    return _Grammar(
        re.compile(_SPACE + b"(?:(?:" + token + b")" + _SPACE + b")*"),
        re.compile(token),
        re.compile(b"|".join(b"(?:" + a + b")" for a in (choice, true, false, tuple_weak))),
    )


def _same_atom(atom: bytes) -> bytes:
    """One text for one atom however it is spaced (text with a string stays as it is)."""
    return atom if b'"' in atom else atom.translate(None, b" \t")


def _utf8(text: str) -> bytes | None:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # an unpaired surrogate: the AST reader says where
        return None


@dataclass(frozen=True)
class PlainStatement:
    """One admitted statement: kind ``fact``, ``choice`` or ``weak``, its atom text, where it starts."""

    kind: str
    atom: bytes
    line: int
    column: int
    negated: bool = False
    weight: int = 0


def scan(text: str, allowed: Mapping[str, int], *, allow_choices: bool = False) -> list[PlainStatement] | None:
    """The statements of `text` in order when the plain grammar admits all of it, else None.

    Text with a NUL character or one UTF-8 cannot encode is never admitted.
    """
    data = _utf8(text)
    if data is None:
        return None
    grammar = _grammar(tuple(sorted(allowed.items())), allow_choices)
    if grammar.whole.fullmatch(data) is None:
        return None
    statements: list[PlainStatement] = []
    line, line_start = 1, 0
    for match in grammar.token.finditer(data):
        fact, choice, true, true_weight, false, false_weight, tuple_atom, tuple_weight = match.groups()
        if fact is None and choice is None and true is None and false is None and tuple_atom is None:
            continue  # a comment
        start = match.start()
        newlines = data.count(b"\n", line_start, start)
        if newlines:
            line += newlines
            line_start = data.rindex(b"\n", 0, start) + 1
        column = start - line_start + 1
        if fact is not None:
            statements.append(PlainStatement("fact", fact, line, column))
        elif choice is not None:
            statements.append(PlainStatement("choice", choice, line, column))
        elif true is not None:
            statements.append(PlainStatement("weak", true, line, column, False, int(true_weight)))
        elif tuple_atom is not None:
            statements.append(PlainStatement("weak", tuple_atom, line, column, False, int(tuple_weight)))
        else:
            statements.append(PlainStatement("weak", false, line, column, True, int(false_weight)))
    return statements


def symbols_of(atoms: list[bytes]) -> list[clingo.Symbol]:
    """The symbols of admitted atom texts, read by clingo's term parser in one call."""
    if not atoms:
        return []
    # One tuple term instead of one call per atom: the per-call overhead dominates otherwise.
    return list(clingo.parse_term("(" + b",".join(atoms).decode("utf-8") + ",)").arguments)


@dataclass(frozen=True)
class SceneText:
    """A scene text the plain grammar admits, checked to mean the same to clingo as to `SceneFacts`.

    `solve` adds `text` to clingo as it is; the counts are those of `SceneFacts.from_asp(text)`.
    """

    text: str
    fact_count: int
    weighted_count: int
    weak_constraint_count: int
    # The predicates the text may use (a name followed by a parenthesis, quoted text included).
    signatures: frozenset[tuple[str, int]] = frozenset()

    def __len__(self) -> int:
        return self.fact_count + self.weighted_count


def plain_scene(text: str, allowed: Mapping[str, int]) -> SceneText | None:
    """`text` as a `SceneText` when clingo may read it directly, else None (use the AST reader).

    Besides the grammar: every weak constraint is on a choice atom, and no atom has two weak
    constraints of one sign (`SceneFacts` adds such weights up, clingo counts a repeated
    constraint once).
    """
    data = _utf8(text)
    if data is None:
        return None
    grammar = _grammar(tuple(sorted(allowed.items())), True)
    if grammar.whole.fullmatch(data) is None:
        return None
    if b'"' in data or b"%" in data:
        # A brace or a period inside a string or comment is no statement: tokenise all of it.
        tokens = grammar.token.findall(data)
        facts = sum(1 for token in tokens if token[0])
        weighted = [token[1:] for token in tokens if any(token[1:])]  # not facts, not comments
    else:
        # Without strings and comments every statement has exactly one period.
        weighted = grammar.weighted.findall(data) if b"{" in data or b":~" in data else []
        facts = data.count(b".") - len(weighted)
    choices: set[bytes] = set()
    weak: set[tuple[bytes, bool]] = set()
    positive = 0
    for choice, true, true_weight, false, false_weight, tuple_atom, tuple_weight in weighted:
        if choice:
            choices.add(_same_atom(choice))
            continue
        key = (true, False) if true else (false, True) if false else (_same_atom(tuple_atom), False)
        if key in weak:
            return None
        weak.add(key)
        positive += int(true_weight or false_weight or tuple_weight) > 0
    if any(atom not in choices for atom, _ in weak):
        return None
    used = frozenset((name, arity) for name, arity in allowed.items() if f"{name}(" in text)
    return SceneText(text, facts, len(choices), positive, used)


def choices_as_facts(text: str, allowed: Mapping[str, int]) -> tuple[str, frozenset[str]]:
    """A text `plain_scene` admitted with ``scene_choice(ATOM).`` for each choice and
    ``scene_weak(ATOM,WEIGHT,1).`` (0 for ``not``) for each weak constraint; the choices' predicates."""
    # One rule per predicate then makes the choices and pays the weights (`theory.solver`):
    # clingo grounds each statement of the text as a rule of its own, about 15 us each.
    grammar = _grammar(tuple(sorted(allowed.items())), True)
    data = text.encode("utf-8")
    names: set[bytes] = set()

    def fact(match: re.Match[bytes]) -> bytes:
        choice, true, true_weight, false, false_weight, tuple_atom, tuple_weight = match.groups()[-7:]
        if tuple_atom is not None:
            true, true_weight = tuple_atom, tuple_weight
        if choice is not None:
            names.add(choice.partition(b"(")[0])
            return b"scene_choice(" + choice + b")."
        if true is not None:
            return b"scene_weak(" + true + b"," + true_weight + b",1)."
        if false is not None:
            return b"scene_weak(" + false + b"," + false_weight + b",0)."
        return match[0]  # a fact or a comment

    # Without strings and comments a choice or weak constraint cannot start inside another
    # statement; with them, every statement is matched in turn.
    pattern = grammar.token if b'"' in data or b"%" in data else grammar.weighted
    facts = pattern.sub(fact, data).decode("utf-8")
    return facts, frozenset(n.decode("utf-8") for n in names)
