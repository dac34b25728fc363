"""Values after the training rows far from anything the training rows held: a missing-value code that appears
only late in a file (9999 for a visibility never measured again), or a level the scaler never saw."""

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
