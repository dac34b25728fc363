"""A run stopped at any step (a crash, SIGTERM, SIGKILL) and resumed ends with the metrics and weights of an
uninterrupted one: the training stream's cursor, the generators and the loop counters all come back."""

from __future__ import annotations

import math
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import lightning as L
import pytest
import torch
from lightning.pytorch.utilities.exceptions import SIGTERMException

from forecast.training.pipeline import train
from forecast.runtime import PROJECT_ROOT
from forecast.training.recipe import load_checkpoint
from tests.conftest import compose_train, etth1_slice, tiny_run_overrides

# rounds of 5 steps (round_cap), 3 rounds, a step checkpoint every 2 steps; dropout on, so a resumed run
# matches only if it draws the same batches and the same random numbers
PLAN = ["train.round_cap=5", "trainer.max_epochs=3", "train.ckpt_every_steps=2", "trainer.limit_train_batches=null",
        "model.net.net.dropout=0.2", "data.batch_size=8", "callbacks.early_stopping=null"]
# a random step of the 15 after the first checkpoint (step 2), other than a round's last, drawn once per
# session: any step must resume exactly
STEP = int(os.environ.get("RESUME_STEP", 0)) or random.Random().choice([s for s in range(3, 15) if s % 5])


class StopAtStep(L.Callback):
    """At the end of optimiser step ``step``: raise (a crash) or send this process SIGTERM."""

    def __init__(self, step: int, how: str = "crash") -> None:
        self.step, self.how = step, how

    def on_train_batch_end(self, trainer: L.Trainer, pl_module: L.LightningModule, outputs, batch, batch_idx) -> None:
        if trainer.global_step == self.step:
            if self.how == "sigterm":
                os.kill(os.getpid(), signal.SIGTERM)
            else:
                raise RuntimeError("simulated crash")


def stop(step: int, how: str) -> list[str]:
    return ["+callbacks.stop._target_=tests.training.test_step_resume.StopAtStep", f"+callbacks.stop.step={step}",
            f"+callbacks.stop.how={how}"]


def overrides(csv: Path, schedule: str, *extra: str) -> list[str]:
    return tiny_run_overrides(csv, *PLAN, f"train.schedule={schedule}", *extra)


def assert_same_run(straight: dict, resumed: dict) -> None:
    for key in ("test/mse", "test/mae", "val/mse", "steps", "epochs", "windows_seen", "start/val_loss",
                "val/loss_per_round"):
        assert resumed[key] == straight[key], key
    weights = [load_checkpoint(m["checkpoint"])["state_dict"] for m in (straight, resumed)]
    assert weights[0].keys() == weights[1].keys()
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])


@pytest.fixture(scope="module")
def tiny_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return etth1_slice(tmp_path_factory.mktemp("data") / "tiny.csv", 400)


@pytest.fixture(scope="module")
def straight(tiny_csv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The uninterrupted budget run (one thread, as every test here)."""
    torch.set_num_threads(1)
    return train(compose_train(overrides(tiny_csv, "budget"), tmp_path_factory.mktemp("straight")))


@pytest.mark.parametrize("how", ["crash", "sigterm"])
def test_a_run_stopped_at_any_step_resumes_to_the_uninterrupted_result(how: str, tiny_csv: Path, straight: dict,
                                                                       tmp_path: Path) -> None:
    assert straight["steps"] == 15 and straight["round_steps"] == 5
    run_dir = tmp_path / "stopped"
    with pytest.raises(RuntimeError if how == "crash" else SIGTERMException):
        train(compose_train(overrides(tiny_csv, "budget", *stop(STEP, how)), run_dir))
    last = load_checkpoint(run_dir / "checkpoints" / "last.ckpt")
    # a crash resumes from the last checkpoint before its step (every 2 steps, and every round), SIGTERM from
    # its step
    before = max(2 * ((STEP - 1) // 2), 5 * ((STEP - 1) // 5))
    assert last["global_step"] == (STEP if how == "sigterm" else before), f"stopped at step {STEP}"
    resumed = train(compose_train(overrides(tiny_csv, "budget", f"resume={run_dir}"), run_dir))
    assert_same_run(straight, resumed)


def test_epochs_schedule_resumes_mid_epoch(tiny_csv: Path, tmp_path: Path) -> None:
    # 2 epochs of the 31 steps a pass of 251 windows takes at batch 8 (not 5); stopped inside the second one
    extra = ["trainer.max_epochs=2", "train.ckpt_every_steps=7"]
    straight = train(compose_train(overrides(tiny_csv, "epochs", *extra), tmp_path / "straight"))
    epoch = straight["train_windows"] // 8
    assert straight["round_steps"] == epoch > 5 and straight["steps"] == 2 * epoch
    run_dir = tmp_path / "stopped"
    with pytest.raises(RuntimeError):
        train(compose_train(overrides(tiny_csv, "epochs", *extra, *stop(epoch + 10, "crash")), run_dir))
    assert load_checkpoint(run_dir / "checkpoints" / "last.ckpt")["global_step"] == 7 * ((epoch + 9) // 7)
    resumed = train(compose_train(overrides(tiny_csv, "epochs", *extra, f"resume={run_dir}"), run_dir))
    assert_same_run(straight, resumed)


def test_sigkill_at_a_random_moment_then_resume(tiny_csv: Path, straight: dict, tmp_path: Path) -> None:
    """The CLI killed with SIGKILL (no chance to save) resumes from its newest last.ckpt, whole or none."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    args = [*overrides(tiny_csv, "budget", "train.ckpt_every_steps=1"), "threads=1"]
    run_dir = tmp_path / "killed"
    cmd = [sys.executable, "-m", "forecast.cli.train", *args, f"hydra.run.dir={run_dir}"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    last = run_dir / "checkpoints" / "last.ckpt"
    deadline = time.monotonic() + 60
    while not last.is_file() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(random.uniform(0.0, 0.3))
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    if not last.is_file():
        pytest.skip("the run ended before a checkpoint could be killed")
    resumed = train(compose_train(overrides(tiny_csv, "budget", "train.ckpt_every_steps=1", f"resume={run_dir}"),
                                  run_dir))
    assert_same_run(straight, resumed)


@pytest.mark.parametrize("max_steps, rounds, round_steps", [(4, 1, 4), (12, 3, 4), (13, 3, 5)])
def test_max_steps_runs_in_whole_validated_rounds(max_steps: int, rounds: int, round_steps: int, tiny_csv: Path,
                                                  tmp_path: Path) -> None:
    """train.max_steps below, at and between multiples of round_cap (5): the fewest rounds that fit it, of equal
    length, each ending with validation, early stopping on."""
    extra = [f"train.max_steps={max_steps}", "callbacks.early_stopping.patience=3"]
    plan = [p for p in PLAN if not p.startswith("callbacks.early_stopping")]
    metrics = train(compose_train(tiny_run_overrides(tiny_csv, *plan, "train.schedule=budget", *extra), tmp_path))
    assert (metrics["epochs"], metrics["round_steps"], metrics["steps"]) == (rounds, round_steps,
                                                                             rounds * round_steps)
    assert "val/mse" in metrics and metrics["checkpoint"].endswith(".ckpt")
    losses = metrics["val/loss_per_round"]  # one per round, the best of them the checkpoint's
    assert len(losses) == rounds and all(math.isfinite(v) for v in losses)
    if not metrics["kept_start"]:
        assert metrics["val/loss"] == pytest.approx(min(losses), rel=1e-5)
