"""Scale benchmark: the default forecast-train on shaped synthetic series of growing size.

Each cell generates a file (daily and weekly cycles, a factor shared by every series, AR(1) noise), then runs
``forecast-train`` with the default settings in a subprocess of its own and reads back, from the run's
``metrics.json`` and log: read time (parse and validate the file), floor time, training time, evaluation time
(final validation and test), wall and CPU time (user + system, all threads) and the process's peak RSS (``ru_maxrss`` of that process, from ``wait4``).

    python benchmarks/bench_scale.py --grid reduced --threads 2 --out docs/performance/scale.csv
    python benchmarks/bench_scale.py --grid full     # rows 1e4..1e7, series 1..1e4, channels 1..1e3
    python benchmarks/bench_scale.py --cell panel_3000x730 --threads 2
    python benchmarks/bench_scale.py --plot docs/performance/scale.csv --png docs/performance/scale.png

Named cells (the goals of issue #37): ``panel_3000x730`` (3,000 daily series of 730 rows, long format),
``minute_1m`` (1,000,000 rows at 1-minute frequency, 7 columns), ``sensors_862`` (17,544 hourly rows of 862
columns), ``etth1`` (the shipped file).
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.signal import lfilter

ROOT = Path(__file__).resolve().parents[1]
PERIODS = {"min": (1440, 10080), "h": (24, 168), "D": (7, 365)}  # the "daily" and "weekly" cycles in steps


@dataclass(frozen=True)
class Cell:
    """One benchmark cell: ``series`` series of ``rows`` rows each with ``channels`` columns at ``freq``."""

    name: str
    rows: int
    series: int = 1
    channels: int = 1
    freq: str = "h"
    fmt: str = "csv"

    @property
    def total_rows(self) -> int:
        return self.rows * self.series


NAMED = {
    "panel_3000x730": Cell("panel_3000x730", rows=730, series=3000, channels=1, freq="D"),
    "minute_1m": Cell("minute_1m", rows=1_000_000, series=1, channels=7, freq="min"),
    "sensors_862": Cell("sensors_862", rows=17_544, series=1, channels=862, freq="h"),
    "m5_30490x1941": Cell("m5_30490x1941", rows=1_941, series=30_490, channels=1, freq="D", fmt="parquet"),
}


def grid(kind: str) -> list[Cell]:
    """``full``: rows 1e4..1e7 of one series, series 1..1e4 of 1,000 rows, channels 1..1e3 of 1e4 rows;
    ``reduced``: the small end of each axis, for a shared 2-core machine."""
    rows = [10**4, 10**5, 10**6, 10**7] if kind == "full" else [10**4, 10**5, 10**6]
    series = [1, 10, 100, 1000, 10**4] if kind == "full" else [10, 100, 1000]
    channels = [1, 10, 100, 1000] if kind == "full" else [10, 100]
    return ([Cell(f"rows_{r:.0e}", rows=r) for r in rows] + [Cell(f"series_{s}", rows=1000, series=s, freq="D")
                                                             for s in series]
            + [Cell(f"channels_{c}", rows=10**4, channels=c) for c in channels])


def generate(cell: Cell, seed: int = 0) -> pd.DataFrame:
    """Shaped series: per series a level, a "daily" and a "weekly" cycle of its own amplitude and phase, a
    loading on one factor shared by every series (a slow random walk), and AR(1) noise (phi 0.8); the
    channels of a series are the same shape with their own amplitudes. Long format with ``id`` for a panel."""
    rng = np.random.default_rng(seed)
    day, week = PERIODS[cell.freq]
    n, k, rows = cell.series, cell.channels, cell.rows
    t = np.arange(rows, dtype=np.float64)  # (T,)
    factor = np.cumsum(rng.normal(0, 0.05, rows)).astype(np.float32)  # (T,)
    waves = np.stack([np.cos(2 * np.pi * t / day), np.sin(2 * np.pi * t / day),
                      0.5 * np.cos(2 * np.pi * t / week), 0.5 * np.sin(2 * np.pi * t / week)])  # (4, T)
    amp = rng.uniform(0.5, 2.0, (n, 4, k)).astype(np.float32)  # (S, 4, C)
    values = np.einsum("wt,swc->stc", waves.astype(np.float32), amp)  # (S, T, C)
    values += rng.uniform(-5, 5, (n, 1, k)).astype(np.float32)
    values += factor[None, :, None] * rng.uniform(0.5, 1.5, (n, 1, k)).astype(np.float32)
    noise = rng.normal(0, 0.3, (n, rows, k)).astype(np.float32)  # (S, T, C)
    values += lfilter([1.0], [1.0, -0.8], noise, axis=1).astype(np.float32)  # AR(1) along time
    del noise
    frame = pd.DataFrame(values.reshape(n * rows, k), columns=[f"c{j}" for j in range(k - 1)] + ["OT"])  # (S*T, C)
    frame.insert(0, "date", np.tile(pd.date_range("2020-01-01", periods=rows, freq=cell.freq).values, n))
    if n > 1:
        frame.insert(0, "id", pd.Categorical.from_codes(np.repeat(np.arange(n), rows),
                                                        [f"s{s:05d}" for s in range(n)]))
    return frame


def _generate_file(cell: Cell, path: Path) -> None:
    """Generate the cell's series and write them to ``path``."""
    frame = generate(cell)
    if cell.fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        frame.to_csv(path, index=False, float_format="%.4f", date_format="%Y-%m-%d %H:%M:%S")


def write(cell: Cell, folder: Path) -> Path:
    """The cell's file in ``folder``, generated once, in a process of its own: Linux carries a process's peak
    RSS into the children it starts (``ru_maxrss`` survives fork and exec), so a parent that held a frame of
    gigabytes would raise every later cell's reading to its own."""
    path = folder / f"{cell.name}.{cell.fmt}"
    if not path.is_file():
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
            pool.submit(_generate_file, cell, path).result()
    return path


