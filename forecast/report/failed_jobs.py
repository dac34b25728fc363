"""The sweep's list of jobs that failed on a user error (``<sweep dir>/failed_jobs.jsonl``).

``forecast-train -m`` writes it (``forecast.cli.sweep``); the comparison report lists its entries under
the table, so a cell missing from a grid says why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

FAILED_JOBS = "failed_jobs.jsonl"


def read_failed_jobs(sweep_dir: Path) -> list[dict[str, Any]]:
    """The failures a sweep recorded, in the order they happened; [] when none.

    Each entry has ``job`` (its number), ``overrides`` (a list) and ``error``. A line that is not a
    JSON object (a file edited by hand, a write cut short) is kept as its text in ``error``.
    """
    path = sweep_dir / FAILED_JOBS
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        entries.append(entry if isinstance(entry, dict) else {"job": None, "overrides": [], "error": line})
    return entries


def find_failed_jobs(dirs: Sequence[str | Path]) -> list[tuple[Path, dict[str, Any]]]:
    """Every recorded failure below ``dirs``, with the sweep directory that recorded it, sorted by directory."""
    found = []
    for d in map(Path, dirs):
        for listing in sorted(d.rglob(FAILED_JOBS)):
            found += [(listing.parent, entry) for entry in read_failed_jobs(listing.parent)]
    return found
