"""Known-future inputs (``data.future_columns``): columns whose values over the horizon are known when
forecasting (planned load, a weather forecast, a holiday flag).

They are inputs, never targets: the model does not see them among ``x_enc``'s channels but as extra
columns of the time marks, so the encoder marks carry their history and the decoder marks their values
over the start token and the horizon. A mark row is laid out as

    [ n_time_features continuous calendar features | n_future known-future columns | 5 calendar fields ]

so the calendar fields stay last (``CalendarProfile`` reads them from the end) and the continuous
calendar features stay first (the ``timeF`` embedding reads the first ``n_time_features``). The
columns are scaled with their own training-rows statistics (``DataSpec.future_mean``/``future_scale``).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from forecast.data.errors import DataError
from forecast.data.time_features import CALENDAR_FIELDS


def with_known(marks: np.ndarray, known: np.ndarray) -> np.ndarray:
    """Insert the scaled known-future columns before the five calendar fields.

    Shapes: marks (N, n_time_features + 5), known (N, K) -> (N, n_time_features + K + 5), float32.
    """
    if known.shape[1] == 0:
        return marks
    cut = marks.shape[1] - len(CALENDAR_FIELDS)
    return np.concatenate([marks[:, :cut], known.astype(np.float32), marks[:, cut:]], axis=1)


def check_future_columns(future_columns: Sequence[str], *, target: str | None, id_col: str | None) -> list[str]:
    """The known-future columns of ``data.future_columns``, refused in one line where they cannot work.

    Raises:
        DataError: a repeated column, the target among them, or a file of many series (``id_col``).
    """
    columns = [str(c) for c in future_columns]
    if not columns:
        return columns
    repeated = sorted({c for c in columns if columns.count(c) > 1})
    if repeated:
        raise DataError(f"data.future_columns names {', '.join(repeated)} more than once; list each column once")
    if target in columns:
        raise DataError(f"data.future_columns: {target!r} is data.target; a known-future column is an input, never a "
                        f"target: drop it from data.future_columns or choose another data.target")
    if id_col is not None:
        raise DataError(f"data.future_columns works on a file of one series, not with data.id_col={id_col!r}; "
                        f"drop one of the two")
    return columns
