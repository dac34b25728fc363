"""``benchmarks/plot_lengths.py``: the length table names each cell's status and the step's growth exponent."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "plot_lengths.py"


def result(backend: str, steps: dict[int, float | str]) -> dict:
    runs = []
    for n, step in steps.items():
        if isinstance(step, str):
            runs.append({"seq_len": n, "status": step})
        else:
            runs.append({"seq_len": n, "status": "ok", "step_s_median": step, "infer_s_per_batch": step / 4,
                         "peak_memory_mb": 1024.0 * n / 720})
    return {"overrides": ["experiment=bench_long", f"attention@encoder_attention={backend}"], "runs": runs}


def test_table_has_cells_statuses_and_growth_exponents(tmp_path: Path) -> None:
    # linear: the step doubles per doubling (exponent 1); quadratic: x4 per doubling until it runs out of memory.
    paths = []
    for backend, steps in (("linear", {720: 1.0, 1440: 2.0, 2880: 4.0}),
                           ("full", {720: 1.0, 1440: 4.0, 2880: "oom"}),
                           ("prob", {720: 1.0})):
        paths.append(tmp_path / f"{backend}.json")
        paths[-1].write_text(json.dumps(result(backend, steps)))
    png = tmp_path / "lengths.png"
    proc = subprocess.run([sys.executable, str(SCRIPT), *map(str, paths), "--out", str(png)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0] == "| backend | 720 | 1440 | 2880 | step growth exponent |"
    assert lines[2] == "| linear | 1.00 s · 0.25 s · 1.0 GB | 2.00 s · 0.50 s · 2.0 GB | 4.00 s · 1.00 s · 4.0 GB | 1.00 |"
    assert lines[3] == "| full | 1.00 s · 0.25 s · 1.0 GB | 4.00 s · 1.00 s · 2.0 GB | oom | 2.00 |"
    assert lines[4] == "| prob | 1.00 s · 0.25 s · 1.0 GB | – | – | – |"
    assert png.stat().st_size > 0
