"""Values written as an upper bound, as Google Trends exports a search share under 1 (``<1``) and laboratories a
measurement under the detection limit (``<0.02``): read as half the bound, the usual stand-in for a value known
only to lie between 0 and it."""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import typed_number

_BOUND = re.compile(r"^<\s*[\d.,' ]*\d$")  # a bound: ``<`` and a number without a sign
_SHOWN = 3  # the distinct bounds a note names


class Bounds(NamedTuple):
    """What :func:`halve_bounds` found.

    Attributes:
        raw: the cells with the ``<`` left out of the bounds.
        factors: ``{column: (N,) float64 factor each cell's number is multiplied by}``: 0.5 for a bound, else 1.
        notes: one note for each such column.
        first: a bound as written (``<1``), the first of the first such column; None where none is.
    """

    raw: pd.DataFrame
    factors: dict[str, np.ndarray]
    notes: list[str]
    first: str | None


def halve_bounds(raw: pd.DataFrame, columns: Sequence[str], missing: Callable[[pd.Series], pd.Series]) -> Bounds:
    """``raw`` with every cell of the text ``columns`` written as a bound (``<1``, ``< 0.5``) read as half of it,
    except the cells ``missing`` declares missing (a bound listed in ``data.na_values``).

    Args:
        raw: the file's cells, (N, columns).
        columns: the value columns.
        missing: which stripped cells of a column mean "missing", (N,) -> (N,) bool.
    """
    stripped, factors, notes, first = {}, {}, [], None
    for col in columns:
        if typed_number(raw[col]) or not raw[col].str.contains("<", regex=False).any():
            continue
        text = raw[col].str.strip()
        below = (text.str.match(_BOUND).fillna(False) & ~missing(text)).to_numpy(dtype=bool)  # (N,)
        if not below.any():
            continue
        factors[col] = np.where(below, 0.5, 1.0)
        stripped[col] = text.where(~below, text.str.slice(1).str.strip())
        written = list(dict.fromkeys(text[below].tolist()))
        first = first or written[0]
        shown = ", ".join(written[:_SHOWN]) + (", ..." if len(written) > _SHOWN else "")
        notes.append(f"{int(below.sum())} cell(s) of column {col!r} written as a bound ({shown}) read as half of it")
    return Bounds(raw.assign(**stripped) if stripped else raw, factors, notes, first)
