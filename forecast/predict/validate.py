"""Checks a prediction input needs beyond :func:`read_series`: frequency and length."""

from __future__ import annotations

import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.data.errors import DataError


def _offset(freq: str, what: str) -> pd.DateOffset:
    try:
        return to_offset(freq)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{what} frequency {freq!r} is not a pandas frequency") from exc


def same_frequency(a: str, b: str) -> bool:
    """True when two pandas frequency strings are the same offset (``h`` == ``60min``)."""
    return _offset(a, "the") == _offset(b, "the")


def check_frequency(index: pd.DatetimeIndex, freq: str, *, source: str) -> str:
    """Check that ``index`` is regular at the model's ``freq``; return the file's own frequency.

    Args:
        index: the file's sorted, unique timestamps.
        freq: the frequency the model was trained on (from the checkpoint).
        source: the file, for messages.

    Raises:
        DataError: irregular spacing (with the first offending file line) or another frequency.
    """
    model_off = _offset(freq, "the checkpoint's")
    inferred = pd.infer_freq(index) if len(index) >= 3 else None
    if inferred is None:
        for i in range(1, len(index)):
            expected = index[i - 1] + model_off
            if index[i] != expected:
                raise DataError(f"{source}: line {i + 2}: timestamp {index[i]} follows {index[i - 1]}, but the model's "
                                f"frequency {freq!r} expects {expected}; timestamps must be evenly spaced: fill the "
                                f"gaps (e.g. resample) or trim the file")
        return freq
    if _offset(inferred, "the file's") != model_off:
        raise DataError(f"{source}: the timestamps are at frequency {inferred!r} but the model was trained on "
                        f"{freq!r}; resample the file to {freq!r} or use a model trained at {inferred!r}")
    return inferred


def check_length(n_rows: int, needed: int, *, source: str, what: str) -> None:
    """Refuse a file with fewer than ``needed`` rows.

    Raises:
        DataError: too few rows.
    """
    if n_rows < needed:
        raise DataError(f"{source}: {n_rows} data rows, but {what} needs at least {needed}; pass a longer file")
