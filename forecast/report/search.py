"""The hyper-parameter searches among the report's sources: each sweep's best trial (Optuna sweeper)."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from omegaconf import OmegaConf

RESULTS_FILE = "optimization_results.yaml"  # written by Hydra's Optuna sweeper in the sweep dir


@dataclass(frozen=True)
class Search:
    """One search: where it ran, its best parameters and value, and the trial's run dir (None if not found)."""

    sweep: Path
    best_params: dict[str, Any]
    best_value: float
    best_run: Path | None


def find_searches(sources: Sequence[str | Path], metric: str = "val/mse") -> list[Search]:
    """Every ``optimization_results.yaml`` below ``sources``, with the trial whose ``metric`` is the best value."""
    found = []
    for source in map(Path, sources):
        for path in sorted(source.rglob(RESULTS_FILE)):
            results = OmegaConf.to_container(OmegaConf.load(path))
            value = float(results["best_value"])
            best = None
            for metrics_file in sorted(path.parent.rglob("metrics.json")):
                trial = json.loads(metrics_file.read_text())
                if math.isclose(float(trial.get(metric, math.nan)), value, rel_tol=1e-9):
                    best = metrics_file.parent
                    break
            found.append(Search(sweep=path.parent, best_params=dict(results["best_params"]), best_value=value,
                                best_run=best))
    return found


def render_searches(searches: Sequence[Search], metric: str = "val/mse") -> list[str]:
    """The report's section on the searches (none: no section)."""
    if not searches:
        return []
    lines = []
    for s in searches:
        params = ", ".join(f"`{k}={v:.4g}`" if isinstance(v, float) else f"`{k}={v}`" for k, v in s.best_params.items())
        where = f"trial `{s.best_run}`" if s.best_run is not None else "its trial's run dir was not found"
        lines.append(f"- `{s.sweep}`: best {metric} **{s.best_value:.4f}**, {where}: {params}")
    return ["\n## Hyper-parameter search\n",
            f"The best trial of each search (the sweeper's `{RESULTS_FILE}`); every trial is a row of the table.\n",
            "\n".join(lines) + "\n"]
