"""Device choice: a GPU when one is visible, else the CPU, without importing torch to learn there is none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from app import devices
from app.devices import DeviceChoice, choose_device, gpu_count

ROOT = Path(__file__).resolve().parents[2]


def test_cpu_is_chosen_when_asked_for():
    assert choose_device("cpu") == DeviceChoice("cpu", 0)


@pytest.mark.skipif(not devices._no_cuda_driver(), reason="this machine has an NVIDIA driver")
def test_without_an_nvidia_driver_there_is_no_gpu_and_torch_stays_unimported():
    code = "import sys; from app.devices import gpu_count, choose_device; "
    code += "print(gpu_count(), choose_device('auto').torch_device, 'torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "cpu", "False"]


def test_with_a_driver_torch_is_asked(monkeypatch):
    monkeypatch.setattr(devices, "_no_cuda_driver", lambda: False)
    pytest.importorskip("torch")
    import torch

    assert gpu_count() == (torch.cuda.device_count() if torch.cuda.is_available() else 0)
