"""Readings at irregular times (a sensor log, transactions) aggregated into evenly spaced steps.

``data.resample=h`` makes every hour one step: the readings in it are aggregated, column by column, as
``data.agg`` says (``mean`` by default; ``data.agg=sum``, or ``data.agg={rain: sum}`` for one column, the others
``mean``). Steps are pandas' resample bins (``pd.Grouper(freq=...)``, its default edges and labels: a step is
labelled by its start, a week's or a month end's step by its end), one grid for every series of a long file. A
step with no reading is a missing value: refused naming the readings around it, or filled by ``data.fill``. A
reading's empty cell is left out of its step's aggregate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from forecast.data.errors import DataError
from forecast.data.hints import Hints
from forecast.data.regular import offset

SERIES, TIME, LINE = "series", "time", "line"  # the reading frame's columns besides the values 0 .. C-1
HOWS = ("mean", "sum", "median", "min", "max", "first", "last")
"""How the readings of a step can be aggregated (pandas' resample methods of those names)."""
COUNT = "count"
"""``data.agg=count``: the readings of each step counted, in one column of this name (a log of events, a row
each); 0 where a step has none."""


@dataclass(frozen=True)
class Steps:
    """The steps readings are aggregated into.

    Attributes:
        freq: the steps' pandas frequency alias (``h``, ``15min``, ``D``, ``W``, ``MS``).
        how: the aggregation of every column not in ``per_column`` (one of :data:`HOWS`).
        per_column: ``(column, how)`` for the columns aggregated otherwise.
    """

    freq: str
    how: str = "mean"
    per_column: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, freq: str | None, agg: str | Mapping[str, str] | None, *, source: str) -> "Steps | None":
        """The steps of ``data.resample`` and ``data.agg`` (None without ``freq``).

        Raises:
            DataError: an unknown frequency or aggregation.
        """
        if freq is None:
            if isinstance(agg, Mapping) or agg not in (None, "mean"):
                raise DataError(f"{source}: data.agg ({_shown(agg)}) aggregates readings into steps: also pass "
                                f"data.resample=FREQ (e.g. h), or leave data.agg out")
            return None
        alias = offset(str(freq), source=source, hint="data.resample names the steps readings are aggregated into")
        per_column = tuple((str(c), str(h)) for c, h in agg.items()) if isinstance(agg, Mapping) else ()
        how = "mean" if agg is None or isinstance(agg, Mapping) else str(agg)
        if any(h == COUNT for _, h in per_column):
            raise DataError(f"{source}: data.agg=count counts the readings of each step into a column of its own "
                            f"({COUNT!r}); it takes no column: pass data.agg=count alone")
        for column, name in [("", how), *per_column]:
            if column == "" and name == COUNT:
                continue
            if name not in HOWS:
                where = f" of column {column!r}" if column else ""
                raise DataError(f"{source}: unknown aggregation {name!r}{where} in data.agg: use one of "
                                f"{', '.join(HOWS)}{'' if where else ', or count (the readings of each step)'}")
        return cls(freq=alias.freqstr, how=how, per_column=per_column)

    @property
    def counts(self) -> bool:
        """Each step's value is the number of its readings (:data:`COUNT`)."""
        return self.how == COUNT

    def how_of(self, column: str) -> str:
        """How ``column`` is aggregated."""
        return dict(self.per_column).get(column, self.how)

    def describe(self) -> str:
        """``the mean``, ``the mean ('rain' the sum)``."""
        others = ", ".join(f"{c!r} the {h}" for c, h in self.per_column if h != self.how)
        return f"the {self.how}" + (f" ({others})" if others else "")


