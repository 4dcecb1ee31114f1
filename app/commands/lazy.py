"""Commands imported when they run: a Typer group that knows each command by a table entry.

An entry names the command, the module and attribute that define it and the line `aspvqa --help`
lists for it. The group imports a command's module only when that command runs (or its own help is
asked for), so `aspvqa solve` loads clingo and the theory but not the translators, the models or
the service that other commands' modules import, and `aspvqa --help` loads none of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass
from typing import Any, ClassVar

import typer
from typer.core import MarkupMode, TyperCommand, TyperGroup
from typer.main import get_command_from_info, get_group_from_info
from typer.models import CommandInfo, TyperInfo


@dataclass(frozen=True)
class LazyCommand:
    """One command: its name, where it is defined and the summary the command list shows."""

    name: str
    module: str
    attribute: str  # a command function, or a Typer app of sub-commands
    summary: str  # the first paragraph of the command's own help (a test holds the two equal)

    def load(self, rich_markup_mode: MarkupMode) -> Any:
        """The command built as `Typer.command` or `Typer.add_typer` would build it in the group."""
        defined = getattr(importlib.import_module(self.module), self.attribute)
        if isinstance(defined, typer.Typer):
            return get_group_from_info(
                TyperInfo(defined, name=self.name),
                pretty_exceptions_short=True,
                suggest_commands=True,
                rich_markup_mode=rich_markup_mode,
            )
        return get_command_from_info(
            CommandInfo(name=self.name, callback=defined),
            pretty_exceptions_short=True,
            rich_markup_mode=rich_markup_mode,
        )


class LazyCommands(MutableMapping[str, Any]):
    """The group's commands by name, in the table's order; a command is built on first lookup."""

    def __init__(self, table: tuple[LazyCommand, ...], rich_markup_mode: MarkupMode) -> None:
        self._entries = {entry.name: entry for entry in table}
        self._names = list(self._entries)
        self._built: dict[str, Any] = {}
        self._rich_markup_mode = rich_markup_mode

    def listed(self, name: str) -> Any:
        """What the command list shows for `name` (its name and summary), without importing it."""
        entry = self._entries.get(name)
        return TyperCommand(name=name, help=entry.summary) if entry else self._built.get(name)

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            self._built[name] = self._entries[name].load(self._rich_markup_mode)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:  # a command added as it is, not from the table
        self._built[name] = command
        if name not in self._names:
            self._names.append(name)

    def __delitem__(self, name: str) -> None:
        if name not in self._names:
            raise KeyError(name)
        self._names.remove(name)
        self._entries.pop(name, None)
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __len__(self) -> int:
        return len(self._names)


class LazyGroup(TyperGroup):
    """A Typer group whose commands come from `table`; a subclass sets it and is given as `cls=`."""

    table: ClassVar[tuple[LazyCommand, ...]] = ()

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._lazy = LazyCommands(self.table, self.rich_markup_mode)
        self.commands = self._lazy
        self._listing = False

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self._lazy)  # the names alone: Typer's own reads every command

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if self._listing:
            return self._lazy.listed(cmd_name)
        return self._lazy.get(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        # The list of commands shows each one's name and summary: no command's module is imported.
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False
