"""The Translator: question -> program.

read the image phrases as the scene (`question_text`) -> fill from the bank's examples of the
question's form -> else retrieve examples -> build the prompt -> generate (constrained by a grammar
of the question's own words and frame where the backend can) -> clean -> parse -> validate ->
check that every class, value and relation is the question's (`grounded_words`) and that the
program answers as the question asks (`question_frame`) -> on failure feed the error back, up to
`max_repairs` times -> a clear failure that names the invented word. Optionally several samples
with a majority vote, vocabulary grounding, and a cache.

Example (with recorded output):
    >>> from translators.backends.replay import ReplayBackend
    >>> from translators.bank import legacy_bank
    >>> backend = ReplayBackend({("Is there a cat?", None): ["exist(select(scene(), cat))"]})
    >>> t = Translator(TranslationSettings(sampling="jaccard", llm="replay"), legacy_bank(), backend)
    >>> t.translate("Is there a cat?").flat
    'scene(0). select(1, 0, cat). exist(2, 1). end(2).'
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from pydantic import ConfigDict, Field, field_validator

from theory.canonical import canonical
from theory.flat import format_flat
from theory.program import Program
from translators.asked_class import with_asked_class, with_asked_kind
from translators.backends.base import Backend, BackendError, GenerationRequest, RetryableBackendError
from translators.backends.models import DEFAULT_LOCAL_MODEL, ModelFileError
from translators.bank import Example, ExampleBank
from translators.cache import TranslationCache, cache_key
from translators.compositional_fill import COMPOSITION_VERSION, CompositionalFiller, compose
from translators.consistency import majority_vote
from translators.embeddings import Embedder
from translators.evidence import TranslationEvidence
from translators.grammar import offered_either_side, program_grammar
from translators.grounded_words import QuestionWords, invented, question_words, stem, with_usual_names
from translators.indirect_wording import direct_question
from translators.meaning import WordKinship, inexpressible, uncovered
from translators.named_objects import named_objects, said_groups, said_values, unnamed, unsaid
from translators.ontology import Ontology, bundled_ontology
from translators.options import TranslationOptions
from translators.prompts import DEFAULT_PROMPT, PROMPTS, build_prompt, covering_examples
from translators.question_frame import Frame, frame_of, misfit
from translators.question_scope import Unsupported, beyond_the_scene, out_of_scope
from translators.question_text import read_as_scene
from translators.read_back import mismatch
from translators.relation_check import as_relation_check
from translators.relation_direction import direct_relations
from translators.repair import MAX_REPAIRS, interpret_output
from translators.retrieval import Retriever, Sampling
from translators.schema import SchemaFix, repair_program
from translators.template_fill import FILL_RULES_VERSION, FilledProgram, TemplateFiller, filler_for
from translators.templating import Templater
from translators.vocabulary import Grounder

# Changes whenever what a question's words or frame allow changes, so stored translations are not reused.
GROUNDING_VERSION = 32


class TranslationSettings(TranslationOptions):
    """Everything that changes a translation (and so is part of the cache key): the options plus the model's."""

    model_config = ConfigDict(frozen=True)

    llm: str = DEFAULT_LOCAL_MODEL
    prompt_version: str = DEFAULT_PROMPT
    constrained: bool = True
    template_retrieval: bool = True  # rank examples by the similarity of question templates (translators.templating)
    schema_decoding: bool = True  # constrain and repair categories, values and relations with the ontology
    # A question of a form the bank has examples of gets their program with its words, without the model.
    template_fill: bool = True
    max_repairs: int = Field(MAX_REPAIRS, ge=0, le=MAX_REPAIRS)
    max_tokens: int = Field(160, ge=16, le=2048)
    temperature: float = Field(0.0, ge=0.0, le=2.0)
    samples: int = Field(1, ge=1, le=16)
    seed: int = 0
    # Every content word of a question must be accounted for by its program, which must read back
    # as the question (translators.meaning, translators.read_back); else the next candidate, or a decline.
    meaning_check: bool = True

    @field_validator("prompt_version")
    @classmethod
    def _known_prompt(cls, value: str) -> str:
        if value not in PROMPTS:
            raise ValueError(f"prompt version must be one of {', '.join(PROMPTS)}")
        return value


