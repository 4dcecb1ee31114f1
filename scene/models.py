"""Where the detector (OWL-ViT) and classifier (CLIP) weights come from, and loading them.

A model is named by a local folder (what `save_pretrained` wrote) or a model-hub id (by default
google/owlvit-base-patch32 and openai/clip-vit-base-patch32). A hub id is loaded the way the
ecosystem does it: transformers' `from_pretrained` on the model hub's local cache. Weights already
in the cache are read without asking the hub; others are downloaded on first use, with a progress
bar on stderr, where the hub is reachable. In offline mode (the setting `offline`, that is
ASPVQA_OFFLINE=1, or the hub client's own HF_HUB_OFFLINE=1) only the cache is read.
`aspvqa models pull` fetches both models ahead of time. Weights that cannot be had raise
`WeightsUnavailable`, whose message says why (offline, the hub unreachable, no such model) and how
to get them; no score is ever produced without a model.

Example:
    >>> source = model_source("/models/owlvit-base-patch32", DETECTOR)   # doctest: +SKIP
    >>> detector = load_detector("/models/owlvit-base-patch32")          # doctest: +SKIP
    >>> detector = load_detector(offline=True)   # the default OWL-ViT, from the hub's cache only  # doctest: +SKIP
"""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scene.errors import SceneError
from theory.errors import ModelNotAvailableError

DETECTOR_ENV = "ASPVQA_DETECTOR_MODEL"
CLASSIFIER_ENV = "ASPVQA_CLASSIFIER_MODEL"
OFFLINE_ENV = "ASPVQA_OFFLINE"
HUB_OFFLINE_ENV = "HF_HUB_OFFLINE"  # read by the hub client itself, never here
DEFAULT_DETECTOR = "google/owlvit-base-patch32"
DEFAULT_CLASSIFIER = "openai/clip-vit-base-patch32"
PULL_COMMAND = "aspvqa models pull"
# Weight files that make a cached hub snapshot usable (one of them, besides config.json).
WEIGHT_FILES = (
    "model.safetensors",
    "model.safetensors.index.json",
    "pytorch_model.bin",
    "pytorch_model.bin.index.json",
)
# Types (by name, to need no HTTP client here) that mean "the hub could not be reached".
_NETWORK_ERRORS = frozenset(
    {"ConnectError", "ConnectTimeout", "NetworkError", "ProxyError", "ReadTimeout", "RemoteProtocolError"}
)


@dataclass(frozen=True)
class VisionModel:
    """One of the two vision models: what it is, the setting that names it and its default hub id."""

    what: str
    setting: str
    variable: str
    default: str

    def name(self, configured: str | Path | None = None) -> str:
        """The model to use: `configured` (the setting's value), else the default hub id."""
        return str(configured) if configured else self.default


DETECTOR = VisionModel("OWL-ViT detector", "detector_model", DETECTOR_ENV, DEFAULT_DETECTOR)
CLASSIFIER = VisionModel("CLIP classifier", "classifier_model", CLASSIFIER_ENV, DEFAULT_CLASSIFIER)


class WeightsUnavailable(ModelNotAvailableError, SceneError):
    """A vision model's weights cannot be had; `reason` says why, the message also how to get them."""

    def __init__(self, model: VisionModel, name: str, reason: str, *, hub: bool) -> None:
        self.model, self.name, self.reason, self.hub = model, name, reason, hub
        where = f"{model.setting} ({model.variable})"
        if hub:
            how = (
                f"run `{PULL_COMMAND}` where the model hub is reachable (offline mode off), or set {where} to a "
                "local folder written by save_pretrained"
            )
        else:
            how = f"set {where} to a local folder written by save_pretrained, or to a model-hub id"
        super().__init__(f"{model.what} weights {name!r} are not available: {reason}; {how}")


def hub_offline() -> bool:
    """Whether the hub client's own offline mode is on (HF_HUB_OFFLINE=1, which the client reads)."""
    try:
        from huggingface_hub import constants
    except ImportError:
        return False
    return bool(constants.is_offline_mode())


def offline_switch(offline: bool) -> str | None:
    """The switch that keeps the models offline, in words (None: downloads are allowed)."""
    if offline:
        return f"offline mode is on ({OFFLINE_ENV})"
    if hub_offline():
        return f"offline mode is on ({HUB_OFFLINE_ENV})"
    return None


def is_hub_id(name: str | Path) -> bool:
    """Whether `name` is read as a model-hub id ("owner/name" or "name") rather than a local folder."""
    text = str(name)
    path = Path(text).expanduser()
    return not (
        path.is_dir() or path.is_absolute() or text.startswith((".", "~")) or text.count("/") > 1 or "\\" in text
    )


