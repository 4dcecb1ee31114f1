"""The composition root: every part built once from `Settings` and handed out typed.

The service (`app.pipeline.Pipeline`), each command and each evaluation worker ask one
`Components` for what they need; nothing else assembles a translator, an image scene builder or
a taxonomy. Parts are built on first use (or by `warm_up`) and shared by every caller; a part that
cannot load raises `PipelineError("model_unavailable", ...)` naming the setting to change.
"""

from __future__ import annotations

import contextlib
import gc
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from app.config import Settings
from app.errors import PipelineError
from theory import Program, SceneFacts
from theory.cache import use_cache_dir
from theory.entailment import Entailments, EntailmentTableError, bundled_entailments, load_entailments
from theory.errors import ModelNotAvailableError
from translators.evidence import TranslationEvidence
from translators.options import TranslationOptions
from trust.calibration import Calibration, CalibrationError

if TYPE_CHECKING:
    from app.devices import DeviceChoice
    from scene.image_scene import ImageSceneBuilder
    from scene.taxonomy import CuratedTaxonomy, WordNetTaxonomy
    from translators.backends.base import Backend
    from translators.bank import ExampleBank
    from translators.cache import TranslationCache
    from translators.details import TranslationDetails
    from translators.embeddings import Embedder
    from translators.meaning import WordKinship
    from translators.ontology import Ontology
    from translators.retrieval import Retriever
    from translators.translate import Translation, TranslationSettings, Translator
    from translators.vocabulary import Grounder
    from trust.routing import RoutedTranslator

T = TypeVar("T")
# Scene graph encodings kept per process (by graph text and asked words).
SCENE_GRAPH_CACHE = 256


# --- what the service's parts give ----------------------------------------------------------


@dataclass
class TranslationOutcome:
    """A question translated into a program for the service, with what was shown to the model."""

    program: Program
    raw: str = ""
    examples: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    details: TranslationDetails | None = None  # how the program was made (None: not by a translator)
    # The settings a calibration must have been made with to hold for this translation.
    calibration_settings: dict[str, Any] = field(default_factory=dict)
    # What the translation shows about how sure it is (made from the program alone when not given).
    evidence: TranslationEvidence | None = None

    def __post_init__(self) -> None:
        if self.evidence is None:
            self.evidence = TranslationEvidence(self.program)


