"""Floors only: the chosen floor refitted on the training and validation windows before it forecasts test
(docs/results.md §12.19, not adopted).

    python studies/refit_floor.py OUT_DIR [--series ...] [--set OVERRIDE ...]

For each series of ``studies/keep_rule.py``: the default's floor as chosen on validation, its test MSE as fitted on
the training windows (``default``) and as a copy refitted on the training and validation windows together
(``refit``); the geometric means of both over the best of the four older floors, and a line per series; writes
``OUT_DIR/refit_floor.csv``.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator

sys.path.insert(0, str(Path(__file__).resolve().parent))
from default_floor import compare_rules  # noqa: E402
from floor_prior import scored_floors  # noqa: E402


class Chained:
    """The batches of several loaders in turn, re-iterable."""

    def __init__(self, *loaders: Iterable[Any]) -> None:
        self.loaders = loaders

    def __iter__(self) -> Iterator[Any]:
        for loader in self.loaders:
            yield from loader


def choices(name: str, data_dir: Path) -> dict[str, Any]:
    """The chosen floor's test MSE fitted on the training windows and refitted on training and validation."""
    import torch

    from forecast.training.evidence import window_losses

    dm, floor, _, test, old_floors_test = scored_floors(name, data_dir)
    refit = copy.deepcopy(floor.candidates[floor.chosen])
    with torch.random.fork_rng(devices=[]):
        refit.fit_closed_form(Chained(dm.ordered_train_dataloader(), dm.ordered_dataloader("val")))
    refit_test = float(window_losses({"refit": refit.eval()}, dm.ordered_dataloader("test"))["refit"].mean())
    return {"series": name, "chosen": floor.chosen, "default_test": test[floor.chosen], "refit_test": refit_test,
            "old_floors_test": old_floors_test}


if __name__ == "__main__":
    table = compare_rules(__doc__.splitlines()[0], choices, "refit_floor.csv", ("default", "refit"))
    table["ratio"] = table.refit_test / table.default_test
    print(table[["series", "chosen", "default_test", "refit_test", "ratio"]].to_string(index=False))
