"""How a column's cells are stored (numbers, timestamps, text) and written as text."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

# cells that mean "missing", lower case: pandas' own (``read_csv``'s default ``na_values``), spreadsheet errors,
# ``..`` and ``:`` (not available: the World Bank's, the OECD's, Eurostat's and statistics offices' tables), ``.``
# (FRED's) and ``?`` (the UCI repository's and Weka's)
MISSING_WORDS = ("", "nan", "-nan", "na", "<na>", "#na", "null", "none", "n/a", "#n/a", "#n/a n/a", "1.#ind", "-1.#ind",
                 "1.#qnan", "-1.#qnan", "#div/0!", "#value!", "#ref!", "#num!", "#name?", "#null!",
                 "..", ":", ".", "?")
ARROW_TEXT = pd.StringDtype("pyarrow")  # text whose string methods and regular expressions run in Arrow's kernels


def missing_cells(text: pd.Series, na_values: Sequence[str] = ()) -> pd.Series:
    """(N,) bool: which stripped cells mean "missing": a word of :data:`MISSING_WORDS` (any case) or one of
    ``na_values`` (the file's missing-value codes, as written)."""
    return text.str.lower().isin(MISSING_WORDS) | text.isin(na_values)


#: a cell written with digits and number marks alone (a sign, decimal and thousands marks, an exponent), or empty;
#: spaces and tabs written out, not ``\s`` (which pandas runs in Python), so that it runs in Arrow's kernels
_NUMERIC_TEXT = "^[ \t]*([-+]?[\\d.,' \u00a0\u202f]*\\d[\\d.,' \u00a0\u202f]*([eE][-+]?\\d+)?)?[ \t]*$"


def numeric_text(raw: pd.DataFrame, columns: Sequence[str]) -> set[str]:
    """The text columns of ``columns`` whose every cell is written with digits and number marks alone, or empty:
    nothing in them is a sign, unit, flag, bound, magnitude letter, boolean or word to look for (their marks are
    still the dialect's to read)."""
    found = set()
    for col in columns:
        cells = raw[col]
        if typed_number(cells) or typed_time(cells) or not pd.api.types.is_string_dtype(cells) \
                or isinstance(cells.dtype, pd.CategoricalDtype):
            continue
        if bool(cells.astype(ARROW_TEXT).fillna("").str.match(_NUMERIC_TEXT).all()):
            found.add(str(col))
    return found


def digitless(col: pd.Series) -> bool:
    """A column of text none of whose cells holds a digit: words or labels, never read as numbers."""
    return not typed_number(col) and not bool(as_text(col).str.contains(r"\d", regex=True).any())


def is_number(text: str) -> bool:
    """``text`` is what ``float`` reads: ``1.5``, ``-2e3``, ``nan``, ``inf``."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def typed_number(col: pd.Series) -> bool:
    """A column stored as numbers (int or float, not bool): its values are read as they are."""
    return pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col)


def plain_numbers(col: pd.Series) -> np.ndarray | None:
    """(N,) float64: a column whose every cell is stored as a number, or written as a plain number (``12``,
    ``-1.5e3``, ``nan``, ``inf``, no spaces, signs or marks) or empty (NaN), read by Arrow's cast; None for any
    other column (text to read with the file's dialect)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if typed_number(col):
        return col.to_numpy(dtype=np.float64, na_value=np.nan)
    if not pd.api.types.is_string_dtype(col) or typed_time(col):
        return None
    cells = pa.array(col.astype(ARROW_TEXT).array)
    try:
        numbers = pc.cast(pc.if_else(pc.equal(cells, ""), pa.scalar(None, pa.string()), cells), pa.float64())
    except pa.ArrowInvalid:
        return None
    return numbers.to_numpy(zero_copy_only=False)


def typed_time(col: pd.Series) -> bool:
    """A column stored as timestamps (Parquet, a DataFrame)."""
    return pd.api.types.is_datetime64_any_dtype(col)


BOOLEANS = {"true": 1.0, "false": 0.0}  # the words of a column of booleans (any case) and the numbers they read as


def boolean_cells(col: pd.Series) -> pd.Series | None:
    """(N,) float64: a column of booleans, stored so or written ``true``/``false`` in any case (``TRUE``, ``False``),
    as 1.0 and 0.0; None for any other column."""
    if pd.api.types.is_bool_dtype(col):
        return col.astype(np.float64)
    if typed_number(col) or typed_time(col) or not len(col):
        return None
    text = as_text(col).str.strip().str.lower()
    return text.map(BOOLEANS).astype(np.float64) if bool(text.isin(list(BOOLEANS)).all()) else None


def as_text(col: pd.Series) -> pd.Series:
    """A column's cells as text, as a CSV writes them; missing cells empty (a text column as it is, its missing
    cells emptied; categories as their labels)."""
    if pd.api.types.is_string_dtype(col) and not typed_time(col) and not isinstance(col.dtype, pd.CategoricalDtype):
        return col.fillna("") if col.hasnans else col
    return col.astype(object).where(col.notna(), "").astype(str)
