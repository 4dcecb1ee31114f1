"""`aspvqa translate`: English question(s) -> question program(s) with a language model."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError

from app.commands.io import fail
from app.components import Components
from app.config import ConfigError, first_error, load_settings
from app.errors import PipelineError
from translators.cache import TranslationCache
from translators.checks.read_back import reading
from translators.examples.bank import read_json_records
from translators.model.backends.base import BackendError
from translators.model.embeddings import Embedder
from translators.model.prompts import DEFAULT_PROMPT
from translators.model.retrieval import Sampling
from translators.options import REPRESENTATIONS
from translators.translate import Translation, TranslationSettings, Translator
from trust.abstention import program_decision


def wordnet_related_terms(word: str) -> list[str]:
    """Synonyms, then hypernyms up to two levels up, of a word's noun, adjective and verb senses."""
    from scene.wordnet import lemma_key, load_wordnet

    wn = load_wordnet()
    synsets = wn.synsets(lemma_key(word))
    found: list[str] = []
    levels = [synsets]
    for _ in range(2):
        levels.append([h for s in levels[-1] for h in s.hypernyms()])
    for level in levels:
        for synset in level:
            for lemma in synset.lemma_names():
                if lemma.lower() not in found:
                    found.append(lemma.lower())
    return found


def _grounder(folder: Path, embedder: Embedder):  # noqa: ANN202 - translators.wording.vocabulary.Grounder
    from scene.wordnet import wordnet_available
    from translators.wording.vocabulary import Grounder, Vocabulary

    try:
        vocabulary = Vocabulary.from_gqa_metadata(folder)
    except (OSError, ValueError) as exc:
        fail(f"cannot read vocabulary from {folder}: {exc}")
    related = wordnet_related_terms if wordnet_available() else None
    return Grounder(vocabulary, embedder=embedder, related_terms=related)


def _judge(components: Components, settings: TranslationSettings) -> Callable[[Translation], dict[str, Any]]:
    """A translation's JSON record with its status (ok, unsupported, abstained, or error: no valid
    program), its confidence and the reason of a decline, decided as `POST /translate` decides."""
    try:
        calibration = components.calibration
    except PipelineError as exc:
        fail(exc.message)
    calibrated_for = components.confidence_settings(settings)

    def judged(result: Translation) -> dict[str, Any]:
        record: dict[str, Any] = {**result.to_json()}
        score, abstention = program_decision(result.evidence, calibration, calibrated_for)
        if result.unsupported is not None:
            status, reason = "unsupported", result.error
        elif result.program is None:
            status, reason = "error", result.error
        elif abstention is not None and abstention.abstained:
            status, reason = "abstained", abstention.reason
        else:
            status, reason = "ok", None
        record |= {"status": status, "confidence": score, "reason": reason}
        if result.program is not None:
            record["reads_as"] = reading(result.program)
        return record

    return judged


# The command's options, one type each, so that its signature reads as a list of names.
QuestionOption = Annotated[str | None, typer.Option("--question", "-q", help="One question.")]
QuestionsOption = Annotated[
    Path | None,
    typer.Option("--questions", help="A GQA questions JSON, or JSON Lines of {questionId, question}; JSON Lines out."),
]
RepresentationOption = Annotated[
    str | None,
    typer.Option(
        "--repr",
        help=f"Program syntax the model writes: {', '.join(REPRESENTATIONS)} (default: ASPVQA_REPRESENTATION).",
    ),
]
ExamplesOption = Annotated[
    int | None,
    typer.Option("--examples", "-k", min=0, max=64, help="Retrieved examples (default: ASPVQA_EXAMPLES)."),
]
SamplingOption = Annotated[
    Sampling | None, typer.Option("--sampling", help="How examples are chosen (default: ASPVQA_SAMPLING).")
]
CoverOperatorsOption = Annotated[
    bool | None,
    typer.Option(
        "--cover-operators/--no-cover-operators",
        help="Add examples until every operation appears (default: ASPVQA_COVER_OPERATORS).",
    ),
]
LlmOption = Annotated[
    str | None,
    typer.Option(
        "--llm",
        help="student, qwen2.5-coder-1.5b, smollm2-135m, local:FILE.gguf, openai:MODEL@URL[#grammar=KIND], "
        "replay:FILE or none (default: ASPVQA_LLM, else student).",
    ),
]
BankOption = Annotated[
    Path | None, typer.Option("--bank", help="Example bank (JSON Lines); default: the bundled bank.")
]
PromptOption = Annotated[str | None, typer.Option("--prompt", help=f"Prompt version (default: {DEFAULT_PROMPT}).")]
ConstrainedOption = Annotated[
    bool | None,
    typer.Option(
        "--constrained/--unconstrained",
        help="Grammar-constrained decoding (local models; openai: with a grammar kind). Default: constrained.",
    ),
]
SamplesOption = Annotated[
    int | None,
    typer.Option(
        "--samples",
        min=1,
        max=16,
        help="Self-consistency samples, use with --temperature (default: ASPVQA_CONFIDENCE_SAMPLES).",
    ),
]
TemperatureOption = Annotated[float | None, typer.Option("--temperature", min=0.0, max=2.0)]
CacheOption = Annotated[Path | None, typer.Option("--cache", help="SQLite translation cache file.")]
VocabularyOption = Annotated[
    Path | None,
    typer.Option(
        "--vocabulary",
        help="Folder with gqa_all_class.json, gqa_all_attribute.json, gqa_relation.json: "
        "unknown words are mapped to its terms (WordNet, then embeddings) and reported.",
    ),
]
SchemaOption = Annotated[
    bool | None,
    typer.Option(
        "--schema/--no-schema",
        help="Schema-aware decoding: categories, values and relations from the ontology "
        "(default: ASPVQA_SCHEMA_DECODING).",
    ),
]
FillOption = Annotated[
    bool | None,
    typer.Option(
        "--fill/--no-fill",
        help="Fill the program of the bank's examples of the question's very form with its words, without the "
        "model; other questions go to the model (default: ASPVQA_TEMPLATE_FILL).",
    ),
]
OntologyOption = Annotated[
    Path | None,
    typer.Option("--ontology", help="Folder with GQA's taxonomy files for --schema; default: the bundled ontology."),
]
AsJsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (always JSON Lines with --questions).")]