@dataclass(frozen=True)
class Aggregated:
    """A panel's readings aggregated into steps, with the reader's row arrays rebuilt for them.

    Attributes:
        values: (S, C) float64, one row per step of every series, in series order; NaN where a step has no value.
        stamps: (S,) each step's label.
        groups: each series' name and its steps' rows of ``values``.
        line: (S,) the file line of each step's first reading (of the next reading where a step has none).
        note: what was done, for the reader's ``detected`` note.
    """

    values: np.ndarray
    stamps: pd.DatetimeIndex
    groups: list[tuple[str | None, np.ndarray]]
    line: np.ndarray
    note: str


def aggregate(values: np.ndarray, stamps: pd.DatetimeIndex, groups: Sequence[tuple[str | None, np.ndarray]],
              line: np.ndarray, steps: Steps, columns: Sequence[str], *, source: str, fill: Any, hints: Hints
              ) -> Aggregated:
    """Aggregate each series' readings into ``steps``.

    Args:
        values: (N, C) the readings' cells, NaN where empty.
        stamps: (N,) their timestamps, non-decreasing within each series (repeats allowed).
        groups: each series' name and its rows.
        line: (N,) each reading's file line.
        steps: the steps and how each column is aggregated.
        columns: the C column names.
        source: the file, for messages.
        fill: the fill method, or None: then a step without a value is refused.
        hints: the remedies messages name.

    Raises:
        DataError: a column of ``per_column`` that is not read, or (without ``fill``) a step with no value.
    """
    unknown = [c for c, _ in steps.per_column if c not in columns]
    if unknown:
        raise DataError(f"{source}: data.agg names column {unknown[0]!r}, which is not read (columns: "
                        f"{', '.join(columns)})")
    code = np.empty(len(values), dtype=np.int64)  # (N,) each reading's series
    for k, (_, rows) in enumerate(groups):
        code[rows] = k
    frame = pd.DataFrame(values)  # (N, C), columns 0 .. C-1
    frame[SERIES], frame[TIME], frame[LINE] = code, stamps, line
    grouped = frame.groupby([SERIES, pd.Grouper(key=TIME, freq=steps.freq)])  # one grid of bins for every series
    by_how: dict[str, list[int]] = {}
    for c, column in enumerate(columns):
        by_how.setdefault(steps.how_of(column), []).append(c)
    observed = grouped[LINE].min()  # (O,) the first reading's line of every step with a reading
    series_of = observed.index.get_level_values(0).to_numpy()  # (O,)
    labels = pd.DatetimeIndex(observed.index.get_level_values(1))
    grid = pd.date_range(labels.min(), labels.max(), freq=steps.freq)
    at = grid.get_indexer(labels)  # (O,) each observed step on the grid
    lo = np.full(len(groups), np.iinfo(np.int64).max)
    hi = np.full(len(groups), -1)
    np.minimum.at(lo, series_of, at)
    np.maximum.at(hi, series_of, at)
    counts = hi - lo + 1  # steps of each series, first to last reading
    begin = np.concatenate([[0], np.cumsum(counts)[:-1]])  # each series' first row of the steps
    total = int(counts.sum())
    row = begin[series_of] + at - lo[series_of]  # (O,) each observed step's row
    block = np.full((total, len(columns)), np.nan)  # (S, C)
    for how, cols in by_how.items():
        part = grouped[cols].sum(min_count=1) if how in ("sum", COUNT) else getattr(grouped[cols], how)()  # (O, k)
        block[row[:, None], np.asarray(cols)[None, :]] = part.to_numpy(dtype=np.float64)
    if COUNT in by_how:  # a step without a reading counts none
        block[:, by_how[COUNT]] = np.nan_to_num(block[:, by_how[COUNT]], nan=0.0)
    step_of = np.arange(total) - np.repeat(begin, counts) + np.repeat(lo, counts)  # (S,) each step on the grid
    first = np.full(total, np.nan)  # (S,) the first reading's line, NaN on a step without one
    first[row] = observed.to_numpy(dtype=np.float64)
    if fill is None and np.isnan(block).any():
        _refuse_empty(block, grid[step_of], first, stamps, line, groups, begin, columns, steps, source=source,
                      hints=hints)
    blank = int(np.isnan(values).sum())
    empty_steps = total - len(observed)
    partial = _partial_last(grouped.size().to_numpy(), series_of, labels, groups, COUNT if steps.counts else "sum") \
        if "sum" in by_how or steps.counts else ""
    note = (f"{len(values)} reading(s) aggregated into {total} step(s) of {steps.freq!r}, each {steps.describe()} "
            f"of its readings (data.resample)" + (f"; {empty_steps} step(s) with no reading" if empty_steps else "")
            + (f"; {blank} empty cell(s) of readings left out of their step's value" if blank else "") + partial)
    return Aggregated(values=block, stamps=grid[step_of].rename(stamps.name),
                      groups=[(name, np.arange(b, b + n)) for (name, _), b, n in zip(groups, begin, counts)],
                      line=pd.Series(first).bfill().to_numpy(dtype=np.int64), note=note)


