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
import torch
from torch.utils.data import DataLoader

from forecast.data.errors import DataError
from forecast.data.reader import Panel, Series
from forecast.predict.span import resolve_span
from forecast.predict.trained_model import TrainedModel
from forecast.training.conformal import ADAPT_RATE, tracked_width_at

MAX_WINDOWS = 2000  # a series' latest windows the tracker runs through
TOTAL_WINDOWS = 20000  # over all the series of a panel


def future_widths(trained: TrainedModel, panel: Panel, widths: dict[float, np.ndarray], *,
                  max_windows: int = MAX_WINDOWS, total_windows: int = TOTAL_WINDOWS,
                  rate: float = ADAPT_RATE, batch_size: int = 256) -> list[dict[float, np.ndarray]]:
    """Each series' ``{level: (P, C_out) half-width, scaled}`` for the window after its last row.

    Args:
        trained: the model.
        panel: the series to forecast.
        widths: the checkpoint's split-conformal half-widths, ``{level: (P, C_out)}`` scaled.
        max_windows: at most this many of a series' latest windows are tracked through.
        total_windows: at most this many over the panel (``total_windows // series`` a series, at least 1).
        rate: the tracker's step as a fraction of the split half-width.
        batch_size: windows per forward pass.

    Returns:
        One dict per series of ``panel``, in order.
    """
    per_series = _per_series(panel, max_windows, total_windows)
    return [_series_widths(trained, s, widths, per_series, rate, batch_size) for s in panel.series]


def tracked_windows(trained: TrainedModel, panel: Panel, *, max_windows: int = MAX_WINDOWS,
                    total_windows: int = TOTAL_WINDOWS) -> list[int]:
    """How many windows :func:`future_widths` tracks each series' half-widths through (0: split kept)."""
    per_series = _per_series(panel, max_windows, total_windows)
    span = trained.spec.seq_len + trained.spec.pred_len  # rows of one window
    return [max(0, len(s.frame) - _first_row(trained, s, per_series) - span + 1) for s in panel.series]


def _per_series(panel: Panel, max_windows: int, total_windows: int) -> int:
    return max(1, min(max_windows, total_windows // max(1, len(panel.series))))


def _first_row(trained: TrainedModel, series: Series, n_windows: int) -> int:
    """The first row (look-back included) of the series' latest ``n_windows`` windows, none before the run's
    validation span of the file."""
    span = trained.spec.seq_len + trained.spec.pred_len  # rows of one window
    return max(0, len(series.frame) - (n_windows + span - 1), _validation_start(trained, series))


def _series_widths(trained: TrainedModel, series: Series, widths: dict[float, np.ndarray], n_windows: int,
                   rate: float, batch_size: int) -> dict[float, np.ndarray]:
    spec = trained.spec
    n_rows = len(series.frame)
    start = _first_row(trained, series, n_windows)
    if not widths or n_rows - start < spec.seq_len + spec.pred_len:
        return dict(widths)
    windows = trained.windows(series, start=start, end=n_rows)
    preds, actuals = [], []
    with torch.inference_mode():
        for batch in DataLoader(windows, batch_size=batch_size, shuffle=False):
            preds.append(trained.predict(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec))  # (B, P, C_out)
            actuals.append(batch.y)  # (B, P, C_out)
    errors = np.abs(torch.cat(preds).numpy().astype(np.float64) - torch.cat(actuals).numpy())  # (W, P, C_out)
    origins = np.array([windows.origin(i) + spec.seq_len - 1 for i in range(len(windows))])  # (W,)
    return {a: tracked_width_at(errors, origins, w, a, at=n_rows - 1, rate=rate) for a, w in widths.items()}


def _validation_start(trained: TrainedModel, series: Series) -> int:
    """The first row of the training run's validation span of this series (its look-back included); 0 when
    the file is too short for the run's splits."""
    try:
        return resolve_span(series.index, trained.config, seq_len=trained.spec.seq_len, span="val").start
    except DataError:
        return 0