def model_source(name_or_path: str | Path, model: VisionModel = DETECTOR) -> str:
    """The local folder holding the model's files, or the hub id to load through the hub's cache.

    Raises WeightsUnavailable (naming the model's setting) for a folder that cannot hold a model.
    """
    text = str(name_or_path)
    if is_hub_id(text):
        return text
    path = Path(text).expanduser()
    if not path.is_dir():
        raise WeightsUnavailable(model, text, "there is no such folder", hub=False)
    if not (path / "config.json").is_file():
        raise WeightsUnavailable(model, text, "the folder has no config.json", hub=False)
    return str(path)


def cached_snapshot(name: str | Path) -> str | None:
    """The local folder of a model: a folder name itself, or a hub id's snapshot in the hub's cache
    when its config and weights are there (None: not there, or not downloaded yet)."""
    if not is_hub_id(name):
        path = Path(str(name)).expanduser()
        return str(path) if (path / "config.json").is_file() else None
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return None
    config = try_to_load_from_cache(str(name), "config.json")
    if not isinstance(config, str):
        return None
    if not any(isinstance(try_to_load_from_cache(str(name), file), str) for file in WEIGHT_FILES):
        return None
    return str(Path(config).parent)


def missing_weights_note(detector: str | None, classifier: str | None, offline: bool) -> str | None:
    """Where the vision weights not on this machine yet will come from (None: both are here).

    For a readiness report before the models are loaded: it looks at files only.
    """
    missing = [
        f"{model.what} {model.name(configured)}"
        for model, configured in ((DETECTOR, detector), (CLASSIFIER, classifier))
        if cached_snapshot(model.name(configured)) is None
    ]
    if not missing:
        return None
    switch = offline_switch(offline)
    if switch is not None:
        return (
            f"{' and '.join(missing)} not in the local model-hub cache and {switch}: run `{PULL_COMMAND}` where "
            f"the model hub is reachable, or set {DETECTOR.variable} / {CLASSIFIER.variable} to local folders"
        )
    return f"{' and '.join(missing)} will be downloaded from the model hub on first use (or run `{PULL_COMMAND}`)"


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def hub_failure(exc: BaseException, offline: bool) -> str:
    """Why loading a hub id failed, in words: offline, the hub unreachable, no such model, or the error."""
    from huggingface_hub.errors import (
        GatedRepoError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RepositoryNotFoundError,
    )

    chain = list(_causes(exc))
    switch = offline_switch(offline)
    if switch is None and any(isinstance(e, OfflineModeIsEnabled) for e in chain):
        switch = f"offline mode is on ({HUB_OFFLINE_ENV})"
    if switch is not None:
        return f"they are not in the local model-hub cache and {switch}"
    if any(isinstance(e, GatedRepoError) for e in chain):
        return "the model hub serves this model only to accounts granted access (log in with a token that has it)"
    if any(isinstance(e, RepositoryNotFoundError) for e in chain):
        return "the model hub has no model of that name"
    network = [
        e
        for e in chain
        if isinstance(e, (ConnectionError, TimeoutError, socket.gaierror))
        or any(c.__name__ in _NETWORK_ERRORS for c in type(e).__mro__)
    ]
    if network or any(isinstance(e, LocalEntryNotFoundError) for e in chain):
        detail = f" ({_first_line(network[-1])})" if network else ""
        return f"the model hub cannot be reached to download them{detail}, and they are not in its local cache"
    return f"cannot load them: {_first_line(chain[0])}"


def reach_hub(repo_id: str) -> None:
    """Ask the model hub once, without retries, for the model's config.json.

    Raises the hub client's error at once where the hub cannot be reached or has no such model:
    left to transformers, the client retries every file for about 20 s before giving up.
    """
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    get_hf_file_metadata(hf_hub_url(repo_id, "config.json"))


@dataclass(frozen=True)
class LoadedModel:
    """A processor and a model in evaluation mode, with where they came from."""

    processor: Any
    model: Any
    source: str


def _download_bar() -> Any:
    # Plain tqdm: transformers hands it to the hub client for the weight files, which shows it even
    # where the client's own bars are off (the command line turns those off for loading).
    from tqdm import tqdm

    return tqdm


def _load(
    model: VisionModel, name_or_path: str | Path | None, model_class: Any, offline: bool, device: str
) -> LoadedModel:
    from transformers import AutoProcessor

    name = model.name(name_or_path)
    source = model_source(name, model)
    hub = is_hub_id(source)
    allowed = hub and offline_switch(offline) is None
    # The hub's cache first: weights already there are loaded without asking the hub anything.
    for local_only in (True, False) if allowed else (True,):
        try:
            if not local_only:
                reach_hub(source)
                print(f"{model.what}: fetching {name} from the model hub into its local cache", file=sys.stderr)
            processor = AutoProcessor.from_pretrained(source, local_files_only=local_only)
            loaded = model_class.from_pretrained(source, local_files_only=local_only, tqdm_class=_download_bar())
            break
        except Exception as exc:  # noqa: BLE001 - the hub client and the loaders raise many unrelated types
            if local_only and allowed:
                continue
            if hub and cached_snapshot(source) is None:
                reason = hub_failure(exc, offline)
            else:  # the files are there and do not load
                reason = f"cannot load them: {_first_line(exc)}"
            raise WeightsUnavailable(model, name, reason, hub=hub) from exc
    if device != "cpu":
        loaded.to(device)
    loaded.eval()
    return LoadedModel(processor, loaded, source)


