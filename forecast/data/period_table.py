"""Tables of series by periods (``Country Name,...,1960,1961,...``: the World Bank, OECD and Eurostat's wide
exports, Johns Hopkins' daily counts): a row a series, a column a year, quarter, month or day; read as one
series per row, a row a period, in time order. Tables of series by steps (the M4 competition's ``V1,V2,...``)
alike, without timestamps."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text
from forecast.data.date_parts import MONTHS, YEARS
from forecast.data.series_ids import id_name, naming_columns
from forecast.data.timestamps import find_timestamp_column, may_hold_times
from forecast.data.year_table import VALUE

MIN_PERIODS = 3  # period columns that make a table of series by periods
# a column named by a period: a year (the World Bank's DataBank writes 1990 [YR1990]), a quarter, a month, a day
_YEAR = re.compile(r"(\d{4})(?: \[YR\d{4}\])?")
_QUARTER = re.compile(r"(\d{4})[- ]?Q([1-4])", re.IGNORECASE)
_QUARTER_FIRST = re.compile(r"Q([1-4])[- ](\d{4})", re.IGNORECASE)  # Q1 2020
_MONTH = re.compile(r"(\d{4})(?:-|M)(\d{2})", re.IGNORECASE)
_NAMED_MONTH = re.compile(r"([a-z]+)[- ](\d{4}|\d{2})", re.IGNORECASE)  # Jan 2020, January 2020, Excel's Jan-20
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_US_DAY = re.compile(r"\d{1,2}/\d{1,2}/\d{2}(?:\d{2})?")
_STEP = re.compile(r"(?P<prefix>\D*?)(?P<n>\d+)")  # a column named by a step's number: V2 (the M4 files), 1, t1
STEP = "step"  # the unit of a table of series by steps: no timestamps


def period_start(name: str) -> tuple[str, pd.Timestamp] | None:
    """The unit and first day of the period a column's name is, or None."""
    name = name.strip()
    try:
        if (m := _YEAR.fullmatch(name)) and YEARS[0] <= int(m.group(1)) <= YEARS[1]:
            return "year", pd.Timestamp(int(m.group(1)), 1, 1)
        if m := _QUARTER.fullmatch(name):
            return "quarter", pd.Timestamp(int(m.group(1)), 3 * int(m.group(2)) - 2, 1)
        if m := _QUARTER_FIRST.fullmatch(name):
            return "quarter", pd.Timestamp(int(m.group(2)), 3 * int(m.group(1)) - 2, 1)
        if m := _MONTH.fullmatch(name):
            return "month", pd.Timestamp(int(m.group(1)), int(m.group(2)), 1)
        if (m := _NAMED_MONTH.fullmatch(name)) and m.group(1).lower() in MONTHS:
            year = int(m.group(2))
            year += 0 if len(m.group(2)) == 4 else 2000 if year < 30 else 1900  # Excel's mmm-yy: 00-29 are 20xx
            return "month", pd.Timestamp(year, MONTHS[m.group(1).lower()], 1)
        if _ISO_DAY.fullmatch(name):
            return "day", pd.Timestamp(name)
        if _US_DAY.fullmatch(name):  # Johns Hopkins' 1/22/20: month first
            return "day", pd.to_datetime(name, format="%m/%d/%y" if len(name.split("/")[2]) == 2 else "%m/%d/%Y")
    except ValueError:  # 2020-13, 2/30/20: no period
        return None
    return None


def _period_columns(names: Sequence[str]) -> tuple[list[str], list[pd.Timestamp], str] | None:
    """The run of columns at the end of the header named by periods of one unit, in time order, with their first
    days and the unit; None where there are fewer than :data:`MIN_PERIODS`, or they repeat or go back and forth."""
    run: list[tuple[str, pd.Timestamp]] = []
    unit = None
    for name in reversed(names):
        found = period_start(str(name))
        if found is None or (unit is not None and found[0] != unit):
            break
        unit = found[0]
        run.append((str(name), found[1]))
    if len(run) < MIN_PERIODS:
        return None
    run.reverse()  # header order
    stamps = pd.DatetimeIndex([s for _, s in run])
    if not (stamps.is_monotonic_increasing or stamps.is_monotonic_decreasing) or not stamps.is_unique:
        return None
    order = np.argsort(stamps.asi8)
    return [run[k][0] for k in order], [stamps[k] for k in order], str(unit)


