"""Fast reading of data text in its plain form, at the speed of C regular-expression engines: RE2's
automaton checks text of facts alone, Python's `re` reads statements where their parts are needed.

A regular grammar admits only plain statements: ground facts of the allowed predicates (with
their arities) over constants, integers and strings, and, for scenes, ``{ atom }.``, the two
weak-constraint forms that `SceneFacts.to_asp` prints and the ``:~ [not] atom. [W, (TERMS)]``
form of vision-language pipelines (``[W@0, (TERMS)]`` too); plus whitespace and ``%`` line comments.
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
from functools import cached_property, lru_cache

import clingo
import re2

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
# The same terms for RE2, which has neither lookahead nor possessive quantifiers: a constant other
# than ``not`` spelled out letter by letter.
_RE2_CONSTANT = (
    rb"(?:[a-mo-z][A-Za-z0-9_']*"  # any first letter but n
    rb"|n(?:[A-Za-np-z0-9_'][A-Za-z0-9_']*"  # n, then any but o
    rb"|o(?:[A-Za-su-z0-9_'][A-Za-z0-9_']*"  # no, then any but t
    rb"|t[A-Za-z0-9_']+)?)?)"  # not, then at least one more
)
_RE2_TERM = rb"(?:" + _RE2_CONSTANT + rb"|" + _INTEGER + rb"|" + _STRING + rb")"
_SPACE = rb"[ \t\r\n]*+"
_RE2_SPACE = rb"[ \t\r\n]*"  # RE2 has no possessive quantifiers (nor needs them: it never backtracks)
_COMMENT = rb"%(?!\*)[^\n\x00]*+"  # a line comment; a block comment (%* *%) goes to the AST reader


def _atom(allowed: Mapping[str, int], space: bytes, term: bytes = _TERM) -> bytes:
    """Any allowed predicate with exactly its arity; `space` is what may stand between tokens."""
    by_arity: dict[int, list[str]] = {}
    for name, arity in allowed.items():
        if arity > 0 and re.fullmatch(r"[a-z][A-Za-z0-9_]*", name):
            by_arity.setdefault(arity, []).append(name)
    parts = []
    # Most arguments first: scenes are mostly has_attr/3 and has_rel/3 facts, and `re` tries the
    # alternatives in order.
    for arity, names in sorted(by_arity.items(), reverse=True):
        alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names, key=len, reverse=True))
        arguments = (space + b"," + space).join([term] * arity)
        parts.append(b"(?:" + alternatives + rb")\(" + space + arguments + space + rb"\)")
    return b"(?:" + b"|".join(parts) + b")" if parts else b"(?!)"


@dataclass(frozen=True)
class _Grammar:
    """The patterns for one set of predicates, each compiled when first used (a reading of weighted
    text uses neither, only `token_pattern`; compiling one takes milliseconds)."""

    whole_pattern: bytes
    token_pattern: bytes

    @cached_property
    def whole(self) -> re.Pattern[bytes]:
        """The text is nothing but admitted statements."""
        return re.compile(self.whole_pattern)

    @cached_property
    def token(self) -> re.Pattern[bytes]:
        """One statement or comment; groups: fact, choice, then atom and weight of `:~ a.` and
        `:~ not a.` as `to_asp` prints them, then the sign (``not`` or none), atom and weight of
        `:~ [not] a. [W, (TERMS)]` (the tuple form)."""
        return re.compile(self.token_pattern)


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
        # The form vision-language pipelines write (GS-VQA's): `{ a }.` with any spacing in the
        # atom, and `:~ a. [W, (TERMS)]` and `:~ not a. [W, (TERMS)]` at priority 0 (`@0` may be
        # written). Its terms name the constraint; a reader that admits it keeps one weak
        # constraint of a sign per atom (`plain_scene`), as the AST reader reads it (`SceneFacts`).
        gap = rb"[ \t\r\n]*+"
        loose = _atom(names, gap)
        terms = _TERM + rb"(?:" + gap + b"," + gap + _TERM + rb")*+"
        choice = rb"\{" + gap + b"(" + loose + b")" + gap + rb"\}" + _SPACE + rb"\."
        level = rb"(?:" + gap + b"@" + gap + b"0)?"
        tuple_weak = (
            rb":~" + gap + rb"(?:(not)[ \t\r\n]++)?(" + loose + b")" + gap + rb"\." + gap + rb"\[" + gap + weight
            + level + gap + b"," + gap + rb"\(" + gap + terms + gap + rb"\)" + gap + rb"\]"
        )  # fmt: skip
    else:
        # Never match; keep the group numbers.
        choice, true, false, tuple_weak = rb"()(?!)", rb"()()(?!)", rb"()()(?!)", rb"()()()(?!)"
    token = b"|".join(b"(?:" + a + b")" for a in (_COMMENT, fact, choice, true, false, tuple_weak))
    return _Grammar(_SPACE + b"(?:(?:" + token + b")" + _SPACE + b")*", token)


# Byte by byte as `re` reads bytes; no groups are read.
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.encoding = re2.Options.Encoding.LATIN1
_RE2_OPTIONS.never_capture = True
_RE2_OPTIONS.log_errors = False


@lru_cache(maxsize=8)
def _facts_only(allowed: tuple[tuple[str, int], ...], blanks: bool) -> re2._Regexp:
    """Text of nothing but facts and spacing: `_Grammar.whole` without comments, choices and weak
    constraints; without `blanks`, for text whose only spacing is newlines (as scenes are printed).
    Checked by RE2: its automaton reads a whole scene graph's text in a third of the time `re`
    takes, as each byte is read once (and a text of megabytes in linear time)."""
    inside = _RE2_SPACE if blanks else b""  # between the tokens of a fact
    between = _RE2_SPACE if blanks else rb"\n*"  # between facts
    atom = _atom(dict(allowed), inside, _RE2_TERM)
    return re2.compile(between + b"(?:" + atom + inside + rb"\." + between + b")*", _RE2_OPTIONS)


# Taken out of an atom without strings: one text for one atom however it is spaced.
_BLANKS = b" \t\r\n"


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
        fact, choice, true, true_weight, false, false_weight, negation, tuple_atom, tuple_weight = match.groups()
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
            negated = negation is not None
            statements.append(PlainStatement("weak", tuple_atom, line, column, negated, int(tuple_weight)))
        else:
            statements.append(PlainStatement("weak", false, line, column, True, int(false_weight)))
    return statements


def symbols_of(atoms: list[bytes]) -> list[clingo.Symbol]:
    """The symbols of admitted atom texts, read by clingo's term parser in one call."""
    if not atoms:
        return []
    # One tuple term instead of one call per atom: the per-call overhead dominates otherwise.
    return list(clingo.parse_term("(" + b",".join(atoms).decode("utf-8") + ",)").arguments)


