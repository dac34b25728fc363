"""Numbers written with a magnitude letter, as price sites export volumes: ``34.91M``, ``456.78K``, ``1.2B``."""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import typed_number

#: the letters, and the power of ten each stands for
MAGNITUDES = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_WORDS = {1e3: "thousands", 1e6: "millions", 1e9: "billions", 1e12: "trillions"}
_CLASS = f"[{''.join(MAGNITUDES)}]"
_NUMBER = r"[-+]?[\d.,' ]*\d"
_WITH_LETTER = re.compile(rf"^{_NUMBER}\s*{_CLASS}$")
_WITH_OR_WITHOUT = re.compile(rf"^{_NUMBER}(\s*{_CLASS})?$")
_LETTER = rf"\s*({_CLASS})$"  # a letter ending a cell (captured), and the spaces before it
_SAMPLE = 100  # the first cells of a text column looked at for a letter


class Magnitudes(NamedTuple):
    """What :func:`strip_magnitudes` found.

    Attributes:
        raw: the cells with the letters left out of the columns in ``factors``.
        factors: ``{column: (N,) float64 factor each cell's number is multiplied by}`` (1 where a cell has no
            letter).
        notes: one note for each such column.
        odd: ``(column, row)`` of the first column whose first cells have letters and whose cell in that row is
            neither missing, a number, nor a number with a letter; None when there is none.
    """

    raw: pd.DataFrame
    factors: dict[str, np.ndarray]
    notes: list[str]
    odd: tuple[str, int] | None


def strip_magnitudes(raw: pd.DataFrame, columns: Sequence[str], missing: Callable[[pd.Series], pd.Series]
                     ) -> Magnitudes:
    """``raw`` with the magnitude letter left out of every text column among ``columns`` whose every present
    cell is a number, some of the first cells followed by one of :data:`MAGNITUDES` (``34.91M``, ``1.2 k``).

    Args:
        raw: the file's cells, (N, columns).
        columns: the value columns.
        missing: which stripped cells of a column mean "missing", (N,) -> (N,) bool.
    """
    stripped, factors, notes = {}, {}, []
    for col in columns:
        if typed_number(raw[col]) or not raw[col].head(_SAMPLE).str.strip().str.match(_WITH_LETTER).any():
            continue
        text = raw[col].str.strip()
        fits = (text.str.match(_WITH_OR_WITHOUT) | missing(text)).to_numpy()
        if not fits.all():
            return Magnitudes(raw, {}, [], (col, int(np.flatnonzero(~fits)[0])))
        letters = text.str.extract(_LETTER, expand=False)
        factors[col] = letters.map(MAGNITUDES).fillna(1.0).to_numpy(dtype=np.float64)
        stripped[col] = text.str.replace(_LETTER, "", regex=True)
        used = [c for c in MAGNITUDES if (letters == c).any()]
        words = ", ".join(dict.fromkeys(_WORDS[MAGNITUDES[c]] for c in used))
        notes.append(f"{', '.join(used)} read as {words} in column {col!r}")
    return Magnitudes(raw.assign(**stripped) if stripped else raw, factors, notes, None)
