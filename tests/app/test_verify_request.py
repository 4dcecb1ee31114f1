"""What a verify request asks, made at the edge: a claim alone, or an answer with its question or program."""

from __future__ import annotations

import dataclasses
import re

import pytest

from app.api.schemas import VerifyRequest
from app.errors import PipelineError
from app.inputs import AnswerToVerify, AskedQuestion, ClaimToVerify, GivenProgram, what_to_verify

PROGRAM = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."


def test_each_allowed_mix_is_one_typed_record():
    assert what_to_verify("The mug is white.", None, None, None, None) == ClaimToVerify("The mug is white.")
    asked = what_to_verify(None, "What color is the mug?", "white", None, "nested")
    assert asked == AnswerToVerify(
        AskedQuestion("What color is the mug?"), "white"
    )  # a question's syntax is the service's
    given = what_to_verify(None, "What color is the mug?", "white", PROGRAM, "flat")
    assert given == AnswerToVerify(GivenProgram(PROGRAM, "flat"), "white")  # the program is used, the question echoed
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.answer = "red"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ((None, None, None, None, None), "give either a claim, or an answer with its question or program"),
        (("The mug is white.", None, "yes", None, None), "give either a claim"),
        (("The mug is white.", "Is the mug white?", None, None, None), "a claim is verified on its own"),
        (("The mug is white.", None, None, PROGRAM, None), "a claim is verified on its own"),
        ((None, None, "white", None, None), "an answer needs its question (or the question's program)"),
        ((None, None, "white", PROGRAM, "prolog"), "program: unknown representation 'prolog'"),
    ],
)
def test_any_other_mix_is_invalid_input_with_a_clear_message(fields, message):
    with pytest.raises(PipelineError, match=re.escape(message)) as info:
        what_to_verify(*fields)
    assert info.value.kind == "invalid_input"


def test_the_request_model_makes_the_record():
    body = VerifyRequest(program=PROGRAM, representation="flat", answer="white", scene_facts="object(1).")
    assert body.to_verify() == AnswerToVerify(GivenProgram(PROGRAM, "flat"), "white")
    with pytest.raises(PipelineError, match="needs its question"):
        VerifyRequest(answer="white", scene_facts="object(1).").to_verify()


def test_the_command_line_says_a_wrong_mix_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from app.cli import cli

    scene = tmp_path / "s.lp"
    scene.write_text("object(1).")
    program = tmp_path / "q.lp"
    program.write_text(PROGRAM)
    runner = CliRunner()
    both = ["verify", "--claim", "The mug is white.", "--question", "Is the mug white?", "--scene", str(scene)]
    result = runner.invoke(cli, both)
    assert result.exit_code == 2 and result.stderr.strip().count("\n") == 0
    assert "a claim is verified on its own" in result.stderr
    syntax = ["verify", "--program", str(program), "--repr", "prolog", "--answer", "white", "--scene", str(scene)]
    result = runner.invoke(cli, syntax)
    assert result.exit_code == 2 and "unknown representation 'prolog'" in result.stderr