def load_detector(name_or_path: str | Path | None = None, offline: bool = False, device: str = "cpu") -> LoadedModel:
    """OWL-ViT (or OWLv2) processor and detection model from a folder or hub id, on torch `device`.

    A hub id not in the hub's local cache is downloaded unless `offline` (or HF_HUB_OFFLINE) is on.
    """
    from transformers import AutoModelForZeroShotObjectDetection

    return _load(DETECTOR, name_or_path, AutoModelForZeroShotObjectDetection, offline, device)


def load_classifier(name_or_path: str | Path | None = None, offline: bool = False, device: str = "cpu") -> LoadedModel:
    """CLIP processor and model from a folder or hub id, on torch `device` (downloads as `load_detector`)."""
    from transformers import CLIPModel

    return _load(CLASSIFIER, name_or_path, CLIPModel, offline, device)


# --- tiny random models --------------------------------------------------------------------------
# Random weights with the real architectures, so tests and benchmarks exercise the real loading and
# inference code where no trained weights exist. Their scores mean nothing.

_TINY_WORDS = (
    "a photo of an and the man woman person people dog cat animal ball table chair furniture car "
    "red blue green white black wood metal on in near holding wearing left right of to"
).split()


def _tiny_tokenizer() -> Any:
    from transformers import CLIPTokenizer

    letters = "abcdefghijklmnopqrstuvwxyz"
    vocab: dict[str, int] = {}
    for token in [*letters, *(c + "</w>" for c in letters)]:
        vocab[token] = len(vocab)
    # Whole-word tokens through merges keep sequences short for the known words; others spell out.
    merges: list[tuple[str, str]] = []
    for word in _TINY_WORDS:
        pieces = [*word[:-1], word[-1] + "</w>"]
        while len(pieces) > 1:
            merged = pieces[0] + pieces[1]
            pair = (pieces[0], pieces[1])
            if pair not in merges:
                merges.append(pair)
            vocab.setdefault(merged, len(vocab))
            pieces = [merged, *pieces[2:]]
    for special in ("<|startoftext|>", "<|endoftext|>"):
        vocab[special] = len(vocab)
    return CLIPTokenizer(vocab=vocab, merges=merges)  # type: ignore[arg-type]  # the stubs say str, the tokenizer takes pairs


def write_tiny_models(folder: str | Path, seed: int = 0, image_size: int = 64) -> tuple[Path, Path]:
    """Save a tiny random OWL-ViT and a tiny random CLIP (with processors) under `folder`.

    Returns (detector_dir, classifier_dir). For tests and benchmarks only: the weights are random.
    """
    import torch
    from transformers import (
        CLIPConfig,
        CLIPImageProcessorPil,
        CLIPModel,
        CLIPProcessor,
        OwlViTConfig,
        OwlViTForObjectDetection,
        OwlViTImageProcessorPil,
        OwlViTProcessor,
    )

    folder = Path(folder)
    tokenizer = _tiny_tokenizer()
    vocab_size = len(tokenizer)
    text = dict(
        vocab_size=vocab_size,
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        max_position_embeddings=16,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    vision = dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=2,
        image_size=image_size,
        patch_size=16,
    )
    torch.manual_seed(seed)
    detector_dir, classifier_dir = folder / "owlvit-tiny", folder / "clip-tiny"
    owl = OwlViTForObjectDetection(OwlViTConfig(text_config=text, vision_config=vision, projection_dim=32))
    # Untrained box heads saturate the sigmoid into zero-size boxes; shrinking the last layer leaves
    # the model's own grid prior (one box around each patch) plus a little random variation.
    with torch.no_grad():
        owl.box_head.dense2.weight.mul_(0.01)
    owl.save_pretrained(detector_dir)
    size = {"height": image_size, "width": image_size}
    OwlViTProcessor(
        image_processor=OwlViTImageProcessorPil(size=size, crop_size=size), tokenizer=tokenizer
    ).save_pretrained(detector_dir)
    clip = CLIPModel(CLIPConfig(text_config=text, vision_config=vision, projection_dim=32))
    clip.save_pretrained(classifier_dir)
    CLIPProcessor(
        image_processor=CLIPImageProcessorPil(size={"shortest_edge": image_size}, crop_size=size), tokenizer=tokenizer
    ).save_pretrained(classifier_dir)
    return detector_dir, classifier_dir
