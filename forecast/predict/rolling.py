"""Rolling-origin backtest: forecast from every (k-th) origin where actuals exist, score it against naive
baselines and the run's ridge floor (when the checkpoint stores it).

Intervals in a backtest are the checkpoint's split-conformal half-widths tracked online as each window's
actuals become known (:func:`~forecast.training.conformal.track_half_widths`), per series, step and
column; the floors get intervals calibrated the same way from their own errors on the run's validation
span of the file, as a reference for the interval score."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd
import torch
from torch.utils.data import ConcatDataset, DataLoader

from forecast.baselines.mean import WindowMean
from forecast.baselines.naive import Naive
from forecast.data.errors import DataError
from forecast.data.reader import STEP, Panel
from forecast.data.splits import RowRange
from forecast.data.time_features import n_continuous_features
from forecast.predict.trained_model import TrainedModel
from forecast.predict.scores import ErrorSums, coverage_standard_error, interval_score
from forecast.spelling import CLI, Spelling
from forecast.training.conformal import ADAPT_RATE, FULL_RATE_STEPS, conformal_quantiles, label, track_series

METHODS = ("model", "naive_last", "naive_mean", "ridge_floor", "start_floor")
CHUNK_CELLS = 1 << 21  # forecast cells (window x step x column) scored at a time: 16 MB a float64 copy


@dataclass(frozen=True)
class Backtest:
    """Forecasts of every window, scaled, with the actuals, the naive baselines, the ridge floor and the
    model's own floor.

    Attributes:
        origins: row (of its series) of the last input step of each window, (W,).
        series: position in ``ids`` of each window's series, (W,).
        ids: the series backtested (``(None,)`` for a file of one series).
        pred: model forecasts, (W, P, C_out), scaled.
        actual: actual targets, (W, P, C_out), scaled.
        naive_last: last input value repeated, (W, P, C_out), scaled.
        naive_mean: input window mean repeated, (W, P, C_out), scaled.
        ridge_floor: the run's ridge floor, (W, P, C_out), scaled; None when the checkpoint has none.
        start_floor: the floor the model started from (``TrainedModel.start_floor``), (W, P, C_out), scaled;
            None where it is none of the others'.
    """

    origins: np.ndarray
    series: np.ndarray
    ids: tuple[str | None, ...]
    pred: np.ndarray
    actual: np.ndarray
    naive_last: np.ndarray
    naive_mean: np.ndarray
    ridge_floor: np.ndarray | None = None
    start_floor: np.ndarray | None = None

    def methods(self) -> list[str]:
        """The forecasts held: ``METHODS`` less the floors it does not hold."""
        return [m for m in METHODS if m not in ("ridge_floor", "start_floor") or getattr(self, m) is not None]

    def windows_of(self) -> list[np.ndarray]:
        """Each series' windows, positions in this backtest in order: one array for each of ``ids``, (W_k,) each."""
        order = np.argsort(self.series, kind="stable")  # (W,)
        return np.split(order, np.searchsorted(self.series[order], np.arange(1, len(self.ids))))


