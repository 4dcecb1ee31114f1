"""The report: tables computed from result records, Markdown, JSON and PNG files."""

from __future__ import annotations

import json

import pytest

from evaluation.report import SCORE_KEYS, by_examples, gqa_metrics, markdown, summarise, write_report


def answer_row(qid, correct, *, run="r", setting="isolated", answerable=True, generous=None, failure=None,
               types=None, entailed=(), answers=None, status="answered"):  # fmt: skip
    generous = correct if generous is None else generous
    scores = {k: (correct if k.startswith("strict") else generous) for k in SCORE_KEYS}
    return {
        "run": run, "setting": setting, "questionId": qid, "gold": "yes",
        "answers": answers or (["yes"] if correct else ["no"]),
        "scores": scores, "correct": correct, "answerable": answerable, "status": status,
        "failure": None if correct
        else (failure or {"category": "translation", "kind": "WrongOnTrueScene", "message": ""}),
        "types": types or {"structural": "verify", "semantic": "attr"}, "entailed": list(entailed), "seconds": 0.5,
    }  # fmt: skip


def translation_row(qid, canonical, semantic, run="r", program="scene(0). end(0)."):
    return {
        "run": run, "setting": "translation", "questionId": qid, "gold": "yes", "answers": [], "status": "translated",
        "scores": {"canonical": canonical, "semantic": semantic}, "correct": semantic, "answerable": None,
        "program": program,
        "failure": None if semantic else {"category": "translation", "kind": "NotEquivalent", "message": ""},
        "types": {"structural": "query"}, "entailed": [], "seconds": 2.0,
    }  # fmt: skip


ROWS = [
    answer_row("1", True, types={"structural": "verify", "semantic": "attr"}, entailed=["2", "3"]),
    answer_row("2", False, generous=True, types={"structural": "query", "semantic": "rel"}),
    answer_row("3", True, types={"structural": "query", "semantic": "rel"}, entailed=["1"]),
    answer_row("4", False, answerable=False, failure={"category": "dataset", "kind": "EmptyQuery", "message": ""}),
    answer_row("5", False, status="skipped", failure={"category": "input", "kind": "MissingSceneGraph", "message": ""}),
    translation_row("1", True, True),
    translation_row("2", False, True),
    translation_row("3", False, False, program=None),
]


def table(summary, setting, run="r"):
    return next(t for t in summary["tables"] if t["setting"] == setting and t["run"] == run)


def test_accuracy_tables():
    summary = summarise(ROWS, {"r": {"examples": 8}})
    isolated = table(summary, "isolated")
    assert (isolated["questions"], isolated["evaluated"], isolated["skipped"], isolated["answerable"]) == (5, 4, 1, 3)
    assert isolated["accuracy"]["strict@1"] == 0.5 and isolated["accuracy"]["generous@1"] == 0.75
    assert isolated["accuracy_answerable"]["strict@1"] == pytest.approx(0.6667)
    assert isolated["by_type"]["structural"] == {
        "query": {"n": 2, "accuracy": 0.5},
        "verify": {"n": 2, "accuracy": 0.5},
    }
    assert isolated["failures"]["categories"] == {"translation": 1, "dataset": 1}
    assert isolated["failures"]["kinds"] == {"translation:WrongOnTrueScene": 1, "dataset:EmptyQuery": 1}
    assert isolated["seconds_per_question"] == 0.5
    translation = table(summary, "translation")
    assert translation["translation"] == {
        "valid": pytest.approx(0.6667),
        "canonical": pytest.approx(0.3333),
        "semantic": pytest.approx(0.6667),
    }
    assert "accuracy" not in translation


def test_gqa_metrics_consistency_validity_plausibility():
    rows = [r for r in ROWS if r["setting"] == "isolated" and r["status"] != "skipped"]
    # 1 is right and entails 2 (wrong) and 3 (right): 0.5; 3 is right and entails 1 (right): 1.0
    metrics = gqa_metrics(rows, None)
    assert metrics["accuracy"] == 0.5 and metrics["consistency"] == 0.75 and metrics["consistency_questions"] == 2
    assert "validity" not in metrics
    choices = {"1": {"valid": ["yes", "no"], "plausible": ["yes"]}, "2": {"valid": ["yes"], "plausible": ["yes"]}}
    with_choices = gqa_metrics(rows, choices)
    assert with_choices["validity"] == 0.5 and with_choices["plausibility"] == 0.5


def test_accuracy_by_number_of_examples():
    rows = [answer_row("1", True, run="k0"), answer_row("2", False, run="k0"),
            answer_row("1", True, run="k4"), answer_row("2", True, run="k4")]  # fmt: skip
    runs = {"k0": {"examples": 0, "sampling": "bert"}, "k4": {"examples": 4, "sampling": "bert"}}
    series = by_examples(summarise(rows, runs)["tables"])
    assert len(series) == 1
    assert series[0]["points"] == [{"examples": 0, "accuracy": 0.5, "n": 2}, {"examples": 4, "accuracy": 1.0, "n": 2}]
    assert "sampling=bert" in series[0]["label"]


def test_markdown_has_every_table():
    text = markdown(summarise(ROWS, {"r": {"examples": 8}}))
    for heading in ("Accuracy by setting", "answerable", "GQA metrics", "Translation", "structural type",
                    "semantic type", "Failure attribution"):  # fmt: skip
        assert heading in text
    assert "| r | isolated | 4 | 3 | 50.0 |" in text
    assert "| r | 3 | 66.7 | 33.3 | 66.7 | 2.00 |" in text


def test_write_report_files(tmp_path):
    with (tmp_path / "results.jsonl").open("w") as handle:
        for row in ROWS + [answer_row("1", False, run="r2")]:
            handle.write(json.dumps(row) + "\n")
    runs = {"r": {"examples": 8}, "r2": {"examples": 2}}
    (tmp_path / "job.json").write_text(json.dumps({"runs": runs, "settings": ["isolated"]}))
    choices = tmp_path / "choices.json"
    choices.write_text(json.dumps({"1": {"valid": ["yes"], "plausible": ["yes"]}}))
    paths = write_report(tmp_path, choices=choices, target=tmp_path / "report")
    names = {p.name for p in paths}
    assert names == {"report.md", "report.json", "accuracy_by_structural_type.png", "accuracy_by_semantic_type.png",
                     "accuracy_by_examples.png"}  # fmt: skip
    for path in paths:
        assert path.stat().st_size > 0
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in paths if p.suffix == ".png")
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    assert table(data, "isolated")["gqa"]["validity"] == 1.0
    assert data["inputs"] == {"settings": ["isolated"], "choices": str(choices)}
    assert "## Runs" in (tmp_path / "report" / "report.md").read_text()
    (tmp_path / "job.json").write_text(json.dumps({"runs": {"r": {"examples": 8}}}))
    single_k = {p.name for p in write_report(tmp_path, target=tmp_path / "single")}
    assert "accuracy_by_examples.png" not in single_k  # one k: no comparison to plot
