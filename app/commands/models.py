"""`aspvqa models pull` and `aspvqa models list`: the vision models of image questions.

`pull` downloads the configured (or default) OWL-ViT detector and CLIP classifier into the model
hub's local cache, with a progress bar, and loads each once to check it: run it where the hub is
reachable (a container build, say), and image questions later need no download. `list` says where
each model comes from and whether its weights are on this machine.
"""

from __future__ import annotations

from typing import Annotated

import typer

from app.commands.io import fail
from app.config import ConfigError, Settings, load_settings

models_app = typer.Typer(
    help="The vision models of image questions (OWL-ViT detector, CLIP classifier).", no_args_is_help=True
)

DetectorOption = Annotated[
    str | None,
    typer.Option("--detector", help="OWL-ViT model: a model-hub id or a local folder (default: the setting)."),
]
ClassifierOption = Annotated[
    str | None,
    typer.Option("--classifier", help="CLIP model: a model-hub id or a local folder (default: the setting)."),
]


def _settings() -> Settings:
    try:
        return load_settings()
    except ConfigError as exc:
        fail(str(exc))


@models_app.command("pull")
def pull_command(detector: DetectorOption = None, classifier: ClassifierOption = None) -> None:
    """Download the detector and classifier weights into the model hub's local cache and check that they load."""
    from scene.models import CLASSIFIER, DETECTOR, WeightsUnavailable, cached_snapshot, is_hub_id, offline_switch
    from scene.models import load_classifier as load_clip
    from scene.models import load_detector as load_owlvit

    settings = _settings()
    switch = offline_switch(settings.models_offline)
    wanted = [
        (DETECTOR, DETECTOR.name(detector or settings.detector_model), load_owlvit),
        (CLASSIFIER, CLASSIFIER.name(classifier or settings.classifier_model), load_clip),
    ]
    if switch is not None and any(is_hub_id(name) for _, name, _ in wanted):
        fail(f"models pull: {switch}; turn it off to download from the model hub")
    for model, name, load in wanted:
        try:
            load(name, offline=False)
        except WeightsUnavailable as exc:
            fail(f"models pull: {model.what} {name}: {exc.reason}")
        where = cached_snapshot(name) or name
        kind = "in the model hub's local cache" if is_hub_id(name) else "a local folder"
        typer.echo(f"{model.what} {name}: ready, {kind} ({where})")


@models_app.command("list")
def list_command(detector: DetectorOption = None, classifier: ClassifierOption = None) -> None:
    """Each vision model, its setting, and whether its weights are on this machine (nothing is downloaded)."""
    from scene.models import CLASSIFIER, DETECTOR, PULL_COMMAND, cached_snapshot, is_hub_id, offline_switch

    settings = _settings()
    switch = offline_switch(settings.models_offline)
    for model, configured in (
        (DETECTOR, detector or settings.detector_model),
        (CLASSIFIER, classifier or settings.classifier_model),
    ):
        name = model.name(configured)
        found = cached_snapshot(name)
        if found is not None:
            state = f"on this machine ({found})"
        elif not is_hub_id(name):
            state = "missing: no model in that folder"
        elif switch is not None:
            state = f"not downloaded, and {switch}: run `{PULL_COMMAND}` where the model hub is reachable"
        else:
            state = f"not downloaded: fetched from the model hub on first use, or by `{PULL_COMMAND}`"
        typer.echo(f"{model.what} ({model.variable}): {name}: {state}")