# A choice of atom `P(ARGS)` reaches clingo as one fact `scene_choice_P(ARGS,T,F)`: T and F are the
# weights of its weak constraints when true and when false, `none` where it has none (a weight of
# 0 is still a weak constraint clingo hands to the solver). Rules per predicate then make the
# choices and pay the weights (`theory.solver.rules.choice_rules`).
CHOICE_PREFIX = "scene_choice_"
NO_WEIGHT = "none"
_PREFIX, _NONE = CHOICE_PREFIX.encode(), NO_WEIGHT.encode()


@dataclass(frozen=True)
class SceneText:
    """A scene text the plain grammar admits, checked to mean the same to clingo as to `SceneFacts`.

    The counts are those of `SceneFacts.from_asp(text)`. With choices, `clingo_atoms` is what clingo
    reads instead of `text`, by predicate: the certain facts as written and one ``scene_choice_P``
    fact per choice (as program text: `clingo_text`; as term tuples: `clingo_terms`).
    """

    text: str
    fact_count: int
    weighted_count: int
    weak_constraint_count: int
    # The predicates the text may use: each whose name and parenthesis it has, quoted text included
    # (of text that is only facts of `USUAL_SCENE_PREDICATES`, only those).
    signatures: frozenset[tuple[str, int]] = frozenset()
    # The predicates of choices, each with whether to pay weights when true and when false (for
    # the whole text: a rule with no weight to read grounds no weak constraint).
    weighted_predicates: tuple[tuple[str, bool, bool], ...] = ()
    # With choices, (predicate, arity, its atoms) for each predicate clingo reads.
    clingo_atoms: tuple[tuple[str, int, tuple[bytes, ...]], ...] = ()

    def __len__(self) -> int:
        return self.fact_count + self.weighted_count

    def atoms(self, names: frozenset[str]) -> list[bytes]:
        """The text of each certain fact and each choice's atom of the predicates `names`."""
        if not self.clingo_atoms:
            # Certain facts only, as written: the token pattern finds them (strings and comments
            # may hold anything a fact does).
            data = self.text.encode("utf-8")
            found = _grammar(tuple(sorted(self.signatures)), False).token.findall(data)
            wanted = frozenset(name.encode() for name in names)
            return [fact for fact, *_ in found if fact and fact[: fact.index(b"(")].strip() in wanted]
        atoms = []
        for predicate, _, texts in self.clingo_atoms:
            if predicate.startswith(CHOICE_PREFIX) and predicate[len(CHOICE_PREFIX) :] in names:
                # scene_choice_P(ARGS,T,F): the atom P(ARGS) without the two weights.
                atoms += [t[len(_PREFIX) : t.rindex(b",", 0, t.rindex(b","))] + b")" for t in texts]
            elif predicate in names:
                atoms += texts
        return atoms

    @property
    def clingo_text(self) -> str:
        """The atoms of `clingo_atoms` as program text, one fact a line."""
        return b"\n".join(b"%s." % atom for _, _, atoms in self.clingo_atoms for atom in atoms).decode("utf-8")

    @property
    def clingo_terms(self) -> list[tuple[str, int, str]]:
        """(predicate, arity, "(ATOM,...,)") for each predicate: a tuple clingo's term parser reads
        in one call (`theory.solver.grounding.fed_scene`)."""
        return [
            (name, arity, (b"(%s,)" % b",".join(atoms)).decode("utf-8")) for name, arity, atoms in self.clingo_atoms
        ]


