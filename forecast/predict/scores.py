"""Scale-free errors of a backtest beside MSE/MAE: MAPE and sMAPE (torchmetrics), MASE against the naive forecast;
and the interval score of prediction intervals."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import torch


@dataclass
class ErrorSums:
    """A forecast's errors summed over the chunks of windows given to :meth:`add`: what its MSE and MAE per step,
    MAPE, sMAPE and MASE need, so that no copy of the whole backtest is made.

    Attributes:
        squared: sum over windows of the squared errors, (P, C).
        absolute: sum over windows of the absolute errors, (P, C).
        ape: sum of the absolute percentage errors, by torchmetrics' MAPE (an actual near 0 clamped).
        sape: sum of the symmetric ones, by torchmetrics' sMAPE.
        windows: windows added.
        smallest: the smallest ``|actual|`` of each column, (C,), over the chunks added with their relative errors.
        size: sum of ``|actual|`` of each column, (C,), over the same chunks.
    """

    squared: np.ndarray
    absolute: np.ndarray
    ape: float = 0.0
    sape: float = 0.0
    windows: int = 0
    smallest: np.ndarray = field(default_factory=lambda: np.array([]))
    size: np.ndarray = field(default_factory=lambda: np.array([]))

    @classmethod
    def zeros(cls, steps: int, columns: int) -> "ErrorSums":
        return cls(squared=np.zeros((steps, columns)), absolute=np.zeros((steps, columns)),
                   smallest=np.full(columns, np.inf), size=np.zeros(columns))

    def add(self, pred: np.ndarray, actual: np.ndarray, *, relative: bool = True) -> None:
        """Add a chunk of windows: pred, actual (K, P, C) float64; ``relative``: the percentage errors and the sizes
        of the actuals that :meth:`relative` needs too."""
        err = pred - actual  # (K, P, C)
        self.squared += np.square(err).sum(axis=0)
        self.absolute += np.abs(err, out=err).sum(axis=0)
        self.windows += len(pred)
        if not relative:
            return
        magnitude = np.abs(actual)  # (K, P, C)
        self.smallest = np.minimum(self.smallest, magnitude.min(axis=(0, 1), initial=np.inf))
        self.size += magnitude.sum(axis=(0, 1))
        if pred.size:
            # torchmetrics imports scipy: loaded for a backtest, not for every forecast
            from torchmetrics.functional.regression import (mean_absolute_percentage_error,
                                                            symmetric_mean_absolute_percentage_error)

            p, y = torch.from_numpy(pred).reshape(-1), torch.from_numpy(actual).reshape(-1)
            self.ape += float(mean_absolute_percentage_error(p, y)) * pred.size
            self.sape += float(symmetric_mean_absolute_percentage_error(p, y)) * pred.size

    @property
    def cells(self) -> int:
        return self.windows * self.squared.size

    def mse(self) -> float:
        return float(self.squared.sum() / self.cells)

    def mae(self) -> float:
        return float(self.absolute.sum() / self.cells)

    def mse_per_step(self) -> list[float]:
        return [float(v) for v in self.squared.sum(axis=1) / (self.windows * self.squared.shape[1])]

    def mae_per_step(self) -> list[float]:
        return [float(v) for v in self.absolute.sum(axis=1) / (self.windows * self.absolute.shape[1])]

    def relative(self, naive: "ErrorSums") -> dict[str, float | None]:
        """MAPE, sMAPE and MASE against ``naive``'s sums over the same windows (:func:`relative_errors`)."""
        mae, naive_mae = self.absolute.sum(axis=0), naive.absolute.sum(axis=0)  # (C,) each, over the same cells
        usable = naive_mae > 0
        mase = float(np.mean(mae[usable] / naive_mae[usable])) if usable.any() else None
        # actuals come back from float32 scaled values: a zero is anything within float32 rounding of the column's
        # mean magnitude
        zero = self.smallest <= 1e-6 * self.size / max(self.windows * self.squared.shape[0], 1)
        return {"mape": None if bool(zero.any()) else self.ape / self.cells, "smape": self.sape / self.cells,
                "mase": mase}