def settings(cell: Cell, path: Path) -> list[str]:
    """forecast-train's default settings on the cell's file."""
    settings = ["data=csv", f"data.path={path}", "data.target=OT"]
    if cell.series > 1:
        settings.append("data.id_col=id")
    return settings


def run_cell(name: str, path: Path, settings: list[str], run_dir: Path, threads: int, extra: list[str]) -> dict:
    """One ``forecast-train`` in a subprocess of its own; its times, metrics and peak RSS (``wait4``'s
    ``ru_maxrss`` of that process alone)."""
    args = [*settings, f"threads={threads}", "plot=false", f"hydra.run.dir={run_dir}", *extra]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with (run_dir.parent / f"{run_dir.name}.log").open("w") as log:
        proc = subprocess.Popen([sys.executable, "-m", "forecast.cli.train", *args], env=env, stdout=log,
                                stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{name}: forecast-train failed; see {run_dir.parent / (run_dir.name + '.log')}")
    metrics = json.loads((run_dir / "metrics.json").read_text())
    return {"wall_s": round(wall, 1), "cpu_s": round(usage.ru_utime + usage.ru_stime, 1),
            "peak_rss_mb": round(usage.ru_maxrss / 1024),
            "read_s": round(metrics["read_seconds"], 1), "floors_s": round(metrics["floor_seconds"], 1),
            "train_s": round(metrics["train_seconds_per_epoch"] * metrics["epochs"], 1),
            "eval_s": round(metrics["eval_seconds"], 1), "steps": metrics["steps"],
            "round_steps": metrics["round_steps"], "train_windows": metrics["train_windows"],
            "test_windows": metrics["test_windows"], "test_stride": metrics["test_stride"],
            "test_mse": round(metrics["test/mse"], 4), "ridge_mse": round(metrics["floors"]["ridge"]["test/mse"], 4)}


def plot(table: Path, png: Path, title: str = "forecast-train, default settings: cost vs size") -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    frame = pd.read_csv(table)
    frame["values"] = frame["total_rows"] * frame["channels"]  # cells of the file: rows x columns
    frame = frame.sort_values("values")
    # a grid's axes (rows_*, series_*, channels_*) each get a line; named cells are one group of points
    frame["axis"] = [c.split("_")[0] if c.split("_")[0] in ("rows", "series", "channels") else "cells"
                     for c in frame["cell"]]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    markers = {"rows": "o", "series": "s", "channels": "^", "cells": "o"}
    for k, (column, label) in enumerate((("wall_s", "wall"), ("train_s", "training"), ("eval_s", "evaluation"),
                                         ("floors_s", "floors"), ("read_s", "read"))):
        if column not in frame or not frame[column].notna().any():
            continue
        for j, (axis, part) in enumerate(frame.groupby("axis", sort=False)):
            ax.plot(part["values"], part[column], marker=markers[axis], linestyle="-" if axis != "cells" else ":",
                    color=f"C{k}", label=label if j == 0 else None)
    for _, row in frame.iterrows():
        ax.annotate(f"{row['cell']} ({row['steps']} steps)", (row["values"], row["wall_s"]), fontsize=7,
                    textcoords="offset points", xytext=(4, 4))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("values in the file (rows x columns, all series)")
    ax.set_ylabel("seconds (2-core CPU)")
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--grid", choices=["reduced", "full"], help="run a grid of cells")
    parser.add_argument("--cell", action="append", default=[], help=f"a named cell: {', '.join([*NAMED, 'etth1'])}")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--data", type=Path, default=Path("/tmp/forecast_scale"), help="generated files")
    parser.add_argument("--out", type=Path, help="CSV table to append rows to")
    parser.add_argument("--plot", type=Path, help="plot this table (cost vs rows) and exit")
    parser.add_argument("--png", type=Path, default=ROOT / "docs" / "performance" / "scale.png")
    parser.add_argument("--title", default="forecast-train, default settings: cost vs size", help="the plot's title")
    parser.add_argument("--parquet", action="store_true", help="write the cells as Parquet instead of CSV")
    parser.add_argument("extra", nargs="*", help="more forecast-train overrides for every cell")
    args = parser.parse_args()
    if args.plot:
        plot(args.plot, args.png, args.title)
        return
    args.data.mkdir(parents=True, exist_ok=True)
    cells = grid(args.grid) if args.grid else []
    cells += [NAMED[name] for name in args.cell if name != "etth1"]
    if args.parquet:
        cells = [Cell(**{**c.__dict__, "fmt": "parquet"}) for c in cells]
    runs = [(c.name, c.total_rows, c.series, c.channels, write(c, args.data), settings(c, write(c, args.data)))
            for c in cells]
    if "etth1" in args.cell:
        runs.append(("etth1", 17420, 1, 7, ROOT / "data" / "ETTh1.csv", []))
    for name, total, series, channels, path, cell_settings in runs:
        run_dir = args.data / "runs" / f"{name}-{time.strftime('%Y%m%d-%H%M%S')}"
        row = {"cell": name, "total_rows": total, "series": series, "channels": channels, "threads": args.threads,
               "format": path.suffix[1:], **run_cell(name, path, cell_settings, run_dir, args.threads, args.extra)}
        print(json.dumps(row), flush=True)
        if args.out:
            new = not args.out.is_file()
            with args.out.open("a", newline="") as f:
                writer = csv.DictWriter(f, fieldnames=list(row))
                if new:
                    writer.writeheader()
                writer.writerow(row)


if __name__ == "__main__":
    main()
