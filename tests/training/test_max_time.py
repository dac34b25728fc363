"""trainer.max_time: a wall-clock limit ends training inside a round, which validates where it stopped."""

from __future__ import annotations

import itertools
import json
import types
from pathlib import Path

import lightning.pytorch.callbacks.timer as lightning_timer
import pytest

from forecast.training.pipeline import train
from tests.conftest import compose_train, tiny_run_overrides


def stop_lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if "trainer.max_time" in r.getMessage()]


def test_a_time_limit_ends_the_round_where_it_is_validated_and_says_so(small_csv: Path, tmp_path: Path,
                                                                       caplog: pytest.LogCaptureFixture,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    clock = itertools.count(0.0, 1.0)  # Lightning's timer reads one second more at every look
    monkeypatch.setattr(lightning_timer, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    overrides = tiny_run_overrides(small_csv, "trainer.max_time=00:00:00:03", "keep_start=false",
                                   "start_patience_steps=null")
    with caplog.at_level("INFO", logger="forecast"):
        metrics = train(compose_train(overrides, tmp_path))
    assert 1 <= metrics["steps"] < 5 and metrics["epochs"] == 1  # inside round 1 of 5 steps
    assert len(metrics["val/loss_per_round"]) == 1  # the cut round validated
    steps = metrics["steps"]
    assert [line.split(" (")[0] for line in stop_lines(caplog)] == [
        f"training stops at step {steps}: trainer.max_time reached"]
    assert json.loads((tmp_path / "metrics.json").read_text())["steps"] == steps


def test_a_spent_limit_trains_nothing_and_keeps_the_start(small_csv: Path, tmp_path: Path,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="forecast"):
        metrics = train(compose_train(tiny_run_overrides(small_csv, "trainer.max_time=00:00:00:00"), tmp_path))
    assert metrics["steps"] == 0 and metrics["kept_start"] is True
    assert [line.split(" (")[0] for line in stop_lines(caplog)] == ["training stops at step 0: trainer.max_time reached"]


def test_without_a_time_limit_the_rounds_run_and_nothing_is_said(small_csv: Path, tmp_path: Path,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level("INFO", logger="forecast"):
        metrics = train(compose_train(tiny_run_overrides(small_csv, "keep_start=false",
                                                         "start_patience_steps=null"), tmp_path))
    assert metrics["steps"] == 10  # 2 rounds of 5 steps (tiny_run_overrides)
    assert stop_lines(caplog) == []
