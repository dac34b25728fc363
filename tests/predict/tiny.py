"""Tiny trained checkpoints for the predict tests: trained once per session, in-process, in seconds."""

from __future__ import annotations

import json

from pathlib import Path
from typing import Sequence

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from forecast.cli.predict import run
from forecast.runtime import CONF_DIR, PROJECT_ROOT, register_resolvers
from tests.conftest import tiny_model

ETTH1 = PROJECT_ROOT / "data" / "ETTh1.csv"
SEQ_LEN, LABEL_LEN, PRED_LEN = 24, 12, 6

_RUNS: dict[tuple, Path] = {}


def etth1_rows(rows: int) -> pd.DataFrame:
    """The first ``rows`` rows of ETTh1 (timestamp column ``date``)."""
    return pd.read_csv(ETTH1, nrows=rows)


def generated(freq: str, rows: int, *, start: str = "2020-01-06") -> pd.DataFrame:
    """A smooth two-column series at ``freq`` (``date``, ``load``, ``OT``)."""
    index = pd.date_range(start, periods=rows, freq=freq)
    t = np.arange(rows, dtype=np.float64)
    rng = np.random.default_rng(0)
    return pd.DataFrame({"date": index.strftime("%Y-%m-%d %H:%M:%S"),
                         "load": 50 + 10 * np.sin(2 * np.pi * t / 12) + rng.normal(0, 1, rows),
                         "OT": 20 + 5 * np.cos(2 * np.pi * t / 7) + 0.01 * t + rng.normal(0, 0.5, rows)})


def panel(n_series: int = 24, rows: int = 160, *, short: Sequence[int] = (), freq: str = "h") -> pd.DataFrame:
    """A long-format panel: ``store``, ``date``, ``sales``, ``temp``; series ``s00 …`` at different levels.

    The rows are ordered by date, then store (as a database exports them): the series interleave.
    Series listed in ``short`` get 30 rows only.
    """
    rng = np.random.default_rng(1)
    parts = []
    for k in range(n_series):
        n = 30 if k in short else rows
        t = np.arange(n, dtype=np.float64)
        parts.append(pd.DataFrame({
            "store": f"s{k:02d}", "date": pd.date_range("2021-03-01", periods=n, freq=freq),
            "sales": 100 * (k + 1) + 10 * (k + 1) * np.sin(2 * np.pi * (t + k) / 24) + rng.normal(0, k + 1, n),
            "temp": 15 + 5 * np.cos(2 * np.pi * t / 24) + rng.normal(0, 0.5, n)}))
    frame = pd.concat(parts).sort_values(["date", "store"], kind="stable").reset_index(drop=True)
    frame["date"] = frame["date"].dt.strftime("%Y-%m-%d %H:%M:%S")
    return frame


def train_tiny(root: Path, name: str, frame: pd.DataFrame, *, features: str = "M", target: str | None = "OT",
               extra: Sequence[str] = (), header: bool = True, sep: str = ",") -> Path:
    """Train a tiny Informer on ``frame`` (cached per ``name``; written ``sep``-separated, without its header
    row unless ``header``; ``target`` None leaves ``data.target`` unset); returns its run directory."""
    key = (name, features, target, tuple(extra))
    if key in _RUNS:
        return _RUNS[key]
    from forecast.training.pipeline import train

    run_dir = root / f"run_{name}_{features}"
    run_dir.mkdir(parents=True, exist_ok=True)
    csv = run_dir / f"{name}.csv"
    frame.to_csv(csv, index=False, header=header, sep=sep)
    register_resolvers()
    overrides = [
        "data=csv", f"data.path={csv}", f"data.target={'null' if target is None else target}",
        f"data.features={features}",
        f"data.seq_len={SEQ_LEN}", f"data.label_len={LABEL_LEN}", f"data.pred_len={PRED_LEN}",
        "data.batch_size=16", "data.eval_batch_size=64",
        *tiny_model(e_layers=1),
        "trainer=cpu", "trainer.max_epochs=1", "trainer.limit_train_batches=2", "trainer.enable_progress_bar=false",
        "trainer.enable_model_summary=false", "logger=none", "callbacks.lr_monitor=null", "plot=false",
        f"paths.output_dir={run_dir}", *extra,
    ]
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("train", overrides=overrides)
    train(cfg)
    _RUNS[key] = run_dir
    return run_dir


def predict(capsys: pytest.CaptureFixture, *argv: object) -> tuple[int, str, str]:
    """``forecast-predict`` in this process: exit status, stdout, stderr (what ran before is dropped)."""
    capsys.readouterr()
    code = run([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def ckpt_of(run_dir: Path) -> Path:
    """The checkpoint a run's ``metrics.json`` names."""
    return Path(json.loads((run_dir / "metrics.json").read_text())["checkpoint"])
