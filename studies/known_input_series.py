#!/usr/bin/env python
"""An hourly series driven by an input known in advance: the test bed of ``data.future_columns``.

``plan`` is white noise (unpredictable from its own past, like a schedule set by someone else) and
``OT`` answers it now and one step later, on top of a daily cycle and AR(1) noise::

    OT_t = 10 + 2 sin(2 pi t / 24) + 1.5 plan_t + 0.8 plan_{t-1} + e_t,   e_t = 0.8 e_{t-1} + 0.3 z_t

A model that knows ``plan`` over the horizon can explain most of ``OT``'s variance there; one that
sees only the past cannot.

Example (the table of docs/results.md, "Known-future inputs")::

    python studies/known_input_series.py known_input.csv
    forecast-train data=csv data.path=known_input.csv data.target=OT data.features=S 'data.future_columns=[plan]'
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.signal import lfilter


def known_input_series(rows: int, *, seed: int = 0) -> pd.DataFrame:
    """``date`` (hourly from 2020-01-01), ``plan`` and ``OT``, ``rows`` rows."""
    rng = np.random.default_rng(seed)
    t = np.arange(rows, dtype=np.float64)
    plan = rng.normal(0.0, 1.0, rows)
    noise = lfilter([0.3], [1.0, -0.8], rng.normal(0.0, 1.0, rows))  # AR(1): e_t = 0.8 e_{t-1} + 0.3 z_t
    ot = 10 + 2 * np.sin(2 * np.pi * t / 24) + 1.5 * plan + 0.8 * np.r_[0.0, plan[:-1]] + noise
    return pd.DataFrame({"date": pd.date_range("2020-01-01", periods=rows, freq="h"), "plan": plan.round(4),
                         "OT": ot.round(4)})


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, help="CSV to write")
    p.add_argument("--rows", type=int, default=6000, help="hourly rows (default 6000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = p.parse_args()
    known_input_series(args.rows, seed=args.seed).to_csv(args.out, index=False)
    print(f"wrote {args.out} ({args.rows} rows)")


if __name__ == "__main__":
    main()
