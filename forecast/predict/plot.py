"""PNG of a forecast: the history tail and the forecast of one column, in original units."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from forecast.io import atomic_path  # noqa: E402


def plot_forecast(history: pd.Series, forecast: pd.Series, target: Path, *, overwrite: bool = False,
                  band: tuple[pd.Series, pd.Series, str] | None = None) -> Path:
    """Plot ``history`` (timestamp-indexed) then ``forecast`` (timestamp-indexed) of one column.

    Args:
        band: ``(lower, upper, label)`` of a prediction interval (timestamp-indexed) to shade, e.g. ``"95"``.

    Raises:
        FileExistsError: ``target`` exists and ``overwrite`` is False.
    """
    fig, ax = plt.subplots(figsize=(10, 3.2))
    ax.plot(history.index, history.to_numpy(), color="0.35", label="history")
    joined = pd.concat([history.iloc[-1:], forecast])
    ax.plot(joined.index, joined.to_numpy(), color="tab:red", label="forecast")
    if band is not None:
        lo, hi, tag = band
        finite = np.isfinite(lo.to_numpy()) & np.isfinite(hi.to_numpy())  # an uncalibrated level is infinite
        ax.fill_between(lo.index[finite], lo.to_numpy()[finite], hi.to_numpy()[finite], color="tab:red", alpha=0.2,
                        linewidth=0, label=f"{tag}% interval")
    ax.axvline(history.index[-1], color="0.6", linestyle=":", linewidth=1)
    ax.set_ylabel(str(history.name))
    ax.set_title(f"forecast of {history.name}: {len(forecast)} steps after {history.index[-1]}")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left")
    fig.autofmt_xdate()
    fig.tight_layout()
    try:
        with atomic_path(target, overwrite=overwrite) as tmp:
            fig.savefig(tmp, format="png", dpi=110)
    finally:
        plt.close(fig)
    return target
