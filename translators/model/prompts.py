"""Prompts that ask a language model to write a question program, in our own wording.

A prompt has a fixed system part (task, syntax, optionally an operation reference) and the
retrieved examples, shown most similar last so the nearest one sits next to the question. Chat
models get the examples as user/assistant turns; base models get a plain completion layout.
Templates are versioned (`PROMPTS`), so results can say which wording produced them.

Representations: ``flat``, ``nested``, ``code`` (theory.representations) and ``gqa``, a compact
line form of GQA's semantic programs (``op [deps]: argument``), converted by
`translators.gqa.gqa_program.gqa_to_program`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from theory.operations import OPERATIONS, REPRESENTATIONS, TEXT_REPRESENTATIONS
from theory.program import Program
from theory.representations import format_program
from translators.examples.bank import Example, normalise_question

# The compact GQA text form lives beside the GQA converter; named here too, where prompts use it.
from translators.gqa.gqa_program import format_gqa as format_gqa
from translators.gqa.gqa_program import parse_gqa as parse_gqa
from translators.wording.ontology import OTHER_CATEGORY, Ontology

_SYNTAX = {
    "flat": (
        "Write the program in flat ASP: one fact per step, op(ID, INPUT_IDS..., ARGUMENTS...). "
        "Step 0 is scene(0); every step reads earlier step ids; finish with end(ID) naming the answer step."
    ),
    "nested": (
        "Write the program as one nested expression: each operation takes the expressions it reads as its "
        "first arguments, scene() is the root, and the outermost call gives the answer."
    ),
    "code": (
        "Write the program as code: optional lines NAME = expression for results used twice, then one line "
        "with the answer expression. Expressions are nested calls rooted at scene()."
    ),
    "gqa": (
        "Write the program as GQA steps, one per line: OPERATION [INPUT_STEP_NUMBERS]: ARGUMENT, steps "
        "numbered from 0; the last line gives the answer."
    ),
}

_TASK = (
    "You translate questions about a picture into programs that a solver runs on the picture's objects. "
    "Use only the operations listed; words are lower case with underscores (to_the_left_of). "
    "relate(..., CLASS, RELATION, subject) finds objects of CLASS that are the subject of RELATION to the input; "
    "object: they are its object. Put unique before query, verify, choose, compare, common and two_same/"
    "two_different inputs that stand for one object. Answer with the program only."
)


def operation_reference() -> str:
    """One line per operation: its inputs, arguments and what it gives."""
    lines = []
    for name, spec in OPERATIONS.items():
        inputs = ", ".join(["IN"] * len(spec.inputs))
        args = ", ".join(a.upper() for a in spec.arguments)
        signature = ", ".join(p for p in (inputs, args) if p)
        lines.append(f"{name}({signature}) -> {spec.output.value}")
    return "\n".join(lines)


# Direction conventions, stated once with a worked pair (nested form; rendered per representation).
_DIRECTION_PAIR = (
    ("What is the girl carrying?", "query(unique(relate_any(select(scene(), girl), carrying, object)), name)"),
    (
        "Who is holding the umbrella?",
        "query(unique(relate(select(scene(), umbrella), person, holding, subject)), name)",
    ),
)


def conventions(representation: str, ontology: Ontology | None) -> str:
    """The direction rule with its worked pair, and the ontology's categories when there is one."""
    from theory.nested import parse_nested

    lines = [
        "Direction: subject means the new objects do the relation to the input, object means the input does "
        "it to them. Select the object the question names and relate from it:"
    ]
    if representation in TEXT_REPRESENTATIONS:
        for question, program in _DIRECTION_PAIR:
            lines.append(f"  {question} -> {render(parse_nested(program), representation)}")
    if ontology is not None:
        lines.append(
            "Categories: " + ", ".join(c for c in ontology.query_categories) + f"; {OTHER_CATEGORY} for a value "
            "of none of them. Ask name for what an object is (kind, type)."
        )
    return "\n".join(lines)


@dataclass(frozen=True)
class PromptTemplate:
    """A versioned wording."""

    version: str
    with_reference: bool
    fixed_examples: bool = False  # a fixed operation-covering example set right after the system part
    with_conventions: bool = False  # the direction rule, its worked pair and the ontology's categories
    question_prefix: str = "Question: "
    program_prefix: str = "Program: "
    # Said after the question only (routing's note on the question's type): the system part and the
    # fixed examples stay identical across types, so a local model keeps their KV cache.
    question_note: str = ""
    task: str = _TASK  # what the model is asked to do (claims have their own)
    # Questions (not statements): their wording may ask what no program expresses (a reason, an opinion).
    for_questions: bool = True

    def system(self, representation: str, ontology: Ontology | None = None) -> str:
        """The fixed system part for a representation (identical across questions: cacheable)."""
        parts = [self.task, _SYNTAX[representation]]
        if self.with_conventions:
            parts.append(conventions(representation, ontology))
        if self.with_reference:
            parts.append("Operations:\n" + operation_reference())
        return "\n".join(parts)


