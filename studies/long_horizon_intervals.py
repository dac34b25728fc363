"""Tracked intervals at long horizons (docs/results.md §11.7): how the tracker's step per window should
shrink with the horizon step.

    python studies/long_horizon_intervals.py RUN=CSV [RUN=CSV ...] [--rules 0.05 0.05/p 0.05/sqrt ...]

For each run (a ``forecast-train`` run directory) and the file it was trained on: the rolling backtest of its
test span (as ``forecast-predict RUN CSV --rolling --span test``), the checkpoint's split-conformal
half-widths at 80% and 95%, and those half-widths tracked through the test windows
(:func:`forecast.training.conformal.track_half_widths`) with a step per window of ``rate x start`` at every
horizon step (``0.05``), ``rate / (p + 1) x start`` at step ``p`` (``0.05/p``: the same step per
``p + 1`` windows, the length of the MA(p) dependence of ``p + 1``-step forecast errors), or ``rate /
sqrt(p + 1) x start`` (``0.05/sqrt``), or the full rate up to step ``K`` and ``rate x sqrt(K / (p + 1))`` after
it (``0.05/sqrtK``). Prints coverage (%) and the mean interval score (scaled values) of
each rule and of split, pooled over windows, steps and columns, and for the first and last quarter of the
steps.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from forecast.predict.scores import interval_score
from forecast.training.conformal import track_half_widths

LEVELS = (0.8, 0.95)


def rates(rule: str, n_step: int) -> np.ndarray:
    """The step per window of each horizon step, as a fraction of its split half-width (P,)."""
    p = np.arange(n_step, dtype=np.float64)
    base, _, shape = rule.partition("/")
    rate = float(base)
    if shape.startswith("sqrt") and shape != "sqrt":  # sqrtK: the full rate up to step K, then 1 / sqrt
        return rate * np.minimum(1.0, np.sqrt(float(shape[4:]) / (p + 1)))
    return {"": np.full(n_step, rate), "p": rate / (p + 1), "sqrt": rate / np.sqrt(p + 1)}[shape]


def tracked(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float, rule: str) -> np.ndarray:
    """Half-widths (W, P, C): each horizon step tracked at its own rate."""
    return track_half_widths(errors, origins, start, level, rate=rates(rule, errors.shape[1]))


def summary(errors: np.ndarray, widths: np.ndarray, level: float) -> tuple[float, float, float, float]:
    """Coverage (%) and mean interval score, all steps; coverage of the first and last quarter of the steps."""
    inside = errors <= widths
    score = interval_score(-widths, widths, errors, level)  # the interval around the forecast, on its errors
    q = max(errors.shape[1] // 4, 1)
    return (100 * inside.mean(), float(score.mean()), 100 * inside[:, :q].mean(), 100 * inside[:, -q:].mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="RUN_DIR=CSV")
    parser.add_argument("--rules", nargs="+", default=["0.05", "0.05/p", "0.05/sqrt"])
    args = parser.parse_args()
    import forecast

    print("run | level | rule | coverage | score | first quarter | last quarter")
    for pair in args.runs:
        run, csv = pair.split("=", 1)
        model = forecast.load(run)
        bt = model.backtest_report(csv, "test").backtest
        assert len(bt.ids) == 1, "one series a run"
        errors = np.abs(bt.pred.astype(np.float64) - bt.actual)  # (W, P, C) scaled
        split = model.trained.half_widths(LEVELS)
        for level in LEVELS:
            start = split[level]
            rows = {"split": np.broadcast_to(start, errors.shape)}
            rows |= {rule: tracked(errors, bt.origins, start, level, rule) for rule in args.rules}
            for name, widths in rows.items():
                cov, score, first, last = summary(errors, widths, level)
                print(f"{Path(run).name} (P {errors.shape[1]}, {len(errors)} windows) | {level:.0%} | {name} | "
                      f"{cov:.1f} | {score:.4f} | {first:.1f} | {last:.1f}", flush=True)


if __name__ == "__main__":
    main()
