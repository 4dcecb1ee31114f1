"""The Translator: question -> program.

read the image phrases as the scene (`question_text`) -> fill from the bank's examples of the
question's form -> else retrieve examples -> build the prompt -> generate (constrained by a grammar
of the question's own words and frame where the backend can) -> clean -> parse -> validate ->
check that every class, value and relation is the question's (`grounded_words`) and that the
program answers as the question asks (`question_frame`) -> on failure feed the error back, up to
`max_repairs` times -> a clear failure that names the invented word. Optionally several samples
with a majority vote, vocabulary grounding, and a cache.

Example (with recorded output):
    >>> from translators.model.backends.replay import ReplayBackend
    >>> from translators.examples.bank import legacy_bank
    >>> backend = ReplayBackend({("Is there a cat?", None): ["exist(select(scene(), cat))"]})
    >>> t = Translator(TranslationSettings(sampling="jaccard", llm="replay"), legacy_bank(), backend)
    >>> t.translate("Is there a cat?").flat
    'scene(0). select(1, 0, cat). exist(2, 1). end(2).'
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from theory.flat import format_flat
from theory.program import Program
from translators.cache import TranslationCache, cache_key
from translators.checks.consistency import majority_vote
from translators.checks.declines import beyond_language, decline, unwritten
from translators.checks.meaning import WordKinship
from translators.checks.meaning_checks import QuestionJudge, WordStems, not_named
from translators.checks.question_scope import Unsupported
from translators.evidence import LEAST_LIKELY_READING
from translators.examples.bank import Example, ExampleBank
from translators.model.backends.base import Backend, BackendError, GenerationRequest, RetryableBackendError
from translators.model.backends.no_model import NO_MODEL, NO_MODEL_MESSAGE
from translators.model.embeddings import Embedder
from translators.model.grammar import UnwritableFrame, program_grammar
from translators.model.prompts import PROMPTS, build_prompt, covering_examples
from translators.model.retrieval import Retriever, Sampling
from translators.model_attempts import (
    Candidates,
    Request,
    ask_model,
    repaired,
    retrieved_shown,
)
from translators.records import FixShown, Source, fix_shown, mapping_shown
from translators.rules.as_asked import said_as_asked
from translators.rules.compositional_fill import COMPOSITION_VERSION, CompositionalFiller
from translators.rules.coordination import as_be
from translators.rules.reference_steps import compose
from translators.rules.rule_order import rule_order
from translators.rules.template_fill import FILL_RULES_VERSION, FilledProgram, filler_for
from translators.settings import TranslationSettings
from translators.translation import Attempt, Translation
from translators.wording.grounded_words import QuestionWords, question_words, stem, with_usual_names
from translators.wording.indirect_wording import direct_question
from translators.wording.ontology import Ontology, bundled_ontology
from translators.wording.question_frame import Frame, frame_of
from translators.wording.question_text import read_as_scene
from translators.wording.schema import SchemaFix, repair_program
from translators.wording.templating import Templater
from translators.wording.vocabulary import Grounder

# Where other packages have always found them.
__all__ = ["GROUNDING_VERSION", "Attempt", "Translation", "TranslationSettings", "Translator"]

# Changes whenever what a question's words or frame allow changes, so stored translations are not reused.
GROUNDING_VERSION = 64


@dataclass(frozen=True)
class _Reading:
    """The question as the translator reads it: asked directly, its image phrases read as the scene."""

    direct: str
    asked: str
    for_questions: bool  # whether the prompt is for questions (not claims)
    checked: bool  # whether candidate programs must mean the question


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
        # The GQA form can only show examples that carry a GQA semantic program.
        shown = bank.with_semantic if settings.representation == "gqa" else bank
        self.retriever = self._retriever(shown, retriever, embedder, ontology or bundled_ontology())
        readers = (kinship.adjective_only, kinship.object_noun) if kinship is not None else (None, None)
        self.filler = filler_for(shown, ontology or bundled_ontology(), *readers) if settings.template_fill else None
        self.composer = CompositionalFiller(self.filler) if self.filler is not None else None
        self.rule_fillers = (
            rule_order(self.filler, self.composer, ontology or bundled_ontology())
            if self.filler is not None and self.composer is not None
            else ()
        )
        self.fixed = self._fixed_examples(shown, fixed)
        self._use_grammar = settings.constrained and backend.supports_grammar
        self._vocabulary = grounder.vocabulary if grounder is not None else None
        # The grammar of any question (warm-up); each question gets one of its own words (`_grammar_for`).
        self.grammar = (
            program_grammar(settings.representation, self._vocabulary, self.ontology) if self._use_grammar else None
        )
        self._key_base = self._key_settings()
        self._stems = WordStems.of(self.ontology or bundled_ontology())
        self._warmed = False
        self._warm_lock = threading.Lock()

    def _retriever(
        self, bank: ExampleBank, retriever: Retriever | None, embedder: Embedder | None, vocabulary: Ontology
    ) -> Retriever:
        """The given retriever when it retrieves from `bank`, else a new one."""
        if retriever is not None and retriever.bank is bank:
            return retriever
        # Without a model (`none`) nothing is retrieved, so the sentence encoder is not loaded.
        if self.settings.sampling is Sampling.BERT and embedder is None and self.backend.writes_programs:
            from translators.model.embeddings import load_embedder

            embedder = load_embedder()
        templater = Templater(vocabulary) if self.settings.template_retrieval else None
        return Retriever(bank, embedder, templater=templater)

    def _fixed_examples(self, bank: ExampleBank, fixed: Sequence[Example] | None) -> list[Example]:
        """The examples every prompt shows, where the prompt shows any."""
        # Fixed examples come from the hand-written examples only: a bank built from a dataset must
        # not put the dataset's own questions (a target's siblings) in every prompt.
        # `fixed` gives them from elsewhere (a routed translator's pool is part of a bank).
        own = [e for e in bank if e.source == "project"] if fixed is None else list(fixed)
        return covering_examples(own) if PROMPTS[self.settings.prompt_version].fixed_examples else []

    def _key_settings(self) -> dict[str, object]:
        """Everything in the cache key but the question and the excluded ids, fixed per translator."""
        settings = self.settings
        key: dict[str, object] = settings.model_dump(mode="json") | {
            "bank": self.bank.fingerprint(),
            "grounding": self.grounder is not None,
            # Whether (and through which request field) the output was constrained.
            "grammar": self.backend.grammar_field if self.grammar else None,
            "ontology": self.ontology.digest() if self.ontology is not None else None,
        }
        if settings.template_fill:
            key["fill_rules"] = f"{FILL_RULES_VERSION}.{COMPOSITION_VERSION}"
        key["grounded"] = GROUNDING_VERSION
        key["least_likely"] = LEAST_LIKELY_READING
        key["kinship"] = self.kinship is not None
        if (identity := getattr(self.backend, "identity", None)) is not None:  # the student's weights
            key["writer"] = identity
        return key

    def warm_up(self) -> None:
        """Load the retrieval model and index, the fill index, the language model and, where the backend
        keeps a prompt prefix (llama.cpp), evaluate the prompt's fixed part and compile the grammar now,
        so the first question does not wait for them."""
        s = self.settings
        if self.filler is not None:
            self.filler.warm_up()
        if not self.backend.writes_programs:
            return
        # The sentence embedder and the bank's index load with the first retrieval.
        self.retriever.retrieve("?", s.examples, s.sampling, cover_operators=s.cover_operators, seed=s.seed)
        with contextlib.suppress(BackendError):  # a writer that cannot load says so at its first question
            self.backend.prepare()
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
        start = time.perf_counter()
        reading = self._read(question)
        refused = self._refused(question, question_id, reading, start)
        if refused is not None:
            return refused
        judge = self._judge(reading)
        filled = self._from_bank(question, question_id, judge, exclude, start)
        if filled is not None:
            if filled.fill is not None and self.backend.writes_programs:  # evidence a model's program has too
                s = self.settings
                found = self.retriever.retrieve(judge.asked, s.examples, s.sampling, exclude_ids=exclude, vector=vector)
                filled.fill["similarity"] = round(max((r.score for r in found), default=0.0), 4)
            return self._finish(filled, start, key)
        if not self.backend.writes_programs:
            seconds = time.perf_counter() - start
            declined = Translation.declined(question, question_id, NO_MODEL, NO_MODEL_MESSAGE, seconds)
            return self._finish(declined, start, key)
        return self._finish(self._from_model(question, question_id, judge, exclude, vector, start), start, key)

    def _read(self, question: str) -> _Reading:
        """The question asked directly, with its image phrases read as the scene."""
        for_questions = PROMPTS[self.settings.prompt_version].for_questions
        # "Could you tell me what shape the kite is?" asks "What shape is the kite?".
        kinship = self.kinship
        attitude = kinship.attitude if kinship is not None else None
        direct = direct_question(question, attitude, self._hedge) if for_questions else question
        return _Reading(direct, read_as_scene(direct), for_questions, for_questions and self.settings.meaning_check)

    def _hedge(self, word: str) -> bool:
        """A word that only says how sure or exact the asker is; never a word of the vocabulary (WordNet
        knows "below" and "by" only as adverbs, and they are relations here)."""
        return self.kinship is not None and stem(word) not in self._stems.known and self.kinship.hedge(word)

    def _refused(self, question: str, question_id: str | None, reading: _Reading, start: float) -> Translation | None:
        """The refusal of a question no program can mean, found from its words alone (None: try programs)."""
        if not reading.for_questions:
            return None
        vocabulary = self.ontology or bundled_ontology()
        scope = beyond_language(reading.direct, reading.asked, reading.checked, vocabulary, self._stems, self.kinship)
        if scope is None:
            return None
        # No program says why, what if or what brand: refused, rather than a program that answers something else.
        return Translation.declined(question, question_id, scope.kind, scope.message, time.perf_counter() - start)

    def _judge(self, reading: _Reading) -> QuestionJudge:
        """The judge of the question's candidate programs."""
        asked = reading.asked
        return QuestionJudge(
            asked=asked,
            words=question_words(asked),
            frame=frame_of(asked),
            checked=reading.checked,
            ontology=self.ontology or bundled_ontology(),
            stems=self._stems,
            kinship=self.kinship,
            composer=self.composer,
            schema=self.ontology is not None,
        )

    def _from_bank(
        self, question: str, question_id: str | None, judge: QuestionJudge, exclude: set[str], start: float
    ) -> Translation | None:
        """The program filled from the bank's examples of the question's form, else written by the rules
        for forms the bank lacks, in `rule_order`'s order; None when none gives one that fits."""
        # "Does the X look A?" is also read as "Is the X A?", GQA's program of both, when the bank
        # has no example of the first.
        for asked in dict.fromkeys((judge.asked, as_be(judge.asked))):
            for source, filler in self.rule_fillers:
                # Per kind of fill, a program that says every word first; else one that leaves out only attribute
                # values (GQA's own programs drop a modifier that does not pick the object: "the brown bag").
                for check in (judge.meaning, judge.lenient):
                    # Only programs in the question's words that answer as it asks take part in the vote.
                    filled = filler.fill(asked, exclude, judge.fits(check))
                    if filled is not None:
                        fill_s = time.perf_counter() - start
                        return self._filled(question, judge.asked, question_id, filled, fill_s, source)
        return None

    def _from_model(
        self,
        question: str,
        question_id: str | None,
        judge: QuestionJudge,
        exclude: set[str],
        vector: np.ndarray | None,
        start: float,
    ) -> Translation:
        """The model's program from a prompt of retrieved examples (voted over the samples), with the
        objects it leaves out composed in; a decline when no candidate meant the question."""
        s = self.settings
        try:
            grammar = self._grammar_for(judge.words, judge.frame)  # one per question, shared by its samples
        except UnwritableFrame as exc:  # every program the model could write would be refused: not asked
            declined = Unsupported("inexpressible", (), str(exc))
            return Translation.declined(
                question, question_id, declined.kind, declined.message, time.perf_counter() - start
            )
        retrieved = self.retriever.retrieve(
            judge.asked,
            s.examples,
            s.sampling,
            cover_operators=s.cover_operators,
            exclude_ids=exclude,
            seed=s.seed,
            vector=vector,
        )
        retrieval_s = time.perf_counter() - start
        attempts: list[Attempt] = []
        candidates = self._candidates(question, judge, grammar, [r.example for r in retrieved], exclude, attempts)
        generation_s = time.perf_counter() - start - retrieval_s
        vote = majority_vote(candidates.programs) if s.samples > 1 else None
        program, fixes = candidates.chosen(vote)
        composed_fix: list[FixShown] = []
        if program is not None:
            program, composed_fix = self._named_in(program, judge, exclude, attempts)
        error = candidates.error
        if program is not None and (problem := judge.lenient(program)) is not None:
            # Composition could not add what the program leaves out: it does not mean the question.
            program, error = None, problem
        result = Translation(
            question=question,
            question_id=question_id,
            program=program,
            error=None if program is not None else error,
            attempts=attempts,
            retryable=candidates.retryable,
            examples=[retrieved_shown(r) for r in retrieved],
            timings={"retrieval_s": retrieval_s, "generation_s": generation_s},
        )
        if vote is not None:
            result.samples = [format_flat(p) if p is not None else None for p in vote.programs]
            result.agreement = vote.agreement
        result.schema_fixes = fixes + composed_fix
        # Programs were written, none means the question: name the words the vocabulary lacks, else what
        # was left out; none was written: the words it lacks that are no thing or value either, if any.
        if program is None and not candidates.retryable:
            stems, asked = self._stems, judge.asked
            why = decline(judge.unmeant, asked, stems) if judge.unmeant else unwritten(asked, stems, self.kinship)
            if why is not None:
                result.error, result.unsupported = why.message, why.kind
        return result

    def _candidates(
        self,
        question: str,
        judge: QuestionJudge,
        grammar: str | None,
        shown: list[Example],
        exclude: set[str],
        attempts: list[Attempt],
    ) -> Candidates:
        """One candidate program per sample (each in `grammar`), repaired and said as the question says it."""
        s = self.settings
        candidates = Candidates([], [], None, False)
        for sample in range(s.samples):
            # At temperature 0 the candidates differ by the order of the retrieved examples.
            order = (
                shown[sample % len(shown) :] + shown[: sample % len(shown)] if shown and s.temperature == 0 else shown
            )
            prompt = build_prompt(
                judge.asked, order, s.representation, s.prompt_version, self.fixed, self.ontology, exclude_ids=exclude
            )
            try:
                request = Request(question, prompt, sample, grammar, judge.asked, judge.things(), judge.values())
                program, candidates.error = self._ask(request, judge, attempts)
            except RetryableBackendError as exc:
                # A vote over fewer candidates would not be this setting's answer: stop here.
                candidates.retryable, candidates.error = True, str(exc)
                attempts.append(Attempt("", candidates.error, 0.0))
                candidates.programs, candidates.fixes = [None], [[]]
                break
            program, made = repaired(program, judge, self.ontology)
            candidates.programs.append(program)
            candidates.fixes.append(made)
        return candidates

    def _ask(self, request: Request, judge: QuestionJudge, attempts: list[Attempt]) -> tuple[Program | None, str]:
        """The model's program for one prompt (see `ask_model`), the prompt's fixed part evaluated first."""
        if not self._warmed and self.backend.saves_prefix:
            # Without a warm-up (one question from the command line, an evaluation worker) the saved
            # state of the fixed part still spares evaluating it: 0.1 s instead of ~20 s. A model that
            # cannot load fails again just below, where the attempt records why.
            with contextlib.suppress(BackendError):
                self._warm_prefix()
        meaning = (judge.to_compose(True), judge.to_compose(False))
        return ask_model(self.backend, self.settings, request, judge, meaning, attempts)

    def _named_in(
        self, program: Program, judge: QuestionJudge, exclude: set[str], attempts: list[Attempt]
    ) -> tuple[Program, list[FixShown]]:
        """The program with the objects the question names and it leaves out composed in, where that works."""
        if self.composer is None or self.ontology is None:
            return program, []
        missing = not_named(program, judge.said(), judge.asked)
        if not missing:
            return program, []
        composed, fixes = self._with_references(judge, exclude, attempts, missing)
        return composed or program, fixes

    def _with_references(
        self, judge: QuestionJudge, exclude: set[str], attempts: list[Attempt], missing: list[str]
    ) -> tuple[Program | None, list[FixShown]]:
        """The program of the question asked with its relating references said as bare nouns, those
        references composed back in, when that names every object the question names and fits it
        (see `translators.rules.named_objects`); else None. The model's attempts are added to `attempts`."""
        reduced = self.composer.reduced(judge.asked) if self.composer is not None else None
        if reduced is None:
            return None, []
        text, references = reduced
        # Shorter than the question, so this ends: a question with no relating reference is not reduced.
        inner = self.translate(text, exclude_ids=exclude)
        attempts.extend(inner.attempts)
        if inner.program is None:
            return None, []
        made = compose(inner.program, references)
        if made is None or judge.problems(made, judge.lenient) is not None:
            return None, []
        if not_named(made, judge.said(), judge.asked):
            return None, []
        fix = SchemaFix("named objects", made.answer, " ".join(missing), f"asked as {text!r}, references composed")
        return made, [fix_shown(fix)]

    def _filled(
        self,
        question: str,
        asked: str,
        question_id: str | None,
        filled: FilledProgram,
        fill_s: float,
        source: Source,
    ) -> Translation:
        """The translation of a question whose program was filled from examples of its form."""
        program, fixes = filled.program, []
        if self.ontology is not None:
            program, repairs = repair_program(program, self.ontology)
            fixes = [fix_shown(f) for f in repairs]
        program, said = said_as_asked(program, asked, self.ontology, self.kinship)
        fixes += [fix_shown(f) for f in said]
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
            result.mappings = [mapping_shown(m) for m in grounding.mappings]
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
