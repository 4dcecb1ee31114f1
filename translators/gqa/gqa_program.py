"""GQA semantic programs -> `Program`, by rules (DESIGN §2).

A GQA program is a list of ``{"operation", "argument", "dependencies"}``; the last step answers.
The rules:

- ``select: NAME (ids)`` -> ``select(NAME)`` on the scene; object ids are dropped.
- ``relate: CLASS,REL,s|o`` -> ``relate`` (``_`` class: ``relate_any``; ``same CAT``: ``relate_attr``).
- ``filter CAT: V`` -> ``filter(CAT, V)``; bare ``filter: V`` -> ``filter_any(V)``;
  ``not(V)`` -> that filter and ``negate(REMOVED, BASE)``.
- ``query``, ``verify``, ``choose``, ``common`` and two-object ``same``/``different`` read one
  object, so a ``unique`` step is inserted before them (one per object, shared).
- ``verify rel`` -> ``verify_rel`` (``_`` class: ``exist(relate_any(...))``, the same meaning);
  bare ``verify: V`` -> ``verify_attr`` when the value's category is known, else
  ``exist(filter_any(V))``, the same meaning without a category.
- ``choose CAT: A|B`` -> ``choose_attr``; ``choose rel`` -> ``choose_rel``; a comparative
  ``choose`` over two objects (``choose younger``, ``choose less healthy``) -> ``compare(VALUE,
  POLARITY)`` and ``query(name)``.
- ``same``/``different``: one input -> ``all_same``/``all_different``, two -> ``two_same``/
  ``two_different``; the category comes from the spelling (``same color``) or the argument, and
  GQA's ``type`` means the object's ``name``.
- ``exist: ?`` -> ``exist``; ``and``/``or`` -> ``and``/``or``.

GQA has no counting questions: ``count`` and ``compare_count`` have no GQA counterpart, and a
GQA program that asks to count is refused with an error saying so.

Words are normalised with `theory.scene_facts.asp_constant` ("to the left of" -> to_the_left_of).
The result is in canonical form (`theory.canonical`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TypedDict

from theory.canonical import canonical
from theory.operations import COUNTING_OPERATIONS, OPERATIONS, OTHER_CATEGORY, Kind
from theory.program import Program, ProgramError, ProgramSyntaxError, ProgramValidationError, Step
from theory.scene_facts import asp_constant
from translators.errors import TranslatorError
from translators.wording.grounded_words import comparative_base

# GQA's spelling: object ids after arguments ("snow (823324)"), negated values ("not(red)"),
# relation positions ("s"/"o") and category aliases; the interpreter and the prompts read them too.
GQA_OBJECT_IDS = re.compile(r"\s*\((?:-|[0-9][0-9,\s]*)\)\s*$")
GQA_NEGATED = re.compile(r"^\s*not\s*\((.*)\)\s*$")
GQA_POSITIONS = {"s": "subject", "o": "object", "subject": "subject", "object": "object"}
GQA_CATEGORY_ALIASES = {"type": "name"}
# Operations of ours that GQA's programs never use: GQA asks no counting questions.
NOT_IN_GQA = COUNTING_OPERATIONS


def gqa_relation_parts(argument: str) -> tuple[str, str, str]:
    """(class, relation, subject|object) from a GQA relation argument 'class,relation,s|o'."""
    parts = [p.strip() for p in argument.split(",")]
    if len(parts) != 3:
        raise ValueError(f"argument {argument!r} is not 'class,relation,s|o'")
    cls, relation, position = parts
    if relation.startswith("same ") and position in ("_", ""):
        return cls, relation, "subject"  # sharing a value is symmetric: GQA leaves the position out
    if position not in GQA_POSITIONS:
        raise ValueError(f"position {position!r} is not s or o")
    return cls, relation, GQA_POSITIONS[position]


class GQAProgramError(ProgramError, TranslatorError):
    """A GQA semantic program that is malformed or uses a form we cannot express."""


class UnsupportedGQAOperation(GQAProgramError):
    """A GQA operation spelling or argument form without a rule."""


def load_attribute_categories(path: str | Path) -> dict[str, str]:
    """Value -> category from a GQA attribute taxonomy (``{category: [values]}``, e.g.
    ``gqa_all_attribute.json``); values listed under several categories are left out."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    seen: dict[str, set[str]] = {}
    for category, values in data.items():
        for value in values:
            seen.setdefault(asp_constant(value), set()).add(asp_constant(category))
    return {value: next(iter(cats)) for value, cats in seen.items() if len(cats) == 1}