def _partial_last(sizes: np.ndarray, series_of: np.ndarray, labels: pd.DatetimeIndex,
                  groups: Sequence[tuple[str | None, np.ndarray]], what: str = "sum") -> str:
    """The note's part for series whose last step holds under half the readings of their median step (a log that
    ends within a step: a sum or count (``what``) over it covers a part of the step); "" where none does.

    Args:
        sizes: (O,) the readings of each step with a reading, ordered by series, then time.
        series_of: (O,) each such step's series.
        labels: (O,) each such step's label.
        groups: each series' name and rows.
    """
    last = np.flatnonzero(np.diff(series_of, append=-1) != 0)  # (G,) each series' last step with a reading
    usual = pd.Series(sizes).groupby(series_of).median().to_numpy()  # (G,)
    short = np.flatnonzero(sizes[last] * 2 < usual[series_of[last]])
    if not short.size:
        return ""
    k = int(short[0])
    name = groups[int(series_of[last[k]])][0]
    which = f"the last step ({labels[last[k]]})" if name is None else (
        f"the last step of {short.size} series (of series {name}, {labels[last[k]]})")
    return (f"; {which} holds {sizes[last[k]]} reading(s) where a step holds {usual[series_of[last[k]]]:g}: its "
            f"{what} covers a part of the step")


def _refuse_empty(block: np.ndarray, steps_at: pd.DatetimeIndex, first: np.ndarray, stamps: pd.DatetimeIndex,
                  line: np.ndarray, groups: Sequence[tuple[str | None, np.ndarray]], begin: np.ndarray,
                  columns: Sequence[str], steps: Steps, *, source: str, hints: Hints) -> None:
    """Raise the DataError for the first step of ``block`` (S, C) without a value (``steps_at``, ``first``: each
    step's label and first reading's line; ``begin``: each series' first step)."""
    s, c = (int(x[0]) for x in np.nonzero(np.isnan(block)))
    name, rows = groups[int(np.searchsorted(begin, s, side="right")) - 1]
    series = "" if name is None else f" of series {name}"
    remedy = f"pass {hints.fill} to fill such steps" + (", or a longer data.resample" if hints.resample else "")
    if np.isnan(first[s]):
        index = stamps[rows]
        before = int(index.searchsorted(steps_at[s], side="left")) - 1  # the series' last reading before the step
        raise DataError(f"{source}: no reading{series} in the step of {steps.freq!r} at {steps_at[s]} (between line "
                        f"{line[rows][before]}, {index[before]}, and line {line[rows][before + 1]}, "
                        f"{index[before + 1]}); {remedy}")
    raise DataError(f"{source}: line {int(first[s])}: column {columns[c]!r}{series} is empty on every reading "
                    f"of the step of {steps.freq!r} at {steps_at[s]}; {remedy}")


def _shown(agg: Any) -> str:
    return ", ".join(f"{k}: {v}" for k, v in agg.items()) if isinstance(agg, Mapping) else str(agg)