def _step_columns(raw: pd.DataFrame, names: Sequence[str]) -> list[str] | None:
    """The run of columns at the end of the header named by one prefix and numbers rising by one (the M4
    competition's ``V1,V2,...,V1009``; ``1,2,3``), less the first of them that hold text (``V1``, the series' names);
    None where fewer than :data:`MIN_PERIODS` are left, or where the run is no more than the other columns (a table
    of steps has more steps than labels)."""
    run: list[str] = []
    prefix, number = None, None
    for name in reversed(names):
        m = _STEP.fullmatch(str(name).strip())
        if m is None or (prefix is not None and (m.group("prefix") != prefix or int(m.group("n")) != number - 1)):
            break
        prefix, number = m.group("prefix"), int(m.group("n"))
        run.append(str(name))
    run.reverse()  # header order
    if len(run) < MIN_PERIODS or 2 * len(run) <= len(names):  # too few, or not more than the other columns
        return None
    while run and not _numbers_or_empty(raw[run[0]]):
        run.pop(0)
    return run if len(run) >= MIN_PERIODS else None


def _numbers_or_empty(col: pd.Series) -> bool:
    """Every cell of the column is a number or empty (its first cells are read first: most columns of text show
    it there)."""
    text = as_text(col).str.strip()
    return all(bool(((part == "") | pd.to_numeric(part, errors="coerce").notna()).all()) for part in (text[:100], text))


