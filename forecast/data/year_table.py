"""Tables of years by months or quarters (``Year,Jan,...,Dec``: statistics offices, climate records), read as
one series: a row a month or quarter, in time order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text, plain_numbers

YEAR_NAMES = ("year", "yr", "years")
MONTH_NAMES = (("jan", "january"), ("feb", "february"), ("mar", "march"), ("apr", "april"), ("may",),
               ("jun", "june"), ("jul", "july"), ("aug", "august"), ("sep", "sept", "september"),
               ("oct", "october"), ("nov", "november"), ("dec", "december"))
QUARTER_NAMES = (("q1", "qtr1"), ("q2", "qtr2"), ("q3", "qtr3"), ("q4", "qtr4"))
VALUE = "value"


def number_table(raw: pd.DataFrame, columns: Sequence[str]) -> np.ndarray | None:
    """(rows, columns) float64: the cells of ``columns`` where every one is stored as a number or written as a
    plain number or empty (NaN) (:func:`~forecast.data.cells.plain_numbers`); None where any is not."""
    out = np.empty((len(raw), len(columns)), dtype=np.float64)
    for k, col in enumerate(columns):
        numbers = plain_numbers(raw[col])
        if numbers is None:
            return None
        out[:, k] = numbers
    return out


def text_cells(raw: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """(rows, columns) object: the cells of ``columns`` as text (:func:`~forecast.data.cells.as_text`)."""
    return np.column_stack([as_text(raw[c]).to_numpy() for c in columns])


def table_cells(raw: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """(rows, columns): the cells of ``columns``, float64 where every one of them is stored as a number or written
    as a plain number or empty (:func:`number_table`), else every cell as text."""
    numbers = number_table(raw, columns)
    return numbers if numbers is not None else text_cells(raw, columns)


def digit_cells(raw: pd.DataFrame, columns: Sequence[str], cells: np.ndarray) -> np.ndarray:
    """(rows, columns) bool: which of the ``cells`` of ``columns`` (:func:`table_cells`) hold a digit (a value, or
    a number with a mark)."""
    if cells.dtype == np.float64:
        return np.isfinite(cells)
    return np.column_stack([as_text(raw[c]).str.contains(r"\d", regex=True).to_numpy(dtype=bool) for c in columns])


def _key(name: object) -> str:
    return str(name).strip().casefold().rstrip(".")


def _periods(names: Sequence[str], spellings: Sequence[Sequence[str]]) -> list[str] | None:
    """The columns named by ``spellings`` (one column each, in calendar order), or None."""
    found = [[c for c in names if _key(c) in spelled] for spelled in spellings]
    if any(len(cols) != 1 for cols in found):
        return None
    periods = [cols[0] for cols in found]
    return periods if [names.index(c) for c in periods] == sorted(names.index(c) for c in periods) else None


@dataclass(frozen=True)
class YearTable:
    """Where a table of years by periods keeps its cells.

    Attributes:
        year: the year column.
        periods: the month (12) or quarter (4) columns, in calendar order.
        left_out: the other columns but the id column (annual means, halves, seasons).
    """

    year: str
    periods: tuple[str, ...]
    left_out: tuple[str, ...]

    @property
    def unit(self) -> str:
        return "month" if len(self.periods) == 12 else "quarter"

    def describe(self) -> str:
        """The table in a few words, for notes and messages."""
        return f"a table of years by {self.unit}s ({self.year}, {self.periods[0]} .. {self.periods[-1]})"

    def kept(self, digits: np.ndarray, groups: Sequence[np.ndarray]) -> np.ndarray:
        """Which cells are the series, (rows, periods) bool: those from the first to the last that holds a digit
        (``digits``, (rows, periods) bool: :func:`digit_cells`) in each group of rows (a series); months before a
        record starts or not yet reported are no cells."""
        kept = np.zeros_like(digits)
        for rows in groups:
            flat = digits[rows].reshape(-1)  # the group's cells in time order
            held = np.flatnonzero(flat)
            inside = np.zeros_like(flat)
            if held.size:
                inside[held[0]: held[-1] + 1] = True
            kept[rows] = inside.reshape(len(rows), len(self.periods))
        return kept

    def melt(self, raw: pd.DataFrame, cells: np.ndarray, kept: np.ndarray, *, timestamp_col: str,
             id_col: str | None) -> tuple[pd.DataFrame, np.ndarray, np.ndarray]:
        """A row a kept cell of ``cells`` ((rows, periods): :func:`table_cells`), in the order of the rows and then
        the periods: ``id_col`` (where given), ``timestamp_col`` (the period's first day) and ``value``; and each
        new row's row of ``raw`` and period (its column among :attr:`periods`), (R,) each."""
        rows, at = np.nonzero(kept)  # row-major: each year's periods in calendar order
        years = pd.to_numeric(raw[self.year], errors="coerce").to_numpy()[rows].astype(np.int64)
        months = at * (12 // len(self.periods)) + 1
        stamps = pd.to_datetime(pd.DataFrame({"year": years, "month": months, "day": 1}))
        columns = {} if id_col is None else {id_col: raw[id_col].to_numpy()[rows]}
        frame = pd.DataFrame({**columns, timestamp_col: stamps.to_numpy(), VALUE: cells[rows, at]})
        return frame, rows, at

    def note(self, frame: pd.DataFrame, timestamp_col: str, dropped: int, id_col: str | None) -> str:
        """What the reader did, for the run's notes."""
        stamps = frame[timestamp_col]
        shown = "%Y-%m"
        series = f"one {self.unit}ly series" if id_col is None else f"a {self.unit}ly series for each {id_col}"
        text = f"{self.describe()}, read as {series} {VALUE!r} ({stamps.min():{shown}} .. {stamps.max():{shown}})"
        if self.left_out:
            text += f", column(s) {', '.join(repr(c) for c in self.left_out)} left out"
        if dropped:
            text += f", {dropped} empty {self.unit}(s) before the first value or after the last left out"
        return text


def find_year_table(raw: pd.DataFrame, *, timestamp_col: object, id_col: str | None) -> YearTable | None:
    """The table of years by months or quarters that ``raw`` is, or None: one column named year (``Year``,
    ``yr``) of whole numbers, twelve named by the months (``Jan`` or ``January``, any case) or four by the
    quarters (``Q1`` .. ``Q4``) in calendar order, and no column named ``timestamp_col`` but the year column
    (None for ``timestamp_col``: rows as steps, as asked)."""
    names = [str(c) for c in raw.columns]
    if not isinstance(timestamp_col, str) or (timestamp_col in names and _key(timestamp_col) not in YEAR_NAMES):
        return None
    years = [c for c in names if _key(c) in YEAR_NAMES]
    if len(years) != 1 or len(raw) == 0:
        return None
    periods = _periods(names, MONTH_NAMES) or _periods(names, QUARTER_NAMES)
    if periods is None:
        return None
    year = pd.to_numeric(raw[years[0]], errors="coerce").to_numpy(dtype=float)
    if not (np.isfinite(year).all() and (year == np.round(year)).all() and (year >= 1).all()
            and (year <= 9999).all()):
        return None
    left_out = tuple(c for c in names if c not in (years[0], *periods, id_col))
    return YearTable(year=years[0], periods=tuple(periods), left_out=left_out)
