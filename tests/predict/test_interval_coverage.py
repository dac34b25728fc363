"""Rolling-backtest intervals on a generated series whose errors are exchangeable: the window-mean floor run as
the model (closed form, no training) on white noise, so the validation and test errors share one distribution."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import forecast
from tests.predict.tiny import predict

ROWS, SEQ_LEN, PRED_LEN = 2000, 24, 6


@pytest.fixture(scope="module")
def noise_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("noise")
    rng = np.random.default_rng(11)
    frame = pd.DataFrame({"date": pd.date_range("2020-01-01", periods=ROWS, freq="h").strftime("%Y-%m-%d %H:%M:%S"),
                          "load": 50 + 4 * rng.standard_t(5, ROWS), "OT": 20 + rng.normal(0, 1, ROWS)})
    csv = root / "noise.csv"
    frame.to_csv(csv, index=False)
    forecast.train(csv, ["data.target=OT", f"data.seq_len={SEQ_LEN}", "data.label_len=12", f"data.pred_len={PRED_LEN}",
                         "model=mean", "logger=none", "plot=false", "trainer.enable_progress_bar=false",
                         "trainer.enable_model_summary=false", "callbacks.lr_monitor=null"], run_dir=root / "run")
    return root / "run", csv


def test_coverage_is_nominal_on_exchangeable_errors(noise_run: tuple[Path, Path], tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    """Split (untracked) and tracked intervals both cover within sampling error of the level; the floors'
    window-mean intervals are the model's own (the model is that floor, calibrated the same way)."""
    run, csv = noise_run
    out = tmp_path / "bt.csv"
    code, _, err = predict(capsys, run, csv, "--rolling", "--span", "test", "-o", out, "--intervals", "0.8", "0.95")
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    n_test = summary["windows"] * 2  # actuals per step: windows x 2 columns
    for level in ("80", "95"):
        a = int(level) / 100
        got = summary["intervals"][level]
        assert abs(got["coverage"] - a) < 3 * math.sqrt(a * (1 - a) / n_test), got["coverage"]
        # the split interval also varies with its calibration draw
        calib = forecast.load(run).trained.conformal["n"] * 2
        assert abs(got["split"]["coverage"] - a) < 3 * math.sqrt(a * (1 - a) * (1 / n_test + 1 / calib)), got["split"]
        floor = got["floors"]["naive_mean"]
        assert floor["coverage"] == pytest.approx(got["coverage"], abs=1e-3)
        assert floor["width"] == pytest.approx(got["width"], rel=1e-6)
        assert floor["interval_score"] == pytest.approx(got["interval_score"], rel=1e-6)
