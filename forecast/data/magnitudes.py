"""Numbers written with a magnitude letter, as price sites export volumes: ``34.91M``, ``456.78K``, ``1.2B``."""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import typed_number

#: the letters, and the power of ten each stands for
MAGNITUDES = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
_NUMBER = r"[-+]?[\d.,' ]*\d"
_WITH_LETTER = re.compile(rf"^{_NUMBER}\s*[{''.join(MAGNITUDES)}]$")
_PLAIN = re.compile(rf"^{_NUMBER}$")
_SAMPLE = 100  # the first cells of a text column looked at for a letter


class Magnitudes(NamedTuple):
    """What :func:`strip_magnitudes` found.

    Attributes:
        raw: the cells with the letters left out of the columns in ``factors``.
        factors: ``{column: (N,) float64 factor each cell's number is multiplied by}`` (1 where a cell has no
            letter).
        notes: one note for each such column.
        odd: ``{column: row}`` of a column whose first cells have letters and whose cell in that row is neither
            a number nor a number with a letter (the first such row); its letters are left in.
    """

    raw: pd.DataFrame
    factors: dict[str, np.ndarray]
    notes: list[str]
    odd: dict[str, int]


def strip_magnitudes(raw: pd.DataFrame, columns: Sequence[str], missing: Callable[[pd.Series], pd.Series]
                     ) -> Magnitudes:
    """``raw`` with the magnitude letter left out of every text column among ``columns`` whose every present
    cell is a number, some of the first cells followed by one of :data:`MAGNITUDES` (``34.91M``, ``1.2 k``).

    Args:
        raw: the file's cells, (N, columns).
        columns: the value columns.
        missing: which stripped cells of a column mean "missing", (N,) -> (N,) bool.
    """
    letters = "".join(MAGNITUDES)
    stripped, factors, notes, odd = {}, {}, [], {}
    for col in columns:
        if typed_number(raw[col]):
            continue
        if not raw[col].head(_SAMPLE).astype(str).str.strip().str.match(_WITH_LETTER).any():
            continue
        text = raw[col].astype(str).str.strip()
        fits = (text.str.match(_WITH_LETTER) | text.str.match(_PLAIN) | missing(text)).to_numpy()
        if not fits.all():
            odd[col] = int(np.flatnonzero(~fits)[0])
            continue
        letter = text.str.extract(rf"([{letters}])$", expand=False)
        factors[col] = letter.map(MAGNITUDES).fillna(1.0).to_numpy(dtype=np.float64)
        stripped[col] = text.str.replace(rf"\s*[{letters}]$", "", regex=True)
        used = "".join(sorted(set(letter.dropna()), key=list(MAGNITUDES).index))
        notes.append(f"{', '.join(used)} read as {_names(used)} in column {col!r}")
    return Magnitudes(raw.assign(**stripped) if stripped else raw, factors, notes, odd)


def _names(letters: str) -> str:
    """``KM`` -> ``thousands, millions``."""
    words = {"K": "thousands", "k": "thousands", "M": "millions", "B": "billions", "T": "trillions"}
    return ", ".join(dict.fromkeys(words[c] for c in letters))
