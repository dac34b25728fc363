"""Floors only: two variants of the default's floor choice, on the package series of ``studies/keep_rule.py``,
the generated ones and ETTh1/ETTh2.

    python studies/floor_variants.py OUT_DIR [--series taylor msft ...]

* ``level``: one more candidate, the ridge floor with the window's last value as one more regressor
  (:class:`LevelRidge`): its weights on the window's values may sum to less than one, so its forecast can
  return towards the training level (0 in scaled units) as a direct autoregression does. Weighed like the
  ridge (validation, and the later training windows with a copy fitted on the earlier ones), and chosen
  with the others by :func:`forecast.baselines.best_floor.choose_floor`.
* ``pooled``: the same eligible floors, the one with the lowest MSE on every window that no fit of theirs has
  seen (the later training windows, from the earlier-half copies, and validation) rather than on validation.

Prints one row a series and the geometric mean of each strategy's test MSE over the best of the four older
floors (naive, window mean, seasonal naive, ridge) on test, over the seventeen package series; writes
``OUT_DIR/floor_variants.csv``.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import Tensor, nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from default_floor import default_floor, floor_table  # noqa: E402
from keep_rule import ETT, FLOORS, GENERATED, SERIES  # noqa: E402

from forecast.baselines.ridge import RidgeFloor  # noqa: E402


class LevelRidge(RidgeFloor):
    """The ridge floor with the window's last value as one more regressor:
    ``forecast = last + (window - last) @ W + last * w + b``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.weight = nn.Parameter(torch.zeros(self.seq_len + 1, self.pred_len), requires_grad=False)

    def regression(self, batch: Any) -> tuple[Tensor, Tensor]:
        """Shapes: x_enc (B, seq_len, C_in), y (B, P, C_out) -> (B*C_out, seq_len + 1), (B*C_out, P)."""
        rows, last = self.design(batch.x_enc.cpu())  # (B*C, L), (B, 1, C)
        target = (batch.y.cpu() - last).transpose(1, 2).reshape(-1, self.pred_len)  # (B*C, P)
        level = last.transpose(1, 2).reshape(-1, 1)  # (B*C, 1)
        return torch.cat([rows, level], dim=1).double(), target.double()

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in) -> (B, pred_len, C_out)."""
        x = self.targets(x_enc)  # (B, L, C)
        last = x[:, -1:, :]  # (B, 1, C)
        # (P, L) @ (B, L, C) -> (B, P, C); the level's weight (P, 1) times the last values (B, 1, C)
        return (torch.matmul(self.weight[:-1].t(), x - last) + self.bias[:, None] + last
                + self.weight[-1][:, None] * last)


def variants(name: str, data_dir: Path) -> dict[str, Any]:
    """The default's floor choice, the choice with :class:`LevelRidge` among the candidates and the pooled
    choice; each floor's test MSE."""
    from forecast.baselines.best_floor import Span, choose_floor
    from forecast.data.batch import WindowRange
    from forecast.training.evidence import hac_lag, window_losses

    dm, floor, train, val_batches = default_floor(name, data_dir)
    level = LevelRidge(dims=dm.model_dims())
    level.fit_closed_form(train)
    floors = {**dict(floor.candidates.items()), "level_ridge": level}
    val = window_losses(floors, val_batches)
    test = {f: float(loss.mean()) for f, loss in window_losses(floors, dm.ordered_dataloader("test")).items()}
    simplest = floor.names[0]
    out = {"series": name, "default": floor.chosen, "default_test": test[floor.chosen],
           "old_floors_test": min(test[f] for f in FLOORS if f in test)}
    if floor.held_out is None:  # too few training windows for a held-out half: the choice is the default's
        return out | {"level": floor.chosen, "level_test": test[floor.chosen],
                      "pooled": floor.chosen, "pooled_test": test[floor.chosen]}
    windows = len(floor._training_losses[simplest])
    first = windows - len(floor.held_out[simplest])
    earlier = copy.deepcopy(level)
    earlier.fit_closed_form(WindowRange(train, 0, windows // 2))
    later = {**floor.held_out, **{f: floor._training_losses[f][first:] for f in floor.fits_nothing},
             "level_ridge": window_losses({"e": earlier}, WindowRange(train, first, windows))["e"]}

    def span(name: str, before: dict[str, np.ndarray], challenger: str) -> Span:
        return Span(name, np.concatenate([before[simplest], val[simplest]]),
                    np.concatenate([before[challenger], val[challenger]]))

    wider = {f: span("training and validation", floor._training_losses, f) for f in floor.fits_nothing[1:]}
    wider |= {f: span("held-out training and validation", later, f) for f in (*floor.fitted, "level_ridge")}
    with_level, _ = choose_floor(val, lag=hac_lag(dm.pred_len), wider=wider)
    eligible = [simplest, *sorted({v.challenger for v in floor.verdicts if v.replace})]
    pooled = min(eligible, key=lambda f: float(np.concatenate([later[f], val[f]]).mean()))
    return out | {"level": with_level, "level_test": test[with_level], "pooled": pooled,
                  "pooled_test": test[pooled], "level_ridge_test": test["level_ridge"],
                  "ridge_test": test["ridge"], "windows": f"{len(later[simplest])} / {len(val[simplest])}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    args = parser.parse_args()
    table = floor_table(args.out, args.series, variants, "floor_variants.csv")
    package = table[~table.series.isin([*ETT, *GENERATED])]
    print(f"geometric mean of test MSE / best of the four older floors on test, {len(package)} package series:")
    for strategy in ("default", "level", "pooled"):
        ratio = package[f"{strategy}_test"] / package.old_floors_test
        print(f"  {strategy:8s} {float(np.exp(np.log(ratio).mean())):.3f}")


if __name__ == "__main__":
    main()
