"""The rows a rolling backtest forecasts: a named split, or ``--start``/``--end`` (``start=``/``end=``) rows or
timestamps."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd

from forecast.data.errors import DataError
from forecast.data.reader import Panel
from forecast.data.splits import RowRange, fits_every_split, split_ranges
from forecast.spelling import CLI, Spelling

SPANS = ("train", "val", "test", "all")


def _row(value: str | int, index: pd.Index, *, arg: str, end: bool, spelling: Spelling) -> int:
    """A 0-based data row from a row number or a timestamp (``end`` timestamps are inclusive); ``arg``
    (``start`` or ``end``) names the bound in messages, as ``spelling`` writes it."""
    text = str(value).strip()
    if text.lstrip("-").isdigit():
        row = int(text)
        if not 0 <= row <= len(index):
            raise DataError(f"{spelling.given(arg, row)}: row out of range; {spelling.data} has {len(index)} "
                            f"data rows (0-based)")
        return row
    if not isinstance(index, pd.DatetimeIndex):
        raise DataError(f"{spelling.given(arg, value, quote=True)}: {spelling.data} has no timestamps; give a "
                        f"row number")
    try:
        stamp = pd.Timestamp(text)
    except (ValueError, TypeError) as exc:
        raise DataError(f"{spelling.given(arg, value, quote=True)}: neither a row number nor a timestamp like "
                        f"2018-01-01 00:00:00") from exc
    stamp = _in_zone(stamp, index, arg=arg, spelling=spelling)
    if len(index) and not end and stamp > index[-1]:
        raise DataError(f"{spelling.given(arg, value)}: after {spelling.data}'s last timestamp, {index[-1]}; give a "
                        f"time within {spelling.data}")
    if len(index) and end and stamp < index[0]:
        raise DataError(f"{spelling.given(arg, value)}: before {spelling.data}'s first timestamp, {index[0]}; give a "
                        f"time within {spelling.data}")
    return int(index.searchsorted(stamp, side="right" if end else "left"))


def _in_zone(stamp: pd.Timestamp, index: pd.DatetimeIndex, *, arg: str, spelling: Spelling) -> pd.Timestamp:
    """``stamp`` comparable with ``index``: a naive one is local time in the index's zone, an aware one converted."""
    given = spelling.given(arg, str(stamp))
    if index.tz is None:
        if stamp.tz is not None:
            raise DataError(f"{given}: {spelling.data}'s timestamps have no time zone; give the time without an "
                            f"offset")
        return stamp
    if stamp.tz is not None:
        return stamp.tz_convert(index.tz)
    try:
        return stamp.tz_localize(index.tz)
    except (ValueError, TypeError) as exc:  # the repeated or skipped hour of a daylight-saving change
        raise DataError(f"{given}: not a single time in {index.tz} (a daylight-saving change); give it with "
                        f"its UTC offset, like {stamp.isoformat()}+01:00") from exc


def resolve_span(index: pd.Index, config: dict[str, Any], *, seq_len: int, span: str | None = None,
                 start: str | int | None = None, end: str | int | None = None,
                 spelling: Spelling = CLI) -> RowRange:
    """Rows ``[start, end)`` to cut backtest windows from; ``start`` includes the ``seq_len`` look-back.

    Args:
        index: the series' timestamps (or steps).
        config: the training config (its ``data.borders``/``data.ratios`` define the named splits).
        seq_len: encoder length.
        span: ``train``, ``val``, ``test`` (the training run's splits, applied to this file) or ``all``.
        start: first forecast row: a 0-based row number or a timestamp (inclusive).
        end: end of the forecast rows: a row number (exclusive, like ``data.borders``) or a timestamp
            (inclusive).
        spelling: how the messages name ``span``, ``start`` and ``end`` (``--span``, ``span=``).

    Raises:
        DataError: an unknown span, an unparsable bound, a timestamp outside the file (a start after its last,
            an end before its first), an end not after the start, or both a span and bounds.
    """
    bounds = f"{spelling.name('start')}/{spelling.name('end')}"
    if span is not None and (start is not None or end is not None):
        raise DataError(f"pass either {spelling.name('span')} or {bounds}, not both")
    if span is not None and span != "all":
        if span not in SPANS:
            raise DataError(f"{spelling.given('span', span, quote=True)}: use one of {', '.join(SPANS)}")
        data = config.get("data") or {}
        ratios = data.get("ratios") or (0.7, 0.1, 0.2)
        return split_ranges(len(index), seq_len=seq_len, borders=data.get("borders"), ratios=ratios)[span]
    first = _row(start, index, arg="start", end=False, spelling=spelling) if start is not None else seq_len
    last = _row(end, index, arg="end", end=True, spelling=spelling) if end is not None else len(index)
    if start is not None and end is not None and last <= first:
        raise DataError(f"{spelling.given('start', start)} and {spelling.given('end', end)} leave no row to forecast "
                        f"(rows {first} to {last}, the end exclusive); give an {spelling.name('end')} after the "
                        f"{spelling.name('start')}")
    return RowRange(max(0, first - seq_len), last)


def resolve_spans(panel: Panel, config: dict[str, Any], *, seq_len: int, pred_len: int, span: str | None = None,
                  start: str | int | None = None, end: str | int | None = None,
                  spelling: Spelling = CLI) -> tuple[Panel, list[RowRange]]:
    """:func:`resolve_span` for every series of a panel, each on its own rows.

    With a named split, the series training skipped (too short for a window in every split) are left
    out with a note, so a backtest of ``--span test`` covers the windows training tested.

    Returns:
        The panel backtested and one row range per series.
    """
    if span in ("train", "val", "test") and panel.id_col is not None:
        data = config.get("data") or {}
        fits = [fits_every_split(len(s.frame), seq_len=seq_len, pred_len=pred_len, borders=data.get("borders"),
                                 ratios=data.get("ratios") or (0.7, 0.1, 0.2)) for s in panel.series]
        skipped = [str(s.series_id) for s, ok in zip(panel.series, fits) if not ok]
        if skipped:
            if len(skipped) == len(panel.series):
                raise DataError(f"no series is long enough for a window in every split as in training, so none has "
                                f"a {span} span; use {spelling.name('start')}/{spelling.name('end')}")
            note = (f"skipping {len(skipped)} series too short for a window in every split (as training did): "
                    + ", ".join(skipped[:10]) + (f" and {len(skipped) - 10} more" if len(skipped) > 10 else ""))
            panel = replace(panel, series=tuple(s for s, ok in zip(panel.series, fits) if ok),
                            notes=panel.notes + (note,))
    spans = [resolve_span(s.index, config, seq_len=seq_len, span=span, start=start, end=end, spelling=spelling)
             for s in panel.series]
    return panel, spans
