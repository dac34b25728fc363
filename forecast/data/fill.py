"""Filling a series' missing cells from its own values: the last value carried forward (its first carried back
into the cells before it), or a straight line between the values around a gap (the nearest value beyond the
ends), as pandas' ``ffill().bfill()`` and ``interpolate(method="linear", limit_direction="both")`` fill them,
on arrays."""

from __future__ import annotations

from typing import Literal

import numpy as np

FillMethod = Literal["ffill", "interpolate"]


def filled(values: np.ndarray, method: FillMethod) -> np.ndarray:
    """``values`` (N, C) float64 with every NaN filled by ``method`` from its column's values; a column with no
    value stays NaN."""
    out = values.copy()
    at = np.arange(len(values))  # (N,)
    for c in range(values.shape[1]):
        known = np.isfinite(values[:, c])  # (N,)
        if known.all() or not known.any():
            continue
        if method == "interpolate":
            out[:, c] = np.interp(at, at[known], values[known, c])
        else:
            last = np.maximum.accumulate(np.where(known, at, -1))  # (N,) the row of the last value so far
            last[last < 0] = int(np.argmax(known))  # before the first value: the first value
            out[:, c] = values[last, c]
    return out
