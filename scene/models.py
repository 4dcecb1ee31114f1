"""Where the detector (OWL-ViT) and classifier (CLIP) weights come from, and loading them.

A model is named by a local directory (what `save_pretrained` wrote) or a hub id. Hub ids are
looked up in the local hub cache only unless `local_files_only=False`, so nothing is fetched by
surprise. When weights cannot be found the error names the setting to change; no score is ever
produced without a model.

Example:
    >>> source = resolve_model_source("/models/owlvit-base-patch32")   # doctest: +SKIP
    >>> detector = load_detector("/models/owlvit-base-patch32")        # doctest: +SKIP
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from theory.errors import ModelNotAvailableError

DETECTOR_ENV = "ASPVQA_DETECTOR_MODEL"
CLASSIFIER_ENV = "ASPVQA_CLASSIFIER_MODEL"
DEFAULT_DETECTOR = "google/owlvit-base-patch32"
DEFAULT_CLASSIFIER = "openai/clip-vit-base-patch32"


def weights_missing(what: str, name: str, setting: str, reason: str) -> ModelNotAvailableError:
    """The error for weights that cannot be found, naming the setting to change."""
    return ModelNotAvailableError(
        f"{what} weights not available from {name!r} ({reason}); set {setting} to a local directory "
        f"holding them (written by save_pretrained) or to a hub id already in the local cache"
    )


@dataclass(frozen=True)
class LoadedModel:
    """A processor and a model in evaluation mode, with where they came from."""

    processor: Any
    model: Any
    source: str


def detector_name(name: str | None = None) -> str:
    """The detector model to use: `name` (the setting `detector_model`), else the OWL-ViT base model."""
    return name or DEFAULT_DETECTOR


def classifier_name(name: str | None = None) -> str:
    """The classifier model to use: `name` (the setting `classifier_model`), else the CLIP base model."""
    return name or DEFAULT_CLASSIFIER


def resolve_model_source(
    name_or_path: str | Path,
    local_files_only: bool = True,
    *,
    what: str = "model",
    setting: str = "the model setting",
) -> str:
    """A local directory holding the model's files, for a directory or a hub id.

    Raises ModelNotAvailableError (naming `setting`) when nothing usable is found.
    """
    text = str(name_or_path)
    path = Path(text).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise weights_missing(what, text, setting, "the directory has no config.json")
        return str(path)
    if path.is_absolute() or text.startswith((".", "~")) or text.count("/") > 1:
        raise weights_missing(what, text, setting, "no such directory")
    try:
        from huggingface_hub import snapshot_download

        folder = snapshot_download(repo_id=text, local_files_only=local_files_only)
    except Exception as exc:  # the hub client raises several unrelated types for "not there"
        reason = "not in the local hub cache" if local_files_only else f"download failed: {type(exc).__name__}"
        raise weights_missing(what, text, setting, reason) from exc
    if not (Path(folder) / "config.json").is_file():
        raise weights_missing(what, text, setting, "the cached snapshot has no config.json")
    return folder


def _load(source: str, what: str, setting: str, model_class: Any, device: str = "cpu") -> LoadedModel:
    from transformers import AutoProcessor

    try:
        processor = AutoProcessor.from_pretrained(source, local_files_only=True)
        model = model_class.from_pretrained(source, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise weights_missing(what, source, setting, f"cannot load: {exc}".splitlines()[0]) from exc
    if device != "cpu":
        model.to(device)
    model.eval()
    return LoadedModel(processor, model, source)


def load_detector(
    name_or_path: str | Path | None = None, local_files_only: bool = True, device: str = "cpu"
) -> LoadedModel:
    """OWL-ViT (or OWLv2) processor and detection model from a directory or hub id, on torch `device`."""
    from transformers import AutoModelForZeroShotObjectDetection

    setting = f"detector_model (environment variable {DETECTOR_ENV})"
    source = resolve_model_source(
        detector_name(str(name_or_path) if name_or_path else None),
        local_files_only,
        what="OWL-ViT detector",
        setting=setting,
    )
    return _load(source, "OWL-ViT detector", setting, AutoModelForZeroShotObjectDetection, device)


def load_classifier(
    name_or_path: str | Path | None = None, local_files_only: bool = True, device: str = "cpu"
) -> LoadedModel:
    """CLIP processor and model from a directory or hub id, on torch `device`."""
    from transformers import CLIPModel

    setting = f"classifier_model (environment variable {CLASSIFIER_ENV})"
    source = resolve_model_source(
        classifier_name(str(name_or_path) if name_or_path else None),
        local_files_only,
        what="CLIP classifier",
        setting=setting,
    )
    return _load(source, "CLIP classifier", setting, CLIPModel, device)


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
