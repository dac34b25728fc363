"""Rolling-origin backtest: forecast from every (k-th) origin where actuals exist, score it against naive
baselines and the run's ridge floor (when the checkpoint stores it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import torch
from torch.utils.data import DataLoader

from forecast.baselines.mean import WindowMean
from forecast.baselines.naive import Naive
from forecast.data.errors import DataError
from forecast.data.reader import Series
from forecast.data.splits import RowRange
from forecast.data.time_features import n_continuous_features
from forecast.predict.forecaster import Forecaster

METHODS = ("model", "naive_last", "naive_mean", "ridge_floor")


@dataclass(frozen=True)
class Backtest:
    """Forecasts of every window, scaled, with the actuals, the naive baselines and the ridge floor.

    Attributes:
        origins: row of the last input step of each window, (W,).
        pred: model forecasts, (W, P, C_out), scaled.
        actual: actual targets, (W, P, C_out), scaled.
        naive_last: last input value repeated, (W, P, C_out), scaled.
        naive_mean: input window mean repeated, (W, P, C_out), scaled.
        ridge_floor: the run's ridge floor, (W, P, C_out), scaled; None when the checkpoint has none.
    """

    origins: np.ndarray
    pred: np.ndarray
    actual: np.ndarray
    naive_last: np.ndarray
    naive_mean: np.ndarray
    ridge_floor: np.ndarray | None = None

    def methods(self) -> list[str]:
        """The forecasts held: ``METHODS`` less the ridge floor when there is none."""
        return [m for m in METHODS if m != "ridge_floor" or self.ridge_floor is not None]


def run_backtest(forecaster: Forecaster, series: Series, rows: RowRange, *, every: int = 1,
                 batch_size: int = 256) -> Backtest:
    """Forecast every ``every``-th window inside ``rows`` in batches.

    Raises:
        DataError: the span holds no complete window.
    """
    spec = forecaster.spec
    dataset = forecaster.windows(series, start=rows.start, end=rows.end, stride=every)
    if len(dataset) == 0:
        raise DataError(f"the backtest span (rows {rows.start}..{rows.end - 1}) is too short for one window of "
                        f"seq_len {spec.seq_len} + pred_len {spec.pred_len}; widen --start/--end")
    if batch_size < 1:
        raise DataError(f"--batch-size must be >= 1, got {batch_size}")
    dims = {"enc_in": len(spec.input_columns), "c_out": len(spec.target_columns),
            "n_time_features": n_continuous_features(spec.freq), "seq_len": spec.seq_len,
            "label_len": spec.label_len, "pred_len": spec.pred_len, "target_index": spec.target_index}
    naive, window_mean, ridge = Naive(**dims), WindowMean(**dims), forecaster.ridge_floor
    preds, actuals, last, mean, floor = [], [], [], [], []
    with torch.no_grad():
        for batch in DataLoader(dataset, batch_size=batch_size, shuffle=False):
            preds.append(forecaster.predict(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec))
            actuals.append(batch.y)
            last.append(naive(batch.x_enc))  # (B, P, C_out)
            mean.append(window_mean(batch.x_enc))  # (B, P, C_out)
            if ridge is not None:
                floor.append(ridge(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec))  # (B, P, C_out)
    origins = np.array([dataset.origin(i) + spec.seq_len - 1 for i in range(len(dataset))])
    cat = lambda parts: torch.cat(parts).numpy()  # noqa: E731
    return Backtest(origins=origins, pred=cat(preds), actual=cat(actuals), naive_last=cat(last),
                    naive_mean=cat(mean), ridge_floor=cat(floor) if ridge is not None else None)


def _unscale(forecaster: Forecaster, values: np.ndarray) -> np.ndarray:
    return forecaster.spec.unscale_targets(torch.from_numpy(values).double()).numpy()


def score(forecaster: Forecaster, bt: Backtest) -> dict[str, dict[str, Any]]:
    """MSE/MAE per horizon step and overall, scaled (as training reports) and in original units.

    Returns:
        ``{method: {mse, mae, mse_orig, mae_orig, mse_per_step, mae_per_step, mse_orig_per_step,
        mae_orig_per_step}}`` for ``model``, ``naive_last``, ``naive_mean`` and ``ridge_floor`` (when
        the backtest has it), in that order.
    """
    actual = bt.actual.astype(np.float64)
    actual_orig = _unscale(forecaster, bt.actual)
    out: dict[str, dict[str, Any]] = {}
    for method in bt.methods():
        values = getattr(bt, "pred" if method == "model" else method).astype(np.float64)
        metrics: dict[str, Any] = {}
        for suffix, err in (("", values - actual), ("_orig", _unscale(forecaster, values) - actual_orig)):
            metrics[f"mse{suffix}"] = float(np.mean(err ** 2))
            metrics[f"mae{suffix}"] = float(np.mean(np.abs(err)))
            metrics[f"mse{suffix}_per_step"] = [float(v) for v in np.mean(err ** 2, axis=(0, 2))]
            metrics[f"mae{suffix}_per_step"] = [float(v) for v in np.mean(np.abs(err), axis=(0, 2))]
        out[method] = metrics
    return out


def long_frame(forecaster: Forecaster, series: Series, bt: Backtest) -> pd.DataFrame:
    """One row per (origin, step, column): origin, timestamp, column, prediction, actual (original units)."""
    spec = forecaster.spec
    n_win, n_step, n_col = bt.pred.shape
    index = series.index
    steps = bt.origins[:, None] + 1 + np.arange(n_step)[None, :]  # (W, P) rows of the forecast steps
    return pd.DataFrame({
        "origin": np.repeat(index[bt.origins].to_numpy(), n_step * n_col),
        "timestamp": np.repeat(index[steps.reshape(-1)].to_numpy(), n_col),
        "column": np.tile(np.asarray(spec.target_columns, dtype=object), n_win * n_step),
        "prediction": _unscale(forecaster, bt.pred).reshape(-1),
        "actual": series.frame[list(spec.target_columns)].to_numpy()[steps.reshape(-1)].reshape(-1),  # exact input
    })


def format_table(metrics: dict[str, dict[str, Any]]) -> str:
    """Per-step and overall MSE/MAE of the model and the baselines (scaled), then original units; one
    column pair per method of ``metrics``, in its order."""
    methods = list(metrics)
    head = f"{'step':>5} " + " ".join(f"{m + ' mse':>16} {m + ' mae':>16}" for m in methods)
    lines = [head]
    n_steps = len(metrics["model"]["mse_per_step"])
    for k in range(n_steps):
        cells = " ".join(f"{metrics[m]['mse_per_step'][k]:>16.4f} {metrics[m]['mae_per_step'][k]:>16.4f}"
                         for m in methods)
        lines.append(f"{k + 1:>5} {cells}")
    for label, suffix in (("all", ""), ("orig", "_orig")):
        cells = " ".join(f"{metrics[m]['mse' + suffix]:>16.4f} {metrics[m]['mae' + suffix]:>16.4f}" for m in methods)
        lines.append(f"{label:>5} {cells}")
    return "\n".join(lines)
