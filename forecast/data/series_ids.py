"""Series named by several columns together (``store`` and ``item``): one id column of their joined values, named
by their joined names (``store + item``), which a trained model's reading joins again from the same columns; and
the columns that name each row's series in a file where timestamps repeat."""

from __future__ import annotations

from functools import cache
from itertools import combinations
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from forecast.data.cells import as_text, typed_number
from forecast.data.copies import value_columns

ID_JOIN = " + "  # between the names of the columns that together name a series
VALUE_JOIN = " / "  # between their values
MOST_CANDIDATES = 8  # columns tried, in file order, for the columns that name each row's series
#: names that mark a long file's series id by convention: Nixtla's (neuralforecast, statsforecast), GluonTS' and
#: AutoGluon's, and the plain one
CONVENTIONAL_IDS = ("unique_id", "item_id", "series_id")


def id_parts(id_col: str | Sequence[str] | None) -> list[str]:
    """The columns an id names together: those of a list of two or more, or of a joined name (``store + item``);
    [] for one column or None."""
    if id_col is None:
        return []
    if not isinstance(id_col, str):
        parts = [str(c) for c in id_col]
        return parts if len(parts) > 1 else []
    parts = id_col.split(ID_JOIN)
    return parts if len(parts) > 1 else []


def id_name(id_col: str | Sequence[str] | None) -> str | None:
    """The id column's name: a list's names joined (one name alone is itself; none, None)."""
    if id_col is None or isinstance(id_col, str):
        return id_col
    return ID_JOIN.join(str(c) for c in id_col) or None


def joined_ids(raw: pd.DataFrame, parts: Sequence[str]) -> pd.Series:
    """(N,) text: each row's values of ``parts``, stripped and joined by :data:`VALUE_JOIN`; an empty value is left
    out (Johns Hopkins' empty ``Province/State`` beside a country)."""
    text = [as_text(raw[c]).str.strip().to_numpy(dtype=object) for c in parts]
    out = text[0]
    for more in text[1:]:
        both = (out != "") & (more != "")
        out = np.where(both, out + VALUE_JOIN + more, np.where(out == "", more, out))
    return pd.Series(out, index=raw.index, dtype=object)


