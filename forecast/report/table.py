"""Aggregate runs into table rows (mean and std over seeds) and render them as Markdown and CSV."""

from __future__ import annotations

import csv
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from forecast.report.collect import Run

# (metrics.json key, column title, decimals, lower is better and gets the bold mark)
COLUMNS: tuple[tuple[str, str, int, bool], ...] = (
    ("test/mse", "test MSE", 3, True),
    ("test/mae", "test MAE", 3, True),
    ("test/mae_orig", "MAE orig", 3, True),
    ("train_seconds_per_epoch", "train s/epoch", 1, False),
    ("inference_ms_per_batch", "infer ms/batch", 1, False),
    ("peak_memory_mb", "peak MB", 0, False),
    ("n_params", "params", 0, False),
)

# The best floor's column (its test MSE and name) follows the error columns.
FLOOR_AFTER, FLOOR_TITLE = "test/mae_orig", "best floor (test MSE)"
#: the floors of every run's metrics.json, in the order the look-back tables list them
FLOORS = ("ridge", "seasonal_naive", "naive", "mean")


@dataclass(frozen=True)
class Stat:
    """Mean and sample standard deviation (NaN for one value) of a metric over seeds."""

    mean: float
    std: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "Stat":
        vals = [v for v in values if not math.isnan(v)]
        if not vals:
            return cls(math.nan, math.nan)
        return cls(statistics.fmean(vals), statistics.stdev(vals) if len(vals) > 1 else math.nan)

    def format(self, decimals: int) -> str:
        if math.isnan(self.mean):
            return "–"
        text = f"{self.mean:,.{decimals}f}" if decimals == 0 else f"{self.mean:.{decimals}f}"
        return text if math.isnan(self.std) else f"{text} ± {self.std:.{decimals}f}"


@dataclass(frozen=True)
class Row:
    """One table row: a label on a dataset/horizon/look-back, over ``len(runs)`` seeds.

    ``floors``: each floor's test MSE (mean over the runs that scored it), by name. A row read back
    from ``results.csv`` (:func:`read_csv`) has no ``runs``; its seeds are ``csv_seeds``.
    """

    dataset: str
    features: str
    pred_len: int
    label: str
    seq_len: int
    runs: tuple[Run, ...]
    stats: dict[str, Stat]
    floors: dict[str, float] = field(default_factory=dict)
    csv_seeds: tuple[int, ...] = ()

    @property
    def group(self) -> tuple[str, str, int]:
        """Rows compared with each other (the bold mark is per group)."""
        return (self.dataset, self.features, self.pred_len)

    @property
    def seeds(self) -> list[int]:
        return [r.seed for r in self.runs] if self.runs else list(self.csv_seeds)

    def best_floor(self) -> tuple[str, Stat] | None:
        """The best floor of the row's runs (:meth:`Run.best_floor`): its name (``a/b`` when seeds
        disagree) and its test MSE over the runs that have floors; None when none has."""
        found = [f for f in (r.best_floor() for r in self.runs) if f is not None]
        if not found:
            return None
        return "/".join(dict.fromkeys(name for name, _ in found)), Stat.of([mse for _, mse in found])

    def floor_cell(self, decimals: int = 3) -> str:
        """``0.310 (ridge)``; empty without floors."""
        best = self.best_floor()
        return "" if best is None else f"{best[1].format(decimals)} ({best[0]})"

    def per_step(self) -> list[float]:
        """Test MSE per horizon step, averaged over seeds (empty when no run recorded it)."""
        steps = [r.metrics.get("test/mse_per_step") or [] for r in self.runs]
        steps = [s for s in steps if len(s) == self.pred_len]
        return [statistics.fmean(col) for col in zip(*steps)] if steps else []


def aggregate(runs: Sequence[Run]) -> list[Row]:
    """Group runs by row key; rows sorted by dataset, features, horizon, then mean test MSE."""
    groups: dict[tuple, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.row_key, []).append(run)
    rows = [Row(dataset=k[0], features=k[1], pred_len=k[2], label=k[3], seq_len=k[4], runs=tuple(g),
                stats={key: Stat.of([r.value(key) for r in g]) for key, *_ in COLUMNS},
                floors={name: mse for name in FLOORS for mse in [_floor_mean(g, name)] if not math.isnan(mse)})
            for k, g in groups.items()]
    return sorted(rows, key=lambda r: (*r.group, _nan_last(r.stats["test/mse"].mean), r.label, r.seq_len))


