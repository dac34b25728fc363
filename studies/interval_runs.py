"""Train the runs the interval-coverage study (studies/interval_coverage.py) scores: the default model on
ETTh1, ETTh2, six real series from pmdarima / statsmodels / matplotlib's sample data and pvlib's four hourly
files (three weather years and a year of rain and particulates, ``M``), two seeds each.

    python studies/interval_runs.py OUT_DIR [--seeds 2021 1]                 # the default training
    python studies/interval_runs.py OUT_DIR --epochs 1 --batches 100        # short trainings

Writes ``OUT_DIR/data/<name>.csv`` (the real series; ``OUT_DIR/data/packages/`` the files of ``keep_rule.py``,
pvlib's among them) and one run directory ``OUT_DIR/runs/<name>-s<seed>`` per (series, seed); a run whose
``metrics.json`` exists is kept. Every run: look-back 96, start token 48, horizon 24 (the defaults),
``threads=1``, ``plot=false``; ``--epochs`` sets ``trainer.max_epochs`` and ``--batches``
``trainer.limit_train_batches`` (both unset: the default's step budget). The same runs for every method.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keep_rule import data_overrides, ensure_series  # noqa: E402

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
HOURLY = ("weather_greensboro", "weather_sandpoint", "weather_miami", "particulates")


def write_series(out: Path) -> dict[str, list[str]]:
    """The real series as CSV files under ``out``; ``{name: overrides}`` for every series of the study."""
    import pmdarima.datasets as pm
    import statsmodels.datasets as sm

    out.mkdir(parents=True, exist_ok=True)
    frames = {}
    taylor = pm.load_taylor()
    frames["taylor"] = pd.DataFrame({"date": pd.date_range("2000-06-05", periods=len(taylor), freq="30min"),
                                     "load": taylor})
    msft = pm.load_msft()
    msft = msft[msft.Date >= "2000-01-01"][["Open", "High", "Low", "Close"]].reset_index(drop=True)
    msft.insert(0, "date", pd.bdate_range("2000-01-03", periods=len(msft)))
    frames["msft"] = msft
    spots = pm.load_sunspots()
    frames["sunspots"] = pd.DataFrame({"date": pd.date_range("1749-01-01", periods=len(spots), freq="MS"),
                                       "sunspots": spots})
    co2 = sm.co2.load_pandas().data
    frames["co2"] = pd.DataFrame({"date": co2.index, "co2": co2["co2"].to_numpy()})
    nino = sm.elnino.load_pandas().data
    temps = nino.drop(columns="YEAR").to_numpy().reshape(-1)  # rows: years, columns: JAN .. DEC
    frames["elnino"] = pd.DataFrame({"date": pd.date_range(f"{int(nino.YEAR.iloc[0])}-01-01", periods=len(temps),
                                                           freq="MS"), "temp": temps})
    from matplotlib import cbook

    goog = cbook.get_sample_data("goog.npz")["price_data"]  # daily Google prices 2004-08-19 .. 2008-10-14
    frames["goog"] = pd.DataFrame({"date": pd.bdate_range("2004-08-19", periods=len(goog)), "close": goog["adj_close"]})
    for name, frame in frames.items():
        frame.to_csv(out / f"{name}.csv", index=False)
    csv = lambda name, *o: ["data=csv", f"data.path={(out / (name + '.csv')).resolve()}", *o]  # noqa: E731
    packages = (out / "packages").resolve()  # keep_rule's files, apart: its taylor.csv and msft.csv differ
    ensure_series(packages)
    return {
        "etth1": ["data=etth1"],
        "etth2": ["data=etth2", f"data.path={SHARED / 'ETTh2.csv'}"],
        "taylor": csv("taylor", "data.target=load", "data.features=S", "data.freq=30min"),
        "msft": csv("msft", "data.target=Close"),
        "sunspots": csv("sunspots", "data.target=sunspots", "data.features=S"),
        "co2": csv("co2", "data.target=co2", "data.features=S", "data.fill=interpolate"),
        "elnino": csv("elnino", "data.target=temp", "data.features=S"),
        "goog": csv("goog", "data.target=close", "data.features=S"),
        **{name: data_overrides(name, packages) for name in HOURLY},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--epochs", type=int, default=None, help="trainer.max_epochs (default: the default's)")
    parser.add_argument("--batches", type=int, default=None, help="training batches per epoch at most")
    parser.add_argument("--seeds", type=int, nargs="+", default=[2021, 1])
    parser.add_argument("--only", nargs="*", default=None, help="series names to train (default: all)")
    args = parser.parse_args()
    import forecast

    series = write_series(args.out / "data")
    for seed in args.seeds:
        for name, overrides in series.items():
            if args.only and name not in args.only:
                continue
            run_dir = args.out / "runs" / f"{name}-s{seed}"
            if (run_dir / "metrics.json").is_file():
                continue
            if run_dir.exists():
                import shutil
                shutil.rmtree(run_dir)
            short = ([f"trainer.max_epochs={args.epochs}"] if args.epochs is not None else []) + (
                [f"trainer.limit_train_batches={args.batches}"] if args.batches is not None else [])
            run = forecast.train(None, [*overrides, f"seed={seed}", "threads=1", "plot=false", *short,
                                        "trainer.enable_progress_bar=false",
                                        "logger=none", "callbacks.lr_monitor=null"], run_dir=run_dir)
            m = run.metrics
            print(f"{name} seed {seed}: test/mse {m['test/mse']:.4f} kept_start {m['kept_start']} "
                  f"{m['wall_seconds']:.0f} s", flush=True)


if __name__ == "__main__":
    sys.exit(main())
