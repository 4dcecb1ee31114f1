"""GBNF grammars that only admit programs, for llama.cpp's constrained decoding.

The grammars are generated from `theory.operations.OPERATIONS`, so they follow the operation
list. Flat: the right operation names and arities, integer step ids, ``end(N).`` last. Nested and
code-like: typed expressions, so an operation that reads objects can only be given an expression
that yields objects, and the answer is a value or yes/no expression. With a `Vocabulary`,
class, category, attribute-value and relation arguments are limited to its words.

Example:
    >>> "select" in program_grammar("nested")
    True
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from theory.operations import ARGUMENT_CHOICES, OPERATIONS, Kind
from translators.vocabulary import Vocabulary

_WORD = '[a-z] [a-z0-9_]{0,40}'
_ARG_RULES = {"class": "cls", "category": "cat", "value": "val", "relation": "rel", "position": "position", "polarity": "polarity"}
_KIND_RULES = {Kind.STATE: "state", Kind.VALUE: "valexpr", Kind.BOOL: "boolexpr"}


def _literal(text: str) -> str:
    return json.dumps(text)


def _alternatives(words: Iterable[str]) -> str:
    unique = sorted(set(words))
    return " | ".join(_literal(w) for w in unique) if unique else _WORD


def _argument_rules(vocabulary: Vocabulary | None) -> list[str]:
    rules = [f"word ::= {_WORD}"]
    for name, choices in ARGUMENT_CHOICES.items():
        rules.append(f"{_ARG_RULES[name]} ::= {_alternatives(choices)}")
    if vocabulary is None:
        rules += ["cls ::= word", "cat ::= word", "val ::= word", "rel ::= word"]
    else:
        rules += [
            f"cls ::= {_alternatives(vocabulary.classes)}",
            f"cat ::= {_alternatives(vocabulary.categories)}",
            f"val ::= {_alternatives(vocabulary.all_values())}",
            f"rel ::= {_alternatives(vocabulary.relations)}",
        ]
    return rules


def flat_grammar(vocabulary: Vocabulary | None = None) -> str:
    """Flat ASP: ``scene(0).`` then steps ``op(ID, DEPS..., ARGS...).``, then ``end(ID).``."""
    step_names = []
    rules = []
    for name, spec in OPERATIONS.items():
        if name == "scene":
            continue
        parts = [_literal(f"{name}("), "id"]
        for _ in spec.inputs:
            parts += ['", "', "id"]
        for argument in spec.arguments:
            parts += ['", "', _ARG_RULES[argument]]
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
    return "\n".join(head + rules + _argument_rules(vocabulary)) + "\n"


def _expression_rules(with_variables: bool) -> list[str]:
    by_kind: dict[Kind, list[str]] = {kind: [] for kind in Kind}
    for name, spec in OPERATIONS.items():
        if name == "scene":
            by_kind[Kind.STATE].append('"scene()"')
            continue
        parts = []
        for kind in spec.inputs:
            parts.append(_KIND_RULES[kind])
        for argument in spec.arguments:
            parts.append(_ARG_RULES[argument])
        body = ' ", " '.join(parts)
        by_kind[spec.output].append(f'"{name}(" {body} ")"')
    if with_variables:
        by_kind[Kind.STATE].append("var")
    return [f"{_KIND_RULES[kind]} ::= {' | '.join(options)}" for kind, options in by_kind.items()]


def nested_grammar(vocabulary: Vocabulary | None = None) -> str:
    """One typed nested expression whose outermost call gives a value or yes/no."""
    rules = ["root ::= valexpr | boolexpr", *_expression_rules(False)]
    return "\n".join(rules + _argument_rules(vocabulary)) + "\n"


def code_grammar(vocabulary: Vocabulary | None = None) -> str:
    """Assignments ``varN = <objects expression>`` then the answer expression."""
    rules = [
        'root ::= (assign "\\n"){0,8} (valexpr | boolexpr)',
        'assign ::= var " = " state',
        'var ::= "var" [1-9]',
        *_expression_rules(True),
    ]
    return "\n".join(rules + _argument_rules(vocabulary)) + "\n"


def gqa_grammar(vocabulary: Vocabulary | None = None) -> str:
    """Lines ``operation [deps]: argument`` (the compact GQA form of `translators.prompts`)."""
    rules = [
        'root ::= line ("\\n" line){0,12}',
        'line ::= op (" [" deps "]")? ": " arg',
        "op ::= [a-z]+ (\" \" [a-zA-Z]+){0,2}",
        'deps ::= [0-9]+ ("," [0-9]+)?',
        "arg ::= [^\\n\\[\\]]{0,80}",
    ]
    return "\n".join(rules) + "\n"


_GRAMMARS = {"flat": flat_grammar, "nested": nested_grammar, "code": code_grammar, "gqa": gqa_grammar}


def program_grammar(representation: str, vocabulary: Vocabulary | None = None) -> str:
    """The GBNF grammar of programs in `representation`, optionally limited to a vocabulary."""
    try:
        return _GRAMMARS[representation](vocabulary)
    except KeyError:
        raise ValueError(f"no grammar for representation {representation!r}") from None