@dataclass
class Attempt:
    """One model call: raw output, and the error when it was not a valid program."""

    raw: str
    error: str | None
    seconds: float
    # What the call cost, where the backend reports it (see `Generation`).
    prompt_tokens: int | None = None
    evaluated_tokens: int | None = None
    output_tokens: int | None = None
    prompt_s: float | None = None
    output_s: float | None = None
    # The lowest log-probability the model gave a token it wrote (None: not reported): how unsure
    # it was at its least sure step.
    min_logprob: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The attempt as the command line prints it (costs the backend did not report are left out)."""
        record: dict[str, Any] = {"raw": self.raw, "error": self.error, "seconds": round(self.seconds, 4)}
        for name in ATTEMPT_COST_FIELDS:
            value = getattr(self, name)
            if value is not None:
                record[name] = round(value, 4) if isinstance(value, float) else value
        return record


USAGE_FIELDS = ("prompt_tokens", "evaluated_tokens", "output_tokens", "prompt_s", "output_s")
ATTEMPT_COST_FIELDS = (*USAGE_FIELDS, "min_logprob")  # what an attempt's JSON carries beside its text


@dataclass
class Translation:
    """The result for one question. `program` is None when every attempt failed (`error` says why)."""

    question: str
    question_id: str | None
    program: Program | None
    error: str | None
    attempts: list[Attempt]
    examples: list[dict[str, Any]]
    timings: dict[str, float]
    mappings: list[dict[str, Any]] = field(default_factory=list)
    unknown: list[dict[str, Any]] = field(default_factory=list)
    schema_fixes: list[dict[str, Any]] = field(default_factory=list)
    samples: list[str | None] = field(default_factory=list)
    agreement: float | None = None
    cached: bool = False
    # The model could not be asked for a while (rate limit, server error, dropped connection): no
    # verdict on the question, to be asked again later.
    retryable: bool = False
    route: dict[str, str] | None = None  # the predicted question types, when the translator routes
    # A question outside what the programs express (translators.question_scope): its kind, and no program.
    unsupported: str | None = None
    # Where the program came from: "model", "template" (filled from the bank's examples of the
    # question's form, translators.template_fill) or "composed" (from its object references and a
    # form, translators.compositional_fill); `fill` then holds the form and its vote.
    source: str = "model"
    fill: dict[str, Any] | None = None

    @property
    def flat(self) -> str | None:
        """The program in flat ASP (what clingo sees)."""
        return format_flat(self.program) if self.program is not None else None

    @property
    def raw(self) -> str:
        """The raw text of the last model call."""
        return self.attempts[-1].raw if self.attempts else ""

    @property
    def seconds(self) -> float:
        return self.timings.get("total_s", 0.0)

    @property
    def min_logprob(self) -> float | None:
        """The last model call's least likely written token (None: filled, or not reported)."""
        return self.attempts[-1].min_logprob if self.attempts else None

    @property
    def evidence(self) -> TranslationEvidence | None:
        """What this translation shows about how sure it is (None when it has no program)."""
        if self.program is None:
            return None
        samples = max(1, len(self.samples))
        return TranslationEvidence.of(
            self.program,
            question=self.question,
            examples=self.examples,
            samples=samples,
            attempts=(len(self.attempts) or 1) - (samples - 1),  # the calls of the other samples are not retries
            schema_fixes=len(self.schema_fixes),
            agreement=self.agreement,
            source=self.source,
            fill=self.fill,
            min_logprob=self.min_logprob,
        )

    @property
    def usage(self) -> dict[str, float | int]:
        """Tokens and seconds summed over the model calls (only what the backend reported)."""
        totals: dict[str, float | int] = {}
        for attempt in self.attempts:
            for name in USAGE_FIELDS:
                value = getattr(attempt, name)
                if value is not None:
                    totals[name] = totals.get(name, 0) + value
        return {k: round(v, 4) if isinstance(v, float) else v for k, v in totals.items()}

    def to_json(self) -> dict[str, Any]:
        """The JSON record the command line prints."""
        record: dict[str, Any] = {
            "questionId": self.question_id,
            "question": self.question,
            "program": self.flat,
            "raw": self.raw,
            "examples": self.examples,
            "seconds": round(self.seconds, 4),
            "attempts": [a.to_json() for a in self.attempts],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }
        if self.error:
            record["error"] = self.error
        if usage := self.usage:
            record["usage"] = usage
        if self.mappings or self.unknown:
            record["mappings"], record["unknown"] = self.mappings, self.unknown
        if self.schema_fixes:
            record["schema_fixes"] = self.schema_fixes
        if self.samples:
            record["samples"], record["agreement"] = self.samples, self.agreement
        if self.cached:
            record["cached"] = True
        if self.route is not None:
            record["route"] = self.route
        if self.unsupported is not None:
            record["unsupported"] = self.unsupported
        record["source"] = self.source
        if self.fill is not None:
            record["fill"] = self.fill
        return record

    @classmethod
    def from_json(cls, record: dict[str, Any]) -> Translation:
        """Rebuild a cached translation."""
        from theory.flat import parse_flat

        return cls(
            question=record["question"],
            question_id=record.get("questionId"),
            program=parse_flat(record["program"]) if record.get("program") else None,
            error=record.get("error"),
            attempts=[
                Attempt(a["raw"], a["error"], a["seconds"], **{k: a[k] for k in ATTEMPT_COST_FIELDS if k in a})
                for a in record.get("attempts", [])
            ],
            examples=record.get("examples", []),
            timings=record.get("timings", {}),
            mappings=record.get("mappings", []),
            unknown=record.get("unknown", []),
            schema_fixes=record.get("schema_fixes", []),
            samples=record.get("samples", []),
            agreement=record.get("agreement"),
            cached=True,
            route=record.get("route"),
            unsupported=record.get("unsupported"),
            source=record.get("source", "model"),
            fill=record.get("fill"),
        )


