"""Shared command-line helpers: reading inputs and failing with one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import typer


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error on stderr and exit with `code`."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(code)


def read_input(path: str, what: str) -> str:
    """The text of `path`, or of standard input when `path` is '-'."""
    if path == "-":
        return sys.stdin.read()
    file = Path(path)
    if not file.exists():
        fail(f"{what} file not found: {path}")
    if file.is_dir():
        fail(f"{what} path is a folder, not a file: {path}")
    try:
        return file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"cannot read {what} file {path}: {exc}")
