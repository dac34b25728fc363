"""Floors only: the floor choice with and without the evidence a refinement of the ridge needs over it (a calendar
profile or the cross-channel ridge), on the series of ``studies/keep_rule.py`` (ETT and the package and fresh ones).

    python studies/floor_refinements.py OUT_DIR [--series taylor elec_equip ...]

``refined``: the default (:func:`forecast.baselines.best_floor.choose_floor` with ``refines``); ``over naive``: of
naive and the floors whose gain over naive is evidence, the lowest validation MSE, as before the refinement rule.
Prints one row a series and the geometric mean of each choice's test MSE over the best of the four older floors
(naive, window mean, seasonal naive, ridge) on test, over the package series and over the fresh ones; writes
``OUT_DIR/floor_refinements.csv``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from default_floor import compare_rules, default_floor  # noqa: E402
from keep_rule import FLOORS  # noqa: E402


def choices(name: str, data_dir: Path) -> dict[str, Any]:
    """The floor each rule chooses and each floor's test MSE."""
    from forecast.training.evidence import window_losses

    dm, floor, _, val_batches = default_floor(name, data_dir)
    candidates = dict(floor.candidates.items())
    val = {f: float(loss.mean()) for f, loss in window_losses(candidates, val_batches).items()}
    test = {f: float(loss.mean()) for f, loss in window_losses(candidates, dm.ordered_dataloader("test")).items()}
    simplest = floor.names[0]
    over_naive = {v.challenger for v in floor.verdicts if v.replace and v.incumbent == simplest}
    before = min([simplest, *sorted(over_naive)], key=lambda f: val[f])
    return {"series": name, "refined": floor.chosen, "refined_test": test[floor.chosen], "over_naive": before,
            "over_naive_test": test[before], "old_floors_test": min(test[f] for f in FLOORS if f in test)}


def main() -> None:
    compare_rules(__doc__.splitlines()[0], choices, "floor_refinements.csv", ("refined", "over_naive"))


if __name__ == "__main__":
    main()
