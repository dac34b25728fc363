"""Write a comparison report: ``results.csv``, ``report.md`` and PNG plots."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from forecast.io import atomic_path
from forecast.report.collect import load_runs
from forecast.report.failed_jobs import FAILED_JOBS, find_failed_jobs
from forecast.report.labels import read_labels, relabel
from forecast.report.lookback import render_lookback
from forecast.report.search import Search, find_searches, render_searches
from forecast.report.plots import write_plots
from forecast.report.table import Row, aggregate, to_markdown, write_csv


def render_failed(failed: Sequence[tuple[Path, dict[str, Any]]]) -> list[str]:
    """The report's list of sweep jobs that failed (none: no section)."""
    if not failed:
        return []
    lines = []
    for sweep, entry in failed:
        where = f"`{sweep}`" + (f" job {entry['job']}" if entry.get("job") is not None else "")
        overrides = " ".join(map(str, entry.get("overrides") or []))
        lines.append(f"- {where}: " + (f"`{overrides}`: " if overrides else "") + str(entry.get("error")))
    return ["\n## Jobs that failed\n",
            f"{len(failed)} sweep job(s) stopped on a user error (from each sweep's `{FAILED_JOBS}`); "
            "their cells are missing from the table.\n", "\n".join(lines) + "\n"]


def render_report(rows: Sequence[Row], sources: Sequence[str | Path], plots: Sequence[Path],
                  failed: Sequence[tuple[Path, dict[str, Any]]] = (), searches: Sequence[Search] = ()) -> str:
    """The Markdown report: provenance, the table, the look-back tables, the best trial of each search, the jobs that failed,
    the figures."""
    n_runs = sum(len(r.runs) for r in rows)
    parts = [
        "# Forecast comparison\n",
        f"{n_runs} runs from {', '.join(f'`{s}`' for s in sources)}; {len(rows)} rows.\n",
        "Errors are on the scaled test data unless marked *orig* (original units). A cell reads "
        "`mean ± std` over seeds when a row has several. **Bold**: the lowest mean error of its "
        "(dataset, features, horizon) group. Rows: the attention backend for attention models, the "
        "model name for baselines; look-back = `seq_len`. `train s/epoch` is the closed-form fit time "
        "for the ridge floor and 0 for parameter-free baselines. `best floor`: the lowest test MSE "
        "of the closed-form floors (naive, mean, seasonal naive, ridge) that forecast-train scored on the "
        "row's own test windows, with its name; empty for runs without floors.\n",
        to_markdown(rows),
        *render_lookback(rows),
        *render_searches(searches),
        *render_failed(failed),
        "\n## Figures\n",
        *[f"![{p.stem}]({p.name})\n" for p in plots],
    ]
    return "\n".join(parts)


def write_report(sources: Sequence[str | Path], out: str | Path, labels: str | Path | None = None) -> list[Path]:
    """Collect every ``metrics.json`` below ``sources`` and write the report into ``out``.

    Everything is read and checked before anything is written; each file is written atomically.
    ``labels``: a YAML file of display names for the rows (:mod:`forecast.report.labels`).

    Returns:
        The written paths.

    Raises:
        ReportError: bad input (see :func:`forecast.report.collect.find_metric_files`), a bad labels
            file, or one that gives two rows one name.
    """
    runs = load_runs(sources)
    if labels is not None:
        runs = relabel(runs, read_labels(labels), source=f"labels file {labels}")
    rows = aggregate(runs)
    failed = find_failed_jobs(sources)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    with atomic_path(out / "results.csv") as tmp:
        write_csv(rows, tmp)
    plots = write_plots(rows, out)
    with atomic_path(out / "report.md") as tmp:
        tmp.write_text(render_report(rows, sources, plots, failed, find_searches(sources)))
    return [out / "results.csv", out / "report.md", *plots]
