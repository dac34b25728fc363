"""Floors only: the chosen floor against equal-weight blends of the floors, on the package series of
``studies/keep_rule.py`` and ETTh1/ETTh2.

    python studies/floor_blend.py OUT_DIR [--series taylor msft ...]

For each series the default's floor (``BestFloor``: fitted on the training windows, chosen on validation by
the evidence rule) and every floor's per-window forecasts on the validation and test windows; then blends
(the mean of two or more floors' forecasts) scored on the same windows. Prints one row a series and the
geometric mean over the series of each strategy's test MSE over the best single floor on test; writes
``OUT_DIR/floor_blend.csv``.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import torch

from studies.keep_rule import SERIES, data_overrides, ensure_series


def forecasts(name: str, data_dir: Path) -> dict[str, Any]:
    """The default's floor choice and each floor's forecasts and actuals on validation and test."""
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from forecast.baselines.best_floor import BestFloor
    from forecast.baselines.ridge import RidgeFloor
    from forecast.data.season import period_for, profiles_for
    from forecast.wrappers.calendar_residual import CalendarResidual

    root = Path(__file__).resolve().parents[1]
    with initialize_config_dir(str(root / "forecast" / "conf"), version_base="1.3"):
        cfg = compose("train", overrides=[*data_overrides(name, data_dir), "paths.output_dir=/tmp/unused"])
    dm = instantiate(cfg.data)
    dm.setup("fit")
    floor = BestFloor(dims=dm.model_dims(), ridge=functools.partial(RidgeFloor, alpha=1.0),
                      period=period_for(dm.spec.freq), profiles=profiles_for(dm.spec.freq), profile=CalendarResidual)
    with torch.random.fork_rng(devices=[]):
        floor.fit_closed_form(dm.ordered_dataloader("train"))
        floor.select_on_validation(dm.ordered_dataloader("val"))

    @torch.no_grad()
    def split(which: str) -> tuple[dict[str, np.ndarray], np.ndarray]:  # {floor: (W, P, C)}, actuals (W, P, C)
        parts: dict[str, list[np.ndarray]] = {f: [] for f in floor.names}
        actual = []
        for b in dm.ordered_dataloader(which):
            actual.append(b.y.double().numpy())
            for f in floor.names:
                parts[f].append(floor.candidates[f](b.x_enc, b.x_mark_enc, b.x_mark_dec).double().numpy())
        return {f: np.concatenate(p) for f, p in parts.items()}, np.concatenate(actual)

    val, val_y = split("val")
    test, test_y = split("test")
    return {"chosen": floor.chosen, "eligible": eligible(floor), "val": val, "val_y": val_y,
            "test": test, "test_y": test_y, "pred_len": dm.pred_len}


def eligible(floor: Any) -> list[str]:
    """The floors the evidence rule lets forecast: naive and those whose gain over it is evidence."""
    return [floor.names[0], *sorted({v.challenger for v in floor.verdicts if v.replace})]


def mse(pred: np.ndarray, actual: np.ndarray) -> float:
    return float(np.mean((pred - actual) ** 2))


def strategies(f: dict[str, Any]) -> dict[str, float]:
    """Test MSE of each strategy on one series."""
    val, test = f["val"], f["test"]
    vy, ty = f["val_y"], f["test_y"]
    eligible = f["eligible"]
    by_val = sorted(eligible, key=lambda n: mse(val[n], vy))
    out = {"chosen": mse(test[f["chosen"]], ty), "best_floor": min(mse(p, ty) for p in test.values())}
    blend = lambda names, d: np.mean([d[n] for n in names], axis=0)  # noqa: E731
    out["top2"] = mse(blend(by_val[:2], test), ty)
    out["top3"] = mse(blend(by_val[:3], test), ty)
    out["eligible_all"] = mse(blend(eligible, test), ty)
    # the lowest validation MSE among the eligible floors and their pairwise blends
    pairs = {f"{a}+{b}": (a, b) for a, b in itertools.combinations(eligible, 2)}
    pool = {n: (n,) for n in eligible} | pairs
    best = min(pool, key=lambda k: mse(blend(pool[k], val), vy))
    out["pick_single_or_pair"] = mse(blend(pool[best], test), ty)
    out["picked"] = best
    # the chosen floor blended with the runner-up only where the blend's validation MSE is lower
    pair = by_val[:2]
    out["top2_if_val"] = (out["top2"] if len(pair) == 2 and mse(blend(pair, val), vy) < mse(val[by_val[0]], vy)
                          else mse(test[by_val[0]], ty))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    args = parser.parse_args()
    data_dir = args.out / "data"
    ensure_series(data_dir)
    rows = []
    for name in args.series:
        f = forecasts(name, data_dir)
        row = {"series": name, "chosen_floor": f["chosen"], "eligible": " ".join(f["eligible"]), **strategies(f)}
        rows.append(row)
        print(json.dumps(row), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "floor_blend.csv", index=False)
    numeric = [c for c in table.columns if c not in ("series", "chosen_floor", "eligible", "picked", "best_floor")]
    print("geometric mean of test MSE / best single floor on test:")
    for c in numeric:
        ratio = table[c] / table.best_floor
        print(f"  {c:22s} {float(np.exp(np.log(ratio).mean())):.3f}  (worst {ratio.max():.3f}, "
              f"{table.loc[ratio.idxmax(), 'series']})")


if __name__ == "__main__":
    main()
