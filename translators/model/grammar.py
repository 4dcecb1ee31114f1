"""GBNF grammars that only admit programs, for llama.cpp's constrained decoding.

The grammars are generated from `theory.operations.OPERATIONS`, so they follow the operation
list. Flat: the right operation names and arities, integer step ids, ``end(N).`` last. Nested and
code-like: typed expressions, so an operation that reads objects can only be given an expression
that yields objects, and the answer is a value or yes/no expression. With a `Vocabulary`,
class, category, attribute-value and relation arguments are limited to its words.

With an `Ontology` (schema-aware decoding), categories come from its closed set (plus the
structural ones and ``other``), relations from its relation list, and a category is followed only
by values of that category (``other``, ``name`` and ``class`` take any word); classes stay open.

With a question's `QuestionWords` (`translators.wording.grounded_words`), classes, values and relations
are further limited to the words the question supports, and an operation whose relation the
question cannot support is left out; with its `Frame` (`translators.wording.question_frame`), the
outermost call must answer as the question asks (yes/no, a choice, a name, a number). Such a grammar is
built per question (a few milliseconds).

Example:
    >>> "select" in program_grammar("nested")
    True
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from theory.operations import ARGUMENT_CHOICES, OPERATIONS, POSITION_VALUES, Kind
from translators.errors import TranslatorError
from translators.wording.grounded_words import QuestionWords, question_words, singular, stem
from translators.wording.ontology import OTHER_CATEGORY, Ontology
from translators.wording.question_frame import CHOICE_OPERATIONS, EITHER_OPERATIONS, Frame
from translators.wording.vocabulary import Vocabulary

_WORD = "[a-z] [a-z0-9_]{0,40}"
_ARG_RULES = {
    "class": "cls",
    "category": "cat",
    "value": "val",
    "relation": "rel",
    "position": "position",
    "polarity": "polarity",
    "comparison": "comparison",
}
_KIND_RULES = {Kind.STATE: "state", Kind.VALUE: "valexpr", Kind.BOOL: "boolexpr", Kind.NUMBER: "numexpr"}


def _literal(text: str) -> str:
    return json.dumps(text)


def _alternatives(words: Iterable[str]) -> str:
    unique = sorted(set(words))
    return " | ".join(_literal(w) for w in unique) if unique else _WORD


# By the ontology object (kept alongside, so its id is never reused): its digest costs 0.16 ms a question.
_ROLE_STEMS: dict[int, tuple[Ontology, frozenset[str]]] = {}


def _role_stems(ontology: Ontology) -> frozenset[str]:
    """Stems of the words of relations and of category names that are no class: no part of a class."""
    found = _ROLE_STEMS.get(id(ontology))
    if found is None:
        words = {part for name in [*ontology.relations, *ontology.categories] for part in name.split("_")}
        found = _ROLE_STEMS[id(ontology)] = (ontology, frozenset(stem(w) for w in words if w not in ontology.classes))
    return found[1]


def _schema_rules(ontology: Ontology, words: QuestionWords | None = None) -> list[str]:
    """Closed categories and relations; category-value pairs whose value fits the category."""
    open_categories = ("name", "class", OTHER_CATEGORY)
    typed = {c: v for c, v in ontology.categories.items() if v and c not in open_categories}
    typed |= {c: list(v) for c, v in POSITION_VALUES.items()}
    relations: list[str] = list(ontology.relations)
    classes = "word"
    if words is not None:
        # A word the ontology files under no category may be any category's value ("made of mesh").
        known = set(ontology.classes) | set(ontology.uncategorised)
        unfiled = [n for n in words.names() if n not in known and not ontology.categories_of(n)]
        # Another form of a class ("kites") names no value: "The kite is of which color?".
        values = [n for n in unfiled if singular(n) not in ontology.classes]
        typed = {c: kept for c, v in typed.items() if (kept := [x for x in v if words.supports(x)] + values)}
        # A class is a word the ontology knows as a class, one the frame implies ("who": person),
        # or one it does not know at all; never a word it knows only as a value or a relation
        # ("tall", "plastic", "in"), which a small model otherwise writes in a class's place, nor
        # another form of such a word ("ons", "standings") or a run with a relation in it.
        nouns = [n for n in words.names() if n in ontology.classes or n in words.implied]
        # (Other forms of a class stay: GQA's scenes name some objects in the plural, "shoes".)
        known_stems = {
            stem(n)
            for n in words.names()
            if n not in ontology.classes and (n not in unfiled or n in ontology.relations)
        }
        nouns += [
            n
            for n in unfiled
            if stem(n) not in known_stems and not any(stem(part) in _role_stems(ontology) for part in n.split("_"))
        ]
        classes = _alternatives(nouns) if nouns else classes
        relations = words.relations(relations)
    rules = [
        f"cat ::= {_alternatives([*ontology.query_categories, OTHER_CATEGORY])}",
        *([f"rel ::= {_alternatives(relations)}"] if relations else []),
        f"cls ::= {classes}",
        "val ::= word",
    ]
    # A choice between two words ("Is the wall white or dark blue?") chooses between the words said
    # right before its "or" and right after it, in either order, as GQA's programs do on each value
    # choice of the tuning part ("a cow or a sheep?" may choose `cows`: a class in either number).
    sides = _sides(words)
    one, two = [], []
    for index, (category, values) in enumerate(sorted(typed.items())):
        rules.append(f"v{index} ::= {_alternatives(values)}")
        one.append(f'"{category}, " v{index}')
        if sides is None:
            rules.append(f"w{index} ::= {_alternatives(values)}")
            two.append(f'"{category}, " w{index} ", " w{index}')
        elif pairs := _either_side(values, sides, ontology.classes):
            rules.append(f"w{index} ::= {pairs}")
            two.append(f'"{category}, " w{index}')
    # Relations are chosen between the ones the words around "or" say ("to the left or to the
    # right of"): so is every relation choice of the tuning part's GQA programs.
    offered = _offered(words)
    offered_relations = offered.relations(relations) if offered is not None else relations
    if offered_relations:
        rules.append(f"rel2 ::= {_alternatives(offered_relations)}")
    # A choice of `name` (or `class`) is between objects' names, one of `other` between other words.
    names = words.names() if words is not None else []
    objects = [n for n in names if singular(n) in ontology.classes]
    open_pairs = {
        "object": _either_side(objects, sides, ontology.classes) if sides else None,
        "other": _either_side([n for n in names if n not in objects], sides, ontology.classes) if sides else None,
    }
    for kind, pairs in open_pairs.items():
        if pairs:
            rules.append(f"offered-{kind} ::= {pairs}")
    for category in open_categories:
        one.append(f'"{category}, " word')
        kind = "other" if category == OTHER_CATEGORY else "object"
        if sides is None:
            two.append(f'"{category}, " word ", " word')
        elif open_pairs[kind]:
            two.append(f'"{category}, " offered-{kind}')
    rules.append(f"catval ::= {' | '.join(one)}")
    if two:  # else no choice can be written: `choose_attr` is left out
        rules.append(f"catval2 ::= {' | '.join(two)}")
    return rules


# Words that may come between "or" and the second word of a choice ("or a sheep", "or is it gray").
_AFTER_OR = frozenset({"a", "an", "the", "is", "are", "it", "they", "this", "that"})


def _sides(words: QuestionWords | None) -> tuple[set[str], set[str]] | None:
    """The runs of up to four words that end right before a question's first "or" and those that
    start right after it; None without an "or"."""
    if words is None or "or" not in words.surface:
        return None
    surface = words.surface
    at = surface.index("or")
    start = at + 1
    while start < len(surface) and surface[start] in _AFTER_OR:
        start += 1
    # A run before "or" starts after the noun an article names ("the shirt sleeveless or ...":
    # `sleeveless`), unless that noun is the word before "or" ("a cow or a sheep").
    articles = [i for i in range(at) if surface[i] in ("a", "an", "the")]
    first = 0 if not articles else articles[-1] + (2 if articles[-1] + 2 < at else 1)
    before = {"_".join(surface[i:at]) for i in range(max(first, at - 4), at)}
    after = {"_".join(surface[start:end]) for end in range(start + 1, min(len(surface), start + 4) + 1)}
    return before, after


def _side_reader(side: set[str], classes: Collection[str]) -> Callable[[str], bool]:
    """Whether a name is said on one side of "or": as written or in the singular, a class in either number."""
    singulars = {singular(run) for run in side}
    return lambda name: name in side or name in singulars or (singular(name) in classes and singular(name) in singulars)


def _either_side(names: Iterable[str], sides: tuple[set[str], set[str]], classes: Collection[str]) -> str | None:
    """A grammar alternative per ordered pair of two different names, one said on each side of
    "or": as written or in the singular (never "sleevelesses"), a class in either number."""
    said_before, said_after = _side_reader(sides[0], classes), _side_reader(sides[1], classes)
    before = [n for n in names if said_before(n)]
    after = [n for n in names if said_after(n)]
    pairs = sorted({pair for a in before for b in after if a != b for pair in ((a, b), (b, a))})
    return " | ".join(_literal(f"{a}, {b}") for a, b in pairs) or None


def _offered(words: QuestionWords | None) -> QuestionWords | None:
    """The words around a question's first "or" (three before it, five after), or None without one."""
    if words is None or "or" not in words.surface:
        return None
    at = words.surface.index("or")
    return question_words(" ".join(words.surface[max(0, at - 3) : at + 6]))


