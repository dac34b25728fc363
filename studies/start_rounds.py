"""Validation round by round against the closed-form start (docs/results.md §13.2): does a round beat the start
after an earlier round of at least ``start_patience_steps`` steps did not?

    python studies/start_rounds.py OUT_DIR [--series taylor msft ...] [--seeds 2021] [--set KEY=VALUE ...]

Runs the default on the package series of studies/keep_rule.py and on a generated chirp (a sine whose
frequency doubles over 20,000 hourly rows, plus noise: structure a ridge over 96 steps misses), with
``threads=1``, and prints one JSON line a run: the start's ``val/loss``, every round's (``metrics.json``'s ``val/loss_per_round``), the round
length in steps, the decision and the test MSE. ``--set start_patience_steps=null`` gives the rounds without the
rule (every run's rounds up to its stop are the same under both: the rule only ends a run earlier).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keep_rule import SERIES, data_overrides, train, write_series  # noqa: E402

CHIRP_ROWS = 20_000


def write_chirp(path: Path) -> None:
    """``sin(2 pi (t / 200) (1 + t / N))`` plus Gaussian noise of std 0.3, hourly from 2020-01-01."""
    t = np.arange(CHIRP_ROWS)
    values = np.sin(2 * np.pi * (t / 200) * (1 + t / CHIRP_ROWS))
    values += 0.3 * np.random.default_rng(0).standard_normal(CHIRP_ROWS)
    pd.DataFrame({"date": pd.date_range("2020-01-01", periods=CHIRP_ROWS, freq="h"), "y": values}).to_csv(
        path, index=False)


def rounds(run_dir: Path) -> dict:
    """The run's start, its rounds' ``val/loss`` (the final validation left out) and its outcome."""
    m = json.loads((run_dir / "metrics.json").read_text())
    val = m["val/loss_per_round"]
    return {"run": run_dir.name, "round_steps": m["round_steps"], "start": round(m["start/val_loss"], 5),
            "rounds": [round(v, 5) for v in val], "steps": m["steps"], "kept_start": m["kept_start"],
            "p_value": (m.get("keep") or {}).get("p_value"), "test_mse": m["test/mse"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--series", nargs="+", default=[*[s for s in SERIES if not s.startswith("etth")], "chirp"])
    parser.add_argument("--seeds", type=int, nargs="+", default=[2021])
    parser.add_argument("--set", nargs="*", default=[], help="more forecast-train overrides for every run")
    args = parser.parse_args()
    data = args.out / "data"
    if not (data / "taylor.csv").is_file():
        write_series(data)
        write_chirp(data / "chirp.csv")
    for name in args.series:
        for seed in args.seeds:
            run_dir = args.out / "runs" / f"{name}-{seed}"
            data_args = (["data=csv", f"data.path={data / 'chirp.csv'}", "data.target=y", "data.features=S"]
                         if name == "chirp" else data_overrides(name, data))
            train([*data_args, f"seed={seed}", *args.set], run_dir)
            print(json.dumps(rounds(run_dir)), flush=True)


if __name__ == "__main__":
    main()