def run_backtest(trained: TrainedModel, panel: Panel, spans: Sequence[RowRange], *, every: int = 1,
                 batch_size: int | None = None, spelling: Spelling = CLI) -> Backtest:
    """Forecast every ``every``-th window inside each series' span (``spans[i]`` for ``panel.series[i]``), in
    batches of ``batch_size`` windows (None: ``trained.batch_windows``); ``spelling`` names ``every``,
    ``batch_size``, ``start`` and ``end`` in the messages (``--batch-size``, ``batch_size``).

    Raises:
        DataError: ``every`` or ``batch_size`` below 1, or no span holds a complete window.
    """
    spec = trained.spec
    if batch_size is not None and batch_size < 1:
        raise DataError(f"{spelling.name('batch_size')} must be >= 1, got {batch_size}")
    sets = [trained.windows(s, start=r.start, end=r.end, stride=every, spelling=spelling)
            for s, r in zip(panel.series, spans)]
    if not any(len(d) for d in sets):
        r = spans[0]
        where = f"rows {r.start}..{r.end - 1}" if len(spans) == 1 else "of every series"
        raise DataError(f"the backtest span ({where}) is too short for one window of seq_len {spec.seq_len} + "
                        f"pred_len {spec.pred_len}; widen {spelling.name('start')}/{spelling.name('end')}")
    out = _forecast_windows(trained, sets, batch_size, with_model=True)
    origins = np.array([d.origin(i) + spec.seq_len - 1 for d in sets for i in range(len(d))])
    series = np.concatenate([np.full(len(d), k) for k, d in enumerate(sets)])
    return Backtest(origins=origins, series=series, ids=tuple(panel.ids), pred=out["model"], actual=out["actual"],
                    naive_last=out["naive_last"], naive_mean=out["naive_mean"],
                    ridge_floor=out.get("ridge_floor"), start_floor=out.get("start_floor"))


def _floors(trained: TrainedModel) -> dict[str, Callable[..., torch.Tensor]]:
    """The baselines of a backtest: ``{naive_last, naive_mean[, ridge_floor][, start_floor]}``, each ``(x_enc,
    x_mark_enc, x_mark_dec) -> (B, P, C_out)`` scaled."""
    spec = trained.spec
    dims = {"enc_in": len(spec.input_columns), "c_out": len(spec.target_columns),
            "n_time_features": n_continuous_features(spec.freq), "n_future": len(spec.future_columns),
            "seq_len": spec.seq_len,
            "label_len": spec.label_len, "pred_len": spec.pred_len, "target_index": spec.target_index}
    naive, window_mean = Naive(dims=dims), WindowMean(dims=dims)
    floors = {"naive_last": lambda x, *_: naive(x), "naive_mean": lambda x, *_: window_mean(x)}
    if trained.ridge_floor is not None:
        floors["ridge_floor"] = trained.ridge_floor
    if trained.start_floor is not None:
        floors["start_floor"] = trained.start_floor[1]
    return floors


