"""One floor for a whole panel against one floor per series, both chosen by the evidence rule (issue 38).

    python studies/per_series_floors.py OUT_DIR [--panels fertility weather ett ...]

Floors only (no training): for each panel (a file of many series in long format, ``data.id_col``), the
floors are fitted as the default fits them (one ridge over every series' training windows) and scored on
every validation and test window. Three ways to choose which floor forecasts, each with the rule of
``forecast/baselines/best_floor.py`` (``choose_floor``: a floor other than the incumbent must show a gain
that is significant under a Diebold-Mariano test with a Newey-West variance, and hold on the later half):

- ``one``: one floor for the panel, chosen on all its validation windows (what the default does);
- ``independent``: each series chooses on its own validation windows, ``naive`` needing no evidence;
- ``departs``: each series keeps the panel's floor unless its own windows give evidence for another.

Prints one JSON line per panel and appends it to ``OUT_DIR/per_series.csv``: the test MSE of each way
(every test window of every series, pooled), the best single floor on test and the per-series oracle.

Panels: the World Bank fertility panel shipped in ``data/`` (185 countries, yearly); and real files whose
columns differ in kind, written as a long panel with one series per column: pvlib's two typical
meteorological years (2 stations x 12 weather columns, hourly), ETTh1 and ETTh2 (2 x 7 columns, hourly),
and pmdarima's daily MSFT prices with statsmodels' quarterly macro data kept apart (each alone).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keep_rule import ROOT, SHARED, append, fitted_floors, write_series  # noqa: E402

# name: (file, id_col, timestamp_col, target, seq_len, label_len, pred_len)
PANELS: dict[str, tuple[str, str, str, str, int, int, int]] = {
    "fertility": (str(ROOT / "data" / "fertility.csv"), "country", "year", "fertility", 12, 6, 4),
    "weather": ("weather_panel.csv", "series", "date", "value", 96, 48, 24),
    "ett": ("ett_panel.csv", "series", "date", "value", 96, 48, 24),
    "macrodata": ("macrodata_panel.csv", "series", "date", "value", 16, 8, 4),
}


def long_panel(files: dict[str, Path], out: Path) -> None:
    """Wide files (a ``date`` column and numeric columns) as one long panel: ``date, series, value``, a series
    per (file, column)."""
    parts = []
    for prefix, path in files.items():
        wide = pd.read_csv(path)
        for column in wide.columns.drop("date"):
            parts.append(pd.DataFrame({"date": wide["date"], "series": f"{prefix}:{column}", "value": wide[column]}))
    pd.concat(parts).to_csv(out, index=False)


def write_panels(data: Path) -> None:
    write_series(data)
    long_panel({"greensboro": data / "weather_greensboro.csv", "sandpoint": data / "weather_sandpoint.csv"},
               data / "weather_panel.csv")
    long_panel({"etth1": SHARED / "ETTh1.csv", "etth2": SHARED / "ETTh2.csv"}, data / "ett_panel.csv")
    long_panel({"macro": data / "macrodata.csv"}, data / "macrodata_panel.csv")


def panel_losses(name: str, data: Path) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, np.ndarray], int]:
    """Per-window MSE of each floor, ``{split: {floor: (W,)}}``, the series of each window ``{split: (W,)}``,
    and the data's ``pred_len``."""
    from forecast.training.evidence import window_losses

    file, id_col, ts, target, seq_len, label_len, pred_len = PANELS[name]
    path = Path(file) if Path(file).is_absolute() else data / file
    dm, floors = fitted_floors(["data=csv", f"data.path={path}", f"data.id_col={id_col}", f"data.timestamp_col={ts}",
                                f"data.target={target}", "data.features=S", f"data.seq_len={seq_len}",
                                f"data.label_len={label_len}", f"data.pred_len={pred_len}"])
    losses, series = {}, {}
    for split in ("val", "test"):
        index = dm.datasets[split]
        losses[split] = window_losses(dict(floors.items()), dm.ordered_dataloader(split))
        series[split] = index.series_of(np.arange(len(index)))
    return losses, series, pred_len


def choices(losses: dict[str, dict[str, np.ndarray]], series: dict[str, np.ndarray], pred_len: int) -> dict[str, Any]:
    """The three ways' floors per series and their pooled test MSE, beside the best floor and the oracle."""
    from forecast.baselines.best_floor import choose_floor
    from forecast.training.evidence import hac_lag

    lag = hac_lag(pred_len)
    val, test = losses["val"], losses["test"]
    names = list(val)
    one = choose_floor(val, lag=lag)[0]
    ids = np.unique(series["test"])
    independent, departs, oracle = {}, {}, {}
    for s in ids:
        v = {f: val[f][series["val"] == s] for f in names}
        t = {f: test[f][series["test"] == s] for f in names}
        oracle[s] = min(names, key=lambda f: t[f].mean())
        if not len(v[names[0]]):
            independent[s] = departs[s] = one
            continue
        independent[s] = choose_floor(v, lag=lag)[0]
        ordered = {one: v[one], **{f: v[f] for f in names if f != one}}  # the panel's floor first: the incumbent
        departs[s] = choose_floor(ordered, lag=lag)[0]

    def pooled(chosen: dict[int, str]) -> float:
        per_window = np.concatenate([test[chosen[s]][series["test"] == s] for s in ids])
        return float(per_window.mean())

    counts = {way: pd.Series(list(c.values())).value_counts().to_dict()
              for way, c in (("independent", independent), ("departs", departs))}
    return {"series": len(ids), "val_windows": int(len(series["val"])), "test_windows": int(len(series["test"])),
            "one_floor": one, "one_test": float(test[one].mean()),
            "independent_test": pooled(independent), "departs_test": pooled(departs),
            "best_floor_on_test": min(names, key=lambda f: test[f].mean()),
            "best_floor_test": float(min(test[f].mean() for f in names)), "oracle_test": pooled(oracle),
            "independent_counts": json.dumps(counts["independent"]), "departs_counts": json.dumps(counts["departs"])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--panels", nargs="+", default=list(PANELS), choices=list(PANELS))
    args = parser.parse_args()
    data = args.out / "data"
    if not (data / "weather_panel.csv").is_file():
        write_panels(data)
    for name in args.panels:
        row = {"panel": name, **choices(*panel_losses(name, data))}
        print(json.dumps(row), flush=True)
        append(args.out / "per_series.csv", [row])


if __name__ == "__main__":
    main()
