#!/usr/bin/env python
"""Copy the look-back tables of the long-input report into docs/long-inputs.md.

    forecast-compare docs/long-inputs/runs --labels docs/long-inputs/labels.yaml --out docs/long-inputs
    python scripts/long_inputs_doc.py            # rewrite the doc's tables from report.md
    python scripts/long_inputs_doc.py --check    # exit 1, naming the sections, when they differ

The report's section ``### ETTh1 M, horizon 336`` fills the doc's ``### ETTh1, horizon 336``: its two
tables (test MSE, then cost) replace the doc's two. Everything else in the doc is left as it is.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from forecast.io import atomic_path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "long-inputs.md"
REPORT = ROOT / "docs" / "long-inputs" / "report.md"
#: two Markdown tables separated by one blank line
TWO_TABLES = r"(?:\|.*\n)+\n(?:\|.*\n)+"
#: a report heading and the two tables under it
SECTION = re.compile(rf"(?m)^### (?P<dataset>\S+) (?:M|S|MS), horizon (?P<horizon>\d+)\n\n"
                     rf"(?P<tables>{TWO_TABLES})")


def sync(doc: str, report: str) -> tuple[str, list[str]]:
    """``doc`` with every section's tables taken from ``report``, and the doc headings that changed.

    Raises:
        ValueError: the report has no look-back section, or the doc has no tables under one of its headings.
    """
    sections = list(SECTION.finditer(report))
    if not sections:
        raise ValueError("the report has no '### <dataset> <features>, horizon <n>' section with two tables")
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
    parser.add_argument("--report", type=Path, default=REPORT)
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if the tables differ")
    args = parser.parse_args(argv)
    try:
        text, changed = sync(args.doc.read_text(), args.report.read_text())
    except (OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if args.check:
        for heading in changed:
            print(f"{args.doc}: the tables under '{heading}' differ from {args.report}; "
                  "run python scripts/long_inputs_doc.py", file=sys.stderr)
        return 1 if changed else 0
    if changed:
        with atomic_path(args.doc) as tmp:
            tmp.write_text(text)
    print(f"{args.doc}: " + (", ".join(changed) if changed else "the tables already match"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
