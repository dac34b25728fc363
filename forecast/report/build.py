"""Write a comparison report: ``results.csv``, ``report.md`` and PNG plots."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from forecast.io import atomic_path
from forecast.report.collect import load_runs
from forecast.report.plots import write_plots
from forecast.report.table import Row, aggregate, to_markdown, write_csv


def render_report(rows: Sequence[Row], sources: Sequence[str | Path], plots: Sequence[Path]) -> str:
    """The Markdown report: provenance, the table, the figures."""
    n_runs = sum(len(r.runs) for r in rows)
    parts = [
        "# Forecast comparison\n",
        f"{n_runs} runs from {', '.join(f'`{s}`' for s in sources)}; {len(rows)} rows.\n",
        "Errors are on the scaled test data unless marked *orig* (original units). A cell reads "
        "`mean ± std` over seeds when a row has several. **Bold**: the lowest mean error of its "
        "(dataset, features, horizon) group. Rows: the attention backend for attention models, the "
        "model name for baselines; look-back = `seq_len`. `train s/epoch` is the closed-form fit time "
        "for the ridge floor and 0 for parameter-free baselines.\n",
        to_markdown(rows),
        "\n## Figures\n",
        *[f"![{p.stem}]({p.name})\n" for p in plots],
    ]
    return "\n".join(parts)


def write_report(sources: Sequence[str | Path], out: str | Path) -> list[Path]:
    """Collect every ``metrics.json`` below ``sources`` and write the report into ``out``.

    Everything is read and checked before anything is written; each file is written atomically.

    Returns:
        The written paths.

    Raises:
        ReportError: bad input (see :func:`forecast.report.collect.find_metric_files`).
    """
    rows = aggregate(load_runs(sources))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / "results.csv") as tmp:
        write_csv(rows, tmp)
    plots = write_plots(rows, out)
    with atomic_path(out / "report.md") as tmp:
        tmp.write_text(render_report(rows, sources, plots))
    return [out / "results.csv", out / "report.md", *plots]
