"""Time and peak memory of ``forecast-predict RUN FILE --rolling``, alternating between source trees.

Each backtest runs in a fresh process (its wall time and peak RSS from ``os.wait4``), the trees taking turns, for
``--rounds`` rounds; the output goes to a temporary file removed after each run::

    git worktree add /tmp/base 7fe09b3
    python benchmarks/bench_rolling.py outputs/<run> panel.csv --trees /tmp/base . --rounds 3 -- --span test
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = ("import sys; sys.path.insert(0, sys.argv[1]); from forecast.cli.predict import main; "
       "sys.argv = ['forecast-predict', *sys.argv[2:]]; sys.exit(main())")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a forecast-train run directory")
    parser.add_argument("input", type=Path, help="the file to backtest")
    parser.add_argument("--trees", nargs="+", default=["."], help="source trees (checkouts) to time, alternating")
    parser.add_argument("--rounds", type=int, default=3)
    args, rest = parser.parse_known_args()  # forecast-predict's own options: after --
    rest = rest[1:] if rest[:1] == ["--"] else rest
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "backtest.csv"
        for r in range(1, args.rounds + 1):
            for tree in args.trees:
                command = [sys.executable, "-c", RUN, str(Path(tree).resolve()), str(args.run), str(args.input),
                           "--rolling", "-q", "--overwrite", "-o", str(out), *rest]
                started = time.perf_counter()
                child = subprocess.Popen(command, stdout=subprocess.DEVNULL)
                _, status, usage = os.wait4(child.pid, 0)  # its own peak RSS, which Popen.wait does not give
                wall = time.perf_counter() - started
                child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
                if child.returncode:
                    raise SystemExit(f"{tree}: forecast-predict exited with status {child.returncode}")
                print(f"round {r}  {tree}  {wall:.1f} s  peak {usage.ru_maxrss / 2**20:.2f} GB", flush=True)


if __name__ == "__main__":
    main()