def _floor_mean(runs: Sequence[Run], name: str) -> float:
    """Mean test MSE of floor ``name`` over ``runs`` (NaN when none scored it)."""
    values = [float(m["test/mse"]) for r in runs
              for m in [(r.metrics.get("floors") or {}).get(name)] if isinstance(m, dict) and "test/mse" in m]
    return sum(values) / len(values) if values else math.nan


def _nan_last(value: float) -> float:
    return math.inf if math.isnan(value) else value


def best_cells(rows: Sequence[Row]) -> set[tuple[int, str]]:
    """(row index, metric key) of the lowest mean per group of every lower-is-better column (ties all win)."""
    marked: set[tuple[int, str]] = set()
    for key, _, decimals, lower in COLUMNS:
        if not lower:
            continue
        best: dict[tuple, float] = {}
        for row in rows:
            m = row.stats[key].mean
            if not math.isnan(m):
                best[row.group] = min(best.get(row.group, math.inf), round(m, decimals))
        marked |= {(i, key) for i, row in enumerate(rows)
                   if not math.isnan(row.stats[key].mean) and round(row.stats[key].mean, decimals) == best[row.group]}
    return marked


def to_markdown(rows: Sequence[Row]) -> str:
    """One Markdown table: rows label x dataset x horizon, best error per (dataset, horizon) in bold,
    the run's best floor (test MSE and name) after the errors."""
    head = ["dataset", "features", "horizon", "model / backend", "look-back", "seeds"]
    for key, title, _, _ in COLUMNS:
        head += [title] + ([FLOOR_TITLE] if key == FLOOR_AFTER else [])
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * 6 + "---:|" * (len(COLUMNS) + 1)]
    bold = best_cells(rows)
    for i, row in enumerate(rows):
        cells = [row.dataset, row.features, str(row.pred_len), row.label, str(row.seq_len), str(len(row.runs))]
        for key, _, decimals, _ in COLUMNS:
            text = row.stats[key].format(decimals)
            cells.append(f"**{text}**" if (i, key) in bold else text)
            if key == FLOOR_AFTER:
                cells.append(row.floor_cell(decimals=3))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def write_csv(rows: Sequence[Row], target: Path) -> None:
    """One line per row: keys, seeds, and mean/std of every column (std empty for one seed)."""
    fields = ["dataset", "features", "pred_len", "label", "seq_len", "n_seeds", "seeds"]
    for key, *_ in COLUMNS:
        fields += [f"{key}_mean", f"{key}_std"]
    fields += ["best_floor", "best_floor_test/mse"] + [f"floor_{name}_test/mse" for name in FLOORS]
    with target.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(fields)
        for row in rows:
            line: list[object] = [row.dataset, row.features, row.pred_len, row.label, row.seq_len, len(row.runs),
                                  " ".join(map(str, row.seeds))]
            for key, *_ in COLUMNS:
                s = row.stats[key]
                line += ["" if math.isnan(s.mean) else repr(s.mean), "" if math.isnan(s.std) else repr(s.std)]
            floor = row.best_floor()
            line += ["", ""] if floor is None else [floor[0], repr(floor[1].mean)]
            line += [repr(row.floors[name]) if name in row.floors else "" for name in FLOORS]
            writer.writerow(line)


def read_csv(source: Path) -> list[Row]:
    """The rows of a ``results.csv`` written by :func:`write_csv`, without their runs: enough for the
    look-back tables (:func:`forecast.report.lookback.render_lookback`) of a study whose run
    directories are not at hand.

    Raises:
        ValueError: a column :func:`write_csv` writes is missing, or a number does not parse (naming the line).
    """
    def number(text: str) -> float:
        return math.nan if text == "" else float(text)

    with Path(source).open(newline="") as fh:
        reader = csv.DictReader(fh)
        needed = ["dataset", "features", "pred_len", "label", "seq_len", "seeds"] + [
            f"{key}_{part}" for key, *_ in COLUMNS for part in ("mean", "std")]
        missing = [name for name in needed if name not in (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{source}: no column {', '.join(missing)}; write it with forecast-compare")
        rows = []
        for line_no, line in enumerate(reader, start=2):
            try:
                rows.append(Row(
                    dataset=line["dataset"], features=line["features"], pred_len=int(line["pred_len"]),
                    label=line["label"], seq_len=int(line["seq_len"]), runs=(),
                    stats={key: Stat(number(line[f"{key}_mean"]), number(line[f"{key}_std"]))
                           for key, *_ in COLUMNS},
                    floors={name: float(line[f"floor_{name}_test/mse"]) for name in FLOORS
                            if line.get(f"floor_{name}_test/mse")},
                    csv_seeds=tuple(int(s) for s in line["seeds"].split())))
            except ValueError as err:
                raise ValueError(f"{source}: line {line_no}: {err}") from None
    return rows
