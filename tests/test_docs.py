"""The documentation runs: its code examples against the real code, its generated pages, its links.

Every fenced ```python block of README.md and docs/*.md is executed (from the repository root, in a
fresh namespace: each block stands alone), and every ```sh block runs its `aspvqa ...` lines through
the command line in this process (an `echo '...' |` before the command becomes its standard input;
each must exit 0). A block that needs what a test cannot have (a running server, the bundled
language model, GQA files, Docker) is marked on the line before its fence with
`<!-- docs-test: skip REASON -->`; the reason is shown as the skip's. Other languages (json, plain
text) are shown, not run.
"""

from __future__ import annotations

import contextlib
import importlib.util
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?P<lang>[\w-]*)[^\n]*\n(?P<code>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
SKIP = re.compile(r"<!-- docs-test: skip (?P<reason>.+?) -->\s*$")
RUNNABLE = ("python", "sh")
COMMANDS = ("aspvqa", ".venv/bin/aspvqa")


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    code: str
    skip: str | None

    @property
    def name(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> Iterator[Block]:
    text = page.read_text(encoding="utf-8")
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = SKIP.search(before)
        yield Block(page, line, match.group("lang"), match.group("code"), marker.group("reason") if marker else None)


RUN = [b for page in PAGES for b in blocks(page) if b.lang in RUNNABLE]


@pytest.fixture
def at_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def test_the_pages_have_examples_that_run() -> None:
    """A guard for the guard: the fence pattern finds the examples and most of them run."""
    assert sum(b.skip is None for b in RUN) >= 10
    assert {b.lang for b in RUN if b.skip is None} == {"python", "sh"}


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "python"], ids=lambda b: b.name)
def test_python_example(block: Block, at_root: None) -> None:
    if block.skip:
        pytest.skip(block.skip)
    code = compile(block.code, block.name, "exec")
    exec(code, {"__name__": "__docs__"})


def _commands(code: str) -> Iterator[tuple[list[str], str | None]]:
    """(arguments after `aspvqa`, standard input) for each command line of a shell block."""
    for line in code.replace("\\\n", " ").splitlines():
        words = shlex.split(line, comments=True)
        if not words:
            continue
        stdin = None
        if words[0] in ("echo", "printf") and "|" in words:
            bar = words.index("|")
            stdin, words = " ".join(words[1:bar]) + "\n", words[bar + 1 :]
        assert words[0] in COMMANDS, f"not an aspvqa command (mark the block to skip, with a reason): {line}"
        yield words[1:], stdin


@pytest.mark.parametrize("block", [b for b in RUN if b.lang == "sh"], ids=lambda b: b.name)
def test_shell_example(block: Block, at_root: None) -> None:
    if block.skip:
        pytest.skip(block.skip)
    from typer.testing import CliRunner

    from app.cli import cli

    for arguments, stdin in _commands(block.code):
        result = CliRunner().invoke(cli, arguments, input=stdin)
        assert result.exit_code == 0, f"aspvqa {shlex.join(arguments)} exited {result.exit_code}: {result.output}"


# --- the generated reference pages ---------------------------------------------------------------


@pytest.fixture(scope="module")
def reference() -> ModuleType:
    """The MkDocs hook that generates the reference tables (docs/hooks/reference.py)."""
    spec = importlib.util.spec_from_file_location("docs_reference", REPO / "docs" / "hooks" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_api_page_is_generated_from_the_schema(reference: ModuleType) -> None:
    text = reference.openapi_markdown()
    for operation in ("`POST /answer`", "`POST /translate`", "`POST /verify`", "`GET /ready`"):
        assert operation in text
    assert "{#schema-answerrequest}" in text and "(#schema-answerresponse)" in text


def test_the_settings_page_lists_every_setting(reference: ModuleType) -> None:
    from app.config import Settings

    rows = {r["variable"]: r for r in reference.settings_rows()}
    assert set(rows) == {f"ASPVQA_{name.upper()}" for name in Settings.model_fields}
    assert rows["ASPVQA_TOP_K"]["default"] == "5"
    assert "ASPVQA_SOLVE_WORKERS" in reference.settings_markdown()


def test_the_command_page_lists_every_command(reference: ModuleType) -> None:
    text = reference.cli_markdown()
    for command in ("aspvqa solve", "aspvqa answer", "aspvqa serve", "aspvqa bank build", "aspvqa models pull"):
        assert f"### `{command}`" in text
    assert "`-p, --program <str>`" in text


def test_the_operations_and_modules_are_generated(reference: ModuleType) -> None:
    from theory.operations import OPERATIONS

    operations = reference.operations_markdown()
    assert all(f"`{name}(S" in operations for name in OPERATIONS)
    modules = reference.modules_markdown()
    assert "`theory.operations`" in modules and "`app.config`" in modules


def test_every_marker_names_a_generator(reference: ModuleType) -> None:
    for page in PAGES:
        for match in reference.MARKER.finditer(page.read_text(encoding="utf-8")):
            assert match.group("name") in reference.GENERATORS, f"{page.name}: {match.group(0)}"


# --- what the pages name -------------------------------------------------------------------------

TOP = "app|theory|translators|scene|trust|evaluation|bench|tests|scripts|docs"
PATH = re.compile(rf"`(?P<path>(?:{TOP})/[\w./-]+\.\w+)`")


def test_the_files_the_pages_name_exist() -> None:
    missing = [
        f"{page.relative_to(REPO)}: {match.group('path')}"
        for page in PAGES
        for match in PATH.finditer(page.read_text(encoding="utf-8"))
        if not (REPO / match.group("path")).exists()
    ]
    assert not missing, "the docs name files that do not exist (update the page): " + "; ".join(missing)


def test_the_make_targets_the_readme_promises() -> None:
    """CI runs `make test` as the README says (.ci/run); `make docs` builds the site."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "make test   # install, run ruff (lint and format), mypy, then the tests" in readme
    assert "(CI runs exactly this: .ci/run)" in readme
    assert "make test" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^docs: ", makefile, re.MULTILINE) and "mkdocs build --strict" in makefile


def test_the_readme_stays_a_front_door() -> None:
    assert (REPO / "README.md").stat().st_size <= 15 * 1024


# --- the site ------------------------------------------------------------------------------------


def test_the_site_builds_strictly(tmp_path: Path) -> None:
    """`make docs` in short: broken links, pages left out of the navigation and a generator that
    fails all stop the build."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        pytest.skip("mkdocs and mkdocs-material are not installed (the docs extra)")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    with contextlib.chdir(REPO):
        config = load_config(str(REPO / "mkdocs.yml"), site_dir=str(tmp_path / "site"), strict=True)
        build(config)
    assert (tmp_path / "site" / "openapi.json").is_file()
    assert "ASPVQA_TOP_K" in (tmp_path / "site" / "settings" / "index.html").read_text(encoding="utf-8")
