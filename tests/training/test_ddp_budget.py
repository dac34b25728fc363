"""The budgeted stream under Lightning DDP: each process trains on its slice of every global batch, so two
processes at batch B learn what one process learns at batch 2B."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from forecast.runtime import PROJECT_ROOT
from tests.conftest import tiny_run_overrides


def run(csv: Path, run_dir: Path, *extra: str) -> dict:
    # fp32 on every CPU: bf16 rounding differs between one batch of 16 and two of 8 by more than summation order
    args = tiny_run_overrides(csv, "train.round_cap=10", "trainer.max_epochs=2", "trainer.limit_train_batches=null",
                              "threads=1", "trainer.precision=fp32", f"hydra.run.dir={run_dir}", *extra,
                              model="dlinear")
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.train", *args], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, cwd=run_dir.parent)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads((run_dir / "metrics.json").read_text())


@pytest.mark.slow
def test_two_processes_at_half_the_batch_learn_what_one_process_learns(small_csv: Path, tmp_path: Path) -> None:
    one = run(small_csv, tmp_path / "one", "data.batch_size=16")
    two = run(small_csv, tmp_path / "two", "data.batch_size=8", "trainer=ddp_sim")
    assert one["global_batch"] == two["global_batch"] == 16
    assert one["steps"] == two["steps"] == 20 and one["windows_seen"] == two["windows_seen"]
    # the same windows in every step; only the order of float sums differs (DLinear has no dropout)
    for key in ("val/mse", "test/mse", "test/mae"):
        assert two[key] == pytest.approx(one[key], rel=1e-4), key


@pytest.mark.slow
def test_two_processes_add_the_same_extra_rounds_as_one(small_csv: Path, tmp_path: Path) -> None:
    extra = ["+train.extra_rounds=2", "train.extra_gain=0.0"]  # one more round whenever a round is not worse
    one = run(small_csv, tmp_path / "one", "data.batch_size=16", *extra)
    two = run(small_csv, tmp_path / "two", "data.batch_size=8", "trainer=ddp_sim", *extra)
    assert one["epochs"] == two["epochs"] > 2 and one["steps"] == two["steps"] == 10 * one["epochs"]
    assert two["test/mse"] == pytest.approx(one["test/mse"], rel=1e-4)
