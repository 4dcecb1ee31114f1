"""The `aspvqa` command line: one Typer app, one module per command under `app.commands`.

The commands are listed below by name, module and summary, and a command's module is imported only
when it runs (`app.commands.lazy`): `aspvqa --help` starts without loading the settings, the theory
or any model, and `aspvqa solve` without the translators.
"""

from __future__ import annotations

import contextlib
import os

import typer

from app.commands.lazy import LazyCommand, LazyGroup

# In the order `aspvqa --help` lists them (commands, then groups of sub-commands). A summary is the
# first paragraph of the command's own help; tests/app/test_cli_start.py holds the two equal.
COMMANDS = (
    LazyCommand(
        "solve",
        "app.commands.solve",
        "solve_command",
        "Answer a question program on a scene; answers ranked by cost, with supporting facts.",
    ),
    LazyCommand(
        "translate",
        "app.commands.translate",
        "translate_command",
        "Translate a question into a program, guided by the most similar worked examples.",
    ),
    LazyCommand(
        "demo",
        "app.commands.demo",
        "demo_command",
        "Translate the demo questions, answer them on the demo scenes, print answers and programs.",
    ),
    LazyCommand(
        "answer",
        "app.commands.answer",
        "answer_command",
        "Answer a question: ranked answers, the program and the facts behind the top answer.",
    ),
    LazyCommand(
        "verify",
        "app.commands.verify",
        "verify_command",
        "Verify a claim (or an answer): the verdict, each sub-claim's verdict and the facts behind it.",
    ),
    LazyCommand(
        "serve",
        "app.commands.serve",
        "serve_command",
        "Serve POST /answer, POST /translate, /health, /ready, the OpenAPI docs (/docs) and the web page (/).",
    ),
    LazyCommand(
        "convert",
        "app.commands.convert",
        "convert_command",
        "Convert programs; prints one JSON line per item with its id and `program` or `error`.",
    ),
    LazyCommand(
        "interpret",
        "app.commands.interpret",
        "interpret_command",
        "Run GQA semantic programs on scene graphs: answer or failure class, gold answer, match.",
    ),
    LazyCommand(
        "evaluate",
        "app.commands.evaluate",
        "evaluate_command",
        "Evaluate GQA questions under the chosen settings; rerun the same command to resume.",
    ),
    LazyCommand(
        "calibrate",
        "app.commands.calibrate",
        "calibrate_command",
        "Fit the abstention threshold on labelled questions and write it with its data digest and settings.",
    ),
    LazyCommand("bank", "app.commands.bank", "bank_app", "Example banks for question translation."),
    LazyCommand(
        "student",
        "app.commands.student",
        "student_app",
        "The student: the small trained program writer (ASPVQA_LLM=student).",
    ),
    LazyCommand(
        "models",
        "app.commands.models",
        "models_app",
        "The vision models of image questions (OWL-ViT detector, CLIP classifier).",
    ),
)


class AspvqaCommands(LazyGroup):
    """The `aspvqa` group: the commands of `COMMANDS`."""

    table = COMMANDS


cli = typer.Typer(
    name="aspvqa",
    help="Neuro-symbolic visual question answering with Answer Set Programming.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    cls=AspvqaCommands,
)


@cli.callback()
def _settings_first() -> None:
    # Runs before every command, not for `aspvqa --help`. The settings hand the cache folder to
    # every layer, for commands that read no other setting too.
    from app.config import ConfigError, load_settings

    with contextlib.suppress(ConfigError):  # a command that reads the settings says what is wrong
        load_settings()


def main() -> None:
    """Entry point of the `aspvqa` console script."""
    # Model loaders draw progress bars and warnings meant for notebooks; a user's own setting wins.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    cli()
