"""The command line loads only what a command uses, and lists each command as the command describes itself.

Each check runs the command in a new process and reads the modules that process imported: `--help`
loads no settings, theory or model; `solve` and `answer` with a given program load no language,
vision or service stack (NLTK, through SciPy, was most of a `solve`'s start). Times are measured
by bench/cli_start.py, not here.
"""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from app.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]
SCENE = "app/data/demo/kitchen_uncertain.lp"
PROGRAM = "scene(0). select(1, 0, mug). unique(2, 1). query(3, 2, color). end(3)."
# Heavy optional parts: the language and vision models, their numerics, the service.
HEAVY = (
    "nltk",
    "scipy",
    "sklearn",
    "torch",
    "transformers",
    "llama_cpp",
    "onnxruntime",
    "sentence_transformers",
    "faiss",
    "fastapi",
    "uvicorn",
    "ray",
    "PIL",
)
# The language-model path of the translators (the settings read two small modules of its room).
TRANSLATION = (
    "translators.model.backends",
    "translators.model.prompts",
    "translators.model.retrieval",
    "translators.model.embeddings",
    "translators.translate",
)
# Runs `aspvqa ARGS...` as the console script does and writes the names of the imported modules.
_RUN = """
import atexit, json, sys
output, sys.argv = sys.argv[1], ["aspvqa", *sys.argv[2:]]
atexit.register(lambda: open(output, "w").write(json.dumps(sorted(sys.modules))))
from app.cli import main
main()
"""


def imported_by(tmp_path: Path, *arguments: str) -> set[str]:
    """The modules a new process imports to run `aspvqa ARGUMENTS` (which must succeed)."""
    listing = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(listing), *arguments], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return set(json.loads(listing.read_text()))


def loaded(modules: set[str], *packages: str) -> list[str]:
    """The `packages` (or their modules) among `modules`."""
    return sorted(m for m in modules if m in packages or m.startswith(tuple(f"{p}." for p in packages)))


@pytest.fixture
def program(tmp_path: Path) -> str:
    path = tmp_path / "mug_color.lp"
    path.write_text(PROGRAM)
    return str(path)


def test_help_loads_no_settings_theory_or_model(tmp_path: Path) -> None:
    modules = imported_by(tmp_path, "--help")
    assert loaded(modules, *HEAVY, "numpy", "pydantic", "clingo", "theory", "translators", "scene", "trust") == []
    assert loaded(modules, "app.config", "app.pipeline") == []


def test_solve_loads_the_theory_and_no_translator_or_model(tmp_path: Path, program: str) -> None:
    modules = imported_by(tmp_path, "solve", "--program", program, "--scene", SCENE)
    assert "clingo" in modules and "theory.solver" in modules
    assert loaded(modules, *HEAVY, "numpy", "trust", *TRANSLATION, "translators.wording.ontology") == []
    assert loaded(modules, "app.pipeline", "app.components", "app.api") == []


def test_answer_with_a_given_program_loads_no_language_vision_or_service_stack(tmp_path: Path, program: str) -> None:
    modules = imported_by(tmp_path, "answer", "--program", program, "--scene", SCENE)
    assert "app.pipeline" in modules
    assert loaded(modules, *HEAVY, "numpy", *TRANSLATION, "app.api") == []


def test_settings_are_read_without_the_translators() -> None:
    code = "import json, sys; import app.config; app.config.load_settings(); print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    modules = set(json.loads(done.stdout))
    # The option types the settings declare, and the module the thread count is handed to.
    light = ["translators.model.sampling", "translators.model.threads", "translators.options"]
    assert loaded(modules, "translators") == ["translators", "translators.model", *light]
    assert loaded(modules, *HEAVY, "numpy") == []


@pytest.mark.parametrize("entry", COMMANDS, ids=lambda entry: entry.name)
def test_each_listed_summary_is_the_commands_own(entry) -> None:
    command = typer.main.get_command(cli).commands[entry.name]
    first_paragraph = inspect.cleandoc(command.help or "").split("\n\n")[0].replace("\n", " ")
    assert entry.summary == first_paragraph


def test_the_command_list_shows_every_command_in_order() -> None:
    result = CliRunner().invoke(cli, ["--help"], terminal_width=200)
    assert result.exit_code == 0
    commands = result.stdout.split("Commands", 1)[1]
    shown = [line.split()[1] for line in commands.splitlines() if line.startswith("│ ") and line[2] != " "]
    assert shown == [entry.name for entry in COMMANDS]


@pytest.mark.parametrize("command", ["answer", "verify"])
def test_answer_and_verify_take_exactly_one_scene(tmp_path: Path, program: str, command: str) -> None:
    given = ["--program", program] + (["--answer", "white"] if command == "verify" else [])
    for scenes in ([], ["--scene", SCENE, "--scene-graph", "app/data/demo/scenes.json", "--image-id", "kitchen"]):
        result = CliRunner().invoke(cli, [command, *given, *scenes])
        assert result.exit_code == 2
        assert result.stderr.strip().count("\n") == 0 and "exactly one of" in result.stderr