class Translator:
    """Translates questions with one bank, one backend and fixed settings."""

    def __init__(
        self,
        settings: TranslationSettings,
        bank: ExampleBank,
        backend: Backend,
        *,
        embedder: Embedder | None = None,
        retriever: Retriever | None = None,
        cache: TranslationCache | None = None,
        grounder: Grounder | None = None,
        ontology: Ontology | None = None,
        fixed: Sequence[Example] | None = None,
        kinship: WordKinship | None = None,
    ) -> None:
        self.settings = settings
        # Synonyms, hypernyms and whether a scene could hold a word (WordNet, given by the caller);
        # without it coverage matches spellings and stems only.
        self.kinship = kinship
        # Schema-aware decoding uses the given ontology, else the bundled one.
        self.ontology = (ontology or bundled_ontology()) if settings.schema_decoding else None
        self.bank = bank
        self.backend = backend
        self.cache = cache
        self.grounder = grounder
        if settings.representation == "gqa":
            # The GQA form can only show examples that carry a GQA semantic program.
            bank = bank.with_semantic
        if retriever is None or retriever.bank is not bank:
            if settings.sampling is Sampling.BERT and embedder is None:
                from translators.embeddings import load_embedder

                embedder = load_embedder()
            templater = Templater(ontology or bundled_ontology()) if settings.template_retrieval else None
            retriever = Retriever(bank, embedder, templater=templater)
        self.retriever = retriever
        self.filler = filler_for(bank, ontology or bundled_ontology()) if settings.template_fill else None
        self.composer = CompositionalFiller(self.filler) if self.filler is not None else None
        # Fixed examples come from the hand-written examples only: a bank built from a dataset must
        # not put the dataset's own questions (a target's siblings) in every prompt.
        # `fixed` gives them from elsewhere (a routed translator's pool is part of a bank).
        own = [e for e in bank if e.source == "project"] if fixed is None else list(fixed)
        self.fixed = covering_examples(own) if PROMPTS[settings.prompt_version].fixed_examples else []
        self._use_grammar = settings.constrained and backend.supports_grammar
        self._vocabulary = grounder.vocabulary if grounder is not None else None
        # The grammar of any question (warm-up); each question gets one of its own words (`_grammar_for`).
        self.grammar = (
            program_grammar(settings.representation, self._vocabulary, self.ontology) if self._use_grammar else None
        )
        # Everything in the cache key but the question and the excluded ids, fixed per translator.
        self._key_base = settings.model_dump(mode="json") | {
            "bank": self.bank.fingerprint(),
            "grounding": grounder is not None,
            # Whether (and through which request field) the output was constrained.
            "grammar": backend.grammar_field if self.grammar else None,
            "ontology": self.ontology.digest() if self.ontology is not None else None,
        }
        if settings.template_fill:
            self._key_base["fill_rules"] = f"{FILL_RULES_VERSION}.{COMPOSITION_VERSION}"
        self._key_base["grounded"] = GROUNDING_VERSION
        self._key_base["kinship"] = kinship is not None
        vocabulary = self.ontology or bundled_ontology()
        self._value_stems = frozenset(
            stem(part)
            for word in (*vocabulary.uncategorised, *(v for values in vocabulary.categories.values() for v in values))
            for part in word.split("_")
            if part
        )
        self._known_stems = frozenset(
            stem(part)
            for word in (
                *vocabulary.classes,
                *vocabulary.categories,
                *vocabulary.relations,
                *vocabulary.uncategorised,
                *(v for values in vocabulary.categories.values() for v in values),
            )
            for part in word.split("_")
            if part
        )
        self._warmed = False
        self._warm_lock = threading.Lock()

    def warm_up(self) -> None:
        """Load the retrieval model and index, the fill index, the language model and, where the backend
        keeps a prompt prefix (llama.cpp), evaluate the prompt's fixed part and compile the grammar now,
        so the first question does not wait for them."""
        s = self.settings
        if self.filler is not None:
            # Built now rather than on the first question (the looser indexes read the first).
            self.filler.by_any_category  # noqa: B018
            self.filler.by_any_relation  # noqa: B018
        # The sentence embedder and the bank's index load with the first retrieval.
        self.retriever.retrieve("?", s.examples, s.sampling, cover_operators=s.cover_operators, seed=s.seed)
        if self.backend.keeps_prefix:
            self._warm_prefix()

    def _warm_prefix(self) -> None:
        """Evaluate the prompt's fixed part once; llama.cpp's backend keeps the evaluated state on disk
        and reads it back on later starts (`LlamaCppBackend.warm`)."""
        with self._warm_lock:
            if self._warmed:
                return
            s = self.settings
            prompt = build_prompt("?", [], s.representation, s.prompt_version, self.fixed, self.ontology)
            request = GenerationRequest(prompt=prompt, question="?", max_tokens=1, grammar=self.grammar)
            self.backend.warm(request)
            self._warmed = True

    def _key(self, question: str, exclude_ids: Collection[str]) -> str:
        return cache_key(question, self._key_base | {"exclude": sorted(exclude_ids)})

    def translate(
        self,
        question: str,
        question_id: str | None = None,
        exclude_ids: Collection[str] = (),
        vector: np.ndarray | None = None,
    ) -> Translation:
        """Translate one question (`vector`: its embedding, when the caller has it already); never
        raises for a bad model output (the result says why)."""
        exclude = set(exclude_ids) | ({question_id} if question_id else set())
        key = self._key(question, exclude) if self.cache is not None else ""
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            result = Translation.from_json(hit)
            result.question_id = question_id
            return result
        s = self.settings
        start = time.perf_counter()
        for_questions = PROMPTS[s.prompt_version].for_questions
        # "Could you tell me what color the mug is?" asks "What color is the mug?".
        attitude = self.kinship.attitude if self.kinship is not None else None
        direct = direct_question(question, attitude) if for_questions else question
        asked = read_as_scene(direct)
        checked = for_questions and s.meaning_check
        if for_questions and (scope := self._beyond_language(direct, asked, checked)) is not None:
            # No program says why, what if or what brand: refused, rather than a program that answers something else.
            return Translation(
                question, question_id, None, scope.message, [], [], {"total_s": time.perf_counter() - start},
                unsupported=scope.kind,
            )  # fmt: skip
        words, frame = question_words(asked), frame_of(asked)
        # Why candidate programs did not mean the question (uncovered words, a wrong reading), for a decline.
        unmeant: list[tuple[tuple[str, ...], str]] = []

        judged: dict[tuple[Program, bool], str | None] = {}  # a form's voters often fill one program

        def meaning(program: Program, strict: bool = True) -> str | None:
            if not checked:
                return None
            if (program, strict) not in judged:
                judged[(program, strict)] = self._unmeant(program, asked, unmeant, strict)
            return judged[(program, strict)]

        def lenient(program: Program) -> str | None:
            return meaning(program, strict=False)

        named_once: list[Said] = []  # the question's objects and values, read on first need

        def to_compose(strict: bool) -> Callable[[Program], str | None]:
            def check(program: Program) -> str | None:
                # A model program that leaves out an object the question names gets it composed in
                # below (`_with_references`), and the program that comes out is checked then.
                if checked and self.composer is not None and self.ontology is not None:
                    named_once[:] = named_once or [_said(asked, self.composer.filler)]
                    if _unnamed(program, named_once[0], asked):
                        return mismatch(program, asked, self.ontology, self.kinship)
                return meaning(program, strict)

            return check

        # Per kind of fill, a program that says every word first; else one that leaves out only attribute
        # values (GQA's own programs drop a modifier that does not pick the object: "the brown bag").
        def fits(judge: Callable[[Program], str | None]) -> Callable[[Program], bool]:
            return lambda program: _problems(program, words, frame, judge) is None

        for source, filler in (("template", self.filler), ("composed", self.composer)):
            for judge in (meaning, lenient):
                # Only programs in the question's words that answer as it asks take part in the vote.
                filled = filler.fill(asked, exclude, fits(judge)) if filler is not None else None
                if filled is not None:
                    result = self._filled(question, asked, question_id, filled, time.perf_counter() - start, source)
                    return self._finish(result, start, key)
        retrieved = self.retriever.retrieve(
            asked,
            s.examples,
            s.sampling,
            cover_operators=s.cover_operators,
            exclude_ids=exclude,
            seed=s.seed,
            vector=vector,
        )
        retrieval_s = time.perf_counter() - start
        shown = [r.example for r in retrieved]
        grammar = self._grammar_for(words, frame)  # one per question, shared by its samples
        attempts: list[Attempt] = []
        programs: list[Program | None] = []
        fixes: list[list[dict[str, Any]]] = []
        error: str | None = None
        retryable = False
        for sample in range(s.samples):
            # At temperature 0 the candidates differ by the order of the retrieved examples.
            order = (
                shown[sample % len(shown) :] + shown[: sample % len(shown)] if shown and s.temperature == 0 else shown
            )
            prompt = build_prompt(
                asked, order, s.representation, s.prompt_version, self.fixed, self.ontology, exclude_ids=exclude
            )
            try:
                program, error = self._attempts(
                    question, prompt, sample, attempts, words, frame, grammar, (to_compose(True), to_compose(False))
                )
            except RetryableBackendError as exc:
                # A vote over fewer candidates would not be this setting's answer: stop here.
                retryable, error = True, str(exc)
                attempts.append(Attempt("", error, 0.0))
                programs, fixes = [None], [[]]
                break
            made = []
            if program is not None and self.ontology is not None:
                repaired, repairs = repair_program(program, self.ontology)
                # A repair that would name a word the question lacks is not made.
                if _problems(repaired, words, frame, to_compose(False)) is None:
                    program, made = repaired, [f.__dict__ for f in repairs]
            if program is not None:
                program, said = self._as_said(program, asked)
                made += said
            programs.append(program)
            fixes.append(made)
        generation_s = time.perf_counter() - start - retrieval_s
        vote = majority_vote(programs) if s.samples > 1 else None
        chosen = 0
        if vote is not None and vote.majority is not None:
            chosen = next(i for i, p in enumerate(programs) if p is not None and canonical(p) == vote.majority)
        program = programs[chosen]
        composed_fix: list[dict[str, Any]] = []
        if program is not None and self.composer is not None and self.ontology is not None:
            named = _said(asked, self.composer.filler)
            missing = _unnamed(program, named, asked)
            if missing:
                composed, composed_fix = self._with_references(
                    asked, exclude, words, frame, named, attempts, missing, lenient
                )
                program = composed or program
        if program is not None and (problem := lenient(program)) is not None:
            # Composition could not add what the program leaves out: it does not mean the question.
            program, error = None, problem
        result = Translation(
            question=question,
            question_id=question_id,
            program=program,
            error=None if program is not None else error,
            attempts=attempts,
            retryable=retryable,
            examples=[
                {
                    "id": r.example.id,
                    "question": r.example.question,
                    "reason": r.reason,
                    "score": round(r.score, 4),
                    "program": format_flat(r.example.program),
                }
                for r in retrieved
            ],
            timings={"retrieval_s": retrieval_s, "generation_s": generation_s},
        )
        if vote is not None:
            result.samples = [format_flat(p) if p is not None else None for p in vote.programs]
            result.agreement = vote.agreement
        result.schema_fixes = (fixes[chosen] if fixes else []) + composed_fix
        if program is None and not retryable and unmeant:
            # Programs were written, but none means the question: a decline that names what was left out.
            decline = _decline(unmeant)
            result.error, result.unsupported = decline.message, decline.kind
        return self._finish(result, start, key)

    def _beyond_language(self, direct: str, asked: str, checked: bool) -> Unsupported | None:
        """Why no program can mean the question, found from its words alone (None: try programs)."""
        scope = out_of_scope(direct)
        if scope is not None or not checked:
            return scope
        vocabulary = self.ontology or bundled_ontology()
        scope = beyond_the_scene(direct, vocabulary.category_of)
        if scope is not None:
            return scope
        cannot = inexpressible(asked, lambda w: stem(w) in self._known_stems, self.kinship)
        return Unsupported("inexpressible", cannot) if cannot else None

    def _unmeant(
        self, program: Program, asked: str, unmeant: list[tuple[tuple[str, ...], str]], strict: bool = True
    ) -> str | None:
        """Why `program` does not mean `asked` (recorded in `unmeant`), or None when it does. Not
        `strict`: an attribute value the program leaves out is let go, as GQA's programs leave out a
        modifier that does not pick the object."""
        left_out = uncovered(asked, program, self.kinship)
        if not strict:
            left_out = tuple(w for w in left_out if stem(w) not in self._value_stems)
        if left_out:
            listed = ", ".join(repr(w) for w in left_out)
            problem = f"the program does not express {listed} of the question"
            unmeant.append((left_out, problem))
            return problem
        wrong_reading = mismatch(program, asked, self.ontology or bundled_ontology(), self.kinship)
        if wrong_reading is not None:
            unmeant.append(((), wrong_reading))
        return wrong_reading

    def _with_references(
        self,
        asked: str,
        exclude: set[str],
        words: QuestionWords,
        frame: Frame,
        named: Said,
        attempts: list[Attempt],
        missing: list[str],
        meaning: Callable[[Program], str | None],
    ) -> tuple[Program | None, list[dict[str, Any]]]:
        """The program of the question asked with its relating references said as bare nouns, those
        references composed back in, when that names every object the question names and fits it
        (see `translators.named_objects`); else None. The model's attempts are added to `attempts`."""
        reduced = self.composer.reduced(asked) if self.composer is not None else None
        if reduced is None:
            return None, []
        text, references = reduced
        # Shorter than the question, so this ends: a question with no relating reference is not reduced.
        inner = self.translate(text, exclude_ids=exclude)
        attempts.extend(inner.attempts)
        if inner.program is None:
            return None, []
        made = compose(inner.program, references)
        if made is None or _problems(made, words, frame, meaning) is not None:
            return None, []
        if _unnamed(made, named, asked):
            return None, []
        fix = SchemaFix("named objects", made.answer, " ".join(missing), f"asked as {text!r}, references composed")
        return made, [fix.__dict__]

    def _as_said(self, program: Program, asked: str) -> tuple[Program, list[dict[str, Any]]]:
        """The program with the class (or kind) a wh-question names for its answer, the way each relation runs
        and a relation check of "the X", where the question's words say them plainly (`asked_class`,
        `relation_direction`, `relation_check`)."""
        fixes = []
        if self.ontology is not None:
            program, named = with_asked_class(program, asked, self.ontology)
            program, kind = with_asked_kind(program, asked, self.ontology)
            fixes += [*named, *kind]
        program, turned = direct_relations(program, asked)
        program, checked = as_relation_check(program, asked)
        return program, [f.__dict__ for f in [*fixes, *turned, *checked]]

    def _filled(
        self,
        question: str,
        asked: str,
        question_id: str | None,
        filled: FilledProgram,
        fill_s: float,
        source: str,
    ) -> Translation:
        """The translation of a question whose program was filled from examples of its form."""
        program, fixes = filled.program, []
        if self.ontology is not None:
            program, repairs = repair_program(program, self.ontology)
            fixes = [f.__dict__ for f in repairs]
        program, said = self._as_said(program, asked)
        fixes += said
        shown = filled.examples[: max(self.settings.examples, 1)]
        return Translation(
            question=question,
            question_id=question_id,
            program=program,
            error=None,
            attempts=[],
            examples=[
                {"id": e.id, "question": e.question, "reason": "same form", "program": format_flat(e.program)}
                for e in shown
            ],
            timings={"fill_s": fill_s},
            schema_fixes=fixes,
            source=source,
            fill={"form": filled.form, "votes": filled.votes, "voters": filled.voters},
        )

    def _finish(self, result: Translation, start: float, key: str) -> Translation:
        """Name things as GQA does, ground the program's words (with a grounder), time it and cache it."""
        if result.program is not None:
            result.program = with_usual_names(result.program)
        program = result.program
        if program is not None and self.grounder is not None:
            grounding = self.grounder.ground(program)
            result.program = grounding.program
            result.mappings = [m.__dict__ for m in grounding.mappings]
            result.unknown = [{"step": st, "role": role, "word": word} for st, role, word in grounding.unknown]
        result.timings["total_s"] = time.perf_counter() - start
        if self.cache is not None and result.program is not None:
            self.cache.put(key, result.to_json())
        return result

    def _grammar_for(self, words: QuestionWords, frame: Frame) -> str | None:
        """The grammar of programs in the question's own words that answer as it asks."""
        if not self._use_grammar:
            return None
        return program_grammar(self.settings.representation, self._vocabulary, self.ontology, words, frame)

    def _attempts(
        self,
        question: str,
        prompt,  # noqa: ANN001
        sample: int,
        attempts: list[Attempt],
        words: QuestionWords,
        frame: Frame,
        grammar: str | None,
        meaning: tuple[Callable[[Program], str | None], Callable[[Program], str | None]],
    ) -> tuple[Program | None, str]:
        """The model's program for one prompt, fed its errors back up to `max_repairs` times; `meaning`
        checks the first output strictly (every word), later ones leniently (see `_unmeant`)."""
        s = self.settings
        if not self._warmed and self.backend.saves_prefix:
            # Without a warm-up (one question from the command line, an evaluation worker) the saved
            # state of the fixed part still spares evaluating it: 0.1 s instead of ~20 s. A model that
            # cannot load fails again just below, where the attempt records why.
            with contextlib.suppress(BackendError):
                self._warm_prefix()
        repairs: list[tuple[str, str]] = []
        error = "no attempt was made"
        # A first output refused only for leaving out an attribute value: kept when no repair comes.
        lenient_fallback: Program | None = None
        for attempt in range(s.max_repairs + 1):
            request = GenerationRequest(
                prompt=prompt,
                question=question,
                max_tokens=s.max_tokens,
                temperature=s.temperature,
                seed=s.seed,
                grammar=grammar,
                attempt=attempt,
                sample=sample,
                repair=tuple(repairs),
            )
            try:
                generation = self.backend.generate(request)
            except (RetryableBackendError, ModelFileError):
                raise  # no other attempt can help: the caller says the model is unavailable
            except BackendError as exc:
                attempts.append(Attempt("", str(exc), 0.0))
                if lenient_fallback is not None:
                    return lenient_fallback, ""
                # The reason the earlier output was refused matters more than why no repair came.
                error = f"{repairs[-1][1]}; then {exc}" if repairs else str(exc)
                return None, error
            outcome = interpret_output(generation.text, s.representation)
            if (
                outcome.program is not None
                and (problem := _problems(outcome.program, words, frame, meaning[attempt > 0])) is not None
            ):
                if attempt == 0 and _problems(outcome.program, words, frame, meaning[1]) is None:
                    lenient_fallback = outcome.program
                # Never answer with a word the question does not say: fed back like a parse error.
                outcome = replace(outcome, program=None, error=problem)
            attempts.append(
                Attempt(
                    generation.text,
                    outcome.error,
                    generation.seconds,
                    generation.prompt_tokens,
                    generation.evaluated_tokens,
                    generation.completion_tokens,
                    generation.prompt_seconds,
                    generation.output_seconds,
                    min(generation.token_logprobs) if generation.token_logprobs else None,
                )
            )
            if outcome.program is not None:
                return outcome.program, ""
            error = f"no valid program after {attempt + 1} attempt(s): {outcome.error}"
            repairs.append((outcome.cleaned or generation.text, outcome.error or "invalid program"))
        return (lenient_fallback, "") if lenient_fallback is not None else (None, error)