@lru_cache(maxsize=8)
def _statements(allowed: tuple[tuple[str, int], ...]) -> re.Pattern[bytes]:
    """Each statement or comment of `_Grammar.token` in turn, or, as the last group, a character
    no statement starts with."""
    # One pass that both checks the text and reads it: a text with no stray character is a sequence
    # of statements and spacing, which is what `_Grammar.whole` admits.
    return re.compile(_grammar(allowed, True).token_pattern + rb"|([^ \t\r\n])")


# The predicates of nearly every scene text: objects, their attributes and relations, and the
# declarations of attribute categories and values (as scene graphs and GS-VQA's scenes have them).
USUAL_SCENE_PREDICATES = frozenset({"object", "has_attr", "has_rel", "is_attr", "is_attr_value"})


def _used(text: str, signatures: tuple[tuple[str, int], ...]) -> frozenset[tuple[str, int]]:
    """The signatures whose name and parenthesis occur in `text` (quoted text included)."""
    return frozenset((name, arity) for name, arity in signatures if f"{name}(" in text)


def plain_scene(text: str, allowed: Mapping[str, int]) -> SceneText | None:
    """`text` as a `SceneText` when clingo may read it directly, else None (use the AST reader).

    Besides the grammar: every weak constraint is on a choice atom, and no atom has two weak
    constraints of one sign (`SceneFacts` adds such weights up, clingo counts a repeated
    constraint once).
    """
    data = _utf8(text)
    if data is None:
        return None
    key = tuple(sorted(allowed.items()))
    # A search for one byte is memchr's, a fiftieth of the time of one for ":~" (12 us on a scene graph).
    if b"{" not in data and (b"~" not in data or b":~" not in data):
        return _certain_scene(text, data, key)
    reading = _weighted_reading(data, key)
    if reading is None:
        return None
    clingo_atoms = reading.clingo_atoms(allowed)
    names = sorted(p[len(CHOICE_PREFIX) :] for p, _, _ in clingo_atoms if p.startswith(CHOICE_PREFIX))
    true, false = reading.signs
    return SceneText(
        text,
        len(reading.certain),
        len(reading.choices),
        reading.positive,
        _used(text, key),
        tuple((name, true, false) for name in names),
        clingo_atoms,
    )


