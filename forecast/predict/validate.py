"""Checks a prediction input needs beyond :func:`~forecast.data.reader.read_panel`: frequency and length."""

from __future__ import annotations

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.data.errors import DataError
from forecast.data.hints import PREDICT
from forecast.data.regular import find_gaps, infer_freq, refuse_gap
from forecast.spelling import CLI, Spelling


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
        DataError: another frequency, a timestamp off the frequency's grid, or rows missing (with the
            first offending file line).
    """
    model_off = _offset(freq, "the checkpoint's")
    inferred = infer_freq(index)
    if inferred is not None and _offset(inferred, "the file's") != model_off:
        raise DataError(f"{source}: the timestamps are at frequency {inferred!r} but the model was trained on "
                        f"{freq!r}; resample the file to {freq!r} or use a model trained at {inferred!r}")
    whose = "the model's frequency"
    gaps = find_gaps(index, freq, source=source, lines=np.arange(len(index)) + 2, whose=whose, hints=PREDICT)
    refuse_gap(gaps, index, freq, source=source, whose=whose, hints=PREDICT)
    return inferred or freq


def check_length(n_rows: int, needed: int, *, source: str, what: str, spelling: Spelling = CLI) -> None:
    """Refuse a file with fewer than ``needed`` rows.

    Args:
        n_rows: the rows read.
        needed: the rows ``what`` needs.
        source: the file, for the message.
        what: what needs them, for the message.
        spelling: whose remedy the message gives (``pass a longer file``, ``pass more rows``).

    Raises:
        DataError: too few rows.
    """
    if n_rows < needed:
        raise DataError(f"{source}: {n_rows} data rows, but {what} needs at least {needed}; {spelling.more_rows}")
