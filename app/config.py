"""Configuration in one place: defaults, then a settings file, then ASPVQA_* environment variables.

Example:
    >>> Settings(top_k=3).top_k
    3
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from app.errors import AppError
from scene.wordnet import use_wordnet_dir
from theory.cache import use_cache_dir
from translators.model.threads import use_threads
from translators.options import TranslationOptions

if TYPE_CHECKING:
    from app.scene_input import Perception

CONFIG_FILE_VARIABLE = "ASPVQA_CONFIG"
DEPRECATED_CACHE_VARIABLE = "ASPVQA_CACHE"  # the older name of ASPVQA_CACHE_DIR, still read

# The ranked answers one request may ask for: the setting, the API field and the command line's
# option share this declaration.
MAX_TOP_K = 50
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description="ranked answers to return")]


class ConfigError(AppError, ValueError):
    """The configuration file or variables are unusable; the message says which setting."""


class Settings(BaseSettings, TranslationOptions):
    """Every setting of the service, the command line and the pipeline.

    The translation options (representation, examples, sampling, cover_operators) come from
    `TranslationOptions`; they are the defaults a request may override.
    """

    model_config = SettingsConfigDict(env_prefix="ASPVQA_", env_ignore_empty=True, extra="forbid")

    # Translation (question -> program), beside the inherited options.
    llm: str | None = Field(
        None,
        description="program writer of what the rules leave: student (the default, a small trained writer), a "
        "bundled local model name (qwen2.5-coder-1.5b, smollm2-135m), local:PATH.gguf, "
        "openai:MODEL@BASE_URL[#grammar=none|llama.cpp|vllm|vllm-guided] (key from OPENAI_API_KEY; grammar kind "
        "else from ASPVQA_LLM_GRAMMAR), replay:RECORDING.jsonl, or none (template fill and composition alone: a "
        "question they cannot write is declined)",
    )
    llm_choices: tuple[str, ...] = Field((), description="further models a /translate or /answer request may name")
    llm_grammar: str = Field(
        "",
        description="how an openai: server whose name carries no #grammar= takes a grammar: none, llama.cpp, vllm "
        "or vllm-guided (empty: none)",
    )
    embedder: Literal["onnx", "torch"] = Field(
        "onnx", description="runtime of the question embedder: ONNX Runtime where installed, or PyTorch"
    )
    threads: int | None = Field(
        None, description="threads of the in-process models (llama.cpp, ONNX Runtime); default every core"
    )
    wordnet_dir: str | None = Field(
        None,
        description="WordNet 3.0 folder (an NLTK corpora/wordnet folder or a bare dict folder); default NLTK's "
        "data folders, then Debian's /usr/share/wordnet",
    )
    bank_dir: str | None = Field(
        None, description="example bank: a folder from `aspvqa bank build` or a JSON Lines file"
    )
    schema_decoding: bool = Field(
        True, description="constrain and repair categories, values and relations with the ontology"
    )
    template_fill: bool = Field(
        True,
        description="a question of a form the example bank has gets the program of those examples with its own "
        "words, without a model call (translators.rules.template_fill); other questions go to the model",
    )
    meaning_check: bool = Field(
        True,
        description="every content word of a question must be accounted for by its program, and a program must read "
        "back as its question; a question no program means is declined (422 unsupported) naming the word "
        "(translators.checks.meaning, translators.checks.read_back)",
    )
    routing: bool = Field(
        False,
        description="route each question to the examples and prompt of its predicted type (verify, query, choose, "
        "logical, compare), predicted from its embedding without a model call",
    )
    ontology_dir: str | None = Field(
        None,
        description="folder with gqa_all_class.json, gqa_all_attribute.json, gqa_relation.json; "
        "default: the bundled ontology",
    )

    # Confidence and abstention (trust/).
    confidence_samples: int = Field(
        1, ge=1, le=16, description="translations per question whose agreement is part of the confidence (1: none)"
    )
    calibration: str | None = Field(
        "bundled",
        description="when /answer abstains (holds an answer back as not sure): bundled (the shipped calibration, "
        "made on the validation part of the GQA split with the default settings; it holds only for those), off "
        "(never abstain), or a calibration file from `aspvqa calibrate`",
    )

    # Scene from an image.
    detector_model: str | None = Field(
        None, description="OWL-ViT weights: a local folder or a model-hub id (default google/owlvit-base-patch32)"
    )
    classifier_model: str | None = Field(
        None, description="CLIP weights: a local folder or a model-hub id (default openai/clip-vit-base-patch32)"
    )
    offline: bool = Field(
        False,
        description="never download the vision models: hub ids are read from the local model-hub cache only "
        "(HF_HUB_OFFLINE=1 does the same); off, weights not in the cache are downloaded from the model hub on "
        "first use (`aspvqa models pull` fetches them ahead of time)",
    )
    local_files_only: bool = Field(False, description="the older name of offline: true turns offline mode on")
    scene_vlm: str | None = Field(
        None,
        description="a vision-language model behind an OpenAI-compatible endpoint as the scene builder for "
        "images, written openai:MODEL@BASE_URL (e.g. openai:qwen2.5vl:7b@http://localhost:11434/v1); when set, "
        "images are perceived by it unless a request asks for perception detector",
    )
    scene_vlm_api_key: str | None = Field(
        None, description="the API key sent to ASPVQA_SCENE_VLM's server (Authorization: Bearer), if it needs one"
    )
    scene_vlm_timeout_s: float = Field(
        60.0, gt=0, le=600, description="time limit of one request to ASPVQA_SCENE_VLM's server"
    )
    device: str = Field(
        "auto",
        pattern=r"^(auto|cpu|mps|cuda(:\d+)?)$",
        description="where models run: auto (a GPU when present, else the CPU), cpu, cuda, cuda:N or mps",
    )
    taxonomy_dir: str | None = Field(None, description="folder with gqa_all_class.json / gqa_all_attribute.json")

    # Solving.
    top_k: TopK = 5
    solve_timeout_s: float = Field(
        10.0, gt=0, le=600, description="time limit of one solve (scene reading included); past it, 504"
    )
    translate_timeout_s: float = Field(
        120.0, gt=0, le=3600, description="time limit of one translation by the language model; past it, 504"
    )
    max_scene_facts: int = Field(
        200_000, ge=1, description="facts a scene may have (counted before it is read); more is 413"
    )
    entailments: str = Field(
        "bundled",
        description="vocabulary entailment table that lets a general scene word answer for a more specific "
        "asked one, ranked below exact answers and marked approximate: bundled, off, or a TSV file",
    )
    verify_min_confidence: float = Field(
        0.8, gt=0.5, le=1.0, description="likelihood a claim verdict needs; below it a sub-claim is unverifiable"
    )

    # Request limits of the service.
    max_request_bytes: int = Field(12 * 1024 * 1024, ge=1024, description="bytes of a request body; more is 413")
    max_image_bytes: int = Field(10 * 1024 * 1024, ge=1024, description="bytes of an uploaded image; more is 413")
    max_image_pixels: int = Field(40_000_000, ge=1, description="pixels of an uploaded image; more is 413")
    image_types: tuple[str, ...] = Field(
        ("image/jpeg", "image/png", "image/webp"),
        description="image types accepted, by declared type and by content (comma-separated); others are 415",
    )
    max_question_chars: int = Field(500, ge=1, description="characters of a question or claim; more is 413")
    max_program_chars: int = Field(20_000, ge=1, description="characters of a given program; more is 413")

    # The service's processes, queues and access.
    solve_workers: int = Field(
        0,
        ge=0,
        le=64,
        description="solver processes of `aspvqa serve` (0: the number of CPU cores plus one); "
        "scene graphs and scene facts are solved there, one clingo thread per process",
    )
    solve_worker_memory_mb: int = Field(
        4096,
        ge=0,
        description="address space a solver process may use (MiB; 0: no limit); "
        "a request that needs more is answered 413",
    )
    max_queued_solves: int = Field(
        64, ge=1, description="requests solving or waiting for a solver at once; more are answered 503"
    )
    max_queued_translations: int = Field(
        4, ge=1, description="questions translating or waiting for the model at once; more are answered 503"
    )
    retry_after_s: int = Field(2, ge=1, description="the Retry-After of a 503 for a full queue")
    api_key: str | None = Field(
        None,
        description="when set, requests need it (header X-API-Key or Authorization: Bearer); "
        "/health and /ready stay open",
    )
    # Read as written (comma-separated), not as JSON.
    api_keys: Annotated[tuple[str, ...], NoDecode] = Field(
        (),
        description="further API keys, each a client of its own (comma-separated); any of them, or api_key, "
        "is let in, and each key's stored scenes are its own",
    )
    rate_limit_per_minute: int = Field(
        0,
        ge=0,
        description="requests a client (by address) may make per minute, in bursts of up to ten seconds' worth; "
        "0: no limit",
    )

    # Scenes stored once and asked by id (POST /scenes), kept in the service process.
    scene_store_max_bytes: int = Field(
        256 * 1024 * 1024,
        ge=1024,
        description="memory the stored scenes may take, as the objects they are read into (a scene graph's "
        "objects take several times its JSON); past it the least recently used scene is dropped, and a "
        "scene larger than it is 413",
    )
    scene_store_max_scenes: int = Field(
        10_000, ge=1, description="scenes stored at once; past it the least recently used one is dropped"
    )
    scene_store_answers: int = Field(
        256,
        ge=0,
        description="answers a stored scene keeps, one per question or program asked of it with its options: "
        "the same request again is answered from them without translating or solving; they count against "
        "the store's bytes; 0: none kept",
    )
    scene_store_ttl_s: float = Field(
        3600.0,
        gt=0,
        description="a stored scene is forgotten this long after its last use (a question on it, storing it "
        "again, reading its entry); asking by its id afterwards is 404",
    )

    cache_dir: str | None = Field(
        None,
        validate_default=True,
        description="cache folder (generated banks and indexes, joined model files, the exported embedder, saved "
        "prompt states, WordNet copies); default $XDG_CACHE_HOME/aspvqa, else ~/.cache/aspvqa",
    )

    @property
    def models_offline(self) -> bool:
        """Whether the vision models may only be read from local files (HF_HUB_OFFLINE is the hub client's own)."""
        return self.offline or self.local_files_only

    @field_validator("cache_dir", mode="before")
    @classmethod
    def _older_cache_variable(cls, value: Any) -> Any:
        if value is None and os.environ.get(DEPRECATED_CACHE_VARIABLE):
            warnings.warn(
                f"{DEPRECATED_CACHE_VARIABLE} is deprecated; set ASPVQA_CACHE_DIR", DeprecationWarning, stacklevel=2
            )
            return os.environ[DEPRECATED_CACHE_VARIABLE]
        return value

    @field_validator("scene_vlm")
    @classmethod
    def _vlm_spec(cls, value: str | None) -> str | None:
        if value:
            # Imported here, as the other parts the settings only name: reading the settings loads
            # no scene reader, translator or model (`aspvqa solve` reads them too).
            from scene.vlm_spec import parse_vlm_spec

            parse_vlm_spec(value)  # a badly written spec fails at start, naming what is wrong
        return value or None

    @property
    def default_llm(self) -> str:
        """The program writer a request gets unless it names another: ASPVQA_LLM, else the student."""
        from translators.model.backends.registry import DEFAULT_WRITER  # the backends load the prompts

        return self.llm or DEFAULT_WRITER

    @property
    def offered_llms(self) -> tuple[str, ...]:
        """The language models a request may name: the default, then ASPVQA_LLM_CHOICES."""
        return (self.default_llm, *(name for name in self.llm_choices if name != self.default_llm))

    @property
    def perception(self) -> Perception:
        """How an image becomes a scene unless a request says: the VLM when one is configured."""
        return "vlm" if self.scene_vlm else "detector"

    @field_validator("threads")
    @classmethod
    def _at_least_one_thread(cls, value: int | None) -> int | None:
        return max(1, value) if value is not None else None

    @field_validator("embedder", mode="before")
    @classmethod
    def _runtime_name(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value

    def model_post_init(self, context: Any, /) -> None:
        # Every layer finds the cache folder, the model thread count and the WordNet folder through
        # theory.cache, translators.model.threads and scene.wordnet: they are handed over here, once.
        use_cache_dir(self.cache_dir)
        use_threads(self.threads)
        use_wordnet_dir(self.wordnet_dir)

    @property
    def all_api_keys(self) -> tuple[str, ...]:
        """Every key a request may give: api_key, then api_keys (none: the service is open)."""
        return tuple(dict.fromkeys(key for key in (self.api_key, *self.api_keys) if key))

    @field_validator("image_types", "llm_choices", "api_keys", mode="before")
    @classmethod
    def _split_types(cls, value: Any) -> Any:
        return tuple(v.strip() for v in value.split(",")) if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # Explicit arguments win, then the environment, then the settings file.
        return init_settings, env_settings, _FileSource(settings_cls)


class _FileSource(PydanticBaseSettingsSource):
    """Settings from the TOML or JSON file named by ASPVQA_CONFIG (absent: nothing)."""

    def get_field_value(self, field: Any, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        path = os.environ.get(CONFIG_FILE_VARIABLE)
        return read_config_file(Path(path)) if path else {}


def read_config_file(path: Path) -> dict[str, Any]:
    """The settings in a TOML (``.toml``) or JSON file."""
    if not path.is_file():
        raise ConfigError(f"settings file {path} (from {CONFIG_FILE_VARIABLE}) does not exist")
    import tomllib  # here: it compiles its patterns when imported, and most starts read no settings file

    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"cannot read settings file {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"settings file {path} must hold a table of settings")
    return data


def first_error(errors: Sequence[Any]) -> str:
    """The first pydantic validation error as one line: ``field.path: message``."""
    if not errors:
        return "invalid input"
    where = ".".join(str(p) for p in errors[0].get("loc", ()) if p != "body")
    return f"{where}: {errors[0]['msg']}" if where else errors[0]["msg"]


def load_settings(**overrides: Any) -> Settings:
    """Settings from defaults, file and environment, with `overrides` on top; `ConfigError` if invalid."""
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise ConfigError(f"setting {first_error(exc.errors())}") from None
