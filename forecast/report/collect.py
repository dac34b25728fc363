"""Find and read every ``metrics.json`` below the given sweep directories."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

METRICS_FILE = "metrics.json"
REQUIRED = ("test/mse", "test/mae", "data", "pred_len", "model")


class ReportError(Exception):
    """Bad input to the report (missing directory, no metrics, unreadable file): one clear line."""


@dataclass(frozen=True)
class Run:
    """One run's metrics, with the row key it is tabulated under.

    Attributes:
        label: the attention backend for attention models (``FullAttention``; ``Model[Backend]`` for a
            model other than Informer, ``enc/dec`` when the decoder self-attention differs), the model
            name for models without attention (``WindowMean``, ``RidgeFloor`` ...); followed by
            ``(tag)`` when the run was tagged (``tag=revin+ridge``), so variants stay apart.
        dataset: data file stem (``ETTh1``).
        features: ``M``, ``S`` or ``MS``.
        seq_len: input window length.
        pred_len: horizon.
        seed: training seed.
        metrics: the whole ``metrics.json``.
        path: where it was read from.
    """

    label: str
    dataset: str
    features: str
    seq_len: int
    pred_len: int
    seed: int
    metrics: dict[str, Any] = field(repr=False)
    path: Path

    @property
    def row_key(self) -> tuple[str, str, int, str, int]:
        """Runs sharing this key are seeds of one table row."""
        return (self.dataset, self.features, self.pred_len, self.label, self.seq_len)

    def value(self, key: str) -> float:
        """A numeric metric, NaN when absent or not a number."""
        v = self.metrics.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan


def run_label(metrics: dict[str, Any]) -> str:
    """The row label of a run (see :class:`Run`)."""
    model = str(metrics.get("model", "?"))
    enc = str(metrics.get("encoder_attention", "none"))
    dec = str(metrics.get("decoder_attention", enc))
    tag = f" ({metrics['tag']})" if metrics.get("tag") else ""
    if enc == "none":
        return model + tag
    backend = enc if dec in (enc, "none") else f"{enc}/{dec}"
    return (backend if model == "Informer" else f"{model}[{backend}]") + tag


def find_metric_files(dirs: Sequence[str | Path]) -> list[Path]:
    """Every ``metrics.json`` below ``dirs``, sorted.

    Raises:
        ReportError: a directory is missing or unreadable, or no ``metrics.json`` is found.
    """
    if not dirs:
        raise ReportError("no sweep directory given")
    found: list[Path] = []
    for d in map(Path, dirs):
        if not d.is_dir():
            raise ReportError(f"{d}: not a directory; pass sweep directories (e.g. multirun/<date>/<time>)")
        try:
            found += sorted(d.rglob(METRICS_FILE))
        except OSError as exc:
            raise ReportError(f"{d}: cannot read ({exc.strerror or exc})") from exc
    if not found:
        raise ReportError(f"no {METRICS_FILE} under {', '.join(map(str, dirs))}; did the sweep finish?")
    return found


def read_run(path: Path) -> Run:
    """Read one ``metrics.json``.

    Raises:
        ReportError: unreadable, not JSON, or missing the keys the table needs.
    """
    try:
        metrics = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: not a readable metrics file ({type(exc).__name__}: {exc})") from exc
    if not isinstance(metrics, dict):
        raise ReportError(f"{path}: not a metrics file (expected a JSON object)")
    missing = [k for k in REQUIRED if k not in metrics]
    if missing:
        raise ReportError(f"{path}: not a forecast-train metrics file (missing {', '.join(missing)})")
    return Run(label=run_label(metrics), dataset=str(metrics["data"]), features=str(metrics.get("features", "?")),
               seq_len=int(metrics.get("seq_len", 0)), pred_len=int(metrics["pred_len"]),
               seed=int(metrics.get("seed", 0)), metrics=metrics, path=path)


def load_runs(dirs: Sequence[str | Path]) -> list[Run]:
    """Read every run below ``dirs``; a seed repeated under one row key counts once (the newest file).

    Repeats happen when a sweep crosses models without attention with the attention backends.
    """
    latest: dict[tuple[Any, ...], Run] = {}
    for run in map(read_run, find_metric_files(dirs)):
        key = (*run.row_key, run.seed)
        if key not in latest or run.path.stat().st_mtime > latest[key].path.stat().st_mtime:
            latest[key] = run
    return sorted(latest.values(), key=lambda r: (*r.row_key, r.seed))


def unique(values: Iterable[Any]) -> list[Any]:
    """Distinct values in first-seen order."""
    return list(dict.fromkeys(values))
