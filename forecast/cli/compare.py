"""``forecast-compare``: every metrics.json below the sweep directories -> results.csv, report.md, plots.

Examples::

    forecast-compare multirun/2025-01-01/12-00-00 [MORE_DIRS...] --out reports/etth1
    forecast-compare outputs/2025-01-01/12-00-00 --out reports/one_run
    forecast-compare outputs/long --labels docs/long-inputs/labels.yaml --out docs/long-inputs

Rows are attention backend (or baseline model) x dataset x horizon, mean ± std over seeds; the best
error per (dataset, horizon) is bold. Exit status 2 with one error line on bad input (nothing written).
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from forecast.report.build import write_report
from forecast.report.collect import ReportError


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, write the report and print the paths written; returns the exit status (0, or 2)."""
    parser = argparse.ArgumentParser(prog="forecast-compare", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sweep_dirs", nargs="+", metavar="SWEEP_DIR", help="directories searched for metrics.json")
    parser.add_argument("--out", required=True, metavar="REPORT_DIR", help="where the report is written")
    parser.add_argument("--labels", metavar="LABELS_YAML",
                        help="YAML file of 'row label: name' lines: the names the rows get in the tables, "
                             "results.csv and the figures (rows it does not name keep their labels)")
    args = parser.parse_args(argv)
    try:
        written = write_report(args.sweep_dirs, args.out, args.labels)
    except ReportError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    for path in written:
        print(path)
    return 0


def main() -> None:
    """Console entry point."""
    sys.exit(run())


if __name__ == "__main__":
    main()
