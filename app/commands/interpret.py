"""`aspvqa interpret`: run GQA semantic programs on GQA scene graphs and compare with the gold answers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import typer

from app.commands.io import fail, read_input
from evaluation.interpreter import Interpreter, InterpreterFailure, Scene
from evaluation.matching import DEFAULT_HYPERNYM_LEVELS, Matcher, MatchMode
from evaluation.questions import question_items
from scene.scene_graph import SceneGraphError
from scene.taxonomy import Taxonomy, load_taxonomy
from scene.wordnet import WordNetUnavailable


def _json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        fail(f"{what} file is not JSON: {exc}")


def question_records(data: Any) -> Iterator[dict[str, Any]]:
    """Questions in GQA's formats: ``{questionId: record}`` or a list of records with an id field."""
    items = question_items(data)
    if items is None:
        fail("questions file must hold a JSON object or list of GQA questions")
    for question_id, record in items:
        if not isinstance(record, dict) or not isinstance(record.get("semantic"), list):
            fail(f"question {question_id} has no 'semantic' program")
        image = record.get("imageId", record.get("image"))
        yield {"questionId": question_id, "imageId": None if image is None else str(image), **record}


def interpret_one(interpreter: Interpreter, scene: Scene | None, record: dict[str, Any]) -> dict[str, Any]:
    """The answer (or failure class) of one question."""
    if scene is None:
        return {"error": "MissingSceneGraph", "message": f"no scene graph for image {record['imageId']}"}
    try:
        return {"answer": interpreter.run(record["semantic"], scene)}
    except InterpreterFailure as exc:
        return {"error": exc.kind, "message": str(exc)}
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        return {"error": "InvalidProgram", "message": str(exc)}


def _taxonomy(path: str | None) -> Taxonomy:
    try:
        return load_taxonomy(path)
    except (OSError, ValueError) as exc:
        fail(f"cannot read taxonomy in {path}: {exc}")


def interpret_command(
    questions: Annotated[str, typer.Option("--questions", "-q", help="GQA questions JSON file ('-' for stdin).")],
    scene_graphs: Annotated[str, typer.Option("--scene-graphs", "-g", help="GQA scene graphs JSON file.")],
    taxonomy: Annotated[
        str | None,
        typer.Option(
            "--taxonomy", "-t", help="Folder with gqa_all_class.json (and gqa_all_attribute.json); default WordNet."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON line per question.")] = False,
    mode: Annotated[
        MatchMode, typer.Option("--match", help="How an answer must match the gold one.")
    ] = MatchMode.STRICT,
    levels: Annotated[
        int, typer.Option("--levels", min=0, help="Hypernym levels allowed by generous+ matching.")
    ] = DEFAULT_HYPERNYM_LEVELS,
) -> None:
    """Run GQA semantic programs on scene graphs: answer or failure class, gold answer, match."""
    records = list(question_records(_json(read_input(questions, "questions"), "questions")))
    graphs = _json(read_input(scene_graphs, "scene graphs"), "scene graphs")
    if not isinstance(graphs, dict):
        fail("scene graphs file must map image ids to GQA scene graphs")
    if taxonomy is not None and not Path(taxonomy).is_dir():
        fail(f"taxonomy folder not found: {taxonomy}")
    try:
        interpreter = Interpreter(_taxonomy(taxonomy))
        matcher = Matcher(hypernym_levels=levels)
        scenes: dict[str, Scene | None] = {}
        answered = matched = 0
        for record in records:
            image = record["imageId"]
            if image not in scenes:
                try:
                    scenes[image] = interpreter.prepare(graphs[image]) if image in graphs else None
                except SceneGraphError as exc:
                    fail(f"scene graph of image {image}: {exc}")
            row: dict[str, Any] = {
                "questionId": record["questionId"],
                **interpret_one(interpreter, scenes[image], record),
            }
            gold = record.get("answer")
            row["gold"] = gold
            row["match"] = "answer" in row and gold is not None and matcher.matches(row["answer"], str(gold), mode)
            answered += "answer" in row
            matched += row["match"]
            if as_json:
                typer.echo(json.dumps(row))
            else:
                result = row.get("answer", f"[{row.get('error')}]")
                typer.echo(f"{row['questionId']}\t{result}\tgold={gold}\t{'match' if row['match'] else '-'}")
    except WordNetUnavailable as exc:
        fail(str(exc))
    if not as_json:
        typer.echo(f"{len(records)} questions, {answered} answered, {matched} match ({mode.value})")
