"""A series written as the UK Office for National Statistics writes one (its time series' CSV download): lines of
what the series is (``"Title","CPIH ANNUAL RATE ..."``, ``"CDID","L55O"``, ``"Unit","%"``, ``"Release date",...``)
above its values by year (``"1989","5.7"``), then by quarter (``"1989 Q1"``), then by month (``"1989 JAN"``); read
as the series at its finest period, the lines above it and the coarser periods' rows (their averages) left out."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from forecast.data.cells import as_text
from forecast.data.date_parts import MONTHS

#: the periods a first cell may be, coarsest first
_PERIODS = {"year": re.compile(r"^\d{4}$"), "quarter": re.compile(r"^\d{4} Q[1-4]$", re.IGNORECASE),
            "month": re.compile(r"^\d{4} (?P<month>[A-Za-z]{3,9})$")}
MOST_ABOVE = 20  # lines of what the series is above its values, at most


@dataclass(frozen=True)
class StackedPeriods:
    """Where the series' values are.

    Attributes:
        above: the rows above the values (the series' title, code, unit and release dates).
        rows: the rows of the finest period, in file order.
        unit: that period (``month``, ``quarter`` or ``year``).
        coarser: how many rows of coarser periods are left out.
    """

    above: int
    rows: np.ndarray
    unit: str
    coarser: int

    def note(self, first: str) -> str:
        """What the reader did, for the run's notes; ``first`` is the first column's name."""
        text = f"the series by {self.unit} in column {first!r}"
        if self.above:
            text += f" below {self.above} line(s) of what it is"
        if self.coarser:
            text += f", {self.coarser} row(s) of coarser periods (years, quarters) left out"
        return text


def _period(cell: str) -> str | None:
    """The period a first cell is written as, or None."""
    for unit, pattern in _PERIODS.items():
        m = pattern.match(cell)
        if m and (unit != "month" or m.group("month").lower() in MONTHS):
            return unit
    return None


def find_stacked_periods(raw: pd.DataFrame) -> StackedPeriods | None:
    """The layout of :mod:`this module <forecast.data.stacked_periods>` in ``raw`` (a header, then rows), or None:
    a first column of up to :data:`MOST_ABOVE` cells that are no period, then only periods, in blocks of one unit
    each, with lines above or more than one unit (else the file is an ordinary series, read as such)."""
    if len(raw.columns) < 2 or len(raw) < 3:
        return None
    column = raw[raw.columns[0]]
    if any(_period(str(c).strip()) is None for c in as_text(column.iloc[[min(MOST_ABOVE, len(raw) - 1), -1]])):
        return None  # the cells past the lines above, and the last, are periods
    first = as_text(column).str.strip()
    units = [_period(c) for c in first]
    above = next((k for k, u in enumerate(units) if u is not None), len(units))
    if above > MOST_ABOVE or above == len(units) or any(u is None for u in units[above:]):
        return None
    body = units[above:]
    blocks = [u for k, u in enumerate(body) if k == 0 or u != body[k - 1]]
    if len(blocks) != len(set(blocks)) or (above == 0 and len(blocks) < 2):
        return None
    finest = max(blocks, key=list(_PERIODS).index)
    rows = above + np.flatnonzero(np.asarray(body) == finest)
    return StackedPeriods(above=above, rows=rows, unit=finest, coarser=len(body) - len(rows))