def _argument_rules(
    vocabulary: Vocabulary | None, ontology: Ontology | None = None, words: QuestionWords | None = None
) -> list[str]:
    names = words.names() if words is not None else []
    # A question's own words replace the open word (they hold at least its frame's words).
    rules = [f"word ::= {_alternatives(names)}" if names else f"word ::= {_WORD}", f"anyword ::= {_WORD}"]
    for name, choices in ARGUMENT_CHOICES.items():
        rules.append(f"{_ARG_RULES[name]} ::= {_alternatives(choices)}")
    if ontology is not None:
        rules += _schema_rules(ontology, words)
    elif vocabulary is None:
        # Without a relation list the question's words cannot name relations: they are checked after parsing.
        rules += ["cls ::= word", "cat ::= anyword", "val ::= word", "rel ::= anyword"]
    else:
        rules += [
            f"cls ::= {_alternatives(vocabulary.classes)}",
            f"cat ::= {_alternatives(vocabulary.categories)}",
            f"val ::= {_alternatives(vocabulary.all_values())}",
            f"rel ::= {_alternatives(vocabulary.relations)}",
        ]
    return rules


def _argument_parts(arguments: tuple[str, ...], schema: bool) -> list[str]:
    """Grammar symbols for an operation's arguments; with a schema a category and its value(s) are one symbol."""
    if schema and arguments[:3] == ("category", "value", "value"):
        return ["catval2", *(_ARG_RULES[a] for a in arguments[3:])]
    if schema and arguments[:2] == ("category", "value"):
        return ["catval", *(_ARG_RULES[a] for a in arguments[2:])]
    if schema and arguments[1:3] == ("relation", "relation"):
        return [_ARG_RULES[arguments[0]], "rel2", "rel2", *(_ARG_RULES[a] for a in arguments[3:])]
    return [_ARG_RULES[a] for a in arguments]


