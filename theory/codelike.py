"""Code-like programs: nested ASP plus variables for results that are used more than once.

Lines ``NAME = expression`` name a step; the last line is the answer expression. On output,
variables are introduced only for steps read more than once (``scene()`` is always written out)
and are called ``var1..varN`` in the order they are defined; on input any identifier works,
assignments may come in any order, and a name may be used before its line (a cycle is an error).

Example:
    >>> text = "v = unique(select(scene(), cup))\\nand(verify_attr(v, color, red), verify_attr(v, size, small))"
    >>> print(format_code(parse_code(text)))
    var1 = unique(select(scene(), cup))
    and(verify_attr(var1, color, red), verify_attr(var1, size, small))
"""

from __future__ import annotations

from dataclasses import dataclass

from theory.canonical import canonical
from theory.nested import Atom, Call, Item, Parser, ProgramBuilder, format_call, location
from theory.operations import OPERATIONS
from theory.program import Program, ProgramSyntaxError


@dataclass(frozen=True)
class _Assignment:
    name: str
    value: Item
    offset: int


def parse_code(text: str) -> Program:
    """Parse a code-like program into a validated `Program`; errors say ``line L:C`` and what."""
    assignments, answer = _lines(text)

    resolved: dict[str, int] = {}
    active: list[str] = []

    def resolve(atom: Atom) -> int:
        name = atom.value
        if name in resolved:
            return resolved[name]
        assignment = assignments.get(name)
        if assignment is None:
            hint = f" (did you mean {name}()?)" if name in OPERATIONS else ""
            raise ProgramSyntaxError(f"undefined variable {name!r}{hint}", location(text, atom.offset))
        if name in active:
            cycle = " -> ".join([*active[active.index(name) :], name])
            raise ProgramSyntaxError(f"variables depend on each other in a cycle: {cycle}", location(text, atom.offset))
        active.append(name)
        resolved[name] = value_of(assignment.value)
        active.pop()
        return resolved[name]

    builder = ProgramBuilder(text, resolve_name=resolve)

    def value_of(item: Item) -> int:
        if isinstance(item, Call):
            return builder.add(item)
        if item.bare:
            return resolve(item)
        raise ProgramSyntaxError(f"expected a step, got the word {item.value!r}", location(text, item.offset))

    return builder.program(value_of(answer), answer.offset)


def _lines(text: str) -> tuple[dict[str, _Assignment], Item]:
    """The assignments (in the order written) and the answer expression of a code-like text."""
    parser = Parser(text)
    assignments: dict[str, _Assignment] = {}
    answer: Item | None = None
    while parser.peek().kind != "end":
        token = parser.peek()
        if answer is not None:
            raise parser.error(
                f"unexpected {token.text!r} after the answer expression (the answer must be the last line)",
                token.offset,
            )
        if token.kind == "name" and parser.peek(1).kind == "equals":
            parser.next()
            parser.next()
            if parser.peek().kind == "end":
                raise parser.error(f"{token.text} = needs an expression", parser.peek().offset)
            value = parser.item()
            if token.text in assignments:
                first = location(text, assignments[token.text].offset)
                raise parser.error(f"variable {token.text!r} is assigned twice (first at {first})", token.offset)
            assignments[token.text] = _Assignment(token.text, value, token.offset)
        else:  # a stray ')' is reported by `parser.item` itself
            answer = parser.item()
    if answer is None:
        answer = _last_assignment(text, assignments)
    return assignments, answer


def _last_assignment(text: str, assignments: dict[str, _Assignment]) -> Item:
    """The answer of a text without an answer line, taken out of `assignments`."""
    if not assignments:
        raise ProgramSyntaxError("empty program", location(text, 0))
    # A model sometimes ends with ``answer = expr``: the last, otherwise unused assignment answers.
    last = assignments[next(reversed(assignments))]
    if any(_mentions(a.value, last.name) for a in assignments.values()):
        raise ProgramSyntaxError("missing the answer expression on the last line", location(text, len(text)))
    del assignments[last.name]
    return last.value


def _mentions(item: Item, name: str) -> bool:
    if isinstance(item, Atom):
        return item.bare and item.value == name
    return any(_mentions(child, name) for child in item.items)


def format_code(program: Program) -> str:
    """The program as code-like text (of its canonical form): ``varN = ...`` lines, then the answer."""
    program = canonical(program)
    uses: dict[int, int] = {}
    for step in program.steps:  # canonical programs hold only steps that reach the answer
        for dep in step.dependencies:
            uses[dep] = uses.get(dep, 0) + 1
    names: dict[int, str] = {}
    lines: list[str] = []

    def text_of(step_id: int) -> str:
        if step_id in names:
            return names[step_id]
        step = program.step(step_id)
        expression = format_call(step, [text_of(d) for d in step.dependencies])
        # scene() is the root and costs nothing to repeat: naming it would only add noise.
        if uses.get(step_id, 0) > 1 and step.dependencies:
            names[step_id] = f"var{len(names) + 1}"
            lines.append(f"{names[step_id]} = {expression}")
            return names[step_id]
        return expression

    lines.append(text_of(program.answer))
    return "\n".join(lines)