def comparative_value(word: str) -> tuple[str, str]:
    """(value, polarity) of a GQA comparative: younger -> (young, true), less healthy -> (healthy, false)."""
    found = comparative_base(word)
    if found is None:
        raise UnsupportedGQAOperation(f"comparative {word!r} is not of the form -er, less X or more X")
    return found


class _Converter:
    def __init__(self, semantic: Sequence[Mapping[str, object]], categories: Mapping[str, str]) -> None:
        self.semantic = semantic
        self.categories = categories
        self.steps: list[Step] = []
        self.scene = self.add("scene")
        self.results: list[int] = []
        self.where = ""

    def fail(self, message: str, unsupported: bool = False) -> GQAProgramError:
        cls = UnsupportedGQAOperation if unsupported else GQAProgramError
        return cls(message, self.where)

    def add(self, operation: str, deps: tuple[int, ...] = (), args: tuple[str, ...] = ()) -> int:
        # Identical steps are merged once at the end by `canonical`, not here.
        self.steps.append(Step(len(self.steps), operation, deps, args))
        return len(self.steps) - 1

    def kind(self, step_id: int) -> Kind:
        return OPERATIONS[self.steps[step_id].operation].output

    def word(self, text: str, what: str) -> str:
        try:
            return asp_constant(text)
        except ValueError:
            raise self.fail(f"empty {what}") from None

    def category(self, text: str) -> str:
        word = self.word(text, "category")
        return GQA_CATEGORY_ALIASES.get(word, word)

    def one(self, dep: int) -> int:
        """The single object a step reads: unique over the dependency's objects."""
        if self.kind(dep) is not Kind.STATE:
            raise self.fail(f"reads step with a {self.kind(dep).value}, expected objects")
        return self.add("unique", (dep,))

    def convert(self) -> Program:
        if not self.semantic:
            raise GQAProgramError("empty GQA program")
        for index, raw in enumerate(self.semantic):
            self.where = f"GQA step {index}"
            if not isinstance(raw, Mapping) or "operation" not in raw:
                raise self.fail("each step needs an 'operation', 'argument' and 'dependencies'")
            deps = raw.get("dependencies") or []
            if not isinstance(deps, list) or not all(isinstance(d, int) and 0 <= d < index for d in deps):
                raise self.fail(f"dependencies {deps!r} must name earlier steps (0..{index - 1})")
            operation = " ".join(str(raw["operation"]).split())
            argument = GQA_OBJECT_IDS.sub("", str(raw.get("argument") or "")).strip()
            self.results.append(self.step(operation, argument, [self.results[d] for d in deps]))
        self.where = ""
        answer = self.results[-1]
        if self.kind(answer) is Kind.STATE:
            raise GQAProgramError(f"the last step ({self.semantic[-1]['operation']}) gives objects, not an answer")
        try:
            return canonical(Program(tuple(self.steps), answer))
        except ProgramValidationError as exc:
            raise GQAProgramError(f"converted program is invalid: {exc}") from exc

    def arity(self, operation: str, deps: list[int], *allowed: int) -> None:
        if len(deps) not in allowed:
            wanted = " or ".join(map(str, allowed))
            raise self.fail(f"{operation!r} needs {wanted} dependencies, got {len(deps)}")

    def step(self, operation: str, argument: str, deps: list[int]) -> int:
        head, _, rest = operation.partition(" ")
        handler = getattr(self, f"_op_{head}", None)
        if handler is None and head in NOT_IN_GQA:
            raise self.fail(
                f"unknown GQA operation {operation!r}: GQA has no counting operation; write a counting program "
                "in flat, nested or code-like syntax",
                unsupported=True,
            )
        if handler is None:
            raise self.fail(f"unknown GQA operation {operation!r}", unsupported=True)
        return handler(rest, argument, deps, operation)

    def _op_select(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 0)
        return self.add("select", (self.scene,), (self.word(argument, "class"),))

    def _relation_parts(self, argument: str, operation: str) -> tuple[str, str, str]:
        try:
            return gqa_relation_parts(argument)
        except ValueError as exc:
            raise self.fail(f"{operation!r}: {exc}") from exc

    def _op_relate(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1)
        cls, relation, position = self._relation_parts(argument, operation)
        if relation.startswith("same "):
            if cls == "_":
                raise self.fail(f"{operation!r} with any class and {relation!r} has no rule", unsupported=True)
            return self.add("relate_attr", (deps[0],), (self.word(cls, "class"), self.category(relation[5:])))
        rel = self.word(relation, "relation")
        if cls == "_":
            return self.add("relate_any", (deps[0],), (rel, position))
        return self.add("relate", (deps[0],), (self.word(cls, "class"), rel, position))

    def _op_filter(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1)
        negated = GQA_NEGATED.match(argument)
        value = self.word(negated.group(1) if negated else argument, "value")
        if rest:
            kept = self.add("filter", (deps[0],), (self.category(rest), value))
        else:
            kept = self.add("filter_any", (deps[0],), (value,))
        return self.add("negate", (kept, deps[0])) if negated else kept

    def _op_query(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1)
        return self.add("query", (self.one(deps[0]),), (self.category(rest or argument),))

    def _op_exist(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1)
        return self.add("exist", (deps[0],))

    def _op_verify(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1)
        obj = self.one(deps[0])
        if rest == "rel":
            cls, relation, position = self._relation_parts(argument, operation)
            rel = self.word(relation, "relation")
            if cls == "_":
                return self.add("exist", (self.add("relate_any", (obj,), (rel, position)),))
            return self.add("verify_rel", (obj,), (self.word(cls, "class"), rel, position))
        if GQA_NEGATED.match(argument):
            raise self.fail(f"{operation!r} with a negated value {argument!r} has no rule", unsupported=True)
        value = self.word(argument, "value")
        category = self.category(rest) if rest else self.categories.get(value)
        if category is None:
            return self.add("exist", (self.add("filter_any", (obj,), (value,)),))
        return self.add("verify_attr", (obj,), (category, value))

    def _op_choose(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        if len(deps) == 2:
            if not rest:
                raise self.fail(f"{operation!r} over two objects needs a comparative such as 'choose younger'")
            value, polarity = comparative_value(rest)
            chosen = self.add("compare", (self.one(deps[0]), self.one(deps[1])), (value, polarity))
            return self.add("query", (chosen,), ("name",))
        self.arity(operation, deps, 1, 2)
        obj = self.one(deps[0])
        if rest == "rel":
            cls, relations, position = self._relation_parts(argument, operation)
            first, second = self._pair(relations, operation)
            if cls == "_":
                raise self.fail(f"{operation!r} with any class has no rule", unsupported=True)
            return self.add(
                "choose_rel",
                (obj,),
                (self.word(cls, "class"), self.word(first, "relation"), self.word(second, "relation"), position),
            )
        first, second = (self.word(v, "value") for v in self._pair(argument, operation))
        if rest:
            category = self.category(rest)
        else:
            known = self.categories.get(first)
            category = known if known is not None and known == self.categories.get(second) else OTHER_CATEGORY
        return self.add("choose_attr", (obj,), (category, first, second))

    def _pair(self, text: str, operation: str) -> tuple[str, str]:
        parts = [p.strip() for p in text.split("|")]
        if len(parts) != 2 or not all(parts):
            raise self.fail(f"{operation!r} argument {text!r} is not two alternatives 'a|b'")
        return parts[0], parts[1]

    def _same_or_different(self, name: str, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 1, 2)
        category = self.category(rest or argument or "type")
        if len(deps) == 1:
            return self.add(f"all_{name}", (deps[0],), (category,))
        return self.add(f"two_{name}", (self.one(deps[0]), self.one(deps[1])), (category,))

    def _op_same(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        return self._same_or_different("same", rest, argument, deps, operation)

    def _op_different(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        return self._same_or_different("different", rest, argument, deps, operation)

    def _op_common(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 2)
        return self.add("common", (self.one(deps[0]), self.one(deps[1])))

    def _boolean(self, name: str, deps: list[int], operation: str) -> int:
        self.arity(operation, deps, 2)
        for dep in deps:
            if self.kind(dep) is not Kind.BOOL:
                raise self.fail(f"{operation!r} needs two yes/no steps, got a {self.steps[dep].operation} step")
        return self.add(name, (deps[0], deps[1]))

    def _op_and(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        return self._boolean("and", deps, operation)

    def _op_or(self, rest: str, argument: str, deps: list[int], operation: str) -> int:
        return self._boolean("or", deps, operation)


def gqa_to_program(
    semantic: Sequence[Mapping[str, object]], attribute_categories: Mapping[str, str] | None = None
) -> Program:
    """Convert one GQA ``semantic`` list to a canonical `Program`; raises `GQAProgramError`.

    `attribute_categories` (value -> category, see `load_attribute_categories`) names the category
    of bare ``verify``/``choose`` values; without it they use category-free forms where one exists.
    """
    return _Converter(semantic, attribute_categories or {}).convert()


# --- the compact text form: one line per step, ``operation [inputs]: argument`` ---------------------
# No two adjacent parts can take the same characters, so a hostile line is matched in linear time.
_GQA_LINE = re.compile(r"\s*(?P<op>[A-Za-z][A-Za-z _\t]*)(?:\[(?P<deps>[0-9,\s]*)\]\s*)?:(?P<arg>.*)\Z")


class GQAStep(TypedDict):
    """One step of a GQA semantic program, as its JSON gives it."""

    operation: str
    argument: str
    dependencies: list[int]


def format_gqa(semantic: Sequence[Mapping[str, object]]) -> str:
    """GQA semantic steps as lines ``op [deps]: argument`` (object ids dropped)."""
    lines = []
    for step in semantic:
        deps = ",".join(str(d) for d in _items(step.get("dependencies", [])))
        argument = GQA_OBJECT_IDS.sub("", str(step.get("argument", "")))
        head = f"{step['operation']} [{deps}]" if deps else str(step["operation"])
        lines.append(f"{head}: {argument}")
    return "\n".join(lines)


def _items(value: object) -> Iterable[object]:
    # Foreign JSON: a value that cannot be iterated fails as iterating it would.
    if not isinstance(value, Iterable):
        raise TypeError(f"{type(value).__name__!r} object is not iterable")
    return value


def parse_gqa(text: str) -> list[GQAStep]:
    """Lines ``op [deps]: argument`` back to GQA semantic steps; raises `ProgramSyntaxError`."""
    steps: list[GQAStep] = []
    for number, line in enumerate((ln for ln in text.strip().splitlines() if ln.strip()), start=1):
        match = _GQA_LINE.match(line)
        if match is None:
            raise ProgramSyntaxError(f"expected 'operation [inputs]: argument', got {line.strip()!r}", f"line {number}")
        deps_text = match.group("deps") or ""
        deps = [int(d) for d in deps_text.replace(" ", "").split(",") if d]
        for dep in deps:
            if dep >= len(steps):
                raise ProgramSyntaxError(f"step {len(steps)} reads step {dep}, which is not earlier", f"line {number}")
        operation, argument = match.group("op").strip(), match.group("arg").strip()
        steps.append({"operation": operation, "argument": argument, "dependencies": deps})
    if not steps:
        raise ProgramSyntaxError("empty program")
    return steps