def translate_command(
    question: QuestionOption = None,
    questions: QuestionsOption = None,
    representation: RepresentationOption = None,
    examples: ExamplesOption = None,
    sampling: SamplingOption = None,
    cover_operators: CoverOperatorsOption = None,
    llm: LlmOption = None,
    bank: BankOption = None,
    prompt: PromptOption = None,
    constrained: ConstrainedOption = None,
    samples: SamplesOption = None,
    temperature: TemperatureOption = None,
    cache: CacheOption = None,
    vocabulary: VocabularyOption = None,
    schema: SchemaOption = None,
    fill: FillOption = None,
    ontology: OntologyOption = None,
    as_json: AsJsonOption = False,
) -> None:
    """Translate a question into a program, guided by the most similar worked examples."""
    if (question is None) == (questions is None):
        fail("give exactly one of --question and --questions")
    if questions is not None and not questions.is_file():
        fail(f"questions file not found: {questions}")
    given = {
        "representation": representation,
        "examples": examples,
        "sampling": sampling,
        "cover_operators": cover_operators,
        "llm": llm,
        "prompt_version": prompt,
        "constrained": constrained,
        "samples": samples,
        "temperature": temperature,
        "schema_decoding": schema,
        "template_fill": fill,
    }
    paths = {"bank_dir": str(bank) if bank else None, "ontology_dir": str(ontology) if ontology else None}
    components, settings, translator = _translator(given, paths, cache, vocabulary)
    judge = _judge(components, settings)
    if question is not None:
        result = translator.translate(question)
        if as_json:
            typer.echo(json.dumps(judge(result)))
        elif result.program is not None:
            typer.echo(result.flat)
        if result.program is None:
            fail(result.error or "no program", code=1)
        return
    assert questions is not None  # exactly one of --question and --questions was given
    _translate_file(questions, translator, judge)


def _translator(
    given: Mapping[str, object], paths: dict[str, str | None], cache: Path | None, vocabulary: Path | None
) -> tuple[Components, TranslationSettings, Translator]:
    """The service's translator with the options this command was given on top (a one-line error otherwise)."""
    try:
        llm = given.get("llm")
        components = Components(load_settings(llm=llm if isinstance(llm, str) else None, **paths))
        settings = components.translation_settings({k: v for k, v in given.items() if v is not None})
        grounder = _grounder(vocabulary, components.translators.embedder()) if vocabulary is not None else None
        translator = components.translator(
            settings, cache=TranslationCache(cache) if cache else None, grounder=grounder
        )
    except ValidationError as exc:
        fail(first_error(exc.errors()))
    except ConfigError as exc:
        fail(str(exc))
    except PipelineError as exc:
        fail(exc.message)
    except (BackendError, RuntimeError, OSError) as exc:
        fail(str(exc))
    return components, settings, translator


def _translate_file(questions: Path, translator: Translator, judge: Callable[[Translation], dict[str, Any]]) -> None:
    """Each question of a GQA questions JSON or JSON Lines file, one JSON line each; exit 1 if any got no program."""
    try:
        records = read_json_records(questions)
    except (OSError, ValueError) as exc:
        fail(f"cannot read questions: {exc}")
    failures = 0
    for record in records:
        text = record.get("question")
        if not isinstance(text, str):
            fail(f"a record has no question: {str(record)[:80]}")
        qid = record.get("questionId", record.get("question_id"))
        result = translator.translate(text, str(qid) if qid is not None else None)
        failures += result.program is None
        typer.echo(json.dumps(judge(result)))
    if failures:
        typer.echo(f"{failures} of {len(records)} question(s) got no valid program", err=True)
        raise typer.Exit(1)
