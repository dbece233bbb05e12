"""FSDP2 (torch fully_shard) on CPU over gloo, 2 processes, with Muon + AdamW: the same loss curve as 1.

accelerate 1.16 enables FSDP only on accelerator devices (a CPU run under the FSDP config becomes DDP,
tested in tests/integration/test_training.py), so the sharded path that Muon must handle (DTensor
parameters and gradients, gathered per matrix) is driven here with torch's own fully_shard.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

WORKER = Path(__file__).with_name("_training_fsdp_worker.py")
pytestmark = pytest.mark.train


def _run(cmd: list[str], out: Path) -> dict[str, object]:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run([*cmd, str(WORKER), str(out)], env=env, capture_output=True, text=True, timeout=500)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, object] = json.loads(out.read_text())
    return result


def test_fsdp2_two_processes_give_the_one_process_loss_curve(tmp_path: Path) -> None:
    one = _run([sys.executable], tmp_path / "one.json")
    torchrun = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2",
                "--standalone"]  # a free rendezvous port, never a fixed one
    two = _run(torchrun, tmp_path / "two.json")
    assert one["world"] == 1 and two["world"] == 2
    assert two["dtensor_params"] > 0  # really sharded: Muon stepped DTensor parameters
    one_losses, two_losses = one["losses"], two["losses"]
    assert isinstance(one_losses, list) and isinstance(two_losses, list)
    assert one_losses[-1] < 0.9 * one_losses[0]  # it trains
    for a, b in zip(one_losses, two_losses, strict=True):
        assert abs(a - b) <= 1e-3 * abs(a), (one_losses, two_losses)
    print("losses 1 process:", one_losses, "\nlosses 2 processes (FSDP2):", two_losses)
