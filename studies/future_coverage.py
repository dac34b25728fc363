"""Coverage of the intervals ``forecast-predict FILE --intervals`` gives the future, measured at cutoffs.

For each run of ``studies/interval_runs.py``: cut its file after row ``T`` for evenly spaced ``T`` in the
test span, forecast the next ``pred_len`` rows as ``forecast-predict`` does (the split-conformal
half-widths tracked through the file's latest windows, :mod:`forecast.predict.future_widths`) and with
the untracked split-conformal half-widths, and score both against the rows that follow: coverage and
interval score per level, pooled over cutoffs, steps and columns (original units).

    python studies/interval_runs.py OUT --seeds 2021
    python studies/future_coverage.py OUT [--cutoffs 120]       # -> OUT/future_coverage.csv
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from forecast.data.reader import Series
from forecast.predict.future_widths import future_widths
from forecast.predict.scores import interval_score
from forecast.predict.span import resolve_span
from forecast.predict.trained_model import TrainedModel
from forecast.training.conformal import label

LEVELS = (0.8, 0.95)


def score_run(run: Path, n_cutoffs: int) -> list[dict]:
    fc = TrainedModel.load(run)
    spec = fc.spec
    panel = fc.read(fc.config["data"]["path"])
    series = panel.series[0]
    test = resolve_span(series.index, fc.config, seq_len=spec.seq_len, span="test")
    last = np.arange(test.start + spec.seq_len - 1, test.end - spec.pred_len)  # each window's last input row
    cutoffs = last[np.unique(np.linspace(0, len(last) - 1, min(n_cutoffs, len(last))).round().astype(int))]
    split = fc.half_widths(LEVELS)
    columns = list(spec.target_columns)
    hits = {(m, a): [] for m in ("tracked", "split") for a in LEVELS}
    scores = {(m, a): [] for m in ("tracked", "split") for a in LEVELS}
    for cut in cutoffs:
        head = replace(panel, series=(Series(frame=series.frame.iloc[:cut + 1], series_id=series.series_id),))
        actual = series.frame[columns].to_numpy()[cut + 1: cut + 1 + spec.pred_len]  # (P, C)
        for method, widths in (("tracked", future_widths(fc, head, split)), ("split", [split])):
            out = fc.forecast(head, widths=widths)
            for a in LEVELS:
                lo = out[[f"{c}_lo_{label(a)}" for c in columns]].to_numpy()
                hi = out[[f"{c}_hi_{label(a)}" for c in columns]].to_numpy()
                hits[method, a].append((actual >= lo) & (actual <= hi))
                scores[method, a].append(interval_score(lo, hi, actual, a))
    rows = []
    for a in LEVELS:
        base = float(np.mean(scores["split", a]))
        for method in ("split", "tracked"):
            s = float(np.mean(scores[method, a]))
            rows.append({"run": run.name, "level": a, "method": method, "cutoffs": len(cutoffs),
                         "coverage": float(np.mean(hits[method, a])), "interval_score": s,
                         "vs_split": s / base - 1.0})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the OUT_DIR of studies/interval_runs.py")
    parser.add_argument("--cutoffs", type=int, default=120,
                        help="cutoffs per run, evenly spaced over its test span")
    parser.add_argument("--only", nargs="*", default=None, help="run names (default: every finished run)")
    args = parser.parse_args(argv)
    runs = sorted(p.parent for p in (args.out / "runs").glob("*/metrics.json"))
    runs = [r for r in runs if args.only is None or r.name in args.only]
    rows = []
    for run in runs:
        t0 = time.time()
        got = score_run(run, args.cutoffs)
        rows += got
        for r in got:
            print(f"{r['run']:<16} {label(r['level']):>3}% {r['method']:<8} "
                  f"cover {100 * r['coverage']:5.1f}  "
                  f"score {r['interval_score']:.4f} ({100 * r['vs_split']:+.1f}%)  [{r['cutoffs']} cutoffs, "
                  f"{time.time() - t0:.0f} s]", flush=True)
    target = args.out / "future_coverage.csv"
    with target.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
