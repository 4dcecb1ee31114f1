"""The evaluation job: settings, failure attribution, resumable results."""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from evaluation.executors import LocalExecutor
from evaluation.graph_index import open_scene_graphs
from evaluation.job import (
    RESULTS_FILE,
    Evaluator,
    EvaluatorConfig,
    JobError,
    Run,
    RunParts,
    Task,
    load_questions,
    plan,
    read_results,
    result_key,
    run_job,
    run_name,
    structural_type,
    validate_settings,
)
from evaluation.submission import export_submission
from scene.scene_graph import scene_graph_facts
from scene.taxonomy import WordNetTaxonomy
from scene.wordnet import wordnet_available
from translators.examples.bank import legacy_bank as default_bank
from translators.model.backends.base import RetryableBackendError
from translators.model.backends.replay import ReplayBackend
from translators.translate import TranslationSettings, Translator

DATA = Path(__file__).parents[1] / "data"
QUESTIONS_FILE = DATA / "gqa_questions.json"
REPLAY = DATA / "replay_evaluation.jsonl"
GQA_DIR = Path(os.environ.get("ASPVQA_GQA_DIR") or Path(__file__).parents[2] / "../shared/data/gqa")
GRAPHS = GQA_DIR / "scene_graphs" / "val_sceneGraphs_sample.json"
needs_real_data = [
    pytest.mark.skipif(not GRAPHS.is_file(), reason=f"GQA scene graphs not in {GRAPHS.parent}"),
    pytest.mark.skipif(not wordnet_available(), reason="WordNet not installed: run `make wordnet`"),
]
pytestmark = needs_real_data

QUESTIONS = load_questions(json.loads(QUESTIONS_FILE.read_text()))
BY_ID = {q.id: q for q in QUESTIONS}
REPLAYED = [q for q in QUESTIONS if q.id in {f"aspvqa00{i}" for i in range(8)}]
# The model's path: template fill would answer some of these questions without the recorded outputs.
RUN = Run("replay", {"representation": "nested", "examples": 2, "sampling": "jaccard", "template_fill": False})


@dataclass(frozen=True)
class ReplayComponents:
    """Recorded translations and, for the pipeline settings, a scene read from an altered scene
    graph instead of an image (the horse becomes brown: a perception mistake)."""

    replay: str
    graphs: str | None = None

    def __call__(self, run: Run, settings) -> RunParts:
        backend = ReplayBackend.from_file(self.replay)
        translator = Translator(TranslationSettings(llm="replay", **run.translation), default_bank(), backend)
        components = RunParts(translate=translator.translate)
        if self.graphs:
            graphs = json.loads(Path(self.graphs).read_text())
            seen = copy.deepcopy(graphs)
            for obj in seen["2375429"]["objects"].values():
                if obj["name"] == "horse":
                    obj["attributes"] = ["brown"]
            taxonomy = WordNetTaxonomy()

            def image_scene(path, concepts, image_id):
                assert Path(path).name.startswith(image_id) and concepts.classes
                return scene_graph_facts(seen[image_id], taxonomy=taxonomy)

            components.image_scene = image_scene
        return components


def evaluator(
    tmp_path: Path | None = None, graphs: bool = True, images: str | None = None, pipeline: bool = False
) -> Evaluator:
    replay = REPLAY
    if tmp_path is not None:  # a private copy: replay backends count calls per file
        replay = tmp_path / "replay.jsonl"
        replay.write_text(REPLAY.read_text())
    return Evaluator(
        EvaluatorConfig(scene_graphs=str(GRAPHS) if graphs else None, images=images),
        ReplayComponents(str(replay), str(GRAPHS) if pipeline else None),
    )


def fresh(tmp_path: Path, name: str) -> Evaluator:
    """An evaluator with its own replay recording (a new process would start counting afresh)."""
    folder = tmp_path / name
    folder.mkdir()
    return evaluator(folder)


def by_setting(records):
    return {r["setting"]: r for r in records}


# -- inputs ------------------------------------------------------------------------------------


