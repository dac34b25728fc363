"""``studies/ridge_lookback.py``: the scan reproduces the ridge-floor model's own validation and test MSE."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from forecast.training.pipeline import train
from tests.conftest import compose_train

SCRIPT = Path(__file__).resolve().parents[2] / "studies" / "ridge_lookback.py"


def run_scan(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_scan_equals_the_linear_baseline_run(small_csv: Path, tmp_path: Path) -> None:
    out = tmp_path / "scan.csv"
    proc = run_scan("--data", str(small_csv), "--horizons", "6", "--lookbacks", "12", "24", "--alphas", "1", "100",
                    "--ratios", "0.7", "0.1", "0.2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_csv(out)
    assert list(zip(table.seq_len, table.alpha)) == [(12, 1.0), (12, 100.0), (24, 1.0), (24, 100.0)]
    assert set(table.test_windows) == {200 - 6 + 1}  # same test windows whatever the look-back
    run = train(compose_train(["data=csv", f"data.path={small_csv}", "data.target=OT", "data.seq_len=24", "data.label_len=12",
                               "data.pred_len=6", "model=linear", "model.alpha=100", "model.choose_below=null",
                               "logger=none", "plot=false",
                               "trainer.enable_progress_bar=false", "trainer.enable_model_summary=false"],
                              tmp_path / "run"))
    row = table[(table.seq_len == 24) & (table.alpha == 100.0)].iloc[0]
    assert row.val_mse == pytest.approx(run["val/mse"], rel=1e-5)
    assert row.test_mse == pytest.approx(run["test/mse"], rel=1e-5)


def test_missing_file_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    out = tmp_path / "scan.csv"
    proc = run_scan("--data", str(tmp_path / "nope.csv"), "--horizons", "6", "--lookbacks", "12", "--out", str(out))
    assert proc.returncode == 2 and not out.exists()
    assert proc.stderr.count("\n") == 1 and "nope.csv" in proc.stderr
