import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theory.program import ProgramSyntaxError
from theory.representations import parse_program
from translators.model.prompts import (
    PROMPTS,
    build_prompt,
    covering_examples,
    format_gqa,
    parse_gqa,
    render_program,
)

_WORDS = st.text(alphabet="abcdefghij ,_", min_size=1, max_size=12).map(str.strip).filter(bool)


@st.composite
def gqa_programs(draw):
    steps = []
    for index in range(draw(st.integers(1, 6))):
        deps = draw(st.lists(st.integers(0, index - 1), max_size=2, unique=True)) if index else []
        operation = draw(st.sampled_from(["select", "relate", "filter color", "query", "verify rel", "and"]))
        steps.append({"operation": operation, "argument": draw(_WORDS), "dependencies": deps})
    return steps


@settings(max_examples=80, deadline=None)
@given(gqa_programs())
def test_gqa_text_round_trips(steps):
    assert parse_gqa(format_gqa(steps)) == steps


def test_gqa_text_drops_object_ids_and_rejects_forward_references():
    text = format_gqa([{"operation": "select", "argument": "snow (823324)", "dependencies": []}])
    assert text == "select: snow"
    with pytest.raises(ProgramSyntaxError, match="not earlier"):
        parse_gqa("select: cat\nquery [3]: name")


@pytest.mark.parametrize("representation", ["flat", "nested", "code"])
def test_examples_are_shown_most_similar_last_in_the_chosen_syntax(bank, representation):
    examples = [bank[0], bank[1], bank[2]]
    prompt = build_prompt("Is there a cat?", examples, representation, "v1-short")
    assistant = [m["content"] for m in prompt.messages if m["role"] == "assistant"]
    assert [parse_program(a, representation) for a in assistant] == [
        parse_program(render_program(e, representation), representation) for e in reversed(examples)
    ]
    assert prompt.messages[-1] == {"role": "user", "content": "Question: Is there a cat?"}
    assert prompt.completion.endswith("Question: Is there a cat?\nProgram: ")


def test_the_system_part_is_identical_across_questions(bank):
    a = build_prompt("Is there a cat?", [bank[3]], "nested")
    b = build_prompt("What is on the desk?", [bank[9]], "nested")
    assert a.messages[0] == b.messages[0]


def test_reference_version_lists_every_operation(bank):
    from theory.operations import OPERATIONS

    system = build_prompt("Is there a cat?", [], "flat", "v1").messages[0]["content"]
    assert all(f"{name}(" in system for name in OPERATIONS)
    assert "Operations:" not in build_prompt("Is there a cat?", [], "flat", "v1-short").messages[0]["content"]


def test_fixed_examples_come_first_and_are_not_repeated(bank):
    fixed = covering_examples(list(bank))
    prompt = build_prompt("Is there a cat?", [fixed[0], bank[5]], "nested", "v2-fixed", fixed)
    questions = [m["content"].removeprefix("Question: ") for m in prompt.messages if m["role"] == "user"]
    assert questions[: len(fixed)] == [e.question for e in fixed]
    assert questions[len(fixed) :] == [bank[5].question, "Is there a cat?"]
    assert PROMPTS["v2-fixed"].fixed_examples


def test_gqa_representation_skips_examples_without_a_gqa_program(bank):
    prompt = build_prompt("Is there a cat?", [bank[0]], "gqa")
    assert prompt.examples == []
    with pytest.raises(ValueError, match="representation"):
        build_prompt("Is there a cat?", [], "yaml")


def test_routed_prompts_differ_only_after_the_question(bank):
    from translators.model.prompts import routed_prompt

    plain = build_prompt("Is the cup red or blue?", bank.examples[:2], "nested", "v3", covering_examples(bank.examples))
    routed = build_prompt(
        "Is the cup red or blue?",
        bank.examples[:2],
        "nested",
        routed_prompt("v3", "choose"),
        covering_examples(bank.examples),
    )
    assert routed.messages[:-1] == plain.messages[:-1]
    assert routed.messages[-1]["content"].startswith(plain.messages[-1]["content"] + "\n(a choice")
    assert routed_prompt("v1", "choose") == "v1"


def test_claim_prompt_asks_for_yes_no_programs(bank):
    prompt = build_prompt("The cup is red.", bank.examples[:1], "nested", "claim-v1")
    assert "statements about a picture" in prompt.messages[0]["content"]
    assert prompt.messages[-1]["content"] == "Claim: The cup is red."
