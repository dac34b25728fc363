"""The budget: planned steps bounded by max_steps or rounds (none when either is 0), rounds of a wide file."""

import logging
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from forecast.data.errors import DataError
from forecast.training.budget import TrainPlan, planned_steps
from forecast.training.pipeline import train
from tests.conftest import compose_train, tiny_run_overrides


@pytest.mark.parametrize(("max_steps", "max_epochs", "round_steps", "expected"), [
    (-1, 6, 266, 1596),        # rounds x steps a round
    (500, 6, 266, 500),        # max_steps is the tighter bound
    (-1, -1, 266, None),       # neither bounds the fit
    (-1, 0, 266, 0),           # trainer.max_epochs=0: the closed-form start alone, no step
    (0, 6, 266, 0),
    (-1, 3, float("inf"), None),
])
def test_planned_steps(max_steps: int, max_epochs: int, round_steps: float, expected: int | None) -> None:
    trainer = SimpleNamespace(max_steps=max_steps, max_epochs=max_epochs)
    assert planned_steps(trainer, round_steps) == expected


@pytest.mark.parametrize(("channels", "expected"), [
    (1, 500), (7, 500), (64, 500),   # files up to round_channels keep round_cap
    (100, 320),                      # 500 x 64 / 100
    (160, 200), (862, 200),          # not under round_min
    (100_000, 200),
])
def test_a_wider_file_trains_shorter_rounds(channels: int, expected: int) -> None:
    assert TrainPlan().cap_for(channels) == expected


def test_the_width_scaling_keeps_a_smaller_cap_and_can_be_turned_off() -> None:
    assert TrainPlan(round_cap=5).cap_for(862) == 5         # a cap under round_min is not raised
    assert TrainPlan(round_channels=None).cap_for(862) == 500


def test_round_channels_must_be_positive() -> None:
    with pytest.raises(DataError, match=r"^train\.round_channels must be at least 1, got 0; "
                                        r"set train\.round_channels=<a positive integer>$"):
        TrainPlan(round_channels=0)


def test_a_run_on_a_file_wider_than_round_channels_trains_the_scaled_rounds(
        small_csv: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """ETTh1's 7 channels against round_channels 2: rounds of ceil(40 x 2 / 7) = 12 steps, not its pass of 42."""
    torch.set_num_threads(1)
    overrides = tiny_run_overrides(small_csv, "train.round_cap=40", "train.round_min=10", "train.round_channels=2",
                                   "trainer.max_epochs=1", "trainer.limit_train_batches=null", model="dlinear")
    with caplog.at_level(logging.INFO, logger="forecast"):
        metrics = train(compose_train(overrides, tmp_path / "run"))
    assert metrics["round_steps"] == 12 and metrics["steps"] == 12
    assert ("7 input channels: rounds of at most 12 steps (train.round_cap 40 x train.round_channels 2 / 7, at least "
            "train.round_min)") in caplog.messages
