"""Forecast-vs-truth plots of a model's test windows (PNG)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.utils.data import default_collate  # noqa: E402

from forecast.core.parameters import module_device  # noqa: E402
from forecast.data.spec import DataSpec  # noqa: E402
from forecast.data.windows import WindowDataset  # noqa: E402
from forecast.io import atomic_path  # noqa: E402
from forecast.training.conformal import half_widths, label  # noqa: E402


@torch.inference_mode()
def plot_test_windows(model: nn.Module, dataset: WindowDataset, spec: DataSpec, index, target: Path, *,
                      n_windows: int = 4, history: int = 96, calibration: dict | None = None,
                      level: float = 0.8) -> Path:
    """Plot ``n_windows`` evenly spaced windows: input tail, truth and forecast of the target column.

    Args:
        model: forecaster (put in eval mode here).
        dataset: the test windows.
        spec: data spec (for units and column names).
        index: the series' DatetimeIndex.
        target: PNG path.
        n_windows: panels.
        history: input steps shown before the forecast.
        calibration: the run's conformal calibration (``forecast.training.conformal``); when given, the
            ``level`` interval is shaded around the forecast.
        level: the interval shaded.
    """
    model.eval()
    picks = np.linspace(0, len(dataset) - 1, num=min(n_windows, len(dataset))).round().astype(int)
    batch = default_collate([dataset[int(i)] for i in picks])
    device = module_device(model)
    pred = model(batch.x_enc.to(device), batch.x_mark_enc.to(device), batch.x_mark_dec.to(device)).cpu()
    col = spec.target_columns[-1]
    t_out = spec.target_columns.index(col)
    t_in = spec.input_columns.index(col)
    mean, scale = spec.mean[t_in], spec.scale[t_in]
    half = None if calibration is None else half_widths(calibration, [level], source="")[level][:, t_out]  # (P,)
    fig, axes = plt.subplots(len(picks), 1, figsize=(10, 2.6 * len(picks)), squeeze=False)
    for ax, i, k in zip(axes[:, 0], picks, range(len(picks))):
        origin = dataset.origin(int(i))
        h = min(history, dataset.seq_len)
        t_hist = index[origin + dataset.seq_len - h: origin + dataset.seq_len]
        t_fut = index[origin + dataset.seq_len: origin + dataset.seq_len + dataset.pred_len]
        ax.plot(t_hist, batch.x_enc[k, -h:, t_in].numpy() * scale + mean, color="0.4", label="input")
        ax.plot(t_fut, batch.y[k, :, t_out].numpy() * scale + mean, color="k", label="truth")
        ax.plot(t_fut, pred[k, :, t_out].numpy() * scale + mean, color="tab:red", label="forecast")
        if half is not None:
            centre = pred[k, :, t_out].numpy() * scale + mean
            ax.fill_between(t_fut, centre - half * scale, centre + half * scale, color="tab:red", alpha=0.2,
                            linewidth=0, label=f"{label(level)}% interval")
        ax.set_ylabel(col)
        ax.grid(alpha=0.3)
    axes[0, 0].legend(loc="upper left", ncol=4)
    axes[0, 0].set_title(f"test windows: forecast vs truth ({col}, original units)")
    fig.tight_layout()
    with atomic_path(target) as tmp:
        fig.savefig(tmp, format="png", dpi=110)
    plt.close(fig)
    return target