def _usable(parts: list[str], rules: list[str]) -> bool:
    """Whether every argument symbol of an operation has a rule (a question may support no relation)."""
    defined = {rule.split(" ::= ", 1)[0] for rule in rules}
    return all(part in defined for part in parts)


@dataclass(frozen=True)
class Limits:
    """What a grammar is limited to: a vocabulary or an ontology's schema, and one question's words and frame."""

    vocabulary: Vocabulary | None = None
    ontology: Ontology | None = None
    words: QuestionWords | None = None
    frame: Frame | None = None

    def argument_rules(self) -> list[str]:
        return _argument_rules(self.vocabulary, self.ontology, self.words)


def _flat_grammar(limits: Limits) -> str:
    """Flat ASP: ``scene(0).`` then steps ``op(ID, DEPS..., ARGS...).``, then ``end(ID).`` (the answer
    step is named by id, so a frame is checked after parsing, not here)."""
    arguments = limits.argument_rules()
    step_names = []
    rules = []
    for name, spec in OPERATIONS.items():
        symbols = _argument_parts(spec.arguments, limits.ontology is not None)
        if name == "scene" or not _usable(symbols, arguments) or not _asked_for(name, limits.words):
            continue
        parts = [_literal(f"{name}("), "id"]
        for _ in spec.inputs:
            parts += ['", "', "id"]
        for part in symbols:
            parts += ['", "', part]
        parts.append('")."')
        rule = f"op-{name.replace('_', '-')}"
        step_names.append(rule)
        rules.append(f"{rule} ::= {' '.join(parts)}")
    head = [
        'root ::= "scene(0)." (sep step){1,40} sep "end(" id ")."',
        'sep ::= " " | "\\n"',
        f"step ::= {' | '.join(step_names)}",
        "id ::= [0-9] | [1-9] [0-9]",
    ]
    return "\n".join(head + rules + arguments) + "\n"


# Operations only a question with one of these words asks for: GQA's "relate: same color" ("What
# else has the same color as the cup?"), and a choice between two words or relations, which always
# offers them with "or" (all 95 choices of the tuning part). A small model otherwise reaches for
# `relate_attr` on "What color is the coat?" and for `choose_attr` on "What color is the towel?".
_OPERATION_WORDS = {
    "relate_attr": frozenset({"same"}),
    "choose_attr": frozenset({"or"}),
    "choose_rel": frozenset({"or"}),
}


def _asked_for(operation: str, words: QuestionWords | None) -> bool:
    """Whether a question with these words may ask for the operation (any, without words)."""
    needed = _OPERATION_WORDS.get(operation)
    return words is None or needed is None or bool(needed & set(words.surface))


