"""A robust fit: a Huber loss on each row's error, minimised by iteratively reweighted least squares.

After a least-squares solve, each round takes the rows' root-mean-square errors over the horizon, sets
the threshold d at their ``quantile``, and solves again with a row of error r > d counted d / r times:
the rare windows with a spike in the horizon stop pulling the map towards them (docs/results.md §3.3).
"""

from __future__ import annotations

import math

from torch import Tensor

from forecast.core.errors import ConfigError


class Huber:
    """The reweighting of a Huber fit: its threshold from the rows' errors, and each row's weight.

    Args:
        quantile: the quantile of the rows' errors where the loss turns linear, in (0, 1).
        steps: reweighting rounds.

    Raises:
        ConfigError: ``quantile`` outside (0, 1), or ``steps`` < 1.
    """

    def __init__(self, *, quantile: float, steps: int = 3) -> None:
        if not 0 < quantile < 1:
            raise ConfigError(f"huber quantile must be between 0 and 1 (exclusive), got {quantile}")
        if steps < 1:
            raise ConfigError(f"huber steps must be at least 1, got {steps}")
        self.quantile, self.steps = float(quantile), int(steps)

    def threshold(self, errors: Tensor) -> float:
        """The nearest-rank ``quantile`` of ``errors`` (N,), for any N."""
        rank = max(1, math.ceil(self.quantile * errors.numel()))
        return float(errors.kthvalue(rank).values)

    def weights(self, errors: Tensor, threshold: float) -> Tensor:
        """How many times each row counts: 1 up to the threshold d, d / r above. Shapes: (N,) -> (N,)."""
        return (threshold / errors.clamp(min=1e-12)).clamp(max=1.0)

    def __repr__(self) -> str:
        return f"Huber(quantile={self.quantile}, steps={self.steps})"