# What a question names that its program must name too: its objects, and its values and group words
# (`translators.named_objects`).
Said = tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]


def _said(question: str, filler: TemplateFiller) -> Said:
    """The objects, and the values and group words, the question names (read once per question)."""
    slots = filler.raw_slots(question)
    return named_objects(question, filler.ontology), said_values(slots, filler.ontology) + said_groups(slots)


def _unnamed(program: Program, named: Said, question: str) -> list[str]:
    """What the question names (`_said`) and the program does not."""
    objects, values = named
    return unnamed(program, objects) + unsaid(program, values, question)


def _decline(unmeant: list[tuple[tuple[str, ...], str]]) -> Unsupported:
    """The decline of a question none of whose candidate programs meant it: the words they left out
    most often (or, when each said every word, the first wrong reading)."""
    counts: dict[str, int] = {}
    for left_out, _ in unmeant:
        for word in left_out:
            counts[word] = counts.get(word, 0) + 1
    if counts:
        most = max(counts.values())
        return Unsupported("inexpressible", tuple(w for w, n in counts.items() if n == most))
    return Unsupported("inexpressible", (), unmeant[0][1])


def _problems(
    program: Program, words: QuestionWords, frame: Frame, meaning: Callable[[Program], str | None] | None = None
) -> str | None:
    """Why a program cannot be the question's (an invented word, the wrong kind of answer, a
    choice between words the question does not offer, or, with `meaning`, a question word it does
    not account for or a reading that asks something else), or None."""
    made_up = invented(program, words)
    if made_up:
        return "; ".join(str(m) for m in made_up)
    for step in program:
        if step.operation != "choose_attr":
            continue
        _, first, second = step.arguments
        if not offered_either_side(first, second, words):
            return f"step {step.id} chooses between {first!r} and {second!r}, not the two words around 'or'"
    wrong_kind = misfit(program, frame)
    if wrong_kind is not None or meaning is None:
        return wrong_kind
    return meaning(program)
