"""Metrics of each series of a panel (a file of many series, ``data.id_col``), computed after testing.

Training's ``test/mse`` pools the windows of every series; this adds, under ``series`` in
``metrics.json``, each series' own test errors, the numbers ``forecast-predict --rolling --span test``
reports per series. With per-series scalers (``data.scaler=series``) the task's original-unit
metrics, which unscale with one pooled scaler, are replaced by ones that unscale each series with its
own.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader

from forecast.data.windows import WindowDataset

SPLITS = ("val", "test")


@torch.inference_mode()
def _predict(net: nn.Module, windows: WindowDataset, batch_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts and targets of every window, scaled. Shapes: (W, P, C_out) each, float64."""
    device = next(net.parameters(), torch.empty(0)).device
    preds, ys = [], []
    for batch in DataLoader(windows, batch_size=batch_size, shuffle=False):
        out = net(batch.x_enc.to(device), batch.x_mark_enc.to(device), batch.x_mark_dec.to(device))
        preds.append(out.float().cpu())
        ys.append(batch.y)
    return torch.cat(preds).double().numpy(), torch.cat(ys).double().numpy()


def panel_metrics(net: nn.Module, datamodule: Any) -> dict[str, Any]:
    """Per-series test metrics of a panel, and pooled original-unit metrics under per-series scalers.

    Args:
        net: the tested forecaster (its best weights), ``net(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.
        datamodule: a set-up ``ForecastDataModule`` with ``id_col`` (its ``slices`` and ``ConcatWindows``).

    Returns:
        ``{"series": {id: {windows, mse, mae, mse_orig, mae_orig}}}`` (test windows), plus
        ``val/mae_orig``, ``val/rmse_orig``, ``test/mae_orig``, ``test/rmse_orig`` when each series
        has its own scaler; ``{}`` for a file of one series.
    """
    spec = datamodule.spec
    if spec.id_col is None:
        return {}
    was_training = net.training
    net.eval()
    out: dict[str, Any] = {}
    per_series: dict[str, dict[str, float]] = {}
    for split in SPLITS:
        sq, ab, n = 0.0, 0.0, 0
        for rows, windows in zip(datamodule.slices, datamodule.datasets[split].parts):
            pred, y = _predict(net, windows, datamodule.eval_batch_size)  # (W, P, C_out) each
            unscale = lambda v: spec.unscale_targets(torch.from_numpy(v), rows.series_id).numpy()  # noqa: E731
            err, err_orig = pred - y, unscale(pred) - unscale(y)
            sq, ab, n = sq + float(np.sum(err_orig ** 2)), ab + float(np.sum(np.abs(err_orig))), n + err_orig.size
            if split == "test":
                per_series[str(rows.series_id)] = {
                    "windows": len(windows), "mse": float(np.mean(err ** 2)), "mae": float(np.mean(np.abs(err))),
                    "mse_orig": float(np.mean(err_orig ** 2)), "mae_orig": float(np.mean(np.abs(err_orig)))}
        if spec.scaler == "series":
            out[f"{split}/mae_orig"], out[f"{split}/rmse_orig"] = ab / n, math.sqrt(sq / n)
    net.train(was_training)
    out["series"] = per_series
    return out
