"""The keep rule through a training run, on generated series whose answer is known (a tiny default model)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.training.pipeline import train
from forecast.training.recipe import load_checkpoint
from tests.conftest import compose_train, tiny_run_overrides

N_ROWS = 1000
TRAINING = ["data.features=S", "trainer.max_epochs=2", "trainer.limit_train_batches=10", "task.optimizer.lr=1e-2"]


def series_csv(path: Path, values: np.ndarray) -> Path:
    dates = pd.date_range("2020-01-01", periods=len(values), freq="h")
    pd.DataFrame({"date": dates, "OT": values}).to_csv(path, index=False)
    return path


def run(csv: Path, out: Path, *extra: str) -> dict:
    overrides = [o for o in tiny_run_overrides(csv) if not o.startswith("data.features")]
    return train(compose_train([*overrides, *TRAINING, *extra], out))


def test_on_a_random_walk_the_floor_is_kept(tmp_path: Path) -> None:
    walk = np.cumsum(np.random.default_rng(0).normal(size=N_ROWS))
    metrics = run(series_csv(tmp_path / "walk.csv", walk), tmp_path / "run")
    chosen = metrics["floor_choice"]["chosen"]
    assert chosen == "naive"  # nothing beats repeating the last value with evidence
    assert metrics["kept_start"] and metrics["keep"]["decision"] == "start"
    assert Path(metrics["checkpoint"]).name == "start.ckpt"
    assert metrics["test/mse"] == pytest.approx(metrics["floors"][chosen]["test/mse"], rel=1e-5)
    assert metrics["val/mse"] == pytest.approx(metrics["start/val_loss"], rel=1e-6)  # the start, not an average
    keep = metrics["keep"]
    if "gain" in keep:  # an epoch did beat the start on validation; the rule found it no evidence
        assert keep["p_value"] >= keep["alpha"] or keep["later_gain"] <= 0
        assert keep["reason"].startswith("kept the start over the trained model")


def test_a_validation_span_of_one_window_keeps_the_start(tmp_path: Path) -> None:
    """20 yearly rows, look-back 4, horizon 2: validation holds one window, which no test can weigh (the run once
    stopped on it: ``need per-window losses of shape (W,) with W >= 2``)."""
    rng = np.random.default_rng(0)
    csv = tmp_path / "short.csv"
    pd.DataFrame({"date": pd.date_range("2000-01-01", periods=20, freq="YS"), "OT": np.cumsum(rng.normal(size=20)),
                  "x": rng.normal(size=20)}).to_csv(csv, index=False)
    overrides = [o for o in tiny_run_overrides(csv) if not o.startswith(("data.seq_len", "data.label_len",
                                                                         "data.pred_len"))]
    metrics = train(compose_train([*overrides, "data.seq_len=4", "data.label_len=2", "data.pred_len=2"],
                                  tmp_path / "run"))
    # nothing weighed on any span: the floor of lowest MSE on the widest (a random walk's last value), kept
    choice = metrics["floor_choice"]
    assert choice["by_lowest_mse_on"] == "held-out training and validation" and metrics["kept_start"]
    assert choice["chosen"] == "naive"
    first = choice["comparisons"][0]
    assert (first["incumbent"], first["windows"], first["p_value"], first["replace"]) == ("ridge", 1, 1.0, False)


def test_structure_the_floors_miss_keeps_the_trained_model(tmp_path: Path) -> None:
    # a 10-step cycle whose amplitude drifts over 97 steps: no daily season, and the ridge is held
    # back to (almost) the last value by alpha 1e6, so the floors miss the cycle and the residual learns it
    t = np.arange(N_ROWS)
    cycle = np.sin(2 * np.pi * t / 10) * (1 + 0.5 * np.sin(2 * np.pi * t / 97))
    values = cycle + 0.1 * np.random.default_rng(0).normal(size=N_ROWS)
    metrics = run(series_csv(tmp_path / "cycle.csv", values), tmp_path / "run", "model.floor.ridge.alpha=1e6")
    keep = metrics["keep"]
    assert not metrics["kept_start"] and keep["decision"] == "trained"
    assert keep["p_value"] < keep["alpha"] and keep["gain"] > 0.2 and keep["later_gain"] > 0
    assert keep["reason"].startswith("the trained model replaces the start")
    assert metrics["epochs"] == 2  # round 1 beat the start, so start_patience_steps did not end training there
    # validated and tested as the best round's weight average, the number that round logged; the last step's
    # weights ride in the checkpoint beside it
    assert metrics["val/mse"] == pytest.approx(min(metrics["val/loss_per_round"]), rel=1e-5)
    assert "current_model_state" in load_checkpoint(metrics["checkpoint"])
    start_test = metrics["floors"][metrics["floor_choice"]["chosen"]]["test/mse"]
    assert metrics["test/mse"] < 0.8 * start_test


@pytest.mark.parametrize(("patience_steps", "rounds"), [("null", 2), ("10", 1), ("15", 2)])
def test_early_stopping_counts_from_the_start(tmp_path: Path, patience_steps: str, rounds: int) -> None:
    """While no round has beaten the closed-form start, the first round to end after `start_patience_steps`
    steps stops training (rounds of 10 steps here); without it, `patience` rounds that do not beat the start
    do, not `patience` rounds without beating the best trained one."""
    walk = np.cumsum(np.random.default_rng(0).normal(size=N_ROWS))
    metrics = run(series_csv(tmp_path / "walk.csv", walk), tmp_path / "run", "trainer.max_epochs=6",
                  "callbacks.early_stopping.patience=2", "task.optimizer.lr=5e-2",
                  f"start_patience_steps={patience_steps}", "trainer.accelerator=cpu")  # CPU sums
    assert metrics["keep"]["reason"] == "no epoch beat the start on val/loss"
    assert metrics["epochs"] == rounds and metrics["steps"] == 10 * rounds