def relative_errors(pred: np.ndarray, actual: np.ndarray, naive: np.ndarray) -> dict[str, float | None]:
    """MAPE, sMAPE and MASE of forecasts in original units.

    Args:
        pred: forecasts, (W, P, C), original units.
        actual: actuals, (W, P, C), original units.
        naive: the naive forecast (last input value repeated) of the same windows, (W, P, C).

    Returns:
        ``mape`` (mean of ``|y - ŷ| / |y|``, a fraction: 0.05 is 5%; None when an actual is 0 (to float32 rounding
        of its column's mean magnitude), where it is undefined, and large where actuals are near zero), ``smape``
        (mean of ``2 |y - ŷ| / (|y| + |ŷ|)``, 0 to 2), both by torchmetrics, and ``mase``: each column's MAE over
        the naive forecast's MAE on the same windows, averaged over the columns (1 is as good as repeating the
        last value, below 1 better; the naive forecast itself scores 1). A column the naive forecast gets exactly
        right is left out (None when all are: a constant series).
    """
    sums, naive_sums = ErrorSums.zeros(*pred.shape[1:]), ErrorSums.zeros(*pred.shape[1:])
    sums.add(np.asarray(pred, dtype=np.float64), np.asarray(actual, dtype=np.float64))
    naive_sums.add(np.asarray(naive, dtype=np.float64), np.asarray(actual, dtype=np.float64), relative=False)
    return sums.relative(naive_sums)


def interval_score(lower: np.ndarray, upper: np.ndarray, actual: np.ndarray, level: float) -> np.ndarray:
    """The interval score (Winkler 1972; Gneiting & Raftery 2007, eq. 43) of central intervals at ``level``.

    ``(upper - lower) + 2 / (1 - level) * (distance from the actual to the interval when outside)``:
    width and coverage in one number, lower is better, in the units of the values. Its expectation is
    smallest for the interval between the true ``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles,
    so an interval cannot improve it by covering more or less than it should. Infinite bounds score inf.

    Shapes: lower, upper, actual (...) -> (...).
    """
    alpha = 1.0 - level
    below = np.maximum(lower - actual, 0.0)
    above = np.maximum(actual - upper, 0.0)
    with np.errstate(invalid="ignore"):  # inf - inf where both bounds are infinite: the width is inf
        width = np.where(np.isinf(upper) | np.isinf(lower), np.inf, upper - lower)
    return width + (2.0 / alpha) * (below + above)


def coverage_standard_error(inside: np.ndarray, series: np.ndarray, origins: np.ndarray) -> float | None:
    """Standard error of a backtest's coverage (the mean of ``inside``) when its windows overlap.

    Each window's share of actuals inside its interval is one value of a sequence over the windows of its
    series (in origin order). Neighbouring windows share most of their horizon, so their shares move together:
    the variance of their mean is the Newey-West long-run variance (Bartlett weights, lag ``2 * ceil(pred_len /
    stride)`` as the keep rule's, :func:`~forecast.training.evidence.hac_lag`) over the windows, not the
    binomial ``c (1 - c) / n`` of independent actuals. Series are taken as independent:
    ``se^2 = sum_s W_s LRV_s / W^2``.

    Shapes: inside (W, P, C) bool, series (W,), origins (W,) -> float; None with fewer than 2 windows.
    """
    from forecast.training.evidence import hac_lag, newey_west_variance

    share = np.asarray(inside, dtype=np.float64).reshape(len(inside), -1).mean(axis=1)  # (W,)
    if len(share) < 2:
        return None
    order = np.lexsort((origins, series))  # by series, then origin
    starts = np.flatnonzero(np.r_[True, np.diff(series[order]) != 0])  # first position of each series
    total = 0.0
    for values, at in zip(np.split(share[order], starts[1:]), np.split(origins[order], starts[1:])):
        if len(values) < 2:
            continue
        gaps = np.diff(at)
        stride = int(gaps[gaps > 0].min()) if (gaps > 0).any() else 1
        total += len(values) * newey_west_variance(values, hac_lag(int(inside.shape[1]), stride))
    return float(np.sqrt(max(total, 0.0)) / len(share))
