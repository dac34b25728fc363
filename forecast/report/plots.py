"""Report figures, one panel per (dataset, horizon): test MSE against cost, test MSE by horizon step, and,
where a sweep crosses look-backs, test MSE, train time and peak memory against the look-back."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Sequence

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from forecast.io import atomic_path  # noqa: E402
from forecast.report.collect import unique  # noqa: E402
from forecast.report.lookback import floor_by_length  # noqa: E402
from forecast.report.table import Row  # noqa: E402

PLOTS = {"mse_vs_train_time.png": ("train_seconds_per_epoch", "train s / epoch"),
         "mse_vs_peak_memory.png": ("peak_memory_mb", "peak memory (MB)")}
STEP_PLOT = "error_by_horizon_step.png"
LOOKBACK_PLOTS = {"mse_vs_lookback.png": ("test/mse", "test MSE (scaled)"),
                  "train_time_vs_lookback.png": ("train_seconds_per_epoch", "train s / epoch"),
                  "memory_vs_lookback.png": ("peak_memory_mb", "peak memory (MB)")}
#: floor lines of the look-back plots: (name in metrics.json ``floors``, line style)
FLOOR_LINES = (("ridge", "--"), ("seasonal_naive", ":"), ("naive", "-."))


def series(row: Row) -> str:
    """The name a row's point or line carries; the same series in every panel."""
    return f"{row.label} ({row.seq_len})"


def series_colours(rows: Sequence[Row]) -> dict[str, tuple[float, ...]]:
    """One colour per series for all panels (first seen, first colour), so a model reads alike everywhere.

    ``tab10`` up to ten series, ``tab20`` beyond (wrapping after twenty).
    """
    names = unique(series(r) for r in rows)
    cmap = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
    return {name: cmap(i % cmap.N) for i, name in enumerate(names)}


def _panels(rows: Sequence[Row]) -> tuple[plt.Figure, dict[tuple, plt.Axes]]:
    groups = unique(r.group for r in rows)
    ncols = min(len(groups), 3)
    nrows = math.ceil(len(groups) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(5.5 * ncols, 4.2 * nrows), squeeze=False)
    for ax in axes.flat[len(groups):]:
        ax.set_visible(False)
    panels = dict(zip(groups, axes.flat))
    for (dataset, features, horizon), ax in panels.items():
        ax.set_title(f"{dataset} {features}, horizon {horizon}")
        ax.grid(alpha=0.3)
    return fig, panels


def _save(fig: plt.Figure, target: Path) -> None:
    fig.tight_layout()
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format="png", dpi=110, bbox_inches="tight")  # legends placed beside a panel
    plt.close(fig)


def plot_cost(rows: Sequence[Row], key: str, xlabel: str, target: Path) -> None:
    """Scatter of mean test MSE against a cost metric, points named by row label (and look-back)."""
    fig, panels = _panels(rows)
    colours = series_colours(rows)
    for row in rows:
        x, y = row.stats[key].mean, row.stats["test/mse"].mean
        if math.isnan(x) or math.isnan(y):
            continue
        ax = panels[row.group]
        ax.scatter([x], [y], s=28, color=colours[series(row)])
        ax.annotate(series(row), (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    for ax in panels.values():
        ax.set_xscale("symlog", linthresh=0.1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("test MSE (scaled)")
    _save(fig, target)


def plot_steps(rows: Sequence[Row], target: Path) -> None:
    """Test MSE per horizon step (mean over seeds), one line per row."""
    fig, panels = _panels(rows)
    colours = series_colours(rows)
    for row in rows:
        steps = row.per_step()
        if steps:
            panels[row.group].plot(range(1, len(steps) + 1), steps, lw=1.2, label=series(row),
                                   color=colours[series(row)])
    for ax in panels.values():
        ax.set_xlabel("horizon step")
        ax.set_ylabel("test MSE (scaled)")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    _save(fig, target)


def short_label(label: str) -> str:
    """A legend name: ``Attention`` dropped from backend names, a wrapped model named by its innermost
    name (``InstanceNorm(Informer)[Full]`` -> ``Informer[Full]``), a tag first (``default: ProbSparse``)."""
    label = label.replace("Attention", "")
    m = re.fullmatch(r"(?P<model>[^\[]+)\[(?P<backend>[^\]]+)\]"
                     r"(?: \((?P<tag>[^)]+)\))?(?P<rest> \[.*\])?", label)
    if m is None:
        return label
    rest = m["rest"] or ""
    if m["tag"]:
        return f"{m['tag']}: {m['backend']}{rest}"
    inner = re.findall(r"\w+", m["model"].split(",")[-1])
    return f"{inner[-1] if inner else m['model']}[{m['backend']}]{rest}"


def plot_lookback(rows: Sequence[Row], key: str, ylabel: str, target: Path) -> None:
    """A metric against the look-back, one line per label (mean, ± std as error bars). On the MSE
    figure the floors scored on each look-back's own test windows are black lines."""
    fig, panels = _panels(rows)
    labels = unique(r.label for r in rows)
    cmap = matplotlib.colormaps["tab10" if len(labels) <= 10 else "tab20"]
    for i, label in enumerate(labels):
        for group, ax in panels.items():
            line = sorted((r for r in rows if r.label == label and r.group == group), key=lambda r: r.seq_len)
            line = [r for r in line if not math.isnan(r.stats[key].mean)]
            if line:
                ax.errorbar([r.seq_len for r in line], [r.stats[key].mean for r in line],
                            yerr=[0 if math.isnan(r.stats[key].std) else r.stats[key].std for r in line],
                            marker="o", ms=3, lw=1.1, capsize=2, color=cmap(i % cmap.N),
                            label=short_label(label))
    if key == "test/mse":
        for group, ax in panels.items():
            for name, style in FLOOR_LINES:  # as the look-back table reads them (forecast.report.lookback)
                by_len = floor_by_length([r for r in rows if r.group == group], name)
                if not all(math.isnan(y) for y in by_len.values()):
                    ax.plot(list(by_len), list(by_len.values()), style, color="black", lw=1.3,
                            label=f"{name} floor")
    for ax in panels.values():
        ax.set_xscale("log", base=2)
        ax.set_xlabel("look-back (seq_len)")
        ax.set_ylabel(ylabel)
        ax.set_yscale("log")  # a model far off the floors (an untrained one) leaves the others readable
    # one legend for all panels, right of the last one (the series are the same in every panel)
    named = {name: handle for ax in panels.values() for handle, name in zip(*ax.get_legend_handles_labels())}
    if named:
        list(panels.values())[-1].legend(named.values(), named.keys(), fontsize=7, loc="upper left",
                                         bbox_to_anchor=(1.02, 1.0))
    _save(fig, target)


def write_plots(rows: Sequence[Row], out: Path) -> list[Path]:
    """All report figures into ``out``; returns their paths. The look-back figures only for rows that
    cross at least two look-backs."""
    written = []
    if len({r.seq_len for r in rows}) > 1:
        for name, (key, ylabel) in LOOKBACK_PLOTS.items():
            plot_lookback(rows, key, ylabel, out / name)
            written.append(out / name)
    for name, (key, xlabel) in PLOTS.items():
        plot_cost(rows, key, xlabel, out / name)
        written.append(out / name)
    plot_steps(rows, out / STEP_PLOT)
    written.append(out / STEP_PLOT)
    return written
