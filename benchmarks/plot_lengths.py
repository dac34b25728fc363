#!/usr/bin/env python
"""Step time, inference time and peak memory against input length, from ``bench_train.py --lengths`` results.

Each result JSON is one backend (its name: the ``attention@encoder_attention=`` override, else the
file's stem). Writes a PNG of three log-log panels and prints a Markdown table (``oom``,
``timeout`` and ``skipped`` lengths are named in the table and left out of the plot).

    python benchmarks/plot_lengths.py results/long/*.json --out docs/performance_lengths.png
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PANELS = (("step_s_median", "training step (s)"), ("infer_s_per_batch", "inference per batch (s)"),
          ("peak_memory_mb", "peak memory (MB)"))


def backend_name(result: dict[str, Any], path: Path) -> str:
    for override in result.get("overrides", []):
        if override.startswith("attention@encoder_attention="):
            return override.split("=", 1)[1]
    return path.stem


def load(paths: list[Path]) -> dict[str, list[dict[str, Any]]]:
    """``{backend: runs ordered by length}``."""
    return {backend_name(r, p): sorted(r["runs"], key=lambda run: run["seq_len"])
            for p in paths for r in [json.loads(p.read_text())]}


def cell(run: dict[str, Any]) -> str:
    if run["status"] != "ok":
        return run["status"]
    return f"{run['step_s_median']:.2f} s · {run['infer_s_per_batch']:.2f} s · {run['peak_memory_mb'] / 1024:.1f} GB"


def growth_exponent(runs: list[dict[str, Any]], key: str = "step_s_median") -> float | None:
    """The slope of ``key`` against length on log-log axes, from the shortest to the longest length
    that ran: 1 for linear growth, 2 for quadratic; None with fewer than two lengths."""
    ok = sorted((r for r in runs if r["status"] == "ok"), key=lambda r: r["seq_len"])
    if len(ok) < 2:
        return None
    first, last = ok[0], ok[-1]
    return math.log(last[key] / first[key]) / math.log(last["seq_len"] / first["seq_len"])


def table(curves: dict[str, list[dict[str, Any]]]) -> str:
    """One row per backend: step · inference per batch · peak memory at each length, then the step's
    growth exponent (:func:`growth_exponent`) over the lengths that ran."""
    lengths = sorted({run["seq_len"] for runs in curves.values() for run in runs})
    lines = ["| backend | " + " | ".join(str(n) for n in lengths) + " | step growth exponent |",
             "|---|" + "---|" * len(lengths) + "---:|"]
    for name, runs in curves.items():
        by_len = {run["seq_len"]: run for run in runs}
        exponent = growth_exponent(runs)
        cells = [cell(by_len[n]) if n in by_len else "–" for n in lengths]
        cells.append("–" if exponent is None else f"{exponent:.2f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(curves: dict[str, list[dict[str, Any]]], target: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(PANELS), figsize=(5 * len(PANELS), 4.2))
    for ax, (key, title) in zip(axes, PANELS):
        for i, (name, runs) in enumerate(curves.items()):
            ok = [r for r in runs if r["status"] == "ok"]
            style = "-" if name in ("prob", "full") else "--"
            # ten colours, then the same colours again with another marker, so no two lines look alike
            ax.plot([r["seq_len"] for r in ok], [r[key] for r in ok], style, color=f"C{i % 10}",
                    marker="os^D"[i // 10 % 4], ms=3, label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("input length (data.seq_len)")
        ax.set_title(title)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=7, ncol=2)
    fig.tight_layout()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.stem + ".tmp" + target.suffix)
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    tmp.replace(target)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+", type=Path)
    p.add_argument("--out", type=Path, required=True, help="PNG")
    args = p.parse_args(argv)
    curves = load(args.results)
    plot(curves, args.out)
    print(table(curves))
    return 0


if __name__ == "__main__":
    sys.exit(main())
