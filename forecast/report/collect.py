"""Find and read every ``metrics.json`` below the given sweep directories."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Sequence

from omegaconf import OmegaConf

METRICS_FILE = "metrics.json"
CONFIG_FILE = "config.yaml"
REQUIRED = ("test/mse", "test/mae", "data", "pred_len", "model")
# The settings that make two runs of one label different variants (the resolved config.yaml beside
# metrics.json): the model, data and task nodes and the recipe keys, less what the row key already
# holds (file, features, windows), what only places or seeds the run, and the attention roles wherever
# a model places them (the label names the backends).
SETTING_NODES = ("model", "data", "task", "keep_start", "trainer.max_epochs",
                 "callbacks.early_stopping.patience")
ATTENTION_ROLES = ("encoder_attention", "decoder_attention", "cross_attention")
NOT_SETTINGS = ("data.path", "data.features", "data.seq_len", "data.pred_len", "data.seed", "data.num_workers",
                "data.eval_batch_size")


class ReportError(Exception):
    """Bad input to the report (missing directory, no metrics, unreadable file): one clear line."""


@dataclass(frozen=True)
class Run:
    """One run's metrics, with the row key it is tabulated under.

    Attributes:
        label: the attention backend for attention models (``FullAttention``; ``Model[Backend]`` for a
            model other than Informer, ``enc/dec`` when the decoder self-attention differs), the model
            name for models without attention (``WindowMean``, ``RidgeFloor`` ...); followed by
            ``(tag)`` when the run was tagged (``tag=revin+ridge``), so variants stay apart; then
            ``[key=value, ...]`` for settings that tell apart untagged runs of one row (:func:`distinguish`).
        dataset: data file stem (``ETTh1``).
        features: ``M``, ``S`` or ``MS``.
        seq_len: input window length.
        pred_len: horizon.
        seed: training seed.
        metrics: the whole ``metrics.json``.
        path: where it was read from.
        settings: the run's settings (``SETTING_NODES`` of its ``config.yaml``, flattened to dotted
            keys); empty when the run directory has no ``config.yaml``.
    """

    label: str
    dataset: str
    features: str
    seq_len: int
    pred_len: int
    seed: int
    metrics: dict[str, Any] = field(repr=False)
    path: Path
    settings: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def row_key(self) -> tuple[str, str, int, str, int]:
        """Runs sharing this key are seeds of one table row."""
        return (self.dataset, self.features, self.pred_len, self.label, self.seq_len)

    def best_floor(self) -> tuple[str, float] | None:
        """The floor with the lowest test MSE among the run's ``floors`` and that MSE; None for a run
        without floors."""
        floors = self.metrics.get("floors")
        scores = {str(name): float(m["test/mse"]) for name, m in floors.items()
                  if isinstance(m, dict) and isinstance(m.get("test/mse"), (int, float))} \
            if isinstance(floors, dict) else {}
        if not scores:
            return None
        name = min(scores, key=lambda n: scores[n])
        return name, scores[name]

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
               seed=int(metrics.get("seed", 0)), metrics=metrics, path=path, settings=read_settings(path.parent))


def read_settings(run_dir: Path) -> dict[str, Any]:
    """``SETTING_NODES`` of ``run_dir/config.yaml`` as ``{dotted key: value}``; empty without one.

    Raises:
        ReportError: the file exists but is not YAML.
    """
    path = run_dir / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        cfg = OmegaConf.load(path)
    except Exception as exc:  # noqa: BLE001 - any parse failure is the same bad input
        raise ReportError(f"{path}: not a readable run config ({type(exc).__name__})") from exc
    flat: dict[str, Any] = {}

    def walk(prefix: str, node: Any) -> None:
        if prefix in NOT_SETTINGS or prefix.rsplit(".", 1)[-1] in ATTENTION_ROLES:
            return
        if isinstance(node, dict):
            for key, value in node.items():
                walk(f"{prefix}.{key}", value)
        else:
            flat[prefix] = node

    for name in SETTING_NODES:
        node = OmegaConf.select(cfg, name, default=None)
        if node is not None:
            walk(name, OmegaConf.to_container(node, resolve=False) if OmegaConf.is_config(node) else node)
    return flat


def _text(value: Any) -> str:
    """A setting as the override that sets it would read: ``null``, ``true``, ``day``, ``[3, 2, 1]``."""
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def distinguish(runs: Sequence[Run]) -> list[Run]:
    """Append the settings that tell apart runs of one label and one row to their labels, so variants
    swept without a ``tag`` (``model.cycle=null,day``) get rows of their own: ``RidgeFloor [cycle=day]``.

    Keys under ``model.`` are shown without that prefix; runs without a ``config.yaml`` keep their label.
    """
    labels = [run.label for run in runs]
    by_label: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        if run.settings:
            by_label.setdefault(run.label, []).append(i)
    for members in by_label.values():
        rows: dict[tuple[Any, ...], list[Run]] = {}
        for i in members:
            rows.setdefault(runs[i].row_key, []).append(runs[i])
        # a key that only changes from row to row (each paper row's label_len) is not a variant
        keys = sorted({k for i in members for k in runs[i].settings})
        differ = [k for k in keys
                  if any(len({_text(r.settings.get(k)) for r in row}) > 1 for row in rows.values())]
        if not differ:
            continue
        for i in members:
            shown = ", ".join(f"{k.removeprefix('model.')}={_text(runs[i].settings.get(k))}" for k in differ)
            labels[i] += f" [{shown}]"
    return [r if label == r.label else dataclasses.replace(r, label=label) for r, label in zip(runs, labels)]


def load_runs(dirs: Sequence[str | Path]) -> list[Run]:
    """Read every run below ``dirs``; a seed repeated under one row key counts once (the newest file).

    Repeats happen when a sweep crosses models without attention with the attention backends. Runs of
    one label whose settings differ are variants, not repeats: :func:`distinguish` labels them apart.
    """
    latest: dict[tuple[Any, ...], Run] = {}
    for run in distinguish([read_run(p) for p in find_metric_files(dirs)]):
        key = (*run.row_key, run.seed)
        if key not in latest or run.path.stat().st_mtime > latest[key].path.stat().st_mtime:
            latest[key] = run
    return sorted(latest.values(), key=lambda r: (*r.row_key, r.seed))


def unique(values: Iterable[Any]) -> list[Any]:
    """Distinct values in first-seen order."""
    return list(dict.fromkeys(values))
