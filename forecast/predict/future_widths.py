"""Half-widths for a forecast of the future: the split-conformal ones tracked through the file's recent past.

A rolling backtest tracks each split-conformal half-width online as actuals arrive
(:func:`~forecast.training.conformal.track_half_widths`); a forecast of the steps after a file's last
row continues that tracking. For each series the model forecasts its latest windows whose actuals are
in the file, at most ``max_windows`` a series (and ``total_windows`` over a panel), none before the
training run's validation span of the file (training rows were fitted, so their errors are too small);
the tracker runs through them from the checkpoint's half-widths, and the forecast gets its state at the
last row. A series with no such window keeps the split-conformal half-widths.
"""

from __future__ import annotations

import numpy as np

from forecast.data.errors import DataError
from forecast.data.reader import Panel, Series
from forecast.data.splits import RowRange, n_windows
from forecast.predict.rolling import run_backtest
from forecast.predict.span import resolve_span
from forecast.predict.trained_model import TrainedModel
from forecast.training.conformal import ADAPT_RATE, tracked_width_at

MAX_WINDOWS = 2000  # a series' latest windows the tracker runs through
TOTAL_WINDOWS = 20000  # over all the series of a panel


def future_widths(trained: TrainedModel, panel: Panel, widths: dict[float, np.ndarray], *,
                  max_windows: int = MAX_WINDOWS, total_windows: int = TOTAL_WINDOWS,
                  rate: float = ADAPT_RATE, batch_size: int | None = None) -> list[dict[float, np.ndarray]]:
    """Each series' ``{level: (P, C_out) half-width, scaled}`` for the window after its last row.

    Args:
        trained: the model.
        panel: the series to forecast.
        widths: the checkpoint's split-conformal half-widths, ``{level: (P, C_out)}`` scaled.
        max_windows: at most this many of a series' latest windows are tracked through.
        total_windows: at most this many over the panel (``total_windows // series`` a series, at least 1).
        rate: the tracker's step as a fraction of the split half-width.
        batch_size: windows per forward pass; None: ``trained.batch_windows``.

    Returns:
        One dict per series of ``panel``, in order.
    """
    out = [dict(widths) for _ in panel.series]
    spans = _spans(trained, panel, max_windows, total_windows)
    if not widths or not any(_count(trained, r) for r in spans):
        return out
    bt = run_backtest(trained, panel, spans, batch_size=batch_size)  # every series' windows, batched together
    errors = np.abs(bt.pred.astype(np.float64) - bt.actual)  # (W, P, C_out)
    for k, (series, at) in enumerate(zip(panel.series, bt.windows_of())):
        if len(at):
            last = len(series.frame) - 1
            out[k] = {a: tracked_width_at(errors[at], bt.origins[at], w, a, at=last, rate=rate)
                      for a, w in widths.items()}
    return out


def tracked_windows(trained: TrainedModel, panel: Panel, *, max_windows: int = MAX_WINDOWS,
                    total_windows: int = TOTAL_WINDOWS) -> list[int]:
    """How many windows :func:`future_widths` tracks each series' half-widths through (0: split kept)."""
    return [_count(trained, r) for r in _spans(trained, panel, max_windows, total_windows)]


def _spans(trained: TrainedModel, panel: Panel, max_windows: int, total_windows: int) -> list[RowRange]:
    """Each series' rows (look-back included) of its latest windows: at most ``max_windows`` a series and
    ``total_windows`` over the panel, none before the run's validation span of the file."""
    per_series = max(1, min(max_windows, total_windows // max(1, len(panel.series))))
    rows = per_series + trained.spec.seq_len + trained.spec.pred_len - 1  # the latest windows' rows
    spans = []
    for series in panel.series:
        n_rows = len(series.frame)
        spans.append(RowRange(max(0, n_rows - rows, _validation_start(trained, series)), n_rows))
    return spans


def _count(trained: TrainedModel, rows: RowRange) -> int:
    """Complete windows in ``rows``."""
    return max(0, n_windows(rows, trained.spec.seq_len, trained.spec.pred_len))


def _validation_start(trained: TrainedModel, series: Series) -> int:
    """The first row of the training run's validation span of this series (its look-back included); 0 when
    the file is too short for the run's splits."""
    try:
        return resolve_span(series.index, trained.config, seq_len=trained.spec.seq_len, span="val").start
    except DataError:
        return 0