class QuestionTranslator(Protocol):
    """Turns a question into a `TranslationOutcome` with the given options and language model; a
    translator subclasses it for the defaults of `warm_up` and `claim`."""

    def __call__(self, question: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome: ...

    def warm_up(self) -> None:
        """Load what the first question would wait for (raises `PipelineError`); nothing by default."""

    def claim(self, claim: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        """A statement as a yes/no program; a translator without a claim pool cannot make one."""
        raise PipelineError("model_unavailable", "this service's translator does not translate claims")


@dataclass
class ImageReading:
    """The scene read from an image, with the detections behind it."""

    facts: SceneFacts
    detections: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)


class ImageReader(Protocol):
    """Turns image bytes and a program (for its concepts) into an `ImageReading`."""

    def __call__(self, image: bytes, program: Program) -> ImageReading: ...


# The facts a program needs from a scene graph (None: every fact of the graph).
SceneGraphEncoder = Callable[[Mapping[str, Any], Program | None], SceneFacts]


class Lazy(Generic[T]):
    """One part, built on first `get` (thread-safe); remembers why it could not be built."""

    def __init__(self, build: Callable[[], T], value: T | None = None) -> None:
        self._build = build
        self._value = value
        self._lock = threading.Lock()
        self.error: str | None = None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                try:
                    self._value = self._build()
                except PipelineError as exc:
                    self.error = exc.message
                    raise
                self.error = None
            return self._value

    @property
    def status(self) -> str:
        """'ready', 'not loaded' or why it cannot load."""
        return "ready" if self._value is not None else self.error or "not loaded"


def bundled_calibration_path() -> Path:
    """The calibration shipped with the service (app/data/calibration.json, made by
    `bench/declines.py --write-calibration` on the validation part of the GQA split)."""
    return Path(str(resources.files("app") / "data" / "calibration.json"))


@lru_cache(maxsize=1)
def word_kinship() -> WordKinship | None:
    """WordNet's synonyms and senses for question coverage (translators.meaning), loaded once per
    process; None where WordNet is missing, and coverage then matches spellings and stems only."""
    from scene.word_kinship import WordNetKinship

    kinship = WordNetKinship()
    try:
        kinship.wordnet  # noqa: B018
    except Exception:  # noqa: BLE001 - the taxonomy reports a missing WordNet by name; coverage degrades
        return None
    return kinship


@lru_cache(maxsize=4)
def load_taxonomy_once(taxonomy_dir: str | None) -> CuratedTaxonomy | WordNetTaxonomy:
    """The curated taxonomy in `taxonomy_dir`, else WordNet (loaded once per process)."""
    from scene.taxonomy import WordNetTaxonomy, load_taxonomy

    if taxonomy_dir:
        try:
            return load_taxonomy(taxonomy_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"taxonomy in {taxonomy_dir} (ASPVQA_TAXONOMY_DIR): {exc}"
            ) from None
    try:
        taxonomy = load_taxonomy()
        # Loads now, so that a missing WordNet is reported here and not mid-request.
        if isinstance(taxonomy, WordNetTaxonomy):
            taxonomy.wordnet  # noqa: B018
        return taxonomy
    except Exception as exc:  # noqa: BLE001 - the WordNet loader's own error names the fix
        raise PipelineError("model_unavailable", f"WordNet: {exc}") from None


def keep_loaded() -> None:
    """Leave what is loaded now (models, WordNet, the bank, the entailment table) out of the
    collector's full passes, which would otherwise walk it all while a request waits."""
    # A full collection in a loaded solver worker took 150-190 ms, four times in 3,000 solves
    # (a request that meets one waits that long); with the loaded objects frozen, 6-37 ms
    # (bench/collection_pause.py).
    gc.collect()
    gc.freeze()


class Components:
    """Every part of the app, built from one `Settings`; parts given here are used instead."""

    def __init__(
        self,
        settings: Settings,
        *,
        question_translator: QuestionTranslator | None = None,
        image_reader: ImageReader | None = None,
        scene_graph_encoder: SceneGraphEncoder | None = None,
    ) -> None:
        self.settings = settings
        # A worker process gets the settings pickled, without their start-up: hand the folder over again.
        use_cache_dir(settings.cache_dir)
        self._lock = threading.Lock()
        self._bank: Lazy[ExampleBank] = Lazy(self._load_bank)
        self._ontology: Lazy[Ontology] = Lazy(self._load_ontology)
        self._image_scene_builder: Lazy[ImageSceneBuilder] = Lazy(self._load_image_scene_builder)
        self._entailments: Lazy[Entailments | None] = Lazy(self._load_entailments)
        self._calibration: Lazy[Calibration | bool] = Lazy(self._load_calibration)
        self.calibration_note: str | None = None  # why the bundled calibration is not used, when it is not
        self._retrievers: dict[tuple[bool, bool], Retriever] = {}
        self._translators: dict[tuple[TranslationSettings, str | None], Translator] = {}
        self._recorders: dict[tuple[str, str], Backend] = {}
        self._routed: dict[TranslationSettings, RoutedTranslator] = {}
        self._claim_translators: dict[TranslationSettings, Translator] = {}
        self._embedder: Embedder | None = None
        self._embedder_error: str | None = None
        self._embedder_tried = False
        # The three parts the service reports on /ready.
        self._question_translator: Lazy[QuestionTranslator] = Lazy(lambda: ServiceTranslator(self), question_translator)
        self._scene_graph_encoder: Lazy[SceneGraphEncoder] = Lazy(self._make_scene_graph_encoder, scene_graph_encoder)
        self._image_reader: Lazy[ImageReader] = Lazy(lambda: ImageSceneReader(self), image_reader)

    # --- the service's parts --------------------------------------------------------------

    @property
    def question_translator(self) -> QuestionTranslator:
        return self._question_translator.get()

    @property
    def scene_graph_encoder(self) -> SceneGraphEncoder:
        return self._scene_graph_encoder.get()

    @property
    def image_reader(self) -> ImageReader:
        return self._image_reader.get()

    def status(self) -> dict[str, str]:
        """Readiness of each service part without loading anything new."""
        return {
            "translator": self._question_translator.status,
            "scene_graphs": self._scene_graph_encoder.status,
            "images": self._image_status(),
        } | (self._calibration_status() if self.settings.calibration not in (None, "", "off") else {})

    def _calibration_status(self) -> dict[str, str]:
        # A bundled calibration that does not hold for these settings is not an error: the service is
        # ready and does not abstain, and says why.
        status = {"calibration": self._calibration.status}
        if self.calibration_note:
            status["abstention"] = f"off: {self.calibration_note}"
        elif self._calibration.status == "ready":
            status["abstention"] = "on"
        return status

    def _image_status(self) -> str:
        # Before the first image: whether the vision weights are on this machine, and how to get them.
        status = self._image_reader.status
        if status != "not loaded":
            return status
        from scene.models import missing_weights_note

        s = self.settings
        note = missing_weights_note(s.detector_model, s.classifier_model, s.models_offline)
        return f"not loaded: {note}" if note else status

    def warm_up(self) -> None:
        """Load every service part now; a part that fails keeps its reason for `status`."""
        with contextlib.suppress(PipelineError):
            self._question_translator.get().warm_up()
        for part in (self._scene_graph_encoder, self._image_reader):
            with contextlib.suppress(PipelineError):
                part.get()
        if self.settings.calibration not in (None, "", "off"):
            # A configured calibration that does not load makes the service not ready, not silent.
            with contextlib.suppress(PipelineError):
                self._calibration.get()
        keep_loaded()

    # --- shared pieces ----------------------------------------------------------------------

    @cached_property
    def device(self) -> DeviceChoice:
        """Where the models run: a GPU when present (llama.cpp offload, torch on CUDA), else the CPU."""
        from app.devices import choose_device

        return choose_device(self.settings.device)

    @property
    def taxonomy(self) -> CuratedTaxonomy | WordNetTaxonomy:
        return load_taxonomy_once(self.settings.taxonomy_dir)

    @property
    def bank(self) -> ExampleBank:
        return self._bank.get()

    @property
    def entailments(self) -> Entailments | None:
        """The vocabulary entailment table for approximate answers (None: exact words only)."""
        return self._entailments.get()

    @property
    def calibration(self) -> Calibration | None:
        """The configured calibration, checked against these settings (None: none configured)."""
        found = self._calibration.get()
        return found if isinstance(found, Calibration) else None

    def confidence_settings(self, translation: TranslationSettings) -> dict[str, Any]:
        """What a calibration must have been made with to hold for translations with `translation`."""
        from translators.template_fill import FILL_RULES_VERSION
        from trust.confidence import calibration_settings

        settings = translation.model_dump(mode="json")
        if translation.template_fill:
            settings["fill_rules"] = FILL_RULES_VERSION  # other rules fill other questions: other confidences
        return calibration_settings(settings, self.bank.fingerprint())

    @property
    def ontology(self) -> Ontology:
        return self._ontology.get()

    @property
    def image_scene_builder(self) -> ImageSceneBuilder:
        """OWL-ViT and CLIP from the configured weights, with the per-image cache."""
        return self._image_scene_builder.get()

    def backend(self, name: str, record: str | None = None) -> Backend:
        """The language model `name` (loaded once per process); with `record`, its outputs are saved there."""
        from translators.backends.base import BackendError
        from translators.backends.registry import get_backend

        try:
            backend = get_backend(
                name, gpu_layers=self.device.llama_gpu_layers, default_grammar=self.settings.llm_grammar
            )
        except (BackendError, OSError, ImportError, ModelNotAvailableError) as exc:
            raise PipelineError("model_unavailable", f"language model {name!r} (ASPVQA_LLM): {exc}") from None
        if record is None:
            return backend
        from translators.backends.replay import RecordingBackend

        with self._lock:
            if (name, record) not in self._recorders:
                self._recorders[(name, record)] = RecordingBackend(backend, record)
            return self._recorders[(name, record)]

    def embedder(self) -> Embedder:
        """The sentence encoder of embedding retrieval."""
        found = self._optional_embedder()
        if found is None:
            raise PipelineError("model_unavailable", f"sentence encoder: {self._embedder_error}")
        return found

    def translator(
        self,
        options: TranslationSettings,
        *,
        record: str | None = None,
        cache: TranslationCache | None = None,
        grounder: Grounder | None = None,
    ) -> Translator:
        """The question translator for `options`: the one place a `translators.translate.Translator` is built.

        Translators without a cache or grounder are kept per options and shared; all share the
        bank, the ontology, the retrievers (their indexes and embedding matrices) and the models.
        """
        from translators.retrieval import Sampling
        from translators.translate import Translator

        key = (options, record)
        shared = cache is None and grounder is None
        with self._lock:
            if shared and key in self._translators:
                return self._translators[key]
        if options.sampling is Sampling.BERT:
            self.embedder()  # fails now, with the loader's message, when the encoder is missing
        translator = Translator(
            options,
            self.bank,
            self.backend(options.llm, record),
            embedder=self._optional_embedder(),
            retriever=self._retriever(
                semantic_only=options.representation == "gqa", templates=options.template_retrieval
            ),
            cache=cache,
            grounder=grounder,
            ontology=self.ontology,
            kinship=word_kinship(),
        )
        if shared:
            with self._lock:
                translator = self._translators.setdefault(key, translator)
        return translator

    def routed_translator(self, options: TranslationSettings) -> RoutedTranslator:
        """The question translator for `options` that routes each question by its predicted type (built once)."""
        from trust.routing import RoutedTranslator

        with self._lock:
            found = self._routed.get(options)
        if found is not None:
            return found
        routed = RoutedTranslator(
            options,
            self.bank,
            self.backend(options.llm),
            retriever=self._retriever(semantic_only=False, templates=options.template_retrieval),
            embedder=self.embedder(),
            ontology=self.ontology,
            kinship=word_kinship(),
        )
        with self._lock:
            return self._routed.setdefault(options, routed)

    def claim_translator(self, options: TranslationSettings) -> Translator:
        """The translator of claims (statements -> yes/no programs) over the claim pool (built once per options)."""
        from translators.retrieval import Retriever
        from translators.templating import Templater
        from translators.translate import Translator
        from trust.claim_bank import claim_bank

        settings = options.model_copy(update={"prompt_version": "claim-v1", "representation": "nested"})
        with self._lock:
            found = self._claim_translators.get(settings)
        if found is not None:
            return found
        bank = claim_bank()
        embedder = self.embedder() if settings.sampling.value == "bert" else self._optional_embedder()
        templater = Templater(self.ontology) if settings.template_retrieval else None
        translator = Translator(
            settings,
            bank,
            self.backend(settings.llm),
            embedder=embedder,
            retriever=Retriever(bank, embedder, templater=templater),
            ontology=self.ontology,
        )
        with self._lock:
            return self._claim_translators.setdefault(settings, translator)

    def translation_settings(self, overrides: Mapping[str, Any] | None = None) -> TranslationSettings:
        """The translator's settings from these settings, with `overrides` (a grid run's parameters) on top."""
        from translators.backends.models import DEFAULT_LOCAL_MODEL
        from translators.translate import TranslationSettings

        s = self.settings
        base = s.options().model_dump() | {
            "llm": s.llm or DEFAULT_LOCAL_MODEL,
            "schema_decoding": s.schema_decoding,
            "template_fill": s.template_fill,
            "meaning_check": s.meaning_check,
            "samples": s.confidence_samples,
        }
        return TranslationSettings.model_validate(base | dict(overrides or {}))

    # --- builders ---------------------------------------------------------------------------

    def _load_entailments(self) -> Entailments | None:
        choice = self.settings.entailments
        if choice == "off":
            return None
        if choice == "bundled":
            return bundled_entailments()
        try:
            return load_entailments(choice)
        except (OSError, UnicodeDecodeError, EntailmentTableError) as exc:
            raise PipelineError("model_unavailable", f"entailment table {choice}: {exc}") from None

    def _load_calibration(self) -> Calibration | bool:
        # False stands for "none configured" (a Lazy part is built once and must not be None).
        path = self.settings.calibration
        if not path or path == "off":
            return False
        bundled = path == "bundled"
        try:
            calibration = Calibration.load(bundled_calibration_path() if bundled else path)
            calibration.check_settings(self.confidence_settings(self.translation_settings()))
        except CalibrationError as exc:
            if bundled:
                # The shipped calibration holds for the default settings only: with others the
                # service answers without abstaining, as with none configured, and says so.
                self.calibration_note = f"bundled calibration not used: {exc}"
                return False
            raise PipelineError("model_unavailable", f"{exc} (ASPVQA_CALIBRATION)") from None
        return calibration

    def _load_bank(self) -> ExampleBank:
        from translators.bank import load_bank
        from translators.bundled import default_bank

        try:
            return load_bank(self.settings.bank_dir) if self.settings.bank_dir else default_bank()
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"example bank {self.settings.bank_dir} (ASPVQA_BANK_DIR): {exc}"
            ) from None

    def _load_ontology(self) -> Ontology:
        from translators.ontology import load_ontology

        try:
            return load_ontology(self.settings.ontology_dir)
        except (OSError, ValueError) as exc:
            raise PipelineError(
                "model_unavailable", f"ontology {self.settings.ontology_dir} (ASPVQA_ONTOLOGY_DIR): {exc}"
            ) from None

    def _optional_embedder(self) -> Embedder | None:
        # Built once; a missing encoder matters only to embedding retrieval, so it is not an error here.
        with self._lock:
            if not self._embedder_tried:
                self._embedder_tried = True
                from translators.embeddings import load_embedder

                try:
                    self._embedder = load_embedder(device=self.device.torch_device, runtime=self.settings.embedder)
                except Exception as exc:  # noqa: BLE001 - the loader's message names the missing package
                    self._embedder_error = str(exc)
            return self._embedder

    def _retriever(self, *, semantic_only: bool, templates: bool) -> Retriever:
        # One retriever per bank view for every translator: its indexes and matrices are built once.
        from translators.retrieval import Retriever
        from translators.templating import Templater

        bank = self.bank.with_semantic if semantic_only else self.bank
        embedder = self._optional_embedder()
        with self._lock:
            key = (semantic_only, templates)
            if key not in self._retrievers:
                templater = Templater(self.ontology) if templates else None
                self._retrievers[key] = Retriever(bank, embedder, templater=templater)
            return self._retrievers[key]

    def _load_image_scene_builder(self) -> ImageSceneBuilder:
        from scene.classifier import ClipClassifier
        from scene.detector import OwlViTDetector
        from scene.image_scene import ImageSceneBuilder
        from scene.models import load_classifier, load_detector

        s = self.settings
        try:
            device = self.device.torch_device
            # Hub ids not in the hub's local cache are downloaded here, unless offline mode is on.
            detector = OwlViTDetector(
                load_detector(s.detector_model, s.models_offline, device=device), taxonomy=self.taxonomy
            )
            classifier = ClipClassifier(load_classifier(s.classifier_model, s.models_offline, device=device))
        except ModelNotAvailableError as exc:
            raise PipelineError("model_unavailable", str(exc)) from None
        return ImageSceneBuilder(detector, classifier)

    def _make_scene_graph_encoder(self) -> SceneGraphEncoder:
        from scene.scene_graph import program_constants, scene_graph_facts

        taxonomy = self.taxonomy

        # Several questions are asked of one scene graph, and a missing answer reads the whole graph
        # after the program's part of it: encodings are kept by the graph's text and the words
        # asked (the encoding of a GQA graph costs 2-5 ms, its JSON text 0.05 ms). Callers only
        # read a SceneFacts, so one encoding may serve several requests at once.
        @lru_cache(maxsize=SCENE_GRAPH_CACHE)
        def encoded(text: str, concepts: frozenset[str] | None) -> SceneFacts:
            return scene_graph_facts(json.loads(text), taxonomy=taxonomy, concepts=concepts)

        def encode(graph: Mapping[str, Any], program: Program | None) -> SceneFacts:
            if not isinstance(graph, Mapping):
                raise ValueError("a scene graph is a JSON object with 'objects'")
            concepts = None if program is None else program_constants(program)
            table = self.entailments
            if table is not None and concepts is not None:
                # The general words an asked word may be read through, and the specific relations
                # that entail an asked one ("on top of" for "on").
                widened = {g for word in concepts for g in table.generalisations(word)}
                concepts = concepts | widened | {s for word in concepts for s in table.specialisations(word)}
            try:
                text = json.dumps(graph, separators=(",", ":"))
            except (TypeError, ValueError):  # not JSON (a caller's own objects): encoded every time
                return scene_graph_facts(graph, taxonomy=taxonomy, concepts=concepts)
            return encoded(text, None if concepts is None else frozenset(concepts))

        return encode


