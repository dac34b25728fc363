"""Rows and columns around a file's data that hold no data: labels under the header (units), a total and notes
below it, columns holding one label in every row, a few categories, counting the rows or flagging the values, and
the column of labels that names a long file's series."""

from __future__ import annotations

import re
import warnings
from typing import Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import (as_text, boolean_cells, digitless, is_number, missing_cells, typed_number,
                                 typed_time)
from forecast.data.date_time import bare_name
from forecast.data.timestamps import named_like_timestamp

_WITH_MARKS = re.compile(r"[-+]?\d[\d.,' ]*")  # digits and marks alone: 5,827 or 1.234,5
_DIGIT = re.compile(r"\d")


def label_rows(raw: pd.DataFrame, most: int = 5) -> tuple[int, list[str]]:
    """How many rows at the top label the columns rather than hold data (units under the header: ``,degC,%``;
    a logger's ``TS,RN`` and ``Smp,Avg`` rows), and their cells: rows of which no cell is a number or a date
    and some cell is not empty, followed by a row with a number (at most ``most`` rows)."""
    top: list[str] = []
    if len(raw) < 2:
        return 0, []
    for r in range(min(most, len(raw) - 1)):
        cells = [c for c in _row_cells(raw, r) if c != ""]
        if not cells or _holds_data(cells):
            break
        top += cells
    else:
        r = min(most, len(raw) - 1)
    if r == 0 or not _holds_data(_row_cells(raw, r)):
        return 0, []
    return r, top


def _row_cells(raw: pd.DataFrame, r: int) -> list[str]:
    """Row ``r``'s cells as text (as :func:`~forecast.data.cells.as_text` writes them), stripped."""
    return ["" if pd.isna(v) else str(v).strip() for v in raw.iloc[r].tolist()]


def _holds_data(cells: Sequence[str]) -> bool:
    """Some cell is a number or a date (the numbers looked at first: a date is the dearer look)."""
    return any(numeric(c) for c in cells) or any(is_date(c) for c in cells)


_MANGLED = re.compile(r"^(?P<name>.+)\.(?P<n>\d+)$")  # pandas' name for a repeated header cell: Close.1


def column_levels(raw: pd.DataFrame, top: int) -> dict[str, str] | None:
    """The columns' names where the header and the ``top`` label rows under it are the levels of columns that pandas
    writes (``to_csv`` of a frame with two levels of columns, as yfinance downloads tickers): ``Price,Close,Close``
    / ``Ticker,AAPL,MSFT`` / ``Date,,``, the last label row naming the first column alone. Each column is named by
    its header cell (``Close.1`` as written: ``Close``) joined by ``_`` to its cells of the levels whose cells
    differ across the columns (``Close_AAPL``; one ticker: ``Close``), the first column by the last row's cell
    (``Date``). None where the rows are not so written."""
    if top < 2:
        return None
    cells = pd.DataFrame({c: as_text(raw[c].iloc[:top]).str.strip() for c in raw.columns})  # (top, C)
    index_row, levels = cells.iloc[top - 1], cells.iloc[: top - 1]
    if index_row.iloc[0] == "" or (index_row.iloc[1:] != "").any() or (levels.iloc[:, 1:] == "").to_numpy().any():
        return None
    names = [str(c) for c in raw.columns]
    header = [m.group("name") if (m := _MANGLED.match(n)) and m.group("name") in names else n for n in names]
    differ = [r for r in range(top - 1) if levels.iloc[r, 1:].nunique() > 1]
    joined = ["_".join([h, *(str(levels.iloc[r, c]) for r in differ)]) for c, h in enumerate(header)]
    if len(set(joined[1:])) < len(joined) - 1:
        return None
    return {names[0]: str(index_row.iloc[0]), **dict(zip(names[1:], joined[1:]))}


def rows_below(raw: pd.DataFrame, most: int = 5) -> list[str]:
    """The first cells of the rows at the end that follow the data rather than hold it (a ``Total`` row, ``Source:``
    and ``Notes:`` lines, a title repeated alone): at most ``most`` rows whose first cell is text without a digit, or
    text that is neither a date nor a number alone on its row, below a first column of cells with digits (dates, ids
    with numbers); [] when there are none."""
    if not len(raw.columns) or typed_number(raw.iloc[:, 0]) or typed_time(raw.iloc[:, 0]) or len(raw) < 2 * most:
        return []
    first = raw.iloc[:, 0]
    tail = [str(c) for c in as_text(first.iloc[len(raw) - most:]).str.strip()]  # the last rows, a cheap look

    def follows(r: int) -> bool:
        """Row ``r`` of the tail follows the data: text without a digit, or text alone that no value reads."""
        cell = tail[r]
        if cell == "" or not _DIGIT.search(cell):
            return cell != ""
        if numeric(cell) or is_date(cell):
            return False
        others = as_text(raw.iloc[len(raw) - most + r, 1:].astype(object)).str.strip()
        return bool((others == "").all())

    k = 0
    while k < most and follows(most - 1 - k):
        k += 1
    if k == 0 or k == most:
        return []
    if not as_text(first.iloc[: len(raw) - k]).str.contains(_DIGIT).to_numpy(dtype=bool).all():
        return []
    return tail[most - k:]