PROMPTS: dict[str, PromptTemplate] = {
    "v1": PromptTemplate("v1", with_reference=True),
    "v1-short": PromptTemplate("v1-short", with_reference=False),
    # The fixed examples are the same for every question, so a local model keeps them in its KV
    # cache and only evaluates the few retrieved examples and the question.
    "v2-fixed": PromptTemplate("v2-fixed", with_reference=False, fixed_examples=True),
    # v2-fixed plus the direction rule with a worked pair and the ontology's categories.
    "v3": PromptTemplate("v3", with_reference=False, fixed_examples=True, with_conventions=True),
}
DEFAULT_PROMPT = "v3"

# Routing (trust.routing) sends a question to the examples of its predicted structural type and to
# a v3 prompt that names the type after the question: "v3-<type>".
ROUTED_NOTES = {
    "verify": "(a yes/no question about one thing: exist, verify_attr or verify_rel)",
    "query": "(an open question: query the asked category; name for what a thing is)",
    "choose": "(a choice between the two options the question names: choose_attr or choose_rel)",
    "logical": "(two yes/no conditions joined: and or or)",
    "compare": "(a comparison of two things: two_same, two_different, common, compare or all_same)",
}
for _type, _note in ROUTED_NOTES.items():
    PROMPTS[f"v3-{_type}"] = replace(PROMPTS["v3"], version=f"v3-{_type}", question_note=_note)


# Claims (trust.claim_bank): a statement becomes a yes/no program that holds when the statement is true.
CLAIM_TASK = (
    "You translate statements about a picture into yes/no programs that a solver checks on the picture's "
    "objects: the program answers yes exactly when the statement is true. Use only the operations listed; "
    "words are lower case with underscores (to_the_left_of). Name one object with unique(...); use exist for "
    "'there is'; a number n of things is exist of the things with n - 1 of them taken away by "
    "negate(unique(X), X). Answer with the program only."
)
PROMPTS["claim-v1"] = replace(
    PROMPTS["v3"],
    version="claim-v1",
    task=CLAIM_TASK,
    question_prefix="Claim: ",
    program_prefix="Program: ",
    for_questions=False,
)


def routed_prompt(version: str, structural_type: str) -> str:
    """The prompt version for a question routed to `structural_type` (versions without a routed form stay)."""
    routed = f"{version}-{structural_type}"
    return routed if routed in PROMPTS else version


def render_program(example: Example, representation: str) -> str | None:
    """The example's program in `representation`, or None when it cannot be shown that way."""
    if representation == "gqa":
        return format_gqa(example.semantic) if example.semantic else None
    return format_program(example.program, representation)


def render(program: Program, representation: str) -> str:
    """A program in one of the textual representations (not gqa)."""
    return format_program(program, representation)


# --- layouts ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Prompt:
    """A built prompt in both layouts; backends use the one that fits the model."""

    messages: list[dict[str, str]]
    completion: str
    examples: list[Example]
    version: str
    representation: str


def covering_examples(examples: Sequence[Example]) -> list[Example]:
    """A small fixed set that uses every operation: for each operation (by name), the first
    example in bank order that uses it, unless an earlier pick already does."""
    chosen: list[Example] = []
    covered: set[str] = set()
    for name in sorted(OPERATIONS):
        if name in covered:
            continue
        for example in examples:
            if name in example.operations:
                chosen.append(example)
                covered |= example.operations
                break
    return chosen


def build_prompt(
    question: str,
    examples: Sequence[Example],
    representation: str = "nested",
    version: str = DEFAULT_PROMPT,
    fixed: Sequence[Example] = (),
    ontology: Ontology | None = None,
    exclude_ids: Collection[str] = (),
) -> Prompt:
    """The prompt for `question`; `examples` come most similar first and are shown in reverse,
    after the `fixed` examples when the template uses them. A fixed example that is the question
    itself (same text, or an id in `exclude_ids`) is left out."""
    if representation not in REPRESENTATIONS:
        raise ValueError(f"unknown representation {representation!r}; use one of {', '.join(REPRESENTATIONS)}")
    template = PROMPTS[version]
    system = template.system(representation, ontology)
    shown: list[tuple[Example, str]] = []
    fixed_ids = set()
    excluded = set(exclude_ids)
    if template.fixed_examples:
        for example in fixed:
            if example.id in excluded or excluded & example.equivalent:
                continue
            text = render_program(example, representation)
            if text is not None and normalise_question(example.question) != normalise_question(question):
                shown.append((example, text))
                fixed_ids.add(example.id)
    for example in reversed(list(examples)):
        text = render_program(example, representation)
        if text is not None and example.id not in fixed_ids:
            shown.append((example, text))
    messages = [{"role": "system", "content": system}]
    blocks = [system, ""]
    for example, text in shown:
        messages.append({"role": "user", "content": template.question_prefix + example.question})
        messages.append({"role": "assistant", "content": text})
        blocks.append(f"{template.question_prefix}{example.question}\n{template.program_prefix}{text}\n")
    asked = f"{question}\n{template.question_note}" if template.question_note else question
    messages.append({"role": "user", "content": template.question_prefix + asked})
    blocks.append(f"{template.question_prefix}{asked}\n{template.program_prefix}")
    return Prompt(messages, "\n".join(blocks), [e for e, _ in shown], template.version, representation)
