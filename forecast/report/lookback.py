"""The report's look-back section, for sweeps that cross look-backs: per (dataset, features, horizon), one
table of test MSE with a column per look-back (the floors scored on each look-back's own test windows
as the last rows) and one of train time per epoch, inference time per test batch and peak memory at
each look-back."""

from __future__ import annotations

import math
from typing import Sequence

from forecast.core.standing import LEVEL, relative_change
from forecast.report.collect import unique
from forecast.report.table import FLOORS, Row, Stat
#: the cost table's metrics: (metrics.json key, column title, decimals)
COST = (("train_seconds_per_epoch", "s/epoch", 1), ("inference_ms_per_batch", "ms/batch", 0),
        ("peak_memory_mb", "peak MB", 0))


def floor_mse(row: Row, name: str) -> float:
    """Mean test MSE of floor ``name`` over the row's runs (NaN when none scored it)."""
    return row.floors.get(name, math.nan)


def floor_by_length(rows: Sequence[Row], name: str) -> dict[int, float]:
    """Floor ``name``'s test MSE at each look-back of ``rows`` (one group): the mean over every row of that
    look-back that scored it (all of them score the same windows)."""
    out = {}
    for n in sorted({r.seq_len for r in rows}):
        values = [v for r in rows if r.seq_len == n for v in [floor_mse(r, name)] if not math.isnan(v)]
        out[n] = sum(values) / len(values) if values else math.nan
    return out


def _mse_table(rows: Sequence[Row], lengths: list[int]) -> list[str]:
    ridge = floor_by_length(rows, "ridge")
    cell = {(r.label, r.seq_len): r.stats["test/mse"] for r in rows}
    best = {n: min((s.mean for (_, m), s in cell.items() if m == n and not math.isnan(s.mean)),
                   default=math.nan) for n in lengths}
    lines = ["| model / backend | " + " | ".join(f"MSE @ {n}" for n in lengths) + " |",
             "|---|" + "---:|" * len(lengths)]
    # rows in the order of their mean test MSE over the look-backs they have
    labels = sorted(unique(r.label for r in rows),
                    key=lambda lb: _mean([cell[(lb, n)].mean for n in lengths if (lb, n) in cell]))
    for label in labels:
        cells = []
        for n in lengths:
            s = cell.get((label, n), Stat(math.nan, math.nan))
            text = s.format(3)
            if not math.isnan(s.mean) and round(s.mean, 3) == round(best[n], 3):
                text = f"**{text}**"
            # better than the floor beyond the tolerance of the run's closing line: a run of the floor
            # itself (the default at its start) is level with it and gets no mark
            if not math.isnan(s.mean) and relative_change(s.mean, ridge[n]) < -LEVEL:
                text += " ✓"
            cells.append(text)
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for name in FLOORS:
        by_n = floor_by_length(rows, name)
        if not all(math.isnan(v) for v in by_n.values()):
            cells = [Stat(by_n[n], math.nan).format(3) for n in lengths]
            lines.append(f"| *{name} floor* | " + " | ".join(cells) + " |")
    return lines


def _cost_table(rows: Sequence[Row], lengths: list[int]) -> list[str]:
    cell = {(r.label, r.seq_len): r for r in rows}
    head = [f"{title} @ {n}" for _, title, _ in COST for n in lengths]
    lines = ["| model / backend | " + " | ".join(head) + " |", "|---|" + "---:|" * len(head)]
    labels = sorted(unique(r.label for r in rows),
                    key=lambda lb: _mean([cell[(lb, n)].stats["train_seconds_per_epoch"].mean
                                          for n in lengths if (lb, n) in cell]))
    for label in labels:
        cells = [cell[(label, n)].stats[key].format(d) if (label, n) in cell else "–"
                 for key, _, d in COST for n in lengths]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _mean(values: Sequence[float]) -> float:
    values = [v for v in values if not math.isnan(v)]
    return sum(values) / len(values) if values else math.inf


def render_lookback(rows: Sequence[Row]) -> list[str]:
    """The Markdown section (empty when the rows hold fewer than two look-backs)."""
    if len({r.seq_len for r in rows}) < 2:
        return []
    parts = ["\n## By look-back\n",
             "Test MSE (scaled) `mean ± std` over seeds, one column per look-back; **bold**: the lowest "
             "of its column; ✓: below the ridge floor of its column (by more than the 0.001% within "
             "which a run's closing line calls it level). The floors are scored on each look-back's own "
             "test windows. Then train seconds per epoch, milliseconds per test batch (median) and peak "
             "memory (MB) at each look-back.\n"]
    for group in unique(r.group for r in rows):
        members = [r for r in rows if r.group == group]
        lengths = sorted({r.seq_len for r in members})
        dataset, features, horizon = group
        parts += [f"\n### {dataset} {features}, horizon {horizon}\n",
                  "\n".join(_mse_table(members, lengths)) + "\n",
                  "\n".join(_cost_table(members, lengths)) + "\n"]
    return parts