@dataclass(frozen=True)
class PeriodTable:
    """Where a table of series by periods keeps its cells.

    Attributes:
        periods: the period columns, in time order.
        starts: each period's first day, in the same order.
        unit: year, quarter, month or day.
        id_col: the column naming each row's series (None for a table of one row).
        left_out: the other columns (labels, codes, coordinates).
    """

    periods: tuple[str, ...]
    starts: tuple[pd.Timestamp, ...]
    unit: str
    id_col: str | None
    left_out: tuple[str, ...]

    def describe(self) -> str:
        """The table in a few words, for notes and messages."""
        return f"a table of series by {self.unit}s (columns {self.periods[0]} .. {self.periods[-1]})"

    @property
    def steps(self) -> bool:
        """Its columns are steps without timestamps (:data:`STEP`, no :attr:`starts` given them:
        :mod:`forecast.data.timed_steps`)."""
        return self.unit == STEP and not self.starts

    def kept(self, digits: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
        """Which cells are the series, (rows, periods) bool: in each row, those from the first to the last that
        holds a digit (``digits``, (rows, periods) bool: :func:`~forecast.data.year_table.digit_cells`; years
        before a record starts or not yet reported are no cells). ``groups``: one row each."""
        first = np.where(digits.any(axis=1), digits.argmax(axis=1), digits.shape[1])  # (rows,)
        last = digits.shape[1] - 1 - digits[:, ::-1].argmax(axis=1)  # (rows,)
        at = np.arange(digits.shape[1])[None, :]  # (1, periods)
        return (at >= first[:, None]) & (at <= last[:, None])

    def melt(self, raw: pd.DataFrame, cells: np.ndarray, kept: np.ndarray, *, timestamp_col: str,
             id_col: str | None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """A row a kept cell of ``cells`` ((rows, periods): :func:`~forecast.data.year_table.table_cells`), each
        row's periods in time order: ``id_col`` (where given), ``timestamp_col`` (the period's first day) and
        ``value``; and each new row's row of ``raw`` and period (its column among :attr:`periods`), (R,) each."""
        rows, at = _span_cells(kept)  # row-major: each series' periods in time order
        columns = {}
        if id_col is not None:  # categories, not a string a cell: a row's name repeats in each of its cells
            codes, names = pd.factorize(as_text(raw[id_col]).str.strip())
            columns[id_col] = pd.Categorical.from_codes(codes.astype(np.int32)[rows], categories=names)  # (R,)
        if not self.steps:
            columns[timestamp_col] = pd.DatetimeIndex(self.starts)[at]
        return pd.DataFrame({**columns, VALUE: cells[rows, at]}, copy=False), rows, at  # (R, 2 or 3)

    def note(self, frame: pd.DataFrame, timestamp_col: str, dropped: int, id_col: str | None) -> str:
        """What the reader did, for the run's notes."""
        series = "one series" if id_col is None else f"a series for each {id_col!r} ({frame[id_col].nunique()})"
        text = f"{self.describe()}, read as {series} {VALUE!r}{', in steps without timestamps' if self.steps else ''}"
        if self.left_out:
            shown = ", ".join(repr(c) for c in self.left_out[:4]) + (", ..." if len(self.left_out) > 4 else "")
            text += f", column(s) {shown} left out"
        if dropped:
            text += f", {dropped} empty cell(s) before a series' first value or after its last left out"
        return text


def _span_cells(kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.nonzero(kept)`` of a (rows, periods) bool whose True cells in each row are one run (:meth:`PeriodTable
    .kept`), from each row's first cell and count: (R,) rows and (R,) periods, row-major."""
    counts = kept.sum(axis=1)  # (rows,)
    first = kept.argmax(axis=1)  # (rows,)
    total = int(counts.sum())
    wide = np.int64 if total >= 2**31 else np.int32  # a panel's cells: half the memory of int64 below 2**31
    rows = np.repeat(np.arange(len(kept), dtype=wide), counts)  # (R,)
    at = np.arange(total, dtype=wide) - np.repeat((np.cumsum(counts) - counts - first).astype(wide), counts)  # (R,)
    return rows, at.astype(np.min_scalar_type(max(kept.shape[1] - 1, 0)), copy=False)


def find_period_table(raw: pd.DataFrame, *, timestamp_col: object, id_col: str | None) -> PeriodTable | None:
    """The table of series by periods that ``raw`` is, or None: at least :data:`MIN_PERIODS` columns at the end
    named by periods of one unit (``1960``, ``1990 [YR1990]``, ``2020Q1``, ``Q1 2020``, ``2020-01``, ``2020M01``,
    ``Jan 2020``, ``Jan-20``, ``2020-01-31``, ``1/22/20``), in time order either way, and no column named
    ``timestamp_col`` nor named like one (None: rows as steps, as asked); or, where there are no such columns, at
    least as many named by steps (:func:`_step_columns`: the M4 competition's files), more than the other columns,
    where ``id_col`` or a column of text not named like a time names each row's series (rows of numbers alone, or
    named by their times, are steps, not series).
    Its series are named by ``id_col``, else by the first other column of text that names every row once, or the
    first two that do together (:func:`~forecast.data.series_ids.naming_columns`; their joined name, ``Province/State
    + Country/Region``, which the reader then joins); None where none do: one series, refused by the reader where
    there are several rows."""
    names = [str(c) for c in raw.columns]
    if timestamp_col in names or len(raw) == 0:
        return None
    found = _period_columns(names) if isinstance(timestamp_col, str) else None
    steps = _step_columns(raw, names) if found is None else None
    if found is None and steps is None:
        return None
    periods, starts, unit = found if found is not None else (steps, [], STEP)
    labels = [c for c in names if c not in periods]
    if find_timestamp_column(labels) is not None:  # Date,2019,2020,2021: a year a column beside the days
        return None
    if id_col is not None and id_col not in labels:
        return None
    found = naming_columns(raw, labels) if id_col is None and (len(raw) > 1 or steps) else None
    by_time = id_col is None and (not found or any(may_hold_times(c) for c in found))
    if steps and (len(steps) <= len(labels) or by_time):  # numbered among more, rows unnamed or named by times
        return None
    named = id_col if id_col is not None else id_name(found) if found else None
    left_out = tuple(c for c in labels if c != named and c not in (found or ()))
    return PeriodTable(periods=tuple(periods), starts=tuple(starts), unit=unit, id_col=named, left_out=left_out)
