"""Where forecasts go: default paths beside the input, refused when they exist, written atomically."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Callable, Iterable, Iterator

import numpy as np
import pandas as pd

from forecast.data.compressed import inner_name
from forecast.data.errors import DataError
from forecast.io import atomic_path

CHUNK_ROWS = 500_000


def default_output(input_path: str | Path, kind: str, suffix: str = ".csv") -> Path:
    """``<input stem>.<kind><suffix>`` next to the input (``ETTh2.forecast.csv``; a compressed input's name without
    its compression: ``log.csv.gz`` gives ``log.forecast.csv``)."""
    path = Path(input_path)
    return path.with_name(f"{Path(inner_name(path.name)).stem}.{kind}{suffix}")


def check_targets(targets: Iterable[Path], *, inputs: Iterable[Path], overwrite: bool) -> None:
    """Refuse output paths that exist (unless ``overwrite``) or that are an input file.

    Raises:
        FileExistsError: an output exists and ``overwrite`` is False.
        DataError: an output is an input, or two outputs are the same file.
    """
    ins = {Path(p).resolve() for p in inputs}
    seen: set[Path] = set()
    for target in targets:
        resolved = Path(target).resolve()
        if resolved in ins:
            raise DataError(f"{target}: is an input file; choose another output path")
        if resolved in seen:
            raise DataError(f"{target}: given for two outputs; choose distinct paths")
        seen.add(resolved)
        if Path(target).exists() and not overwrite:
            raise FileExistsError(f"{target}: already exists; pass --overwrite or another --output")
        if Path(target).is_dir():
            raise DataError(f"{target}: is a directory; give a file path")


def write_csv(frame: pd.DataFrame | Callable[[], Iterable[pd.DataFrame]], target: Path, *,
              overwrite: bool) -> Path:
    """Atomically write ``frame`` (no index) to ``target`` (:func:`write_frame`): a frame, or a function giving
    the parts of one in order (:func:`write_parts`), so that the whole is never held."""
    with atomic_path(target, overwrite=overwrite) as tmp:
        if isinstance(frame, pd.DataFrame):
            write_frame(frame, tmp)
        else:
            write_parts(frame, tmp)
    return target


def write_frame(frame: pd.DataFrame, path: Path, *, chunk_rows: int = CHUNK_ROWS) -> None:
    """``frame`` as CSV (no index), read back as pandas' own ``to_csv`` output reads back.

    pyarrow's multithreaded writer writes the rows, ``chunk_rows`` at a time (so the converted copy is
    one slice, not the frame): unquoted where no value holds a comma, quote or line break, otherwise with
    every text value quoted; NaN is an empty cell. Columns other than numbers and text (dates, booleans)
    are written in pandas' forms, each distinct value of a slice formatted once (:func:`pandas_text`). The
    header is written by the ``csv`` module, quoted only where needed. A frame pyarrow cannot convert (an
    object column of mixed types) is written by pandas; pyarrow's errors derive from ``ValueError`` and
    ``TypeError``.
    """
    write_parts(lambda: [frame], path, chunk_rows=chunk_rows)


def write_parts(parts: Callable[[], Iterable[pd.DataFrame]], path: Path, *, chunk_rows: int = CHUNK_ROWS) -> None:
    """The frames ``parts()`` gives, of the same columns, one after another, written as :func:`write_frame` writes
    their concatenation (the same slices of ``chunk_rows`` rows, so the same text) with a slice held at a time;
    ``parts`` is called again where a first try without quotes meets a value that needs them."""
    import pyarrow.csv as pacsv

    for quoting in ("none", "needed"):
        try:
            with open(path, "wb") as out:
                for k, rows in enumerate(_slices(parts(), chunk_rows)):
                    if k == 0:
                        header = io.StringIO()
                        csv.writer(header, lineterminator="\n").writerow(rows.columns)
                        out.write(header.getvalue().encode("utf-8"))
                    options = pacsv.WriteOptions(include_header=False, quoting_style=quoting)
                    pacsv.write_csv(_arrow_table(rows), out, options)
            return
        except (ValueError, TypeError):  # "none" met a value that needs quotes, or a column pyarrow cannot convert
            continue
    pd.concat(list(parts()), ignore_index=True).to_csv(path, index=False)


def _slices(parts: Iterable[pd.DataFrame], rows: int) -> Iterator[pd.DataFrame]:
    """The rows of ``parts`` in order, ``rows`` at a time (the last slice fewer; parts without a row: the first,
    empty): as the concatenated frame's ``iloc[k * rows:(k + 1) * rows]``, joining parts only where a slice spans
    them."""
    pending: list[pd.DataFrame] = []
    held, given = 0, False
    for part in parts:
        pending.append(part)
        held += len(part)
        while held >= rows:
            joined = pending[0] if len(pending) == 1 else pd.concat(pending, ignore_index=True)
            yield joined.iloc[:rows]
            given = True
            rest = joined.iloc[rows:]
            pending, held = ([rest] if len(rest) else []), len(rest)
    if held or (pending and not given):
        yield pending[0] if len(pending) == 1 or not held else pd.concat(pending, ignore_index=True)


def _arrow_table(frame: pd.DataFrame) -> "pa.Table":
    """``frame``'s columns as a pyarrow table: numbers and text as they are, the rest as pandas' text."""
    import pyarrow as pa

    arrays = [pa.array(column, from_pandas=True) if _plain(column) else pandas_text(column)
              for _, column in frame.items()]
    return pa.Table.from_arrays(arrays, names=[str(name) for name in frame.columns])


def _plain(column: pd.Series) -> bool:
    """Numbers and text, which pyarrow writes as pandas does: an object column only when it holds text, a
    float column only when some value has a fraction (pyarrow writes a whole float ``3``, pandas ``3.0``, so a
    column of whole floats would read back as integers)."""
    kind = getattr(column.dtype, "kind", "")
    if kind == "f":
        values = column.to_numpy()
        values = values[np.isfinite(values)]
        return bool(np.any(values != np.floor(values)))
    if isinstance(column.dtype, pd.StringDtype) or kind in "iu":
        return True
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) in ("string", "empty")


def pandas_text(column: pd.Series) -> "pa.Array":
    """The text pandas' ``to_csv`` writes for each value of ``column`` (null for a missing one), as a pyarrow
    string array: the distinct values go through ``to_csv`` once and the rows take theirs."""
    import pyarrow as pa

    codes, distinct = pd.factorize(column)  # codes (N,), -1 where missing
    written = pd.DataFrame({"v": distinct}).to_csv(index=False)
    text = pd.read_csv(io.StringIO(written), dtype=str, keep_default_na=False)["v"].to_numpy(dtype=object)
    return pa.array(text, type=pa.string()).take(pa.array(codes, mask=codes < 0))
