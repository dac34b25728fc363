"""Benchmark outputs: the CSV, a log-log plot (time and peak memory against L) and a markdown table.

Every file is written through :func:`forecast.io.atomic_path`, so a reader never sees half a file.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Sequence

from benchmarks.attention.backends import BASELINES
from benchmarks.attention.spec import CSV_COLUMNS, MODES, Result
from forecast.io import atomic_path

_LINESTYLE = {"fwd": "-", "fwdbwd": "--"}
_BASELINE_COLOR = {"sdpa": "black", "dense": "dimgray"}


def write_csv(rows: Sequence[Result], target: Path) -> None:
    """Write ``rows`` with the :data:`CSV_COLUMNS` header."""
    with atomic_path(target) as tmp:
        with tmp.open("w", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(CSV_COLUMNS))
            writer.writeheader()
            for r in rows:
                writer.writerow(r.row())


def settings_line(rows: Sequence[Result]) -> str:
    """Shared settings of a run, for titles: device, threads, B/H/D, dtype, causal, allocator."""
    if not rows:
        return ""
    r = rows[0]
    causal = "causal" if r.causal else "non-causal"
    memory = next((x.mem_method for x in rows if x.mem_method), "")
    return (f"{r.device}, {r.threads} thread(s), B={r.batch} H={r.heads} D={r.head_dim}, {r.dtype}, "
            f"{causal}, allocator {r.allocator}" + (f", memory {memory}" if memory else ""))


def plot(rows: Sequence[Result], target: Path) -> None:
    """Two log-log panels (median time, peak memory vs L): a line per backend, linestyle per mode."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 5.5))
    backends = list(dict.fromkeys(r.backend for r in rows))
    cmap = plt.get_cmap("tab20")
    # dark shades first, then the light ones; no grays (14, 15): those are the baselines'
    order = [i for i in list(range(0, 20, 2)) + list(range(1, 20, 2)) if i not in (14, 15)]
    others = [b for b in backends if b not in _BASELINE_COLOR]
    colors = {b: cmap(order[i % len(order)]) for i, b in enumerate(others)} | _BASELINE_COLOR
    for backend in backends:
        for mode in MODES:
            ok = sorted((r for r in rows if r.backend == backend and r.mode == mode and r.status == "ok"),
                        key=lambda r: r.length)
            if not ok:
                continue
            style = dict(color=colors[backend], linestyle=_LINESTYLE[mode], marker="o", markersize=3,
                         linewidth=2.0 if backend in BASELINES else 1.3, label=f"{backend} {mode}")
            lengths = [r.length for r in ok]
            axes[0].plot(lengths, [r.time_ms for r in ok], **style)
            axes[1].plot(lengths, [max(r.peak_mb or 0.0, 0.01) for r in ok], **style)
    for ax, ylabel in zip(axes, ("median time per call (ms)", "peak memory above baseline (MB)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length L")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="center right", fontsize=8, title="solid fwd, dashed fwd+bwd")
    fig.suptitle("attention backends: " + settings_line(rows).replace(", allocator", ",\nallocator"), fontsize=9)
    fig.tight_layout(rect=(0, 0, 0.83, 0.93))
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)


def _cell(r: Result | None) -> str:
    if r is None:
        return ""
    if r.status != "ok":
        return r.status
    return f"{r.time_ms:.3g} ms / {r.peak_mb:.3g} MB"


def summary_markdown(rows: Sequence[Result]) -> str:
    """One markdown table per mode: backend rows x length columns, cells ``time / peak memory``."""
    lengths = sorted({r.length for r in rows})
    backends = list(dict.fromkeys(r.backend for r in rows))
    index = {(r.backend, r.mode, r.length): r for r in rows}
    parts = [f"Settings: {settings_line(rows)}; cells: median time per call / peak memory above baseline."]
    for mode in MODES:
        if not any(r.mode == mode for r in rows):
            continue
        parts.append(f"\n**{mode}**\n")
        parts.append("| backend | " + " | ".join(f"L={n}" for n in lengths) + " |")
        parts.append("|---|" + "---|" * len(lengths))
        for b in backends:
            parts.append(f"| {b} | " + " | ".join(_cell(index.get((b, mode, n))) for n in lengths) + " |")
    return "\n".join(parts) + "\n"


def write_text(text: str, target: Path) -> None:
    """Atomically write ``text``."""
    with atomic_path(target) as tmp:
        tmp.write_text(text)
