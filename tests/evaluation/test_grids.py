"""Experiment grids: reading TOML and JSON, expanding axes and explicit runs, rejecting mistakes."""

from __future__ import annotations

import json

import pytest

from evaluation.grids import GridError, bundled_grids, load_grid


def write(tmp_path, text: str, name: str = "grid.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_bundled_grids_cover_the_research_questions():
    names = {p.stem for p in bundled_grids()}
    assert {"arq1_examples", "arq2_representations", "arq3_models", "table10", "models_representations"} <= names
    for path in bundled_grids():
        grid = load_grid(path)
        runs = grid.expand()
        assert runs and grid.settings
        assert len({r.name for r in runs}) == len(runs)
    arq1 = load_grid("arq1_examples")
    assert len(arq1.expand()) == 6 * 3 * 2
    assert {r.translation["representation"] for r in load_grid("arq2_representations").expand()} == {
        "flat",
        "nested",
        "code",
        "gqa",
    }
    # Table 10: one translation, the four ways of answering (the report crosses them with the 9 scores)
    table10 = load_grid("table10")
    assert len(table10.expand()) == 1
    assert table10.settings == ["isolated", "base-pipeline", "pipeline", "pipeline-blind"]
    crossed = load_grid("models_representations")
    assert len(crossed.expand()) == 8 and {"oracle", "asp-oracle"} <= set(crossed.settings)


def test_axes_product_with_fixed_and_base_parameters(tmp_path):
    grid = load_grid(
        write(
            tmp_path,
            """
name = "g"
settings = ["translation"]
[fixed]
representation = "code"
[axes]
examples = [0, 4]
cover_operators = [false, true]
""",
        )
    )
    runs = grid.expand({"llm": "replay:x.jsonl", "representation": "nested", "sampling": "jaccard"})
    assert [r.translation["examples"] for r in runs] == [0, 0, 4, 4]
    assert all(r.translation["representation"] == "code" and r.translation["llm"] == "replay:x.jsonl" for r in runs)
    assert runs[0].name == "code-k0-jaccard-nocover-replay_x.jsonl"


def test_explicit_runs_in_json(tmp_path):
    path = write(tmp_path, json.dumps({
        "name": "table", "settings": ["isolated"], "fixed": {"examples": 2},
        "runs": [{"name": "small", "llm": "smollm2-135m"}, {"representation": "flat"}],
    }), "grid.json")  # fmt: skip
    runs = load_grid(path).expand()
    assert [r.name for r in runs] == ["small", "flat-k2"]
    assert runs[0].translation == {"examples": 2, "llm": "smollm2-135m"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "g"\n[axes]\nexampels = [1]\n', "unknown translation parameter"),
        ('name = "g"\n[axes]\nrepresentation = ["xml"]\n', "representation"),
        ('name = "g"\n[axes]\nexamples = [1000]\n', "examples"),
        ('name = "g"\n[axes]\nexamples = []\n', "without values"),
        ('name = "g"\nsettings = ["magic"]\n', "unknown setting"),
        ('name = "g"\ncolour = 1\n', "colour"),
        ('settings = ["oracle"]\n', "name"),
        ('name = "g"\n[[runs]]\nname = "a"\n[[runs]]\nname = "a"\n', "several runs named a"),
        ('name = "g"\n[axes\n', "cannot read"),
    ],
)
def test_mistakes_are_reported(tmp_path, text, message):
    with pytest.raises(GridError, match=message):
        load_grid(write(tmp_path, text)).expand()


def test_missing_grid_file(tmp_path):
    with pytest.raises(GridError, match="not found"):
        load_grid(tmp_path / "nope.toml")
