"""Values after the training rows far from anything the training rows held: a missing-value code that appears
only late in a file (9999 for a visibility never measured again), or a level the scaler never saw; and a column's
minimum written as a usual missing-value code, far below its other values (SILSO's -1 for a day without a count)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Sequence

import numpy as np

#: how far from the training mean, in training standard deviations, a value counts as far
FAR = 10.0
#: a value that makes up at least this share of a column's far values, and occurs at least ``CODE_TIMES`` times,
#: is named as a likely missing-value code
CODE_SHARE = 0.5
CODE_TIMES = 10


class FarValues:
    """Counts, per column, the values after the training rows more than :data:`FAR` training standard deviations
    from the training mean (each series with the statistics it is scaled with), and how often each occurs.

    Args:
        columns: the columns' names, in the order of the arrays' columns.
        name_codes: name a likely missing-value code (a file of one series); in a panel, where each series is
            scaled with its own statistics, a value common to many series' far values (a count of 12 in series
            whose training rows were zeros) is no sign of a code, and only the general line is given.
    """

    def __init__(self, columns: Sequence[str], *, name_codes: bool = True) -> None:
        self.columns = list(columns)
        self.name_codes = name_codes
        self.counts: list[Counter[float]] = [Counter() for _ in self.columns]

    def add(self, raw: np.ndarray, scaled: np.ndarray) -> None:
        """The rows after one series' training rows, as read and as scaled.

        Shapes: raw (N, C), scaled (N, C).
        """
        far = np.abs(scaled) > FAR  # (N, C)
        for column in np.flatnonzero(far.any(axis=0)):
            values, times = np.unique(raw[far[:, column], column], return_counts=True)
            self.counts[column].update(dict(zip(values.tolist(), times.tolist())))

    def notes(self, path: str | Path) -> list[str]:
        """One line a column whose far values are mostly one value, often repeated (a likely missing-value code,
        with the setting that declares it), and one line for every other column with far values (a level the
        training rows never reached, or spikes beyond theirs)."""
        codes, levels = [], []
        for name, counts in zip(self.columns, self.counts):
            total = sum(counts.values())
            if not total:
                continue
            value, times = counts.most_common(1)[0]
            if self.name_codes and times >= max(CODE_SHARE * total, CODE_TIMES):
                codes.append(f"{path}: column {name!r}: {total:,} values after the training rows lie more than "
                             f"{FAR:g} training standard deviations from its training mean, {times:,} of them "
                             f"{value:g}; if {value:g} means missing, set data.na_values=[{value:g}] (and data.fill)")
            else:
                levels.append((name, total, max(counts, key=abs)))
        if levels:
            named = ", ".join(repr(name) for name, _, _ in levels[:3]) + (
                f" and {len(levels) - 3} more" if len(levels) > 3 else "")
            name, total, largest = levels[0]
            codes.append(f"{path}: column{'s' if len(levels) > 1 else ''} {named}: values after the training rows "
                         f"more than {FAR:g} training standard deviations from the training mean ({total:,} in "
                         f"{name!r}, up to {largest:g}): the training rows held nothing like them")
        return codes


#: the numbers files commonly write for a missing value, when it is the column's minimum
CODES = (-1.0, -9.0, -99.0, -200.0, -999.0, -9999.0, -99999.0)
#: how often a code must occur to be named
CODE_ROWS = 3


def code_notes(columns: Sequence[str], values: Sequence[np.ndarray], path: str | Path) -> list[str]:
    """One line a column whose minimum is one of :data:`CODES`, occurs at least :data:`CODE_ROWS` times, and lies
    far below every other value (they are all above half of it: -1 under counts of 0 and more, -200 under
    temperatures of -2 and more), with the setting that declares it missing.

    Args:
        columns: the columns' names, in the order of the arrays' columns.
        values: each series' values as read, (N_s, C) each.
    """
    lows = np.full(len(columns), np.inf)
    for v in values:  # (N_s, C): each column's smallest finite value
        lows = np.minimum(lows, np.where(np.isfinite(v), v, np.inf).min(axis=0, initial=np.inf))
    coded_columns = np.flatnonzero(np.isin(lows, CODES))  # (K,): the columns whose minimum is a code
    if not len(coded_columns):
        return []
    lows = lows[coded_columns]
    times = np.zeros(len(coded_columns), dtype=np.int64)
    above = np.full(len(coded_columns), np.inf)  # each column's smallest value other than its minimum
    for v in values:
        v = v[:, coded_columns]  # (N_s, K)
        coded = v == lows
        times += coded.sum(axis=0)
        above = np.minimum(above, np.where(coded | ~np.isfinite(v), np.inf, v).min(axis=0, initial=np.inf))
    notes = []
    names = [columns[i] for i in coded_columns]
    for name, low, count, rest in zip(names, lows.tolist(), times.tolist(), above.tolist()):
        if count >= CODE_ROWS and np.isfinite(rest) and rest > low / 2:
            notes.append(f"{path}: column {name!r}: {low:g} in {count:,} rows, far below its other values (from "
                         f"{rest:g}); if {low:g} means missing, set data.na_values=[{low:g}] (and data.fill)")
    return notes
