"""Where the models run: a GPU when there is one (llama.cpp layer offload, torch on CUDA), else the CPU.

`Settings.device` chooses: ``auto`` (a visible CUDA GPU if torch sees one, llama.cpp offload if
the installed llama.cpp was built with GPU support), ``cpu``, or a torch device such as ``cuda:1``.
What was chosen goes into the evaluation manifest (`DeviceChoice.to_json`).
"""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _no_cuda_driver() -> bool:
    """True where no CUDA GPU can be visible: Linux without NVIDIA's device nodes or driver (WSL's /dev/dxg counts)."""
    if not sys.platform.startswith("linux"):
        return False  # elsewhere only torch can tell
    devices = Path("/dev")
    return not (any(devices.glob("nvidia[0-9]*")) or (devices / "dxg").exists() or Path("/proc/driver/nvidia").exists())


def gpu_count() -> int:
    """CUDA devices visible to torch (imported for this when installed); 0 without torch."""
    if "torch" not in sys.modules and _no_cuda_driver():
        return 0  # importing torch only to learn this takes 1.7 s of every start on a CPU machine
    if "torch" not in sys.modules:
        try:
            if importlib.util.find_spec("torch") is None:
                return 0
        except (ImportError, ValueError):
            return 0
    try:
        import torch

        return int(torch.cuda.device_count()) if torch.cuda.is_available() else 0
    except Exception:  # noqa: BLE001 - a broken CUDA install means no GPU, not a failed job
        return 0


@dataclass(frozen=True)
class DeviceChoice:
    """The torch device of the image and sentence models and the llama.cpp layers offloaded."""

    torch_device: str
    llama_gpu_layers: int

    def to_json(self) -> dict[str, Any]:
        return {
            "torch": self.torch_device,
            "llama_gpu_layers": self.llama_gpu_layers,
            "llama_offload": "all layers" if self.llama_gpu_layers else "none (CPU)",
            "gpus": gpu_count(),
        }


def choose_device(preference: str = "auto") -> DeviceChoice:
    """The devices for `preference` (``auto``, ``cpu``, ``cuda``, ``cuda:N``, ``mps``)."""
    if preference == "cpu":
        return DeviceChoice("cpu", 0)
    # Imported here: the backends load the prompts and the ontology, which a command answering a
    # given program never reads.
    from translators.model.backends.local import gpu_offload_supported

    # llama.cpp offloads whenever its build has a GPU backend (CUDA, Metal, Vulkan), whatever torch sees.
    layers = -1 if gpu_offload_supported() else 0
    if preference == "auto":
        return DeviceChoice("cuda" if gpu_count() > 0 else "cpu", layers)
    return DeviceChoice(preference, layers)