class ServiceTranslator(QuestionTranslator):
    """The service's `QuestionTranslator`: options and model per request, parts from `Components`."""

    def __init__(self, components: Components) -> None:
        from translators.backends.models import DEFAULT_LOCAL_MODEL

        self.components = components
        self.settings = components.settings
        self.default_model = self.settings.llm or DEFAULT_LOCAL_MODEL
        components.bank  # noqa: B018 - the bank, the ontology and the default model fail at start, not at the first question
        components.ontology  # noqa: B018
        components.backend(self.default_model)

    def warm_up(self) -> None:
        """Load the default model and evaluate its prompt's fixed part (raises `PipelineError`)."""
        from translators.backends.base import BackendError

        settings = self._settings(self.settings.options(), None)
        if self.settings.routing:
            return  # each routed prompt differs after the shared part; the first question of a type warms it
        try:
            self.components.translator(settings).warm_up()
        except BackendError as exc:
            raise PipelineError("model_unavailable", str(exc)) from exc

    def __call__(self, question: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        settings = self._settings(options, llm)
        if self.settings.routing and settings.representation != "gqa":
            translator: Any = self.components.routed_translator(settings)
        else:
            translator = self.components.translator(settings)
        return self._outcome(self._translated(translator, question, settings), settings, "question")

    def claim(self, claim: str, *, options: TranslationOptions, llm: str | None = None) -> TranslationOutcome:
        """A statement as a yes/no program, translated with the claim pool and prompt."""
        settings = self._settings(options, llm)
        translator = self.components.claim_translator(settings)
        return self._outcome(self._translated(translator, claim, settings), settings, "claim")

    @staticmethod
    def _translated(translator: Any, text: str, settings: TranslationSettings) -> Translation:
        from translators.backends.models import ModelFileError

        try:
            result: Translation = translator.translate(text)
        except ModelFileError as exc:  # the service's own model files are wrong, not the request
            raise PipelineError("model_unavailable", f"language model {settings.llm!r}: {exc}") from None
        return result

    def _settings(self, options: TranslationOptions, llm: str | None) -> TranslationSettings:
        llm = llm or self.default_model
        if llm != self.default_model and llm not in self.settings.llm_choices:
            choices = ", ".join(self.settings.llm_choices) or "none"
            raise PipelineError("invalid_input", f"model {llm!r} is not offered here (ASPVQA_LLM_CHOICES: {choices})")
        return self.components.translation_settings(options.model_dump() | {"llm": llm})

    def _outcome(self, result: Translation, settings: TranslationSettings, what: str) -> TranslationOutcome:
        if result.retryable:  # the model's server is overloaded or unreachable: try again later
            raise PipelineError("model_unavailable", f"the language model did not answer: {result.error}")
        if result.unsupported is not None:
            raise PipelineError("unsupported", result.error or "this question cannot be answered from the scene")
        if result.program is None:
            raise PipelineError("invalid_input", f"could not translate the {what} into a valid program: {result.error}")
        from translators.details import TranslationDetails

        return TranslationOutcome(
            program=result.program,
            raw=result.raw,
            examples=[{**e} for e in result.examples],
            seconds=result.seconds,
            details=TranslationDetails.of(result, model=settings.llm, samples=settings.samples),
            calibration_settings=self.components.confidence_settings(settings),
            evidence=result.evidence,
        )


class ImageSceneReader:
    """The service's `ImageReader`: OWL-ViT and CLIP asked for the program's concepts."""

    def __init__(self, components: Components) -> None:
        self.builder = components.image_scene_builder
        self.taxonomy = components.taxonomy

    def __call__(self, image: bytes, program: Program) -> ImageReading:
        from scene.concepts import concepts_from_program

        result = self.builder.build(image, concepts_from_program(program, self.taxonomy))
        detections = [
            {
                "id": d.id,
                "label": d.label,
                "score": round(float(d.score), 4),
                "box": [round(float(v), 1) for v in (d.box.x0, d.box.y0, d.box.x1, d.box.y1)],
                "categories": sorted(d.categories),
                "hposition": d.hposition,
                "vposition": d.vposition,
            }
            for d in result.detections
        ]
        return ImageReading(result.scene, detections, result.timings)
