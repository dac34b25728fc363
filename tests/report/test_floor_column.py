"""The best floor beside every row of the comparison report; runs without floors have an empty cell."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from forecast.report.build import write_report
from forecast.report.collect import load_runs
from tests.report.test_compare import metrics, write_runs


def floors(**test_mse: float) -> dict:
    return {name: {"val/mse": v, "val/mae": v, "test/mse": v, "test/mae": v / 2} for name, v in test_mse.items()}


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "sweep", [
        {**metrics(enc="FullAttention", mse=0.50, seed=1), "floors": floors(naive=1.2, ridge=0.31, mean=0.7)},
        {**metrics(enc="FullAttention", mse=0.60, seed=2), "floors": floors(naive=1.2, ridge=0.33, mean=0.7)},
        {**metrics(enc="ProbSparseAttention", mse=0.40), "floors": floors(naive=0.2, ridge=0.31)},
        metrics(model="WindowMean", enc="none", mse=0.90),  # no floors scored
    ])


def test_each_run_names_its_lowest_floor(sweep: Path) -> None:
    best = {(r.label, r.seed): r.best_floor() for r in load_runs([sweep])}
    assert best == {("FullAttention", 1): ("ridge", 0.31), ("FullAttention", 2): ("ridge", 0.33),
                    ("ProbSparseAttention", 1): ("naive", 0.2), ("WindowMean", 1): None}


def test_markdown_and_csv_show_the_best_floor_beside_every_row(sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    write_report([sweep], out)
    text = (out / "report.md").read_text()
    assert "| test MSE | test MAE | MAE orig | best floor (test MSE) | train s/epoch |" in text
    assert "| FullAttention | 96 | 2 | 0.550 ± 0.071 | 0.275 ± 0.035 | 1.650 ± 0.212 | 0.320 ± 0.014 (ridge) | 10.0" in text
    assert "| **1.200** | 0.200 (naive) | 10.0 |" in text
    assert "| WindowMean | 96 | 1 | 0.900 | 0.450 | 2.700 |  | 10.0 |" in text
    rows = {r["label"]: r for r in csv.DictReader((out / "results.csv").open())}
    assert rows["FullAttention"]["best_floor"] == "ridge"
    assert float(rows["FullAttention"]["best_floor_test/mse"]) == pytest.approx(0.32)
    assert rows["ProbSparseAttention"]["best_floor"] == "naive"
    assert rows["WindowMean"]["best_floor"] == rows["WindowMean"]["best_floor_test/mse"] == ""
    # each floor's own test MSE, the mean over the row's runs; empty where no run scored it
    assert float(rows["FullAttention"]["floor_ridge_test/mse"]) == pytest.approx(0.32)
    assert float(rows["FullAttention"]["floor_mean_test/mse"]) == pytest.approx(0.7)
    assert rows["ProbSparseAttention"]["floor_mean_test/mse"] == ""
    assert rows["WindowMean"]["floor_naive_test/mse"] == ""
