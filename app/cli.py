"""The `aspvqa` command line: one Typer app, one module per command under `app.commands`."""

from __future__ import annotations

import contextlib
import os

import typer

from app.commands.answer import answer_command
from app.commands.bank import bank_app
from app.commands.calibrate import calibrate_command
from app.commands.convert import convert_command
from app.commands.demo import demo_command
from app.commands.evaluate import evaluate_command
from app.commands.interpret import interpret_command
from app.commands.models import models_app
from app.commands.serve import serve_command
from app.commands.solve import solve_command
from app.commands.translate import translate_command
from app.commands.verify import verify_command
from app.config import ConfigError, load_settings

cli = typer.Typer(
    name="aspvqa",
    help="Neuro-symbolic visual question answering with Answer Set Programming.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
cli.command("solve")(solve_command)
cli.command("translate")(translate_command)
cli.add_typer(bank_app, name="bank")
cli.command("demo")(demo_command)
cli.command("answer")(answer_command)
cli.command("verify")(verify_command)
cli.command("serve")(serve_command)
cli.command("convert")(convert_command)
cli.command("interpret")(interpret_command)
cli.command("evaluate")(evaluate_command)
cli.command("calibrate")(calibrate_command)
cli.add_typer(models_app, name="models")


def main() -> None:
    """Entry point of the `aspvqa` console script."""
    # Model loaders draw progress bars and warnings meant for notebooks; a user's own setting wins.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    # The settings hand the cache folder to every layer, for commands that read no other setting too.
    with contextlib.suppress(ConfigError):  # a command that reads the settings says what is wrong
        load_settings()
    cli()
