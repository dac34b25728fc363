#!/usr/bin/env python
"""Write the look-back tables of docs/long-inputs.md from the study's table, docs/long-inputs/results.csv.

    python studies/long_inputs_doc.py            # rewrite the doc's tables from results.csv
    python studies/long_inputs_doc.py --check    # exit 1, naming the sections, when they differ

For each (dataset, features, horizon) of the CSV, the two look-back tables of ``forecast-compare``
(:func:`forecast.report.lookback.render_lookback`: test MSE with the floors as the last rows, then
cost) replace the two tables under the doc's ``### <dataset>, horizon <n>``. Everything else in the
doc is left as it is.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from forecast.io import atomic_path
from forecast.report.lookback import render_lookback
from forecast.report.table import read_csv

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "long-inputs.md"
TABLE = ROOT / "docs" / "long-inputs" / "results.csv"
#: two Markdown tables separated by one blank line
TWO_TABLES = r"(?:\|.*\n)+\n(?:\|.*\n)+"
#: a heading of the rendered look-back section and the two tables under it
SECTION = re.compile(rf"(?m)^### (?P<dataset>\S+) (?:M|S|MS), horizon (?P<horizon>\d+)\n\n"
                     rf"(?P<tables>{TWO_TABLES})")


def sync(doc: str, tables: str) -> tuple[str, list[str]]:
    """``doc`` with every section's tables taken from ``tables`` (the rendered look-back section), and
    the doc headings that changed.

    Raises:
        ValueError: ``tables`` has no look-back section, or the doc has no tables under one of its headings.
    """
    sections = list(SECTION.finditer(tables))
    if not sections:
        raise ValueError("the table holds fewer than two look-backs for every dataset and horizon")
    changed = []
    for section in sections:
        heading = f"### {section['dataset']}, horizon {section['horizon']}"
        match = re.search(rf"(?m)^{re.escape(heading)}\n\n({TWO_TABLES})", doc)
        if match is None:
            raise ValueError(f"the doc has no two tables under '{heading}'; add the heading and two tables")
        if match[1] != section["tables"]:
            changed.append(heading)
            doc = doc[:match.start(1)] + section["tables"] + doc[match.end(1):]
    return doc, changed


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or, with ``--check``, compare) the doc; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("--table", type=Path, default=TABLE, help="the study's results.csv (forecast-compare)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the tables differ")
    args = parser.parse_args(argv)
    try:
        rendered = "\n".join(render_lookback(read_csv(args.table)))
        text, changed = sync(args.doc.read_text(), rendered)
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.check:
        for heading in changed:
            print(f"{args.doc}: the tables under '{heading}' differ from {args.table}; "
                  "run python studies/long_inputs_doc.py", file=sys.stderr)
        return 1 if changed else 0
    if changed:
        with atomic_path(args.doc) as tmp:
            tmp.write_text(text)
    print(f"{args.doc}: " + (", ".join(changed) if changed else "the tables already match"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
