"""`aspvqa bank build`: an example bank from a user's GQA questions, with its embedding index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from tqdm import tqdm

from app.commands.io import fail
from app.config import ConfigError, load_settings
from theory.program import ProgramError
from translators.examples.bank import DEFAULT_BANK_NAME, Example, ExampleBank, iter_question_records, save_bank
from translators.gqa.gqa_program import gqa_to_program, load_attribute_categories

bank_app = typer.Typer(help="Example banks for question translation.", no_args_is_help=True)


@bank_app.callback()
def read_settings() -> None:
    """Example banks for question translation (kept in the cache folder the settings name)."""
    try:
        load_settings()  # hands the cache folder to the layers that build and index banks
    except ConfigError as exc:
        fail(str(exc))


@bank_app.command("build")
def build_command(
    questions: Annotated[Path, typer.Option("--questions", help="GQA questions JSON (dict id -> record, or a list).")],
    out: Annotated[Path, typer.Option("--out", help="Output folder (bank.jsonl and its embedding index).")],
    attributes: Annotated[
        Path | None,
        typer.Option("--attributes", help="GQA attribute taxonomy (gqa_all_attribute.json) for bare verify/choose."),
    ] = None,
    index: Annotated[bool, typer.Option("--index/--no-index", help="Compute the sentence-embedding index.")] = True,
    limit: Annotated[int, typer.Option("--limit", min=0, help="Use at most this many questions (0: all).")] = 0,
) -> None:
    """Convert GQA questions to (question, program) examples; unconvertible programs are counted and skipped."""
    if not questions.is_file():
        fail(f"questions file not found: {questions}")
    try:
        categories = load_attribute_categories(attributes) if attributes else None
    except (OSError, ValueError) as exc:
        fail(f"cannot read input: {exc}")
    examples: list[Example] = []
    skipped = 0
    # Read incrementally (GQA's train file is over a gigabyte) and stop after `limit` questions.
    records = iter_question_records(questions, limit or None, description="reading questions")
    try:
        for record in records:
            qid = str(record["questionId"])
            semantic = record.get("semantic")
            if not isinstance(semantic, list) or not isinstance(record.get("question"), str):
                skipped += 1
                continue
            try:
                program = gqa_to_program(semantic, categories)
            except ProgramError:
                skipped += 1
                continue
            examples.append(
                Example(
                    qid,
                    record["question"],
                    program,
                    tuple(semantic),
                    "gqa",
                    frozenset(map(str, record.get("equivalent", []))),
                )
            )
    except (OSError, ValueError) as exc:  # RecordsError is a ValueError
        fail(f"cannot read input: {exc}")
    if not examples:
        fail("no question could be converted")
    path = save_bank(ExampleBank(examples), out / DEFAULT_BANK_NAME)
    typer.echo(f"wrote {len(examples)} examples to {path} ({skipped} skipped)")
    if index:
        from translators.model.embeddings import load_embedder, save_index

        embedder = load_embedder(runtime=load_settings().embedder)
        bank = ExampleBank(examples, path=path)
        chunks = []
        questions_list = bank.questions
        step = 2048
        for start in tqdm(range(0, len(questions_list), step), desc="embedding", unit="batch"):
            chunks.append(embedder.encode(questions_list[start : start + step]))
        import numpy as np

        if not save_index(path, embedder.name, bank.fingerprint(), np.concatenate(chunks)):
            fail(f"cannot write the embedding index next to {path}")
        typer.echo(f"embedding index ({embedder.name}) written next to {path}")


@bank_app.command("generate")
def generate_command(
    ontology: Annotated[
        Path | None,
        typer.Option("--ontology", help="Folder with GQA's taxonomy files; default: the bundled ontology."),
    ] = None,
    per_template: Annotated[
        int, typer.Option("--per-template", min=0, max=100_000, help="Examples drawn per template (0: the default).")
    ] = 0,
    index: Annotated[bool, typer.Option("--index/--no-index", help="Compute the sentence-embedding index.")] = True,
) -> None:
    """Build the default bank (hand-written plus generated examples) and its index in the user cache."""
    from translators.examples.bundled import PER_TEMPLATE, build_default_bank
    from translators.wording.ontology import load_ontology

    try:
        chosen = load_ontology(ontology)
    except (OSError, ValueError) as exc:
        fail(f"cannot read ontology: {exc}")
    with tqdm(desc="generating", unit="ex") as bar:
        bank = build_default_bank(chosen, per_template or PER_TEMPLATE, progress=lambda n: bar.update(n - bar.n))
    typer.echo(f"{len(bank)} examples in {bank.path}")
    if index:
        from translators.model.embeddings import load_embedder
        from translators.model.retrieval import Retriever
        from translators.wording.templating import Templater

        retriever = Retriever(bank, load_embedder(runtime=load_settings().embedder), templater=Templater(chosen))
        typer.echo(
            f"embedding index ready ({retriever.matrix.shape[0]} x {retriever.matrix.shape[1]}, "
            f"and the templates' {retriever.template_matrix.shape[0]} x {retriever.template_matrix.shape[1]})"
        )