def test_questions_in_both_gqa_formats():
    record = {"question": "Is there a dog?", "imageId": "1", "answer": "yes",
              "semantic": [{"operation": "select", "argument": "dog", "dependencies": []},
                           {"operation": "exist", "argument": "?", "dependencies": [0]}]}  # fmt: skip
    as_dict = load_questions({"q1": record})
    as_list = load_questions([dict(record, questionId="q1")])
    assert as_dict == as_list
    assert as_dict[0].types == {"structural": "verify"}
    # GQA's test and challenge questions carry no program: read, marked as such
    test_question = load_questions({"q1": {"question": "Is there a dog?", "imageId": "n1"}})[0]
    assert not test_question.has_program and test_question.answer is None and as_dict[0].has_program
    with pytest.raises(JobError, match="semantic"):
        load_questions({"q1": {"question": "Is there a dog?", "semantic": "select dog"}})
    with pytest.raises(JobError, match="question"):
        load_questions({"q1": {"semantic": []}})
    with pytest.raises(JobError):
        load_questions("not questions")


@pytest.mark.parametrize(
    ("operation", "deps", "expected"),
    [("query", [0], "query"), ("verify color", [0], "verify"), ("exist", [0], "verify"), ("and", [0, 1], "logical"),
     ("choose color", [0], "choose"), ("choose older", [0, 1], "compare"), ("same color", [0], "compare"),
     ("common", [0, 1], "compare")],
)  # fmt: skip
def test_structural_type_from_the_last_operation(operation, deps, expected):
    assert structural_type([{"operation": operation, "argument": "", "dependencies": deps}]) == expected


def test_given_types_win_over_derived_ones():
    record = {"question": "q?", "semantic": [{"operation": "query", "argument": "name", "dependencies": []}],
              "types": {"structural": "choose", "semantic": "attr"}}  # fmt: skip
    assert load_questions({"1": record})[0].types == {"structural": "choose", "semantic": "attr"}


def test_settings_are_checked():
    assert validate_settings(["oracle", " isolated", "oracle"]) == ("oracle", "isolated")
    with pytest.raises(JobError, match="unknown setting"):
        validate_settings(["oracle", "magic"])
    with pytest.raises(JobError, match="no settings"):
        validate_settings([])


def test_run_names_are_stable_and_distinct():
    a = run_name({"representation": "nested", "examples": 8, "sampling": "bert", "cover_operators": True, "llm": "m"})
    assert a == "nested-k8-bert-cover-m"
    assert (
        run_name({"examples": 8, "llm": "m", "sampling": "bert", "cover_operators": True, "representation": "nested"})
        == a
    )
    assert run_name({"examples": 4}) != run_name({"examples": 8})
    assert run_name({}) == "default"


# -- settings and attribution --------------------------------------------------------------------


def test_oracle_and_asp_oracle_answer_every_team_question():
    ev = evaluator()
    for question in QUESTIONS:
        records = by_setting(ev.evaluate(Task(RUN, question, ("oracle", "asp-oracle"))))
        for record in records.values():
            assert record["correct"], (question.id, record)
            assert record["answerable"] is True and record["failure"] is None
            assert record["run"] == "reference"
        assert records["asp-oracle"]["program"].startswith("scene(0).")
        assert set(records["oracle"]["scores"]) == {
            f"{m}@{k}" for m in ("strict", "generous", "generous+") for k in (1, 3, 5)
        }


def test_isolated_and_translation_attribute_failures(tmp_path):
    ev = evaluator(tmp_path)
    results = {q.id: by_setting(ev.evaluate(Task(RUN, q, ("isolated", "translation")))) for q in REPLAYED}
    # right program
    assert results["aspvqa000"]["isolated"]["correct"] and results["aspvqa000"]["translation"]["scores"] == {
        "canonical": True, "semantic": True}  # fmt: skip
    assert results["aspvqa000"]["isolated"]["run"] == "replay"
    # valid program, wrong answer on the true scene
    wrong = results["aspvqa002"]
    assert not wrong["isolated"]["correct"] and wrong["isolated"]["answers"] == ["no"]
    assert wrong["isolated"]["failure"]["category"] == "translation"
    assert wrong["translation"]["failure"]["kind"] == "NotEquivalent"
    # repaired after one invalid output
    assert results["aspvqa003"]["isolated"]["correct"] and results["aspvqa003"]["translation"]["correct"]
    # right answer from a different program: accuracy counts it, equivalence does not
    lucky = results["aspvqa005"]
    assert lucky["isolated"]["correct"] and lucky["isolated"]["failure"] is None
    assert lucky["translation"]["scores"] == {"canonical": False, "semantic": False}
    # no valid program at all
    for setting in ("isolated", "translation"):
        failed = results["aspvqa006"][setting]
        assert failed["status"] == "failed" and failed["program"] is None
        assert failed["failure"]["category"] == "formulation" and "4 attempt" in failed["failure"]["message"]


