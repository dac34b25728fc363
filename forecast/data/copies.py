"""Rows written twice: a row whose timestamp and every value repeat the row before it in its series.

Exports that join overlapping files (a logger's monthly downloads, a year asked for twice) repeat rows at the
joins, and some files repeat an hour for each of its labels (the Metro traffic file's weather conditions). A
repeated row holds no new value, so it is left out; a row that repeats a timestamp with other values is a
conflict the reader refuses (:func:`forecast.data.reader._order`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import digitless


def copied_rows(raw: pd.DataFrame, stamps: pd.DatetimeIndex, groups: Sequence[tuple[str | None, np.ndarray]],
                skip: Sequence[str | None]) -> np.ndarray:
    """The rows of ``raw`` that repeat the row before them in their series, (N,) bool.

    Args:
        raw: the file's rows, (N, columns) as read.
        stamps: each row's timestamp, (N,).
        groups: each series' rows, in time order.
        skip: columns not compared (the timestamp's own columns: the parsed ``stamps`` are compared instead).

    A row is a copy where its timestamp equals the one before it in its series and each cell of
    :func:`value_columns` equals that row's (two missing cells are equal).
    """
    copies = np.zeros(len(raw), dtype=bool)
    if not groups or len(raw) < 2:
        return copies
    order = np.concatenate([rows for _, rows in groups])  # (N,) rows series by series
    series = np.repeat(np.arange(len(groups)), [len(rows) for _, rows in groups])  # (N,) each one's series
    times = stamps.asi8[order]
    same = (times[1:] == times[:-1]) & (series[1:] == series[:-1])  # (N - 1,) a timestamp repeated in its series
    if not same.any():
        return copies
    later, earlier = order[1:][same], order[:-1][same]  # (P,) each pair's rows
    compared = value_columns(raw, skip)
    left = raw.iloc[later][compared].reset_index(drop=True)  # (P, C)
    right = raw.iloc[earlier][compared].reset_index(drop=True)  # (P, C)
    gone = left.isna().to_numpy(), right.isna().to_numpy()  # (P, C) each: missing cells (NaN, None, pd.NA)
    alike = (left == right).to_numpy(dtype=object, na_value=False)  # (P, C) two present cells equal
    equal = np.where(gone[0] | gone[1], gone[0] & gone[1], alike).astype(bool).all(axis=1)  # (P,)
    copies[later[equal]] = True
    return copies


def value_columns(raw: pd.DataFrame, skip: Sequence[str | None] = ()) -> list[str]:
    """The columns of ``raw`` two rows are compared on, less ``skip``: not those of words without a digit in any cell,
    which label a row (a weather condition) and are never read as values."""
    return [str(c) for c in raw.columns if c not in skip and not digitless(raw[c])]


def differing_column(raw: pd.DataFrame, row: int, other: int, skip: Sequence[str | None] = ()) -> str | None:
    """The first of :func:`value_columns` whose cells rows ``row`` and ``other`` of ``raw`` hold apart (two missing
    cells are alike); else the first other column they do; None where none does."""
    compared = value_columns(raw, skip)
    for col in [*compared, *(c for c in raw.columns if c not in compared and c not in skip)]:
        a, b = raw[col].iloc[row], raw[col].iloc[other]
        missing = pd.isna(a), pd.isna(b)
        if missing[0] != missing[1] or (not any(missing) and not bool(a == b)):
            return str(col)
    return None