def _expression_rules(
    with_variables: bool, schema: bool, arguments: list[str], words: QuestionWords | None = None
) -> list[str]:
    by_kind: dict[Kind, list[str]] = {kind: [] for kind in Kind}
    for name, spec in OPERATIONS.items():
        if name == "scene":
            by_kind[Kind.STATE].append('"scene()"')
            continue
        symbols = _argument_parts(spec.arguments, schema)
        if not _usable(symbols, arguments):
            continue
        if not _asked_for(name, words):
            continue
        parts = [_KIND_RULES[kind] for kind in spec.inputs] + symbols
        body = ' ", " '.join(parts)
        by_kind[spec.output].append(f'"{name}(" {body} ")"')
    if with_variables:
        by_kind[Kind.STATE].append("var")
    rules = [f"{_KIND_RULES[kind]} ::= {' | '.join(options)}" for kind, options in by_kind.items()]
    # The outermost calls of a choice, as a rule of their own (see `_answer_rule`).
    for rule, names in (("chooseexpr", CHOICE_OPERATIONS), ("eitherexpr", EITHER_OPERATIONS)):
        options = [o for o in by_kind[Kind.VALUE] + by_kind[Kind.BOOL] if o.split("(")[0].strip('"') in names]
        if options:
            rules.append(f"{rule} ::= {' | '.join(options)}")
    return rules


class UnwritableFrame(TranslatorError, ValueError):
    """No program in the question's words answers as it asks: it offers a choice of two words (or asks
    whether either of two things is there), and no `choose_*` (or `or`) call can be made of its words.
    Every program such a grammar allowed would fail the frame check (`question_frame.misfit`)."""


def _answer_rule(frame: Frame | None, rules: list[str]) -> str:
    """The outermost call a frame allows: yes/no, a value, a number, one of two words (a `choose`) or
    whether either thing is there (an `or`); raises `UnwritableFrame` when the last two cannot be made."""
    defined = {rule.split(" ::= ")[0] for rule in rules}
    needed = {
        Frame.CHOICE: ("chooseexpr", "no program in its words can offer the choice it gives"),
        Frame.EITHER: ("eitherexpr", "no program in its words can look for either of the things it names"),
    }
    if frame in needed:
        rule, unmet = needed[frame]
        if rule not in defined:
            raise UnwritableFrame(unmet)
        return rule
    if frame is Frame.YES_NO:
        return "boolexpr"
    if frame is Frame.OPEN:
        return "valexpr"
    if frame is Frame.COUNT:
        return "numexpr"
    return "valexpr | boolexpr | numexpr"


def _nested_grammar(limits: Limits) -> str:
    """One typed nested expression whose outermost call gives a value or yes/no (as the frame asks)."""
    arguments = limits.argument_rules()
    schema = limits.ontology is not None
    expressions = _expression_rules(False, schema, arguments, limits.words)
    rules = [f"root ::= {_answer_rule(limits.frame, expressions)}", *expressions]
    return "\n".join(rules + arguments) + "\n"


def _code_grammar(limits: Limits) -> str:
    """Assignments ``varN = <objects expression>`` then the answer expression (as the frame asks)."""
    arguments = limits.argument_rules()
    expressions = _expression_rules(True, limits.ontology is not None, arguments, limits.words)
    rules = [
        f'root ::= (assign "\\n"){{0,8}} ({_answer_rule(limits.frame, expressions)})',
        'assign ::= var " = " state',
        'var ::= "var" [1-9]',
        *expressions,
    ]
    return "\n".join(rules + arguments) + "\n"


def _gqa_grammar(limits: Limits) -> str:
    """Lines ``operation [deps]: argument`` (the compact GQA form of `translators.model.prompts`); its
    arguments are free text, so words and frame are checked after parsing."""
    rules = [
        'root ::= line ("\\n" line){0,12}',
        'line ::= op (" [" deps "]")? ": " arg',
        'op ::= [a-z]+ (" " [a-zA-Z]+){0,2}',
        'deps ::= [0-9]+ ("," [0-9]+)?',
        "arg ::= [^\\n\\[\\]]{0,80}",
    ]
    return "\n".join(rules) + "\n"


_GRAMMARS = {"flat": _flat_grammar, "nested": _nested_grammar, "code": _code_grammar, "gqa": _gqa_grammar}


def program_grammar(
    representation: str,
    vocabulary: Vocabulary | None = None,
    ontology: Ontology | None = None,
    words: QuestionWords | None = None,
    frame: Frame | None = None,
) -> str:
    """The GBNF grammar of programs in `representation`, optionally limited to a vocabulary or an
    ontology's schema (the ontology wins where both are given), to one question's words and to its frame
    (raises `UnwritableFrame` when no outermost call of that frame can be made of the words)."""
    try:
        build = _GRAMMARS[representation]
    except KeyError:
        raise ValueError(f"no grammar for representation {representation!r}") from None
    return build(Limits(vocabulary, ontology, words, frame))
