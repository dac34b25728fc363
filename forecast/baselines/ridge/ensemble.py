"""The look-back ensemble: one ridge regression per look-back on the last L steps of the window, averaged.

Short look-backs forecast smoothly, long ones see more days; averaging them shrinks the long ones'
noise (docs/results.md §2.2). The average of linear maps is one linear map, so the ensemble is a
single ``W`` (each member's weights zero over the steps older than its L) and the forecast and the
checkpoint are those of one ridge regression.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor

from forecast.baselines.ridge.stats import RidgeStats
from forecast.core.errors import ConfigError


class LookbackEnsemble:
    """Solves the ridge regression once per look-back and averages the solutions.

    The statistics' columns are the window's ``seq_len`` steps (oldest first), then any extra columns
    (random features), which every member regresses on as well.

    Args:
        lookbacks: the members' look-backs, each at most ``seq_len``; None for ``seq_len`` alone (one
            plain ridge regression).
        seq_len: input window length.

    Raises:
        ConfigError: a look-back outside 1..seq_len.
    """

    def __init__(self, lookbacks: Sequence[int] | None, *, seq_len: int) -> None:
        self.seq_len = seq_len
        self.lookbacks = sorted({int(n) for n in lookbacks}) if lookbacks else [seq_len]
        if self.lookbacks[0] < 1 or self.lookbacks[-1] > seq_len:
            raise ConfigError(f"ridge look-backs must be between 1 and seq_len ({seq_len}), "
                              f"got {list(lookbacks or [])}")

    def solve(self, stats: RidgeStats, *, alpha: float, fit_intercept: bool) -> tuple[Tensor, Tensor]:
        """The mean over the look-backs of each one's ridge solution on its last L steps and the extra columns.

        Returns:
            W (n_in, n_out), zero over the steps older than every member's look-back, and b (n_out,), float64.
        """
        n_in, n_out = stats.xty.shape
        weight = torch.zeros(n_in, n_out, dtype=torch.float64)
        bias = torch.zeros(n_out, dtype=torch.float64)
        extra = list(range(self.seq_len, n_in))  # the columns after the window's steps
        for lookback in self.lookbacks:
            columns = [*range(self.seq_len - lookback, self.seq_len), *extra]
            w, b = stats.solve(alpha=alpha, fit_intercept=fit_intercept, columns=columns)  # (L + D, P), (P,)
            weight[columns] += w / len(self.lookbacks)
            bias += b / len(self.lookbacks)
        return weight, bias

    def __repr__(self) -> str:
        return f"LookbackEnsemble({self.lookbacks})"
