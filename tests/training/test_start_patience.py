"""The closed-form start's patience: a round must beat the start overall and on the later half of the windows."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch
from lightning.pytorch.trainer.states import TrainerFn

from forecast.training import closed_form
from forecast.training.closed_form import ClosedFormStart, process_shards

START = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 1.0])  # the start's per-window MSE; the later half is windows 3-5


def callback(tmp_path: Path) -> ClosedFormStart:
    cb = ClosedFormStart(keep_start=True, checkpoint_dir=tmp_path, start_patience_steps=200)
    cb.start_loss = float(START.mean())
    cb._start_losses = START
    return cb


def round_end(cb: ClosedFormStart, losses: np.ndarray, *, best: float, step: int, epoch: int = 0) -> SimpleNamespace:
    """One round's validation end: ``losses`` the round's per-window MSE, ``best`` early stopping's best after it."""
    trainer = SimpleNamespace(early_stopping_callback=SimpleNamespace(best_score=torch.tensor(best)),
                              callback_metrics={"val/loss": torch.tensor(float(losses.mean()))}, global_step=step,
                              current_epoch=epoch, sanity_checking=False, should_stop=False,
                              state=SimpleNamespace(fn=TrainerFn.FITTING), world_size=1)
    cb.on_validation_end(trainer, SimpleNamespace(window_losses=lambda: losses))
    return trainer


def test_a_round_ahead_only_on_the_earlier_windows_does_not_hold_off_the_stop(tmp_path: Path,
                                                                              caplog: pytest.LogCaptureFixture) -> None:
    cb = callback(tmp_path)
    losses = np.array([0.7, 0.7, 0.7, 1.0, 1.0, 1.1])  # 15% lower overall, 3.3% higher on the later half
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert not round_end(cb, losses, best=float(losses.mean()), step=250).should_stop  # one more round
        assert not cb.start_beaten
        no_better = losses + 0.01  # not a new best: the stop the previous round was spared
        assert round_end(cb, no_better, best=float(losses.mean()), step=500, epoch=1).should_stop
    assert ("round 1 leads the closed-form start on val/loss (0.8667 against 1.0000) but not on the later half of "
            "the windows (-3.3%)") in caplog.text
    assert ("training stops after round 2: no round beat the closed-form start on the later half of the windows "
            "(1.0000; this round 0.8767)") in caplog.text


def test_each_new_best_ahead_only_early_earns_one_more_round(tmp_path: Path) -> None:
    cb = callback(tmp_path)
    first = np.array([0.7, 0.7, 0.7, 1.0, 1.0, 1.1])
    assert not round_end(cb, first, best=float(first.mean()), step=250).should_stop
    second = np.array([0.6, 0.6, 0.6, 1.0, 1.0, 1.05])  # better overall, still behind on the later half
    assert not round_end(cb, second, best=float(second.mean()), step=500, epoch=1).should_stop
    third = np.array([0.6, 0.6, 0.6, 0.9, 0.9, 0.9])  # ahead on the later half: the start is beaten
    assert not round_end(cb, third, best=float(third.mean()), step=750, epoch=2).should_stop
    assert cb.start_beaten


def test_a_round_ahead_on_the_later_half_lets_training_go_on(tmp_path: Path) -> None:
    cb = callback(tmp_path)
    ahead = np.array([1.0, 1.0, 1.0, 0.8, 0.8, 0.8])
    assert not round_end(cb, ahead, best=float(ahead.mean()), step=250).should_stop
    assert cb.start_beaten
    behind = np.full(6, 1.2)  # a later round behind everything: early stopping's patience decides, not this rule
    assert not round_end(cb, behind, best=float(ahead.mean()), step=500, epoch=1).should_stop
    restored = callback(tmp_path)
    restored.load_state_dict(cb.state_dict())  # a resumed run knows the start was beaten
    assert restored.start_beaten


def test_before_the_patience_steps_a_round_ahead_only_early_is_one_more_round(tmp_path: Path) -> None:
    cb = callback(tmp_path)
    early = np.array([0.5, 0.5, 0.5, 1.0, 1.0, 1.0])
    assert not round_end(cb, early, best=float(early.mean()), step=56).should_stop
    assert not cb.start_beaten
    assert round_end(cb, early + 0.01, best=float(early.mean()), step=224, epoch=3).should_stop


def test_a_round_behind_the_start_stops_as_before(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    cb = callback(tmp_path)
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert round_end(cb, START * 1.1, best=1.0, step=266).should_stop
    assert "no round beat the closed-form start on val/loss (1.0000; this round 1.1000)" in caplog.text


def test_process_shards_puts_every_processs_windows_back_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    windows = np.arange(7, dtype=np.float64)  # process r of 2 scored windows r, r + 2, ... (unpadded)

    def gather(parts: list, local: np.ndarray) -> None:
        parts[:] = [windows[0::2], windows[1::2]]

    monkeypatch.setattr(closed_form.torch.distributed, "all_gather_object", gather)
    np.testing.assert_array_equal(process_shards(SimpleNamespace(world_size=2), windows[1::2]), windows)
    np.testing.assert_array_equal(process_shards(SimpleNamespace(world_size=1), windows), windows)


@pytest.mark.slow
def test_under_ddp_the_processes_windows_weigh_the_round_as_one_process_does(tmp_path: Path) -> None:
    """Two processes each score half of a round's windows; gathered back in order they give the one-process
    decision: a cycle the floors miss, learnt in round 1, holds training on past start_patience_steps."""
    import json
    import os
    import subprocess
    import sys

    import pandas as pd

    from forecast.runtime import PROJECT_ROOT
    from forecast.training.pipeline import train
    from tests.conftest import compose_train, tiny_run_overrides

    t = np.arange(1000)
    values = np.sin(2 * np.pi * t / 10) * (1 + 0.5 * np.sin(2 * np.pi * t / 97))
    values = values + 0.1 * np.random.default_rng(0).normal(size=len(t))
    csv = tmp_path / "cycle.csv"
    pd.DataFrame({"date": pd.date_range("2020-01-01", periods=len(t), freq="h"), "OT": values}).to_csv(csv, index=False)
    overrides = [o for o in tiny_run_overrides(csv) if not o.startswith("data.features")] + [
        "data.features=S", "trainer.max_epochs=2", "trainer.limit_train_batches=10", "task.optimizer.lr=1e-2",
        "model.floor.ridge.alpha=1e6", "start_patience_steps=5", "threads=1"]
    one = train(compose_train(overrides, tmp_path / "one"))
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.train", *overrides, "trainer=ddp_sim",
                           f"hydra.run.dir={tmp_path / 'two'}"], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    two = json.loads((tmp_path / "two" / "metrics.json").read_text())
    assert one["epochs"] == two["epochs"] == 2  # round 1 beat the start on the later half too, in both
    assert one["keep"]["decision"] == two["keep"]["decision"] == "trained"