def _certain_scene(text: str, data: bytes, key: tuple[tuple[str, int], ...]) -> SceneText | None:
    """A text of certain facts only (no choice, no weak constraint): clingo reads it as it is."""
    grammar = _grammar(key, True)
    if b"%" in data:
        if grammar.whole.fullmatch(data) is None:
            return None
        used = _used(text, key)
    else:
        blanks = b" " in data or b"\t" in data or b"\r" in data
        # Most scenes have only the usual predicates: a text that is facts of those alone needs
        # no search for the others, each a pass over all of it (a fifth of the reading).
        usual = tuple(signature for signature in key if signature[0] in USUAL_SCENE_PREDICATES)
        if usual != key and _facts_only(usual, blanks).fullmatch(data) is not None:
            used = _used(text, usual)
        elif _facts_only(key, blanks).fullmatch(data) is not None:
            used = _used(text, key)
        else:
            return None
    if b'"' in data or b"%" in data:
        # A period inside a string or comment ends no statement: tokenise all of it.
        facts = sum(1 for token in grammar.token.findall(data) if token[0])
    else:
        facts = data.count(b".")
    return SceneText(text, facts, 0, 0, used)


@dataclass(frozen=True)
class _WeightedReading:
    """The statements of a text with choices: certain facts, choice atoms (in order), the weights
    of each atom's weak constraints (when true, when false), whether any constraint has each sign,
    and how many weights are positive."""

    certain: list[bytes]
    choices: dict[bytes, None]
    weights: dict[bytes, list[bytes]]
    signs: tuple[bool, bool]
    positive: int

    def clingo_atoms(self, allowed: Mapping[str, int]) -> tuple[tuple[str, int, tuple[bytes, ...]], ...]:
        """What clingo reads by predicate (`SceneText.clingo_atoms`): the certain facts as written,
        one ``scene_choice_P(ARGS,T,F)`` fact per choice."""
        by_name: dict[bytes, list[bytes]] = {}
        for fact in self.certain:
            by_name.setdefault(fact[: fact.index(b"(")], []).append(fact)
        unweighted = (b"", b"")
        for atom in self.choices:
            true_w, false_w = self.weights.get(atom, unweighted)
            # The weights go before the atom's closing parenthesis.
            name = _PREFIX + atom[: atom.index(b"(")]
            by_name.setdefault(name, []).append(
                b"%s%s,%s,%s)" % (_PREFIX, atom[:-1], true_w or _NONE, false_w or _NONE)
            )
        clingo_atoms = []
        for name, atoms in by_name.items():
            predicate = name.decode("utf-8")
            if predicate.startswith(CHOICE_PREFIX):
                arity = allowed[predicate[len(CHOICE_PREFIX) :]] + 2  # the two weights
            else:
                arity = allowed[predicate]
            clingo_atoms.append((predicate, arity, tuple(atoms)))
        return tuple(clingo_atoms)


def _weighted_reading(data: bytes, key: tuple[tuple[str, int], ...]) -> _WeightedReading | None:
    """The statements of a text with choices or weak constraints, or None where the grammar does not
    admit it, a weak constraint is on no choice or an atom has two weak constraints of one sign."""
    certain: list[bytes] = []
    choices: dict[bytes, None] = {}
    weights: dict[bytes, list[bytes]] = {}  # atom -> [weight when true, weight when false]
    signs = [False, False]  # some weak constraint when true, when false
    positive = 0
    # The most frequent statements first: this loop is most of the reading time.
    for fact, choice, true, true_w, false, false_w, negation, loose, loose_w, stray in _statements(key).findall(data):
        if choice:
            # Inline rather than a helper: a call per atom is a fifth of reading a weighted scene.
            choices[choice if b'"' in choice else choice.translate(None, _BLANKS)] = None
            continue
        if loose:
            atom, sign, weight = (
                (loose if b'"' in loose else loose.translate(None, _BLANKS)),
                (1 if negation else 0),
                loose_w,
            )
        elif fact:
            certain.append(fact)
            continue
        elif true:
            atom, sign, weight = true, 0, true_w
        elif false:
            atom, sign, weight = false, 1, false_w
        elif stray:
            return None
        else:
            continue  # a comment
        pair = weights.get(atom)
        if pair is None:
            weights[atom] = pair = [b"", b""]
        elif pair[sign]:
            return None
        pair[sign] = weight
        signs[sign] = True
        # Positive unless 0 or negative: the grammar admits no "+" and no leading zeros.
        positive += weight != b"0" and not weight.startswith(b"-")
    if not choices.keys() >= weights.keys():
        return None
    return _WeightedReading(certain, choices, weights, (signs[0], signs[1]), positive)
