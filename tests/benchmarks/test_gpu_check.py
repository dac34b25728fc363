"""benchmarks/gpu_check.py's bookkeeping: job order, result rows, the summary tables (no training here)."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import pytest

from forecast.runtime import PROJECT_ROOT

spec = importlib.util.spec_from_file_location("gpu_check", PROJECT_ROOT / "benchmarks" / "gpu_check.py")
gpu_check = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gpu_check)


def args(**kw) -> argparse.Namespace:
    base = dict(seeds=3, tiny=False, threads=2, device="cuda")
    return argparse.Namespace(**{**base, **kw})


def test_jobs_go_seed_by_seed_with_both_precisions_and_the_gpu(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_check, "etth2_path", lambda: tmp_path / "ETTh2.csv")
    jobs = gpu_check.train_jobs(args(), tmp_path)
    assert len(jobs) == 3 * 2 * 2 * 2  # seeds x data x models x precisions
    assert [j["seed"] for j in jobs] == sorted(j["seed"] for j in jobs)  # a budget cut leaves whole seeds
    first = jobs[0]["overrides"]
    assert "trainer.accelerator=gpu" in first and "seed=1" in first and "trainer.precision=32-true" in first
    assert f"data.path={tmp_path / 'ETTh2.csv'}" in next(j for j in jobs if j["data"] == "ETTh2")["overrides"]


def test_without_etth2_only_etth1_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture) -> None:
    monkeypatch.setattr(gpu_check, "etth2_path", lambda: None)
    jobs = gpu_check.train_jobs(args(seeds=1), tmp_path)
    assert {j["data"] for j in jobs} == {"ETTh1"} and len(jobs) == 4
    assert "ETTh2.csv not found" in capsys.readouterr().out


def test_rows_and_summary_put_each_precision_beside_the_best_floor() -> None:
    metrics = {"test/mse": 0.30, "test/mae": 0.35, "val/mse": 0.4, "epochs": 6, "precision": "bf16-mixed",
               "floors": {"naive": {"test/mse": 1.2}, "ridge": {"test/mse": 0.31}}}
    rows = []
    for seed, (fp32, bf16) in enumerate([(0.30, 0.31), (0.32, 0.33)], start=1):
        for precision, mse in (("32-true", fp32), ("bf16-mixed", bf16)):
            job = {"data": "ETTh1", "model": "default", "seed": seed, "precision": precision}
            rows.append(gpu_check.result_row(job, "ok", {**metrics, "test/mse": mse}, 12.0))
    rows.append(gpu_check.result_row({"data": "ETTh1", "model": "informer", "seed": 1, "precision": "32-true"},
                                     "not run: time budget", None))
    assert rows[0]["best_floor"] == "ridge" and rows[0]["best_floor_test_mse"] == 0.31
    table = "\n".join(gpu_check.accuracy_summary(rows))
    assert "| ETTh1 | default | 0.3100 ± 0.0141 (n=2) | 0.3200 ± 0.0141 (n=2) | +0.0100 | ridge 0.3100 |" in table
    assert "| ETTh1 | informer | none | none | - | ridge 0.3100 |" in table


def test_bench_summary_gives_median_spread_and_the_ratio() -> None:
    rows = [{"config": "small", "precision": p, "status": "ok", "step_s_median": s, "infer_s_per_batch": 0.01}
            for p, s in (("32-true", 0.10), ("32-true", 0.12), ("32-true", 0.11),
                         ("bf16-mixed", 0.05), ("bf16-mixed", 0.07), ("bf16-mixed", 0.06))]
    table = "\n".join(gpu_check.bench_summary(rows))
    assert "| small | 32-true | 0.1100 | 0.0200 | 0.0100 | 3 |" in table
    assert "small: bf16-mixed step / fp32 step = 0.55" in table
    assert "| paper_default | 32-true | failed | | | 0 |" in table
