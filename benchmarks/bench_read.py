"""Time ``read_panel`` on a large CSV, as written with dots and as a European export (``;``, decimal commas).

Each reading runs in a fresh subprocess (imports outside the timing), alternating between the source trees
given (two checkouts compare two commits) and the files, for ``--rounds`` rounds::

    python benchmarks/bench_read.py --rows 1000000 --dir /tmp/read_bench                      # this tree
    git worktree add /tmp/base ec7df58
    python benchmarks/bench_read.py --rows 1000000 --dir /tmp/read_bench --trees /tmp/base .  # against a commit
    python benchmarks/bench_read.py --rows 140256 --columns 370 --dir /tmp/read_bench --trees /tmp/base .  # wide
    python benchmarks/bench_read.py --files 3000 --rows 730 --dir /tmp/read_bench --trees /tmp/base .  # a folder
    python benchmarks/bench_read.py --series 10000 --rows 1000 --dir /tmp/read_bench --trees /tmp/base .  # long

The files (``--columns`` normal columns, 7 by default, and minute timestamps, seed 0) are written once to ``--dir``;
with ``--files N``, a folder of N files of one daily column of ``--rows`` rows each instead; with ``--series N``,
one long file (``item_id,date,sales``, sorted by series) of N series of ``--rows`` days.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd

TIMED = ("import sys, time; sys.path.insert(0, sys.argv[1]); from forecast.data.reader import read_panel; "
         "t = time.perf_counter(); read_panel(sys.argv[2]); print(time.perf_counter() - t)")


def write_files(rows: int, columns: int, folder: Path) -> list[Path]:
    """The same values written ``,``-separated with dots and ``;``-separated with decimal commas."""
    folder.mkdir(parents=True, exist_ok=True)
    size = f"{rows}" if columns == 7 else f"{rows}x{columns}"
    plain, european = folder / f"dots_{size}.csv", folder / f"commas_{size}.csv"
    if not (plain.exists() and european.exists()):
        names = list("abcdefg") if columns == 7 else [f"MT_{c:03d}" for c in range(1, columns + 1)]
        frame = pd.DataFrame(np.random.default_rng(0).normal(size=(rows, columns)), columns=names)
        frame.insert(0, "date", pd.date_range("2020-01-01", periods=rows, freq="min").strftime("%Y-%m-%d %H:%M:%S"))
        frame.to_csv(plain, index=False)
        frame.to_csv(european, index=False, sep=";", decimal=",")
    return [plain, european]


def write_folder(files: int, rows: int, folder: Path) -> list[Path]:
    """A folder of ``files`` files (``date,sales``), one series each: a weekly season and noise, seed 0."""
    root = folder / f"files_{files}x{rows}"
    if not root.exists():
        root.mkdir(parents=True)
        rng = np.random.default_rng(0)
        days = pd.date_range("2021-01-01", periods=rows, freq="D").strftime("%Y-%m-%d")
        for k in range(files):
            sales = 50 + 10 * np.sin(np.arange(rows) * 2 * np.pi / 7) + rng.normal(0, 3, rows)
            pd.DataFrame({"date": days, "sales": sales.round(2)}).to_csv(root / f"store_{k:05d}.csv", index=False)
    return [root]


def write_long(series: int, rows: int, folder: Path) -> list[Path]:
    """A long file of ``series`` daily series of ``rows`` rows each, sorted by series: the folder's values."""
    path = folder / f"long_{series}x{rows}.csv"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(0)
        days = pd.date_range("2021-01-01", periods=rows, freq="D").strftime("%Y-%m-%d")
        for k in range(0, series, 1000):
            block = min(1000, series - k)
            sales = 50 + 10 * np.sin(np.arange(rows) * 2 * np.pi / 7) + rng.normal(0, 3, (block, rows))
            pd.DataFrame({"item_id": np.repeat([f"item_{i}" for i in range(k, k + block)], rows),
                          "date": np.tile(days, block), "sales": sales.ravel().round(2)}).to_csv(
                path, mode="a", header=k == 0, index=False)
    return [path]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--columns", type=int, default=7, help="value columns (370: the electricity file's width)")
    parser.add_argument("--dir", type=Path, default=Path("read_bench"))
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees (checkouts) to time, alternating")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--files", type=int, default=0, help="time a folder of this many files of one series each")
    parser.add_argument("--series", type=int, default=0, help="time a long file of this many series")
    args = parser.parse_args()
    files = write_folder(args.files, args.rows, args.dir) if args.files else \
        write_long(args.series, args.rows, args.dir) if args.series else write_files(args.rows, args.columns, args.dir)
    for r in range(1, args.rounds + 1):
        for tree in args.trees:
            for path in files:
                out = subprocess.run([sys.executable, "-c", TIMED, str(Path(tree).resolve()), str(path)],
                                     capture_output=True, text=True, check=True)
                print(f"round {r}  {tree}  {path.name}  {float(out.stdout):.2f} s", flush=True)


if __name__ == "__main__":
    main()