def _forecast_windows(trained: TrainedModel, sets: Sequence[Any], batch_size: int | None, *,
                      with_model: bool) -> dict[str, np.ndarray]:
    """``{actual, [model,] naive_last, naive_mean[, ridge_floor][, start_floor]}`` of every window of ``sets``
    in order, each (W, P, C_out) scaled, written batch by batch into arrays of every window; ``batch_size`` None:
    ``trained.batch_windows``."""
    batch_size = batch_size or trained.batch_windows
    out: dict[str, np.ndarray] = {}
    floors = _floors(trained)
    data = ConcatDataset(sets)
    done = 0
    with torch.inference_mode():
        for batch in DataLoader(data, batch_size=batch_size, shuffle=False):
            parts = {"actual": batch.y}
            if with_model:
                parts["model"] = trained.predict(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
            for name, floor in floors.items():
                parts[name] = floor(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
            for name, values in parts.items():  # (B, P, C_out) each
                part = values.numpy()
                if name not in out:
                    out[name] = np.empty((len(data), *part.shape[1:]), dtype=part.dtype)
                out[name][done:done + len(part)] = part
            done += len(batch.y)
    return out


def _target_stats(trained: TrainedModel, bt: Backtest) -> tuple[np.ndarray, np.ndarray]:
    """Each series' mean and scale of the target columns, (S, C_out) each (0 and 1 for a series without a
    window)."""
    spec = trained.spec
    mean = np.zeros((len(bt.ids), len(spec.target_index)))  # (S, C_out)
    scale = np.ones((len(bt.ids), len(spec.target_index)))  # (S, C_out)
    for k in np.unique(bt.series):
        m, d = spec.stats(bt.ids[k])
        mean[k], scale[k] = m[spec.target_index], d[spec.target_index]
    return mean, scale


def _in_units(values: np.ndarray, series: np.ndarray, stats: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Scaled (K, P, C_out) windows of ``series`` (K,) -> original units with their series' ``stats``."""
    mean, scale = stats
    return values.astype(np.float64) * scale[series][:, None, :] + mean[series][:, None, :]  # (K, P, C_out)


def _chunks(bt: Backtest) -> list[slice]:
    """The backtest's windows in slices of about :data:`CHUNK_CELLS` forecast cells each."""
    n_win, n_step, n_col = bt.actual.shape
    size = max(1, CHUNK_CELLS // max(n_step * n_col, 1))
    return [slice(begin, begin + size) for begin in range(0, n_win, size)]


def score(trained: TrainedModel, bt: Backtest) -> dict[str, dict[str, Any]]:
    """MSE/MAE per horizon step and overall, scaled (as training reports) and in original units, summed over
    chunks of windows (:class:`~forecast.predict.scores.ErrorSums`).

    Returns:
        ``{method: {mse, mae, mse_orig, mae_orig, mse_per_step, mae_per_step, mse_orig_per_step,
        mae_orig_per_step, mape, smape, mase}}`` (the last three in original units:
        :func:`~forecast.predict.scores.relative_errors`) for ``model``, ``naive_last``, ``naive_mean``,
        ``ridge_floor`` and ``start_floor`` (those the backtest has), in that order.
    """
    stats = _target_stats(trained, bt)
    methods = bt.methods()
    sums = {(m, unit): ErrorSums.zeros(*bt.actual.shape[1:]) for m in methods for unit in ("", "_orig")}
    for at in _chunks(bt):
        series = bt.series[at]
        actual, actual_orig = bt.actual[at].astype(np.float64), _in_units(bt.actual[at], series, stats)
        for m in methods:
            values = _forecast(bt, m)[at]  # (K, P, C_out) scaled
            sums[m, ""].add(values.astype(np.float64), actual, relative=False)
            sums[m, "_orig"].add(_in_units(values, series, stats), actual_orig)
    out: dict[str, dict[str, Any]] = {}
    for m in methods:
        metrics: dict[str, Any] = {}
        for unit in ("", "_orig"):
            one = sums[m, unit]
            metrics.update({f"mse{unit}": one.mse(), f"mae{unit}": one.mae(), f"mse{unit}_per_step": one.mse_per_step(),
                            f"mae{unit}_per_step": one.mae_per_step()})
        metrics.update(sums[m, "_orig"].relative(sums["naive_last", "_orig"]))
        out[m] = metrics
    return out


def _forecast(bt: Backtest, method: str) -> np.ndarray:
    """The forecasts of ``method`` (one of :meth:`Backtest.methods`), (W, P, C_out) scaled."""
    return bt.pred if method == "model" else getattr(bt, method)


SERIES_KEYS = ("windows", "mse", "mae", "mse_orig", "mae_orig")


def score_series(trained: TrainedModel, bt: Backtest) -> dict[str, dict[str, float]]:
    """The model's MSE/MAE of each series (scaled and in original units) with its window count.

    Returns:
        ``{series id: {windows, mse, mae, mse_orig, mae_orig}}``, the keys training writes under
        ``series`` in ``metrics.json``.
    """
    stats = _target_stats(trained, bt)
    n_series, (n_step, n_col) = len(bt.ids), bt.actual.shape[1:]
    sums = np.zeros((4, n_series))  # squared and absolute errors, scaled and in units, of each series
    for at in _chunks(bt):
        series = bt.series[at]
        scaled = bt.pred[at].astype(np.float64) - bt.actual[at]  # (K, P, C_out)
        units = _in_units(bt.pred[at], series, stats) - _in_units(bt.actual[at], series, stats)
        for row, per_window in enumerate((np.square(scaled), np.abs(scaled), np.square(units), np.abs(units))):
            sums[row] += np.bincount(series, weights=per_window.sum(axis=(1, 2)), minlength=n_series)
    windows = np.bincount(bt.series, minlength=n_series)
    return {str(name): {"windows": int(windows[k]),
                        **{key: float(sums[row, k] / (windows[k] * n_step * n_col))
                           for row, key in enumerate(SERIES_KEYS[1:])}}
            for k, name in enumerate(bt.ids) if windows[k]}


def actuals(trained: TrainedModel, panel: Panel, bt: Backtest) -> np.ndarray:
    """The input file's own values at every forecast step, original units, (W, P, C_out) (exact, not unscaled)."""
    out = np.empty(bt.pred.shape, dtype=np.float64)
    steps = bt.origins[:, None] + 1 + np.arange(bt.pred.shape[1])[None, :]  # (W, P) rows of the forecast steps
    for series, at in zip(panel.series, bt.windows_of()):
        values = series.frame[list(trained.spec.target_columns)].to_numpy(dtype=np.float64)  # (N, C_out)
        out[at] = values[steps[at]]
    return out


def bounds(trained: TrainedModel, bt: Backtest, widths: dict[float, np.ndarray], *,
           values: np.ndarray | None = None) -> dict[float, tuple[np.ndarray, np.ndarray]]:
    """``{level: (lower, upper)}``, each (W, P, C_out) in original units: the forecast (``values``, default the
    model's) -/+ the half-width, (P, C_out) or (W, P, C_out) scaled."""
    pred, stats = (bt.pred if values is None else values).astype(np.float64), _target_stats(trained, bt)
    return {a: (_in_units(pred - w, bt.series, stats), _in_units(pred + w, bt.series, stats))
            for a, w in widths.items()}


def tracked_widths(bt: Backtest, widths: dict[float, np.ndarray], *, values: np.ndarray | None = None,
                   rate: float = ADAPT_RATE) -> dict[float, np.ndarray]:
    """``{level: (W, P, C_out)}``: each split-conformal half-width ``widths[level]`` (P, C_out), scaled, tracked
    through the backtest's windows of each series (:func:`~forecast.training.conformal.track_series`)
    from the errors of ``values`` (default: the model's forecasts)."""
    errors = np.abs((bt.pred if values is None else values).astype(np.float64) - bt.actual)  # (W, P, C_out)
    windows = bt.windows_of()
    return {a: track_series(errors, bt.origins, windows, start, a, rate=rate) for a, start in widths.items()}


def floor_widths(trained: TrainedModel, panel: Panel, levels: Sequence[float], *,
                 batch_size: int | None = None) -> dict[str, dict[float, np.ndarray]]:
    """The floors' split-conformal half-widths, ``{floor: {level: (P, C_out) scaled}}``, from their errors on
    the training run's validation span of ``panel`` (every window, all series pooled), as the checkpoint's
    are from the model's; empty when the file has no complete validation window there."""
    from forecast.predict.span import resolve_spans

    spec = trained.spec
    try:
        val_panel, spans = resolve_spans(panel, trained.config, seq_len=spec.seq_len, pred_len=spec.pred_len,
                                         span="val")
    except DataError:
        return {}
    sets = [trained.windows(s, start=r.start, end=r.end) for s, r in zip(val_panel.series, spans)]
    if not any(len(d) for d in sets):
        return {}
    out = _forecast_windows(trained, sets, batch_size, with_model=False)
    actual = out.pop("actual").astype(np.float64)
    return {name: dict(zip(levels, conformal_quantiles(np.abs(values - actual), levels)))
            for name, values in out.items()}


def _interval_summary(trained: TrainedModel, bt: Backtest, actual: np.ndarray, widths: dict[float, np.ndarray],
                      values: np.ndarray | None = None) -> dict[float, dict[str, Any]]:
    """Coverage, mean width and mean interval score, overall and per step, of the intervals ``widths``
    around ``values`` (default the model's forecasts)."""
    out = {}
    for a, (lo, hi) in bounds(trained, bt, widths, values=values).items():
        inside = (actual >= lo) & (actual <= hi)  # (W, P, C_out)
        width = hi - lo
        score = interval_score(lo, hi, actual, a)  # (W, P, C_out)
        se = coverage_standard_error(inside, bt.series, bt.origins)
        out[a] = {"coverage": float(inside.mean()), "coverage_se": se, "width": _finite(width.mean()),
                  "interval_score": _finite(score.mean()),
                  "coverage_per_step": [float(v) for v in inside.mean(axis=(0, 2))],
                  "width_per_step": [_finite(v) for v in width.mean(axis=(0, 2))],
                  "interval_score_per_step": [_finite(v) for v in score.mean(axis=(0, 2))]}
    return out


def interval_scores(trained: TrainedModel, panel: Panel, bt: Backtest, widths: dict[float, np.ndarray], *,
                    rate: float = ADAPT_RATE) -> dict[str, dict[str, Any]]:
    """Empirical coverage, mean width and interval score of each interval, per horizon step and overall.

    The intervals are ``widths`` (the checkpoint's split-conformal half-widths, (P, C_out) scaled) tracked
    through the backtest (:func:`tracked_widths`). Coverage: the share of (window, step, column) actuals in
    ``[lower, upper]``; width: the mean of ``upper - lower``; interval score: the mean of
    :func:`~forecast.predict.scores.interval_score`; both in original units (averaged over columns of
    different units); None (JSON null) where a level is infinite (too few validation windows for it).

    Returns:
        ``{"80": {level, rate, coverage, coverage_se, width, interval_score, coverage_per_step, width_per_step,
        interval_score_per_step, split, floors}, ...}`` (``coverage_se``: the coverage's standard error over the
        overlapping windows, :func:`~forecast.predict.scores.coverage_standard_error`), where ``split`` holds the
        coverage, its standard error, the width and interval score of the untracked split-conformal intervals, and
        ``floors`` the same four for each floor's tracked intervals (``{naive_last: {...}, ...}``, empty when the
        file has no validation span).
    """
    actual = actuals(trained, panel, bt)
    tracked = _interval_summary(trained, bt, actual, tracked_widths(bt, widths, rate=rate))
    split = _interval_summary(trained, bt, actual, widths)
    floors: dict[str, dict[float, dict[str, Any]]] = {}
    for name, calibrated in floor_widths(trained, panel, list(widths)).items():
        values = getattr(bt, name)
        floors[name] = _interval_summary(trained, bt, actual,
                                         tracked_widths(bt, calibrated, values=values, rate=rate), values)
    overall = ("coverage", "coverage_se", "width", "interval_score")
    return {label(a): {"level": a, "rate": rate, **tracked[a], "split": {k: split[a][k] for k in overall},
                       "floors": {name: {k: per_level[a][k] for k in overall} for name, per_level in floors.items()}}
            for a in widths}


def _finite(value: float) -> float | None:
    """``value``, or None when infinite (JSON has no infinity)."""
    return float(value) if np.isfinite(value) else None


def _cell(value: float | None) -> str:
    return f"{'inf':>12}" if value is None else f"{value:>12.4f}"


def format_intervals(scores: dict[str, dict[str, Any]]) -> str:
    """Per-step and overall coverage, mean width and interval score (original units) of each interval, then
    the overall three of the untracked split-conformal intervals and of each floor's intervals."""
    names = list(scores)
    cell = lambda n, k: f"{'cover ' + n + '%':>12} {'width ' + n + '%':>12} {'score ' + n + '%':>12}"  # noqa: E731
    lines = [f"{'step':>11} " + " ".join(cell(n, 0) for n in names)]
    for k in range(len(scores[names[0]]["coverage_per_step"])):
        lines.append(f"{k + 1:>11} " + " ".join(f"{scores[n]['coverage_per_step'][k]:>12.3f} "
                                                f"{_cell(scores[n]['width_per_step'][k])} "
                                                f"{_cell(scores[n]['interval_score_per_step'][k])}" for n in names))
    rows = [("all", {n: scores[n] for n in names}), ("split", {n: scores[n]["split"] for n in names})]
    rows += [(name, {n: scores[n]["floors"][name] for n in names}) for name in scores[names[0]]["floors"]]
    for row, values in rows:
        lines.append(f"{row:>11} " + " ".join(f"{values[n]['coverage']:>12.3f} {_cell(values[n]['width'])} "
                                              f"{_cell(values[n]['interval_score'])}" for n in names))
    errors = [f"{n}% {scores[n]['coverage_se']:.3f}" for n in names if scores[n].get("coverage_se") is not None]
    if errors:
        lines.append(f"coverage standard error over the overlapping windows (Newey-West): {', '.join(errors)}")
    rate = scores[names[0]]["rate"]
    lines.append(f"(half-widths tracked through the windows from their validation calibration, rate {rate:g}, "
                 f"x sqrt({FULL_RATE_STEPS} / (p + 1)) after step {FULL_RATE_STEPS}; score: "
                 f"interval score, lower is better; split: untracked; floors: their own validation calibration, "
                 f"tracked)")
    return "\n".join(lines)


def long_frame(trained: TrainedModel, panel: Panel, bt: Backtest, widths: dict[float, np.ndarray] | None = None,
               *, rate: float = ADAPT_RATE) -> pd.DataFrame:
    """One row per (origin, step, column): [id,] origin, timestamp (or step), column, prediction, actual
    (original units), then ``lo_80``, ``hi_80`` ... for each interval of ``widths`` (split-conformal, (P, C_out)
    scaled) as :func:`interval_scores` tracks it."""
    return pd.concat(list(long_parts(trained, panel, bt, widths, rate=rate)), ignore_index=True)


def long_parts(trained: TrainedModel, panel: Panel, bt: Backtest, widths: dict[float, np.ndarray] | None = None,
               *, rate: float = ADAPT_RATE) -> Iterator[pd.DataFrame]:
    """:func:`long_frame`'s rows a series at a time (each series with a window, in the panel's order)."""
    spec, stats, written = trained.spec, _target_stats(trained, bt), trained.spec.dialect.written
    limits = bounds(trained, bt, tracked_widths(bt, widths or {}, rate=rate))
    for series, at in zip(panel.series, bt.windows_of()):
        if not len(at):
            continue
        pred, origins = bt.pred[at], bt.origins[at]  # (W_s, P, C_out), (W_s,) the series' windows
        n_win, n_step, n_col = pred.shape
        index = series.index
        steps = origins[:, None] + 1 + np.arange(n_step)[None, :]  # (W_s, P) rows of the forecast steps
        frame = pd.DataFrame({
            "origin": np.repeat(np.asarray(written(index[origins])), n_step * n_col),
            "timestamp" if series.has_timestamps else STEP: np.repeat(np.asarray(written(index[steps.reshape(-1)])),
                                                                      n_col),
            "column": np.tile(np.asarray(spec.target_columns, dtype=object), n_win * n_step),
            "prediction": _in_units(pred, bt.series[at], stats).reshape(-1),
            "actual": series.frame[list(spec.target_columns)].to_numpy()[steps.reshape(-1)].reshape(-1),  # exact input
        })
        for a, (lo, hi) in limits.items():
            frame[f"lo_{label(a)}"], frame[f"hi_{label(a)}"] = lo[at].reshape(-1), hi[at].reshape(-1)
        for position, (name, cell) in enumerate(panel.id_cells(series.series_id).items()):  # as the file names it
            frame.insert(position, name, cell)
        yield frame


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


def format_series_table(per_series: dict[str, dict[str, float]]) -> str:
    """One line per series: windows, MSE/MAE scaled and in original units."""
    width = max([6] + [len(k) for k in per_series])
    lines = [f"{'series':<{width}} {'windows':>8} {'mse':>10} {'mae':>10} {'mse_orig':>12} {'mae_orig':>12}"]
    for name, m in per_series.items():
        lines.append(f"{name:<{width}} {m['windows']:>8d} {m['mse']:>10.4f} {m['mae']:>10.4f} {m['mse_orig']:>12.4f} "
                     f"{m['mae_orig']:>12.4f}")
    return "\n".join(lines)
