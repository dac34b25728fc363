"""The rows a rolling backtest forecasts: a named split, or ``--start``/``--end`` rows or timestamps."""

from __future__ import annotations

from typing import Any

import pandas as pd

from forecast.data.errors import DataError
from forecast.data.splits import RowRange, split_ranges

SPANS = ("train", "val", "test", "all")


def _row(value: str, index: pd.DatetimeIndex, *, option: str, end: bool) -> int:
    """A 0-based data row from a row number or a timestamp (``--end`` timestamps are inclusive)."""
    text = value.strip()
    if text.lstrip("-").isdigit():
        row = int(text)
        if not 0 <= row <= len(index):
            raise DataError(f"{option} {row}: row out of range; the file has {len(index)} data rows (0-based)")
        return row
    try:
        stamp = pd.Timestamp(text)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{option} {value!r}: neither a row number nor a timestamp like 2018-01-01 00:00:00") from exc
    return int(index.searchsorted(stamp, side="right" if end else "left"))


def resolve_span(index: pd.DatetimeIndex, config: dict[str, Any], *, seq_len: int, span: str | None = None,
                 start: str | None = None, end: str | None = None) -> RowRange:
    """Rows ``[start, end)`` to cut backtest windows from; ``start`` includes the ``seq_len`` look-back.

    Args:
        index: the file's timestamps.
        config: the training config (its ``data.borders``/``data.ratios`` define the named splits).
        seq_len: encoder length.
        span: ``train``, ``val``, ``test`` (the training run's splits, applied to this file) or ``all``.
        start: first forecast row: a 0-based row number or a timestamp (inclusive).
        end: end of the forecast rows: a row number (exclusive, like ``data.borders``) or a timestamp
            (inclusive).

    Raises:
        DataError: an unknown span, an unparsable bound, or both a span and bounds.
    """
    if span is not None and (start is not None or end is not None):
        raise DataError("pass either --span or --start/--end, not both")
    if span is not None and span != "all":
        if span not in SPANS:
            raise DataError(f"--span {span!r}: use one of {', '.join(SPANS)}")
        data = config.get("data") or {}
        ratios = data.get("ratios") or (0.7, 0.1, 0.2)
        return split_ranges(len(index), seq_len=seq_len, borders=data.get("borders"), ratios=ratios)[span]
    first = _row(start, index, option="--start", end=False) if start is not None else seq_len
    last = _row(end, index, option="--end", end=True) if end is not None else len(index)
    return RowRange(max(0, first - seq_len), last)
