"""``forecast-train -m``: a job that fails on a user error is listed, the sweep goes on and exits with status 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import tiny_run_overrides

NYSTROM_IN_DECODER = (
    "attention backend NystromAttention cannot be used for decoder self-attention: it is not causal (its output "
    "at step t depends on later steps); use full, prob, local or linear there instead "
    "(e.g. attention@decoder_attention=full)")


def sweep(csv: Path, sweep_dir: Path, *extra: str) -> subprocess.CompletedProcess:
    args = ["-m", *tiny_run_overrides(csv, "trainer.fast_dev_run=true"), f"hydra.sweep.dir={sweep_dir}", *extra]
    return subprocess.run([sys.executable, "-m", "forecast.cli.train", *args], cwd=sweep_dir.parent,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("launcher", [[], ["hydra/launcher=joblib", "hydra.launcher.n_jobs=2"]],
                         ids=["basic", "joblib"])
def test_a_failing_job_is_listed_and_the_sweep_runs_the_rest(launcher: list[str], small_csv: Path,
                                                             tmp_path: Path) -> None:
    sweep_dir = tmp_path / "sweep"
    proc = sweep(small_csv, sweep_dir, "attention=nystrom,full", *launcher)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
    assert errors[-1] == (f"error: 1 job(s) of the sweep failed (listed in {sweep_dir / 'failed_jobs.jsonl'}); "
                          f"the other jobs' results are in {sweep_dir}")
    assert errors[0].startswith("error: job 0 (") and errors[0].endswith(f"): {NYSTROM_IN_DECODER}")
    assert len(errors) == 2
    # the failed job leaves no run dir; the job after it ran
    assert not (sweep_dir / "0").exists()
    assert json.loads((sweep_dir / "1" / "metrics.json").read_text())["encoder_attention"] == "FullAttention"
    [entry] = [json.loads(line) for line in (sweep_dir / "failed_jobs.jsonl").read_text().splitlines()]
    assert entry["job"] == 0 and entry["error"] == NYSTROM_IN_DECODER and "attention=nystrom" in entry["overrides"]

    report = subprocess.run([sys.executable, "-m", "forecast.cli.compare", str(sweep_dir),
                             "--out", str(tmp_path / "report")], capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    assert "## Jobs that failed" in text
    assert f"- `{sweep_dir}` job 0: `{' '.join(entry['overrides'])}`: {NYSTROM_IN_DECODER}" in text


def test_a_sweep_where_every_job_runs_exits_0_and_lists_nothing(small_csv: Path, tmp_path: Path) -> None:
    sweep_dir = tmp_path / "sweep"
    sweep_dir.mkdir()
    (sweep_dir / "failed_jobs.jsonl").write_text('{"job": 0, "overrides": [], "error": "from an earlier sweep"}\n')
    proc = sweep(small_csv, sweep_dir, "attention=full,linear")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not (sweep_dir / "failed_jobs.jsonl").exists()  # a sweep lists its own failures only
    assert sorted(p.name for p in sweep_dir.glob("*/metrics.json")) == ["metrics.json"] * 2
