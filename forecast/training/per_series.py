"""Metrics of each series of a panel (a file of many series, ``data.id_col``), computed after testing.

Training's ``test/mse`` pools the windows of every series; this adds, under ``series`` in
``metrics.json``, each series' own test errors, the numbers ``forecast-predict --rolling --span test``
reports per series. With per-series scalers (``data.scaler=series``) the task's original-unit
metrics, which unscale with one pooled scaler, are replaced by ones that unscale each series with its
own.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import torch
from torch import nn

from forecast.core.parameters import module_device

SPLITS = ("val", "test")


@torch.inference_mode()
def _predict(net: nn.Module, loader: Any) -> tuple[np.ndarray, np.ndarray]:
    """Forecasts and targets of every window a loader yields, scaled. Shapes: (W, P, C_out) each, float64."""
    device = module_device(net)
    preds, ys = [], []
    for batch in loader:
        out = net(batch.x_enc.to(device), batch.x_mark_enc.to(device), batch.x_mark_dec.to(device))
        preds.append(out.float().cpu())
        ys.append(batch.y)
    return torch.cat(preds).double().numpy(), torch.cat(ys).double().numpy()


def panel_metrics(net: nn.Module, datamodule: Any, errors: Mapping[str, np.ndarray] | None = None) -> dict[str, Any]:
    """Per-series test metrics of a panel, and pooled original-unit metrics under per-series scalers.

    Scores the windows the task's final validation and test score (``datamodule.datasets``), in large
    batches over every series at once, then splits the errors by series.

    Args:
        net: the tested forecaster (its best weights), ``net(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.
        datamodule: a set-up ``ForecastDataModule`` with ``id_col``.
        errors: the errors (forecast - target, scaled) of those windows in their order, ``{split: (W, P,
            C_out)}``, where the final evaluation kept them; a split not given is predicted again.

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
    stats = [spec.stats(sl.series_id) for sl in datamodule.slices]
    scales = np.array([np.asarray(d)[spec.target_index] for _, d in stats])  # (S, C_out)
    for split in SPLITS:
        index = datamodule.datasets[split]
        if errors is not None and split in errors:
            err = errors[split].astype(np.float64)  # (W, P, C_out)
        else:
            pred, y = _predict(net, datamodule.ordered_dataloader(split))  # (W, P, C_out) each
            err = pred - y  # (W, P, C_out)
        series = index.series_of(np.arange(len(index)))  # (W,)
        err_orig = err * scales[series][:, None, :]  # unscaling shifts both by the same mean
        if split == "test":
            counts = np.bincount(series, minlength=index.n_series)  # (S,)
            size = err[0].size if len(err) else 1
            sums = {name: np.bincount(series, weights=v.reshape(len(v), -1).sum(axis=1), minlength=index.n_series)
                    for name, v in (("mse", err ** 2), ("mae", np.abs(err)), ("mse_orig", err_orig ** 2),
                                    ("mae_orig", np.abs(err_orig)))}  # (S,) each
            for s, sl in enumerate(datamodule.slices):
                if counts[s]:
                    per_series[str(sl.series_id)] = {"windows": int(counts[s]), **{
                        name: float(total[s] / (counts[s] * size)) for name, total in sums.items()}}
        if spec.scaler == "series":
            n = max(1, err_orig.size)
            out[f"{split}/mae_orig"] = float(np.sum(np.abs(err_orig)) / n)
            out[f"{split}/rmse_orig"] = math.sqrt(float(np.sum(err_orig ** 2)) / n)
    net.train(was_training)
    out["series"] = per_series
    return out