def numeric(cell: str) -> bool:
    """A number, or digits with marks (``5,827``, ``1.234,5``, ``1'234``)."""
    return is_number(cell) or _WITH_MARKS.fullmatch(cell) is not None


def is_date(cell: str) -> bool:
    """A cell pandas reads as a date or a timestamp."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return not pd.isna(pd.to_datetime(cell, errors="coerce"))


def one_label_columns(raw: pd.DataFrame, columns: Sequence[str]) -> dict[str, str]:
    """The ``columns`` whose every cell is the same text that is no number (a station's id and name on every
    row of a weather export), with that text."""
    found = {}
    for col in columns:
        if typed_number(raw[col]) or not len(raw):
            continue
        text = as_text(raw[col]).str.strip()
        first = str(text.iloc[0])
        if first and not numeric(first) and bool((text == first).all()):
            found[str(col)] = first
    return found


_FLAG = re.compile(r"^(?P<stem>.+?)[\s_.-]*(?:flags?|attributes?|qc|cd|quality|qualifiers?|status)$", re.IGNORECASE)


def flag_columns_by_name(raw: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The text ``columns`` named as the flags of another of them: its name (without a unit in brackets) and a
    word such as ``flag``, ``attributes``, ``qc`` or ``cd`` (NOAA's ``TMAX`` and ``TMAX_ATTRIBUTES``, Environment
    Canada's ``Max Temp (°C)`` and ``Max Temp Flag``, USGS's ``..._00060_00003_cd``, SDMX's ``OBS_VALUE`` and
    ``OBS_FLAG``, stems compared without ``_value``)."""
    stems = {bare_name(c).removesuffix("_value").removesuffix(" value"): str(c) for c in columns}
    found = []
    for col in columns:
        match = _FLAG.match(bare_name(col))
        if match and not typed_number(raw[col]) and stems.get(match["stem"].strip(" _.-"), str(col)) != str(col):
            found.append(str(col))
    return found


def row_counters(frames: Sequence[pd.DataFrame], columns: Sequence[str]) -> list[str]:
    """The ``columns`` whose values rise by exactly 1 from each row to the next in every frame of at least three rows
    (a logger's ``RECORD``, a table's ``Obs``), or fall so (pandas' index of a frame written newest first, in time
    order): the row's position, which the timestamps already hold."""
    return counting_columns([frame[list(columns)].to_numpy(dtype=np.float64) for frame in frames], columns)


def counting_columns(blocks: Sequence[np.ndarray], columns: Sequence[str]) -> list[str]:
    """:func:`row_counters` of ``blocks``, each (rows, len(columns)) float: a series' rows of the columns."""
    counting = np.ones(len(columns), dtype=bool)
    for block in blocks:
        if len(block) < 3:
            return []
        steps = np.diff(block, axis=0)  # (rows - 1, len(columns))
        counting &= (steps == 1.0).all(axis=0) | (steps == -1.0).all(axis=0)
        if not counting.any():
            return []
    return [str(col) for col, count in zip(columns, counting) if count]


# names of a column that keys each row (a database's ``id``, a Kaggle file's ``ID``, a form's ``record_no``)
_KEY = re.compile(r"^(?:id|ids|key|uid|uuid|guid|#"
                  r"|(?:row|record|rec|obs|entry|sample)[\s_.-]*(?:id|key|no|nr|num|number|idx|index))$", re.IGNORECASE)