def joined_parts(raw: pd.DataFrame, parts: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """Each joined id (:func:`joined_ids`) with the values of ``parts`` it joins, stripped: how to write it back as
    the columns it came from."""
    distinct = raw[list(parts)].drop_duplicates()  # (U, K) the combinations of values the rows hold
    values = [as_text(distinct[c]).str.strip().to_numpy(dtype=object) for c in parts]
    return dict(zip(joined_ids(distinct, parts), zip(*values)))


def with_joined_id(raw: pd.DataFrame, parts: Sequence[str], name: str) -> pd.DataFrame:
    """``raw`` with ``parts`` replaced by one column ``name`` of their joined values, where the first of them was."""
    at = list(raw.columns).index(parts[0])
    ids = joined_ids(raw, parts)
    out = raw.drop(columns=list(parts))
    out.insert(at, name, ids)
    return out


def naming_columns(raw: pd.DataFrame, columns: Sequence[str]) -> list[str] | None:
    """The first of ``columns`` of text (not numbers: coordinates name no series) that names every row once, else
    the first two whose values together do (:func:`joined_ids`, never both empty); None where none do."""
    text = [c for c in columns if not typed_number(raw[c]) and not pd.to_numeric(raw[c], errors="coerce").notna().all()]
    for cols in [*([c] for c in text), *combinations(text[:MOST_CANDIDATES], 2)]:
        ids = joined_ids(raw, list(cols))
        if (ids != "").all() and ids.is_unique:
            return list(cols)
    return None


def _candidate(col: pd.Series) -> bool:
    """A column that may name series: labels, or whole numbers that repeat (store numbers)."""
    if typed_number(col):
        values = col.to_numpy(dtype=np.float64)
        return bool(np.isfinite(values).all() and (values == np.round(values)).all()
                    and col.nunique() <= len(col) // 2)
    text = as_text(col).str.strip()
    return bool((text != "").all() and text.nunique() <= len(col) // 2)


def _each_row_once(keys: pd.DataFrame, values: Callable[[], pd.DataFrame] | None) -> bool:
    """Whether ``keys`` (N, K) are unique once rows alike in every one of ``values()`` (the file's value columns,
    :func:`~forecast.data.copies.value_columns`: rows written twice) count once: such a row names no other series.
    ``values`` None: every row counts (readings aggregated into steps, where two alike are two)."""
    repeated = keys.duplicated(keep=False).to_numpy()  # (N,) rows whose keys another row shares
    if not repeated.any():
        return True
    if values is None:
        return False
    distinct = ~values()[repeated].duplicated().to_numpy()  # the first of each set alike among them
    return not keys[repeated][distinct].duplicated().any()


def _value_cells(raw: pd.DataFrame) -> Callable[[], pd.DataFrame]:
    """``raw``'s value columns (:func:`~forecast.data.copies.value_columns`), found once, when first asked for."""
    return cache(lambda: raw[value_columns(raw)])


def series_columns(raw: pd.DataFrame, stamps: pd.DatetimeIndex, besides: Sequence[str | None],
                   given: str | None = None) -> list[str] | None:
    """The fewest columns (one or two, with ``given`` where a series id is already named) that, with the timestamps,
    name every row once: the series of a file whose timestamps repeat, of the first :data:`MOST_CANDIDATES` that may
    (:func:`_candidate`), columns of labels before columns of numbers; None where none do."""
    if len(raw) < 2:
        return None
    kept = [str(c) for c in raw.columns if c not in besides and c != given]
    candidates = [c for c in kept if not typed_number(raw[c]) and _candidate(raw[c])]  # labels first, then numbers
    candidates = (candidates + [c for c in kept if typed_number(raw[c]) and _candidate(raw[c])])[:MOST_CANDIDATES]
    base = [] if given is None else [given]
    values = _value_cells(raw)
    for size in (1, 2) if given is None else (1,):
        for cols in combinations(candidates, size):
            keys = pd.DataFrame({**{c: as_text(raw[c]).to_numpy() for c in (*base, *cols)}, "\0t": stamps.asi8})
            if _each_row_once(keys, values):
                return [*base, *cols]
    return None


def long_format_id(raw: pd.DataFrame, timestamp_col: str, *, readings: bool = False) -> tuple[str, str] | None:
    """The column that names a long file's series where its timestamps repeat, and why: one named as a series id
    by convention (:data:`CONVENTIONAL_IDS`, any case) that holds more than one value; else, where at least half
    the rows share their timestamp with another row (a panel, not a repeated hour), the first of the first
    :data:`MOST_CANDIDATES` text columns (not numbers: those may be measurements) that, with the timestamps, names
    every row once, a row written twice counting once unless the rows are ``readings`` to aggregate (Kaggle's
    ``Name`` of a stock, Our World in Data's ``Entity``). None where none does."""
    if timestamp_col not in raw.columns:
        return None
    stamps = as_text(raw[timestamp_col]).str.strip()
    repeated = stamps.duplicated(keep=False)
    if not repeated.any():
        return None
    named = [c for c in raw.columns if str(c).strip().lower() in CONVENTIONAL_IDS]
    if len(named) == 1:
        return (str(named[0]), "long format") if as_text(raw[named[0]]).str.strip().nunique() > 1 else None
    if named or repeated.mean() < 0.5:
        return None
    values = None if readings else _value_cells(raw)
    for col in [c for c in raw.columns if c != timestamp_col][:MOST_CANDIDATES]:
        if typed_number(raw[col]) or not _candidate(raw[col]):
            continue
        ids = as_text(raw[col]).str.strip()
        if pd.to_numeric(ids, errors="coerce").notna().all() or ids.nunique() < 2:
            continue
        if _each_row_once(pd.DataFrame({"id": ids.to_numpy(), "t": stamps.to_numpy()}), values):
            return str(col), "long format: its labels with the timestamps name each row once"
    return None