def test_dataset_errors_come_from_the_interpreter(tmp_path):
    ev = evaluator(tmp_path)
    wrong_gold = replace(BY_ID["aspvqa001"], answer="purple")
    records = by_setting(ev.evaluate(Task(RUN, wrong_gold, ("oracle", "isolated"))))
    for record in records.values():
        assert record["answerable"] is False and not record["correct"]
        assert record["failure"] == {
            "category": "dataset",
            "kind": "GoldMismatch",
            "message": "interpreter says 'white'",
        }
    unanswerable = replace(
        BY_ID["aspvqa001"],
        id="x1",
        semantic=[{"operation": "select", "argument": "giraffe", "dependencies": []},
                  {"operation": "query", "argument": "color", "dependencies": [0]}],
    )  # fmt: skip
    record = by_setting(ev.evaluate(Task(RUN, unanswerable, ("oracle",))))["oracle"]
    assert record["failure"]["category"] == "dataset" and record["failure"]["kind"] == "EmptyQuery"


def test_pipeline_separates_perception_from_translation(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    (images / "2375429.jpg").write_bytes(b"not read by the stand-in scene builder")
    ev = evaluator(tmp_path, images=str(images), pipeline=True)
    color = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa001"], ("pipeline", "pipeline-blind"))))
    for setting in ("pipeline", "pipeline-blind"):
        assert color[setting]["answers"] == ["brown"]
        assert color[setting]["failure"]["category"] == "perception"
    walking = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa002"], ("pipeline",))))["pipeline"]
    assert walking["failure"]["category"] == "translation"
    fence = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa004"], ("pipeline",))))["pipeline"]
    assert fence["correct"] and fence["failure"] is None
    other_image = replace(BY_ID["aspvqa004"], id="x2", image_id="2354786")
    skipped = by_setting(ev.evaluate(Task(RUN, other_image, ("pipeline",))))["pipeline"]
    assert skipped["status"] == "skipped" and skipped["failure"]["kind"] == "MissingImage"


def test_translation_needs_no_scene_graph(tmp_path):
    ev = evaluator(tmp_path, graphs=False)
    records = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa000"], ("translation", "isolated", "oracle"))))
    assert records["translation"]["correct"]
    assert records["isolated"]["status"] == "skipped" and records["oracle"]["status"] == "skipped"
    assert records["translation"]["answerable"] is None


# -- the job and resuming ------------------------------------------------------------------------


def _content(records):
    return sorted(
        (result_key(r), json.dumps({k: v for k, v in r.items() if k != "seconds"}, sort_keys=True)) for r in records
    )


def test_settings_independent_of_the_run_are_planned_once():
    runs = [Run("a", {"examples": 1}), Run("b", {"examples": 2})]
    tasks = plan(REPLAYED[:2], runs, ("oracle", "isolated"), set())
    assert [(t.run.name, t.settings) for t in tasks] == [
        ("a", ("oracle", "isolated")), ("a", ("oracle", "isolated")),
        ("b", ("isolated",)), ("b", ("isolated",))]  # fmt: skip
    done = {("reference", "oracle", REPLAYED[0].id), ("a", "isolated", REPLAYED[0].id)}
    assert plan(REPLAYED[:1], runs[:1], ("oracle", "isolated"), done) == []


def test_resume_after_interruption_gives_the_same_results_without_duplicates(tmp_path):
    settings = ("oracle", "asp-oracle", "isolated", "translation")
    full = tmp_path / "full"
    summary = run_job(REPLAYED, [RUN], settings, fresh(tmp_path, "a"), LocalExecutor(1, False), full)
    assert summary.written == len(REPLAYED) * len(settings)
    reference = read_results(full / RESULTS_FILE)

    part = tmp_path / "part"
    run_job(REPLAYED[:3], [RUN], settings, fresh(tmp_path, "b"), LocalExecutor(1, False), part)
    # a kill in the middle of a write leaves a torn last line
    with (part / RESULTS_FILE).open("a") as handle:
        handle.write('{"run": "replay", "setting": "isolated", "questionId": "aspvq')
    again = run_job(REPLAYED, [RUN], settings, fresh(tmp_path, "c"), LocalExecutor(1, False), part)
    assert again.skipped_done == 3 * len(settings)
    assert again.written == (len(REPLAYED) - 3) * len(settings)
    resumed = read_results(part / RESULTS_FILE)
    keys = [result_key(r) for r in resumed]
    assert len(keys) == len(set(keys))
    assert _content(resumed) == _content(reference)
    # a finished job run again writes nothing
    assert run_job(REPLAYED, [RUN], settings, fresh(tmp_path, "d"), LocalExecutor(1, False), part).written == 0
    manifest = json.loads((part / "job.json").read_text())
    assert manifest["runs"] == {"replay": RUN.translation} and manifest["settings"] == list(settings)


def test_torn_last_line_is_cut_off(tmp_path):
    path = tmp_path / RESULTS_FILE
    good = json.dumps({"run": "r", "setting": "oracle", "questionId": "1"}) + "\n"
    path.write_text(good + '{"run": "r", "sett')
    assert [result_key(r) for r in read_results(path)] == [("r", "oracle", "1")]
    assert path.read_text() == good


@dataclass(frozen=True)
class BrokenImages:
    """Translations replayed; every image fails to load."""

    replay: str

    def __call__(self, run: Run, settings) -> RunParts:
        components = ReplayComponents(self.replay)(run, settings)

        def image_scene(path, concepts, image_id):
            raise OSError(f"cannot identify image file {path}")

        components.image_scene = image_scene
        return components


def test_an_unreadable_image_fails_its_question_only(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    (images / "2375429.png").write_bytes(b"")
    replay = tmp_path / "replay.jsonl"
    replay.write_text(REPLAY.read_text())
    ev = Evaluator(EvaluatorConfig(scene_graphs=str(GRAPHS), images=str(images)), BrokenImages(str(replay)))
    records = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa000"], ("pipeline-blind", "isolated"))))
    assert records["pipeline-blind"]["status"] == "failed"
    assert records["pipeline-blind"]["failure"]["category"] == "perception"
    assert records["pipeline-blind"]["failure"]["kind"] == "OSError"
    assert records["isolated"]["correct"]


def test_the_always_yes_floor_answers_only_yes_no_questions():
    ev = Evaluator(EvaluatorConfig())
    verify = next(q for q in QUESTIONS if q.types.get("structural") == "verify")
    query = next(q for q in QUESTIONS if q.types.get("structural") == "query")
    yes, none = (by_setting(ev.evaluate(Task(RUN, q, ("always-yes",))))["always-yes"] for q in (verify, query))
    assert yes["answers"] == ["yes"] and yes["run"] == "reference" and yes["correct"] == (verify.answer == "yes")
    assert none["answers"] == [] and none["status"] == "no_answer" and not none["correct"]


# -- retryable results, questions without programs, the base pipeline ---------------------------


@dataclass(frozen=True)
class FlakyThenReplay:
    """Translations whose model server fails past its retries while `flag` exists, then recorded ones."""

    replay: str
    flag: str

    def __call__(self, run: Run, settings) -> RunParts:
        parts = ReplayComponents(self.replay)(run, settings)
        translate = parts.translate

        def flaky(question, question_id):
            if Path(self.flag).exists():
                raise RetryableBackendError("stand-in: HTTP 429 after 6 attempts")
            return translate(question, question_id)

        parts.translate = flaky
        return parts


def test_retryable_results_are_not_final_and_a_resumed_job_computes_them(tmp_path):
    replay = tmp_path / "replay.jsonl"
    replay.write_text(REPLAY.read_text())
    flag = tmp_path / "server-down"
    flag.write_text("")
    ev = Evaluator(EvaluatorConfig(scene_graphs=str(GRAPHS)), FlakyThenReplay(str(replay), str(flag)))
    out = tmp_path / "out"
    settings = ("oracle", "isolated")
    first = run_job(REPLAYED[:3], [RUN], settings, ev, LocalExecutor(1, False), out)
    assert first.retryable == 3
    records = read_results(out / RESULTS_FILE)
    isolated = [r for r in records if r["setting"] == "isolated"]
    assert {r["status"] for r in isolated} == {"retryable"} and not any(r["correct"] for r in isolated)
    assert all(r["failure"]["category"] == "transient" for r in isolated)
    assert all(r["status"] == "answered" for r in records if r["setting"] == "oracle")
    flag.unlink()
    second = run_job(REPLAYED[:3], [RUN], settings, ev, LocalExecutor(1, False), out)
    assert second.written == 3 and second.retryable == 0 and second.skipped_done == 3
    latest = read_results(out / RESULTS_FILE)
    assert len(latest) == 6 and {r["status"] for r in latest if r["setting"] == "isolated"} == {"answered"}


def test_questions_without_a_program_run_the_settings_that_need_none(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    (images / "2375429.jpg").write_bytes(b"not read by the stand-in scene builder")
    ev = evaluator(tmp_path, images=str(images), pipeline=True)
    test_question = replace(BY_ID["aspvqa001"], semantic=[], answer=None)
    settings = ("oracle", "asp-oracle", "base-pipeline", "pipeline", "pipeline-blind", "translation", "isolated")
    records = by_setting(ev.evaluate(Task(RUN, test_question, settings)))
    for name in ("oracle", "asp-oracle", "base-pipeline", "pipeline"):
        assert records[name]["status"] == "skipped" and records[name]["failure"]["kind"] == "NoProgram", name
    assert records["translation"]["status"] == "translated" and records["translation"]["scores"] is None
    assert records["translation"]["program"].startswith("scene(0).")
    assert records["pipeline-blind"]["answers"] == ["brown"] and records["isolated"]["answers"] == ["white"]


def test_the_base_pipeline_answers_the_gqa_program_on_the_image(tmp_path):
    images = tmp_path / "images"
    images.mkdir()
    (images / "2375429.jpg").write_bytes(b"not read by the stand-in scene builder")
    ev = evaluator(tmp_path, images=str(images), pipeline=True)
    color = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa001"], ("base-pipeline",))))["base-pipeline"]
    assert color["run"] == "reference" and color["answers"][0] == "brown"
    assert color["failure"]["category"] == "perception" and color["program"].startswith("scene(0).")
    fence = by_setting(ev.evaluate(Task(RUN, BY_ID["aspvqa004"], ("base-pipeline",))))["base-pipeline"]
    assert fence["correct"] and fence["failure"] is None


def test_a_submission_holds_every_question_of_one_setting(tmp_path):
    out = tmp_path / "out"
    run_job(REPLAYED[:4], [RUN], ("oracle",), evaluator(), LocalExecutor(1, False), out)
    summary = export_submission(out / RESULTS_FILE, tmp_path / "submission.json", "oracle", "reference")
    rows = json.loads((tmp_path / "submission.json").read_text())
    assert summary.questions == 4 and [r["questionId"] for r in rows] == [q.id for q in REPLAYED[:4]]
    assert all(set(r) == {"questionId", "prediction"} and r["prediction"] for r in rows)


def test_scene_graphs_are_read_from_an_index_built_once(tmp_path, monkeypatch):
    monkeypatch.setenv("ASPVQA_CACHE_DIR", str(tmp_path / "cache"))
    graphs = open_scene_graphs(GRAPHS)
    assert len(graphs) == 4 and graphs.get("2375429")["width"] == 500 and graphs.get("nope") is None
    assert open_scene_graphs(GRAPHS).path == graphs.path
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]")
    with pytest.raises(JobError, match="map image ids"):
        open_scene_graphs(listed)