def key_columns(raw: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    """The columns among ``columns`` named as a row's key (``id``, ``ID``, ``key``, ``row_id``, ``record_no``)
    that differ on every one of at least three rows, as whole numbers or as text that no row leaves empty: a key
    given to each row (a traffic file's ``ID``, its date, hour and junction as one number; a hash), not a
    measurement."""
    found = []
    for col in columns:
        if not _KEY.match(bare_name(col)) or len(raw) < 3:
            continue
        if typed_number(raw[col]):
            numbers = raw[col].to_numpy(dtype=np.float64)  # (N,)
            keyed = bool(np.isfinite(numbers).all() and (numbers == np.round(numbers)).all())
            distinct = len(np.unique(numbers)) if keyed else 0
        else:
            text = as_text(raw[col]).str.strip()
            keyed = not (text == "").any()
            distinct = text.nunique() if keyed else 0
        if distinct == len(raw):
            found.append(str(col))
    return found


def timestamp_counters(raw: pd.DataFrame) -> list[str]:
    """The columns named like a timestamp that count the rows from 0 or 1 (``TIME`` beside ``YEAR`` in a table of
    years; read as text for their name), which the name does not make the timestamps."""
    named = [c for c in raw.columns if named_like_timestamp(str(c)) and len(raw)
             and pd.to_numeric(raw[c].iloc[:1], errors="coerce").isin([0, 1]).all()]
    numbers = pd.DataFrame({c: pd.to_numeric(raw[c], errors="coerce") for c in named}, index=raw.index)
    return row_counters([numbers], named) if named else []


def flag_columns(raw: pd.DataFrame, columns: Sequence[str], na_values: Sequence[str]) -> list[str]:
    """The flags or remarks on the values among ``columns``: text columns named as another column's flags
    (:func:`flag_columns_by_name`), and text columns without a digit in any cell, empty (or a missing-value word,
    or one of ``na_values``) in at least half of them and not in all (``p`` on a provisional value, a remark on a
    few days: ``sensor cleaned``). A column of
    words in every row (``on``, ``off``) is no flag but a category (:func:`category_columns`)."""
    found = flag_columns_by_name(raw, columns)
    for col in columns:
        if typed_number(raw[col]) or not len(raw) or col in found:
            continue
        text = as_text(raw[col]).str.strip()
        marked = text[~missing_cells(text, na_values)]
        if 0 < len(marked) <= len(text) / 2 and digitless(text):
            found.append(str(col))
    return found


MOST_CATEGORIES = 10  # distinct labels a column of categories holds at most


def category_columns(raw: pd.DataFrame, columns: Sequence[str], na_values: Sequence[str]) -> dict[str, list[str]]:
    """The text ``columns`` of categories, each value repeated on average: a few (Rossmann's ``StateHoliday``:
    ``0``, ``a``, ``b``, ``c``), at most :data:`MOST_CATEGORIES` distinct values, one of them a word without a digit
    (a number with a unit, ``20 °C``, is no category); or any number of words without a digit (the Metro traffic
    file's ``weather_description``). Booleans are numbers. Returns ``{column: its labels}``."""
    found = {}
    for col in columns:
        if typed_number(raw[col]) or len(raw) < 2 * MOST_CATEGORIES or boolean_cells(raw[col]) is not None:
            continue
        text = as_text(raw[col]).str.strip()
        labels = pd.unique(text[~missing_cells(text, na_values)])
        if len(labels) > len(text) // 2:  # most values once: measurements, not labels repeated
            continue
        words = ~pd.Series(labels, dtype=object).astype(str).str.contains(_DIGIT).to_numpy(dtype=bool)
        few = 1 < len(labels) <= MOST_CATEGORIES and words.any()
        if few or (len(labels) and words.all()):
            found[str(col)] = sorted(str(v) for v in labels)
    return found


def series_labels(raw: pd.DataFrame, columns: Sequence[str], groups: Sequence[np.ndarray],
                  na_values: Sequence[str]) -> dict[str, list[str]]:
    """The ``columns`` of a long file of several series that hold one label or number in every row of each series
    (Our World in Data's country ``Code`` beside its ``Entity``, a stock's sector, Statistics Canada's ``UOM_ID``
    and ``COORDINATE``): what a series is, no step's value. ``groups``: each series' rows of ``raw``. Returns
    ``{column: its first labels}``."""
    if len(groups) < 2:
        return {}
    codes = np.empty(len(raw), dtype=np.int32)  # (N,) each row's series
    for k, rows in enumerate(groups):
        codes[rows] = k
    first = codes == 0  # the first series' rows: most columns vary there already
    found = {}
    for col in columns:
        if boolean_cells(raw[col]) is not None:
            continue
        cells = raw[col] if typed_number(raw[col]) else as_text(raw[col]).str.strip()
        if cells[first].nunique(dropna=False) > 1:
            continue
        present = cells.dropna() if typed_number(raw[col]) else cells[~missing_cells(cells, na_values)]
        if not present.empty and bool((cells.groupby(codes).nunique(dropna=False) <= 1).all()):
            found[str(col)] = [str(v) for v in pd.unique(present)[:4]]
    return found
