"""RelativeEarlyStopping: a round is an improvement only when it gains a share of the best score."""

from __future__ import annotations

import logging
from pathlib import Path

import lightning as L
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from forecast.api import train as api_train
from forecast.core.errors import ConfigError
from forecast.data.errors import DataError
from forecast.training.stopping import RelativeEarlyStopping


class ScriptedLoss(L.LightningModule):
    """Reports the next of ``losses`` as ``val/loss`` at each validation."""

    def __init__(self, losses: list[float]) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))
        self.losses = losses

    def training_step(self, batch, batch_idx):
        return (self.weight * batch[0]).sum()

    def validation_step(self, batch, batch_idx):
        self.log("val/loss", self.losses[self.current_epoch])

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.0)


class StartAt(L.Callback):
    """Gives early stopping a start to beat before the first round, as the closed-form start does."""

    def __init__(self, stopping: RelativeEarlyStopping, score: float) -> None:
        self.stopping, self.score = stopping, score

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.global_step == 0:  # a resumed run restores its own
            self.stopping.best_score = torch.tensor(self.score)


def rounds(losses: list[float], patience: int = 2, start: float | None = None, max_epochs: int | None = None,
           ckpt_path: str | None = None, save_to: str | None = None, **kwargs) -> tuple[int, float]:
    """The rounds trained before early stopping and its best score (``start``: the score to beat first;
    ``save_to``: write a checkpoint there at the end; ``ckpt_path``: resume from one)."""
    stopping = RelativeEarlyStopping(monitor="val/loss", mode="min", patience=patience, **kwargs)
    data = DataLoader(TensorDataset(torch.ones(2, 1)), batch_size=2)
    callbacks = [stopping] if start is None else [stopping, StartAt(stopping, start)]
    trainer = L.Trainer(max_epochs=max_epochs or len(losses), callbacks=callbacks, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, accelerator="cpu", devices=1)
    trainer.fit(ScriptedLoss(losses), data, data, ckpt_path=ckpt_path)
    if save_to is not None:
        trainer.save_checkpoint(save_to)
    return trainer.current_epoch, float(stopping.best_score)


@pytest.mark.parametrize(("min_gain", "expected"), [(0.0, (6, 0.986)), (0.01, (3, 1.0))])
def test_gains_under_the_share_do_not_reset_the_patience(min_gain: float, expected: tuple[int, float]) -> None:
    """0.2-0.5% a round: each an improvement at 0; at 1% none is, so two rounds stop training after round 3."""
    n, best = rounds([1.0, 0.995, 0.992, 0.99, 0.988, 0.986], min_gain=min_gain)
    assert (n, best) == (expected[0], pytest.approx(expected[1]))


def test_a_gain_of_the_share_resets_the_patience_and_small_ones_after_it_do_not() -> None:
    n, best = rounds([1.0, 0.98, 0.979, 0.978, 0.95], min_gain=0.01)
    assert (n, best) == (4, pytest.approx(0.98))
    assert rounds([1.0, 0.98, 0.979, 0.978, 0.95], min_gain=0.0) == (5, pytest.approx(0.95))


def test_the_absolute_threshold_still_applies() -> None:
    assert rounds([1.0, 0.9, 0.85, 0.84], min_gain=0.0, min_delta=0.2) == (3, pytest.approx(1.0))


def test_min_gain_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"^min_gain must be in \[0, 1\), got 1.5$"):
        RelativeEarlyStopping(monitor="val/loss", min_gain=1.5)
    with pytest.raises(ConfigError, match=r"^patience must be 0 or more, got -1$"):
        RelativeEarlyStopping(monitor="val/loss", patience=-1)


def test_running_out_of_patience_is_said_in_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert rounds([1.0, 0.9, 0.897, 0.8], patience=1, min_gain=0.005) == (3, pytest.approx(0.9))
    assert [r.getMessage() for r in caplog.records if r.name == "forecast"] == [
        "training stops after round 3: 1 round without beating the best val/loss so far (0.9000) by 0.5% of it "
        "(callbacks.early_stopping.patience=1)"]


def test_the_stop_line_names_no_share_where_any_gain_counts(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert rounds([1.0, 0.9, 0.95, 0.91], patience=2) == (4, pytest.approx(0.9))
    assert [r.getMessage() for r in caplog.records if r.name == "forecast"] == [
        "training stops after round 4: 2 rounds without beating the best val/loss so far (0.9000) "
        "(callbacks.early_stopping.patience=2)"]


def test_the_stop_line_names_the_start_while_no_round_has_beaten_it(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert rounds([1.0, 0.7], patience=1, start=0.8, min_gain=0.005) == (1, pytest.approx(0.8))
        assert rounds([0.7, 0.71], patience=1, start=0.8, min_gain=0.005) == (2, pytest.approx(0.7))
    assert [r.getMessage() for r in caplog.records if r.name == "forecast"] == [
        "training stops after round 1: 1 round without beating the best val/loss so far (0.8000, the closed-form "
        "start) by 0.5% of it (callbacks.early_stopping.patience=1)",
        "training stops after round 2: 1 round without beating the best val/loss so far (0.7000) by 0.5% of it "
        "(callbacks.early_stopping.patience=1)"]


def test_a_resumed_run_still_names_the_start(tmp_path, caplog: pytest.LogCaptureFixture) -> None:
    ckpt = str(tmp_path / "round1.ckpt")
    assert rounds([0.9, 0.95], patience=2, start=0.8, max_epochs=1, save_to=ckpt, min_gain=0.005) == (1, pytest.approx(0.8))
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert rounds([0.9, 0.95], patience=2, start=0.8, ckpt_path=ckpt, min_gain=0.005) == (2, pytest.approx(0.8))
    assert [r.getMessage() for r in caplog.records if r.name == "forecast"] == [
        "training stops after round 2: 2 rounds without beating the best val/loss so far (0.8000, the closed-form "
        "start) by 0.5% of it (callbacks.early_stopping.patience=2)"]


def test_a_run_that_ends_with_patience_left_says_nothing(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="forecast"):
        assert rounds([1.0, 0.9, 0.897], patience=2, min_gain=0.005) == (3, pytest.approx(0.9))
    assert [r for r in caplog.records if r.name == "forecast"] == []


BAD_STOPPING_SETTINGS = [
    ("round_patience=null", "round_patience must be an int of 0 or more, got None"),
    ("round_patience=-1", "round_patience must be an int of 0 or more, got -1"),
    ("round_patience=1.5", "round_patience must be an int of 0 or more, got 1.5"),
    ("callbacks.early_stopping.patience=two", "callbacks.early_stopping.patience must be an int, got 'two'"),
    ("callbacks.early_stopping.patience=-1", "callbacks.early_stopping.patience must be 0 or more, got -1"),
    ("callbacks.early_stopping.min_gain=big", "callbacks.early_stopping.min_gain must be a number, got 'big'"),
    ("callbacks.early_stopping.min_gain=1.5", "callbacks.early_stopping.min_gain must be in [0, 1), got 1.5"),
    ("callbacks.weight_average.span=0", "callbacks.weight_average.span must be positive, got 0")]


@pytest.mark.parametrize(("override", "message"), BAD_STOPPING_SETTINGS)
def test_a_bad_early_stopping_setting_is_one_line_and_no_run_dir(small_csv: Path, tmp_path: Path, override: str,
                                                                 message: str) -> None:
    run_dir = tmp_path / "run"
    with pytest.raises(DataError) as caught:
        api_train(small_csv, ["data.target=OT", override], run_dir=run_dir)
    assert str(caught.value) == f"{message}; change that setting and run again"
    assert not run_dir.exists()
