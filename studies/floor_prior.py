"""Floors only: the floor that needs no evidence. The default's floor (the ridge needs none, results §12.15) beside
the same rule computed here from the floors' per-window losses, on the series of ``studies/keep_rule.py``.

    python studies/floor_prior.py OUT_DIR
    python studies/floor_prior.py OUT_DIR --series walk_1000 walk_5000 walk_20000   # generated random walks

Each challenger is weighed against the ridge by :func:`forecast.training.evidence.weigh` on validation and on the
later training windows and validation (the fitted floors scored there by their copies fitted on the earlier
training windows); of the ridge and those with evidence, the lowest validation MSE. Prints the geometric mean of
each choice's test MSE over the best of the four older floors (naive, window mean, seasonal naive, ridge) over the
package, fresh and all real series, and the series where the two differ (none, where the default keeps the rule);
writes ``OUT_DIR/floor_prior.csv``. At b51dcb0, where repeating the last value needed no evidence, the same command
gave §12.15's comparison of the two rules.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from default_floor import compare_rules, default_floor  # noqa: E402
from keep_rule import FLOORS, SERIES  # noqa: E402

#: generated hourly random walks (seed, rows), written under OUT_DIR/data on first use: a series whose right floor
#: is known (``naive``)
WALKS = {f"walk_{rows}": (seed, rows) for seed, rows in ((0, 1000), (1, 5000), (2, 20000))}
SERIES.update({name: (f"{name}.csv", "y", "S", 96, 48, 24, []) for name in WALKS})


def write_walk(name: str, data_dir: Path) -> None:
    """The random walk ``name`` of :data:`WALKS` as ``data_dir/<name>.csv`` (unless it is there)."""
    import numpy as np
    import pandas as pd

    seed, rows = WALKS[name]
    path = data_dir / f"{name}.csv"
    if not path.is_file():
        walk = np.cumsum(np.random.default_rng(seed).normal(size=rows))
        pd.DataFrame({"date": pd.date_range("2020-01-01", periods=rows, freq="h"), "y": walk}).to_csv(path, index=False)

RIDGE = "ridge"


class ScoredFloors(NamedTuple):
    """The series' data module, the default's ``BestFloor`` after its choice, each floor's per-window validation
    MSE (``{floor: (W,)}``) and test MSE, and the best test MSE of the four older floors."""

    datamodule: Any
    floor: Any
    val: dict[str, np.ndarray]
    test: dict[str, float]
    old_floors_test: float


def scored_floors(name: str, data_dir: Path) -> ScoredFloors:
    """The default's floors on the series ``name`` (a random walk of :data:`WALKS` written first), scored on its
    validation and test windows."""
    from forecast.training.evidence import window_losses

    if name in WALKS:
        write_walk(name, data_dir)
    dm, floor, _, val_batches = default_floor(name, data_dir)
    candidates = dict(floor.candidates.items())
    val = window_losses(candidates, val_batches)
    test = {f: float(loss.mean()) for f, loss in window_losses(candidates, dm.ordered_dataloader("test")).items()}
    return ScoredFloors(dm, floor, val, test, min(test[f] for f in FLOORS if f in test))


def choices(name: str, data_dir: Path) -> dict[str, Any]:
    """The default's floor and the ridge-first choice, and their test MSE."""
    from forecast.training.evidence import hac_lag, weigh

    dm, floor, val, test, old_floors_test = scored_floors(name, data_dir)
    lag = hac_lag(dm.pred_len)
    eligible = [RIDGE]
    for f in floor.names:
        if f == RIDGE:
            continue
        evidence = weigh(val[RIDGE], val[f], lag=lag).replace
        if floor.held_out is not None:
            evidence = evidence or weigh(np.concatenate([floor.held_out[RIDGE], val[RIDGE]]),
                                         np.concatenate([floor.held_out[f], val[f]]), lag=lag).replace
        if evidence:
            eligible.append(f)
    ridge_first = min(eligible, key=lambda f: float(val[f].mean()))
    return {"series": name, "default": floor.chosen, "default_test": test[floor.chosen], "ridge_first": ridge_first,
            "ridge_first_test": test[ridge_first], "old_floors_test": old_floors_test}


def main() -> None:
    table = compare_rules(__doc__.splitlines()[0], choices, "floor_prior.csv", ("default", "ridge_first"),
                          generated=list(WALKS))
    differ = table[table["default"] != table["ridge_first"]]
    print(differ[["series", "default", "default_test", "ridge_first", "ridge_first_test"]].to_string(index=False))


if __name__ == "__main__":
    main()
