#!/usr/bin/env python
"""Compare runs: every metrics.json below the sweep directories -> results.csv, report.md, plots.

    python scripts/compare.py multirun/2025-01-01/12-00-00 [MORE_DIRS...] --out reports/etth1

Rows are attention backend (or baseline model) x dataset x horizon, mean ± std over seeds; the best
error per (dataset, horizon) is bold. Exit status 2 with one error line on bad input (nothing written).
"""

from __future__ import annotations

import argparse
import sys

from forecast.report.build import write_report
from forecast.report.collect import ReportError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dirs", nargs="+", metavar="SWEEP_DIR", help="directories searched for metrics.json")
    parser.add_argument("--out", required=True, metavar="REPORT_DIR", help="where the report is written")
    args = parser.parse_args(argv)
    try:
        written = write_report(args.sweep_dirs, args.out)
    except ReportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
