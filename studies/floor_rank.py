"""Floors only: of the ridge and the floors with evidence over it, which one forecasts. The default takes the lowest
validation MSE; ``wide`` the lowest MSE over the held-out training windows and validation (the span most evidence
comes from); ``short_wide`` that only where validation holds fewer than two blocks of windows (cannot be weighed).

    python studies/floor_rank.py OUT_DIR [--series ...]   # about 4 minutes of one core
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from default_floor import compare_rules  # noqa: E402
import floor_prior  # noqa: E402  (its random walks join SERIES)


def choices(name: str, data_dir: Path) -> dict[str, Any]:
    from forecast.baselines.best_floor import RIDGE
    from forecast.training.evidence import hac_lag

    dm, floor, val, test, old_floors_test = floor_prior.scored_floors(name, data_dir)
    eligible = [RIDGE, *sorted({v.challenger for v in floor.verdicts if v.replace})]
    held = floor.held_out
    wide_loss = {f: float(np.concatenate([held[f], val[f]]).mean()) if held is not None else float(val[f].mean())
                 for f in eligible}
    by_val = min(eligible, key=lambda f: float(val[f].mean()))
    wide = min(eligible, key=lambda f: wide_loss[f])
    short = len(val[RIDGE]) < 2 * (hac_lag(dm.pred_len) + 1)
    short_wide = wide if short else by_val
    return {"series": name, "default": floor.chosen, "default_test": test[floor.chosen], "by_val": by_val,
            "wide": wide, "wide_test": test[wide], "short_wide": short_wide, "short_wide_test": test[short_wide],
            "short": short, "eligible": " ".join(eligible), "old_floors_test": old_floors_test}


if __name__ == "__main__":
    table = compare_rules(__doc__.splitlines()[0], choices, "floor_rank.csv", ("default", "wide", "short_wide"),
                          generated=list(floor_prior.WALKS))
    differ = table[(table["default"] != table["wide"]) | (table["default"] != table["short_wide"])]
    print(differ[["series", "default", "default_test", "wide", "wide_test", "short_wide", "short_wide_test",
                  "short"]].to_string(index=False))
