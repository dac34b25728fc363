"""Timestamps written as parts in columns of their own (``YEAR,MO,DY,HR``: NASA POWER; ``Year,Month,Day``),
joined into one timestamp column."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

# each part's column names (any case) and its range
PART_NAMES = {"year": ("year", "yr", "yyyy"), "month": ("month", "mo", "mon", "mm"), "day": ("day", "dy", "dd"),
              "doy": ("doy", "day_of_year", "dayofyear"), "hour": ("hour", "hr", "hh")}
_RANGES = {"year": (1, 9999), "month": (1, 12), "day": (1, 31), "doy": (1, 366), "hour": (0, 23)}
# the parts that make a timestamp, finest last
_SHAPES = (("year", "month", "day", "hour"), ("year", "doy", "hour"), ("year", "month", "day"), ("year", "doy"),
           ("year", "month"))


@dataclass(frozen=True)
class DateParts:
    """The columns that hold the parts of each row's timestamp.

    Attributes:
        columns: ``{part: column}`` for the parts found (year, month, day or day of year, hour).
    """

    columns: dict[str, str]

    def timestamps(self, raw: pd.DataFrame) -> pd.Series:
        """Each row's timestamp, (N,) datetime64 (NaT where the parts make no date: 31 February)."""
        part = {name: pd.to_numeric(raw[col], errors="coerce").to_numpy(dtype=float)
                for name, col in self.columns.items()}
        if "doy" in part:
            days = pd.to_datetime(pd.DataFrame({"year": part["year"], "month": 1, "day": 1}), errors="coerce")
            stamps = days + pd.to_timedelta(part["doy"] - 1, unit="D")
        else:
            stamps = pd.to_datetime(pd.DataFrame({"year": part["year"], "month": part["month"],
                                                  "day": part.get("day", np.ones(len(raw)))}), errors="coerce")
        if "hour" in part:
            stamps = stamps + pd.to_timedelta(part["hour"], unit="h")
        return stamps

    def note(self) -> str:
        return f"timestamps from columns {', '.join(repr(c) for c in self.columns.values())}"


def _whole_in(col: pd.Series, low: int, high: int) -> bool:
    values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float)
    return bool(len(values) and np.isfinite(values).all() and (values == np.round(values)).all()
                and (values >= low).all() and (values <= high).all())


def find_date_parts(raw: pd.DataFrame, names_taken: Sequence[str | None]) -> DateParts | None:
    """The date parts ``raw``'s columns hold (a year and a month, day or day of year, and maybe an hour, each in
    one column of whole numbers in its range, named as ``PART_NAMES`` says), the finest shape first; None where
    there are none. ``names_taken``: columns that are something else (an id column)."""
    key = {str(c): str(c).strip().casefold() for c in raw.columns if c not in names_taken}
    found: dict[str, str] = {}
    for part, spelled in PART_NAMES.items():
        cols = [c for c, k in key.items() if k in spelled]
        if len(cols) == 1 and _whole_in(raw[cols[0]], *_RANGES[part]):
            found[part] = cols[0]
    for shape in _SHAPES:
        if all(part in found for part in shape):
            return DateParts({part: found[part] for part in shape})
    return None
