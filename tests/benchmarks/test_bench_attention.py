"""``benchmarks/bench_attention.py`` end to end, as a subprocess on tiny sizes."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_attention.py"
COLUMNS = ["backend", "length", "mode", "device", "time_ms", "peak_mb", "status", "threads", "batch",
           "heads", "head_dim", "dtype", "causal", "allocator", "mem_method", "runs", "detail"]
TINY = ["--repeats", "2", "--batch", "1", "--heads", "2", "--head-dim", "8", "--min-block-s", "0.005"]


def run_bench(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def read_rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    with path.open(newline="") as fh:
        reader = csv.DictReader(fh)
        return list(reader.fieldnames or []), list(reader)


def test_tiny_sweep_writes_csv_plot_and_summary(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    proc = run_bench("--lengths", "64", "128", "--backends", "full", "prob", "dense", *TINY,
                     "--out", str(out), "--summary", str(tmp_path / "summary.md"))
    header, rows = read_rows(out)
    assert header == COLUMNS
    keys = [(r["backend"], int(r["length"]), r["mode"]) for r in rows]
    expected = {(b, n, m) for b in ("full", "prob", "dense") for n in (64, 128) for m in ("fwd", "fwdbwd")}
    assert sorted(keys) == sorted(expected)  # exactly one row each
    for r in rows:
        assert r["status"] == "ok", r
        assert float(r["time_ms"]) > 0 and float(r["peak_mb"]) >= 0
        assert (r["device"], r["threads"], r["heads"], r["head_dim"]) == ("cpu", "1", "2", "8")
        assert r["allocator"].startswith("glibc-mmap/trim=")
    png = out.with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = (tmp_path / "summary.md").read_text()
    assert "| backend | L=64 | L=128 |" in summary and "| prob |" in summary
    assert "1 thread" in proc.stdout
    assert not list(tmp_path.glob(".*.tmp"))  # atomic writes leave no temp files


def test_impossible_memory_budget_is_a_status_not_a_crash(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    run_bench("--lengths", "1024", "2048", "--backends", "dense", "--modes", "fwd", *TINY,
              "--max-mb", "1", "--out", str(out))
    _, rows = read_rows(out)
    assert [(r["length"], r["status"]) for r in rows] == [("1024", "oom"), ("2048", "skipped")]
    assert all(r["time_ms"] == "" and r["peak_mb"] == "" for r in rows)
    assert out.with_suffix(".png").exists()
