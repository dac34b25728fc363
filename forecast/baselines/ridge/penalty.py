"""A ridge's penalty chosen on the training windows it was not fitted on.

The statistics of the earlier half of the training windows are solved at each of :data:`PENALTY_SCALES` times
their spread (:func:`spread`) and scored on the later windows, from ``pred_len`` windows past the half, so that no
row a scored window forecasts was fitted; the whole set is then solved at the scale that scored best. One pass over
the windows gives the three parts (earlier half, the gap, the held-out windows), whose sum is the whole set's
statistics.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, NamedTuple

from torch import Tensor

from forecast.baselines.ridge.stats import RidgeStats
from forecast.data.batch import WindowRange, window_count

#: penalties tried, as multiples of the mean diagonal of the centred X^T X (scale-free: the same share of the
#: data's own spread whatever the number of windows)
PENALTY_SCALES = (1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
#: the scale where the training windows are too few to hold any out
FALLBACK_SCALE = PENALTY_SCALES[len(PENALTY_SCALES) // 2]

Statistics = Callable[[Iterable[Any], int], RidgeStats]
"""The statistics of some windows, given them and the index of the first among all the training windows."""
Solve = Callable[[RidgeStats, float], tuple[Tensor, Tensor]]
"""W and b of statistics at a penalty."""


class Penalised(NamedTuple):
    """The statistics of every training window and the chosen penalty scale (``alpha = scale * spread(stats)``)."""

    stats: RidgeStats
    scale: float

    @property
    def alpha(self) -> float:
        """The penalty the whole set is solved at."""
        return self.scale * spread(self.stats)


def spread(stats: RidgeStats) -> float:
    """The mean diagonal of the centred ``X^T X``: a penalty scale of 1 is this much; 1 where it is 0 (one regression
    row, or inputs that never vary: any penalty then gives W = 0)."""
    value = float(stats.centred_xtx().diagonal().mean())
    return value if value > 0 else 1.0


def choose_penalty(batches: Iterable[Any], pred_len: int, statistics: Statistics, solve: Solve,
                   windows: int | None = None) -> Penalised:
    """The statistics of every window of ``batches`` (in window order; re-iterable) and the penalty scale of
    :data:`PENALTY_SCALES` whose earlier-half solution scores lowest on the held-out windows; the scale is
    :data:`FALLBACK_SCALE` where no window is left to hold out.

    Args:
        batches: the training windows.
        pred_len: forecast horizon: the held-out windows start this many windows past the half.
        statistics: the statistics of a range of the windows.
        solve: the solution of statistics at a penalty (``alpha``).
        windows: the number of windows of ``batches`` (counted when None).
    """
    windows = window_count(batches) if windows is None else windows
    half, later = windows // 2, windows // 2 + pred_len
    if half < 1 or windows - later < 1:
        return Penalised(statistics(batches, 0), FALLBACK_SCALE)
    earlier, gap, held_out = (statistics(WindowRange(batches, start, stop), start)
                              for start, stop in ((0, half), (half, later), (later, windows)))
    width = spread(earlier)
    losses = [held_out.squared_error(*solve(earlier, scale * width)) for scale in PENALTY_SCALES]
    return Penalised(earlier + gap + held_out, PENALTY_SCALES[min(range(len(losses)), key=losses.__getitem__)])
