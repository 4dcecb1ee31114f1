"""`aspvqa student train`: train the long-tail writer again from the bank and GQA's programs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from app.commands.io import fail
from evaluation.splits import split_questions
from translators.model.student.writer import DEFAULT_STEPS, WEIGHTS_DIR

student_app = typer.Typer(
    help="The student: the small trained program writer (ASPVQA_LLM=student).", no_args_is_help=True
)

# GQA's val sample, whose validation part (evaluation.splits) the student never learns from: the
# translation and the abstention are measured on it.
VAL_SAMPLE = "questions/val_balanced_sample.json"


def validation_ids(gqa_dir: Path) -> frozenset[str]:
    """The ids of the val sample's validation part, where the sample is in `gqa_dir`."""
    path = gqa_dir / VAL_SAMPLE
    if not path.is_file():
        return frozenset()
    return frozenset(split_questions(json.loads(path.read_text(encoding="utf-8"))).validation)


@student_app.command("train")
def train_command(
    gqa: Annotated[
        Path | None,
        typer.Option(
            "--gqa", help="GQA folder (questions/, metadata/) whose val and train samples it also learns from."
        ),
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Folder for the weights.")] = WEIGHTS_DIR,
    steps: Annotated[int, typer.Option("--steps", min=1, help="Training steps of 64 pairs.")] = DEFAULT_STEPS,
) -> None:
    """Train the student (about 35 minutes on 2 cores; resumes from its checkpoint) and write its weights."""
    try:
        import torch  # noqa: F401 - only to say clearly what is missing
    except ImportError:
        fail("training the student needs PyTorch: pip install 'aspvqa[llm]'")
    from translators.model.student.training import train, training_pairs

    if gqa is not None and not (gqa / "metadata" / "gqa_all_attribute.json").is_file():
        fail(f"not a GQA folder (no metadata/gqa_all_attribute.json): {gqa}")
    held_out = validation_ids(gqa) if gqa is not None else frozenset()
    pairs = training_pairs(gqa, held_out)
    sources = "the bank" + (
        f" and GQA's programs in {gqa} (less the {len(held_out)} validation ids)" if gqa else " alone"
    )
    typer.echo(f"training on {len(pairs)} pairs from {sources}")
    figures = train(pairs, out, steps)
    typer.echo(json.dumps(figures | {"out": str(out)}))
