"""Many series as many files: a folder of CSVs (or a pattern such as ``stations/*.csv``), one series a file.

Each file is read on its own (its own layout, dialect and line numbers in messages) and becomes a series named
after the file (``stations/berlin.csv`` is ``berlin``), as a long file's series are named by their id column;
the id column of the panel is :data:`FILE_ID`, which forecasts carry. The files after the first are read with
its columns, timestamp column and frequency, so every series has the same inputs; where they are many, by a
process for each CPU this process may use (:func:`read_each`).
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from forecast.data.compressed import inner_name
from forecast.data.errors import DataError

T = TypeVar("T")

FILE_ID = "file"
"""The id column of a panel read from many files: each series' file name."""

_PATTERN = ("*", "?", "[")  # what makes a path a pattern of files
_TABLES = (".csv", ".tsv", ".txt", ".dat", ".parquet", ".pq")  # the files of a folder that are read
POOLED = 200  # files a process is given at least, where several read them


def many_files(path: str | Path) -> list[Path] | None:
    """The files ``path`` names when it is a folder (its tables, :data:`_TABLES` maybe compressed, by name) or a
    pattern (``stations/*.csv``, sorted); None for one file.

    Raises:
        DataError: a folder or pattern without a file.
    """
    text = str(path)
    if any(ch in text for ch in _PATTERN) and not Path(text).exists():
        files = sorted(Path(p) for p in glob.glob(text) if Path(p).is_file())
        if not files:
            raise DataError(f"{text}: no file matches the pattern; check the path")
        return files
    folder = Path(text)
    if not folder.is_dir():
        return None
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith(".")
                   and _stem(p.name) != p.name)
    if not files:
        raise DataError(f"{folder}: a folder without a table ({', '.join(_TABLES)}, maybe compressed); pass a file, "
                        f"or a folder of one file per series")
    return files


def series_name(path: Path) -> str:
    """The series a file holds: its name without the table's and the compression's suffixes."""
    return _stem(path.name)


def _stem(name: str) -> str:
    """``name`` without a compression suffix and then a table suffix (``berlin.csv.gz`` is ``berlin``); ``name``
    itself when it names no table."""
    name = inner_name(name)
    table = next((t for t in _TABLES if name.lower().endswith(t)), None)
    return name[: -len(table)] if table and len(name) > len(table) else name


def check_names(files: list[Path], source: str) -> None:
    """Refuse two files of one series name (``a.csv`` and ``a.csv.gz``)."""
    seen: dict[str, Path] = {}
    for path in files:
        name = series_name(path)
        if name in seen:
            raise DataError(f"{source}: {seen[name]} and {path} both name series {name!r}; keep one of them")
        seen[name] = path


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity, which ``taskset`` narrows), or the machine's count."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def read_each(read: Callable[[Path], T], files: Sequence[Path]) -> list[T]:
    """``read`` of each of ``files``, in their order: on Linux by several forked processes where there are at least
    :data:`POOLED` files for each (as torch's DataLoader forks its workers: no main module run again, so a script
    without a ``__main__`` guard works; ``read`` and its results pickled), one after another otherwise. An
    exception is raised as reading in order would raise it: the first file's."""
    workers = min(usable_cpus(), len(files) // POOLED)
    if workers < 2 or not sys.platform.startswith("linux"):
        return [read(f) for f in files]
    with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(read, files, chunksize=max(1, len(files) // (8 * workers))))
