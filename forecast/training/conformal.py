"""Split conformal prediction intervals, calibrated on the validation windows at training time.

Method: after training picks its checkpoint, the model forecasts every validation window; the absolute
error of each (window, horizon step, target channel) in the scaled space is a nonconformity score. For
a level ``a`` the half-width of step ``p``, channel ``c`` is the ``ceil((n + 1) * a)``-th smallest of
the ``n`` scores of that (p, c) (the finite-sample correction), infinite when that rank exceeds ``n``.
The interval is the forecast plus or minus that half-width, unscaled with the target's scaler (the
series' own, for per-series scalers), so it is symmetric in original units too.

Assumption: validation and future errors are exchangeable. Coverage is then at least ``a`` on
average; it degrades when the forecast period drifts from the validation period (trend, regime
change). The method only needs forecasts and actuals, so it works for every model and backend.

Rolling backtests adapt the calibrated half-widths as the actuals come in (:func:`track_half_widths`):
online quantile tracking, the score-scale form of adaptive conformal inference (Gibbs & Candès 2021;
Angelopoulos, Candès & Tibshirani 2023), run separately for every (horizon step, channel). The width
of step ``p`` starts at the split-conformal half-width ``w0`` and, each time the actual of an earlier
window's step ``p`` becomes known (``p + 1`` rows after that window's last input), moves by
``r_p * w0 * (miss - (1 - a))``: up by ``r_p * w0 * a`` after a miss, down by ``r_p * w0 * (1 - a)``
after a hit. The step's rate is ``rate`` (0.05) for the first ``FULL_RATE_STEPS`` (4) horizon steps and
``rate * sqrt(FULL_RATE_STEPS / (p + 1))`` after them (:func:`step_rates`): the errors of a ``p + 1``-step
forecast from neighbouring windows overlap (a moving average of order ``p`` where the series is a random
walk), so a step's misses come in runs of about ``p + 1`` windows and a fixed rate would swing its width
by ``sqrt(p + 1)`` times more; at horizons of 168-720 steps it did, to 3-4 times split's interval score
(docs/results.md §11.7). Guarantee, for any sequence of errors (no exchangeability, any drift): with the errors
and the start ``w0`` bounded by ``B``, the share of misses over ``T`` windows is within
``(B + (d + 2) * eta) / (eta * T)`` of ``1 - a`` (``eta = r_p * w0``, ``d`` the feedback delay in windows), since the width stays in
``[-(d + 1) * eta, B + (d + 1) * eta]``. It is a long-run average over the windows, not a promise for
any one window, and it is loose for short spans. Forecasts of the future continue the same tracking:
their half-widths are the tracker's state at the file's last row (:func:`tracked_width_at`), after the
file's recent windows with known actuals (``forecast.predict.future_widths``).

Storage: the half-widths for the levels 0.01, 0.02, ..., 0.99 (``LEVELS``), shape (99, P, C_out),
under ``conformal`` in the checkpoint's recipe (ETTh1 with P=96: 99*96*7 floats, 270 KB), so a level
must be a whole percent. The scores themselves (n * P * C_out) are not kept: they grow with the data.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np
import torch
from torch import nn

from forecast.core.parameters import module_device
from forecast.data.errors import DataError
from forecast.io import atomic_path
from forecast.spelling import CLI, Spelling

CONFORMAL_KEY = "conformal"  # in the recipe: {"levels": [...], "half_widths": (K, P, C_out) tensor, "n": int}
LEVELS = tuple(round(k / 100, 2) for k in range(1, 100))  # the stored grid: 0.01 .. 0.99
ADAPT_RATE = 0.05  # step of the tracked half-width, as a fraction of its split-conformal start
FULL_RATE_STEPS = 4  # horizon steps tracked at the full rate; later ones at rate * sqrt(4 / (p + 1))


def step_rates(rate: float, n_step: int) -> np.ndarray:
    """The tracking rate of each horizon step (module docstring): ``rate`` for the first
    ``FULL_RATE_STEPS``, then ``rate * sqrt(FULL_RATE_STEPS / (p + 1))`` at step ``p`` (0-based).

    Shapes: -> (n_step,).
    """
    p = np.arange(n_step, dtype=np.float64)
    return rate * np.minimum(1.0, np.sqrt(FULL_RATE_STEPS / (p + 1)))


def conformal_quantiles(scores: np.ndarray, levels: Sequence[float]) -> np.ndarray:
    """For each level, the ``ceil((n + 1) * level)``-th smallest score along axis 0 (inf when that rank
    exceeds n). One sort serves every level: the scores are copied once, whatever the number of levels.

    Shapes: scores (n, ...) -> (K, ...) for K levels.
    """
    n = scores.shape[0]
    # the 1e-9 keeps (n+1)*0.8 = 80.00000000000001 at 80
    ranks = [math.ceil((n + 1) * a - 1e-9) for a in levels]
    out = np.full((len(ranks), *scores.shape[1:]), np.inf, dtype=np.result_type(scores.dtype, np.float32))
    finite = [k for k, rank in enumerate(ranks) if rank <= n]
    if finite:
        ordered = np.sort(scores, axis=0)  # (n, ...)
        out[finite] = ordered[[max(ranks[k], 1) - 1 for k in finite]]
    return out


def conformal_quantile(scores: np.ndarray, level: float) -> np.ndarray:
    """:func:`conformal_quantiles` at one level. Shapes: scores (n, ...) -> (...)."""
    return conformal_quantiles(scores, [level])[0]


def calibrate(scores: np.ndarray, levels: Sequence[float] = LEVELS) -> dict[str, Any]:
    """The recipe entry of the nonconformity ``scores`` (n, P, C_out): half-widths per level."""
    widths = conformal_quantiles(scores, levels)  # (K, P, C_out)
    return {"levels": [float(a) for a in levels], "n": int(scores.shape[0]),
            "half_widths": torch.from_numpy(widths.astype(np.float32))}


@torch.inference_mode()
def validation_scores(model: nn.Module, batches: Iterable[Any]) -> np.ndarray:
    """Absolute errors of ``model`` on every window of ``batches`` (a DataLoader), scaled. Shapes: -> (n, P, C_out).

    The global RNG is left as it was (iterating a DataLoader draws a seed from it).
    """
    was_training = model.training
    model.eval()
    device = module_device(model)
    errors = []
    with torch.random.fork_rng(devices=[]):
        for batch in batches:
            pred = model(batch.x_enc.to(device), batch.x_mark_enc.to(device), batch.x_mark_dec.to(device))
            errors.append((pred.float().cpu() - batch.y.float()).abs())  # (B, P, C_out)
    model.train(was_training)
    return torch.cat(errors).numpy() if errors else np.zeros((0, 0, 0), dtype=np.float32)


def store_in_checkpoint(path: str | Path, entry: dict[str, Any], *, recipe_key: str) -> None:
    """Rewrite the checkpoint at ``path`` atomically with ``entry`` under ``conformal`` in its recipe."""
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    ckpt[recipe_key] = {**ckpt[recipe_key], CONFORMAL_KEY: entry}
    with atomic_path(path) as tmp:
        torch.save(ckpt, tmp)


def check_levels(levels: Iterable[float], *, spelling: Spelling = CLI) -> list[float]:
    """Validated interval levels: fractions in (0, 1) on the whole-percent grid, sorted, without repeats.

    Args:
        levels: the levels asked for.
        spelling: how the messages name the levels' argument (``--intervals``, ``intervals``).

    Raises:
        DataError: a level outside (0, 1) (a percent such as 80 is refused: write 0.8) or not a whole percent.
    """
    intervals = spelling.name("intervals")
    out = []
    for a in levels:
        a = float(a)
        if not 0 < a < 1:
            hint = f" (a fraction: write {a / 100:g} for {a:g}%)" if 1 < a < 100 else ""
            raise DataError(f"{intervals} takes levels in (0, 1), got {a:g}{hint}")
        if abs(a * 100 - round(a * 100)) > 1e-9:
            raise DataError(f"{intervals} takes whole-percent levels (0.01 .. 0.99), got {a:g}")
        out.append(round(a, 2))
    return sorted(set(out))


def label(level: float) -> str:
    """The column suffix of a level: 0.8 -> ``80``."""
    return f"{round(level * 100):d}"


def half_widths(entry: dict[str, Any] | None, levels: Sequence[float], *, source: str,
                spelling: Spelling = CLI) -> dict[float, np.ndarray]:
    """``{level: (P, C_out) half-width, scaled}`` from a recipe's ``conformal`` entry.

    Args:
        entry: the recipe's ``conformal`` entry, None for a checkpoint without one.
        levels: validated levels (:func:`check_levels`).
        source: the checkpoint, for the message.
        spelling: how the message names the levels' argument (``--intervals``, ``intervals``).

    Raises:
        DataError: the checkpoint has no calibration (``entry`` is None).
    """
    if entry is None:
        intervals = spelling.name("intervals")
        raise DataError(f"{source}: the checkpoint has no interval calibration (written before {intervals} "
                        f"existed); retrain it with forecast-train to use {intervals}")
    stored = [round(a, 2) for a in entry["levels"]]
    table = np.asarray(entry["half_widths"], dtype=np.float64)  # (K, P, C_out)
    return {a: table[stored.index(round(a, 2))] for a in levels}


def track_half_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float, *,
                      rate: float | np.ndarray = ADAPT_RATE) -> np.ndarray:
    """The half-width each window of one series gets from online quantile tracking (module docstring).

    Window ``j`` uses only the errors of earlier windows whose actuals precede its forecast: step ``p``
    of window ``i`` counts once ``origins[i] + 1 + p <= origins[j]``. A miss is an error above the
    window's half-width (a negative tracked width counts as 0). An infinite or zero start
    stays as it is.

    Args:
        errors: absolute forecast errors, (W, P, C), in the units of ``start``.
        origins: the last input row of each window, (W,), increasing.
        start: split-conformal half-widths, (P, C).
        level: the interval's level ``a`` in (0, 1).
        rate: the step as a fraction of ``start``: one rate, shrunk with the horizon step (:func:`step_rates`),
            or each step's own, (P,).

    Returns:
        Half-widths, (W, P, C), clipped at 0.
    """
    return track_series(errors, origins, [np.arange(len(errors))], start, level, rate=rate)


TRACKED_CELLS = 1 << 23  # window slots x steps x columns of the series tracked together (64 MB a float64 array)


def track_series(errors: np.ndarray, origins: np.ndarray, windows_of: Sequence[np.ndarray], start: np.ndarray,
                 level: float, *, rate: float | np.ndarray = ADAPT_RATE) -> np.ndarray:
    """:func:`track_half_widths` of each series' windows, several series at once: their windows side by side,
    the ``j``-th of each series sized together (the same operations on each series as on it alone).

    Args:
        errors: absolute forecast errors of every window, (W, P, C), in the units of ``start``.
        origins: the last input row of each window, (W,).
        windows_of: each series' windows (positions in ``errors``), origins increasing, (W_s,) each.
        start: split-conformal half-widths, (P, C).
        level: the interval's level ``a`` in (0, 1).
        rate: as :func:`track_half_widths` takes it.

    Returns:
        Half-widths, (W, P, C), clipped at 0 (those of windows in no series 0).
    """
    start = np.asarray(start, dtype=np.float64)
    finite = np.isfinite(start)
    step_rate = (step_rates(rate, start.shape[0]) if np.ndim(rate) == 0 else np.asarray(rate, dtype=np.float64))
    eta = np.where(finite, step_rate.reshape(-1, 1) * np.where(finite, start, 0.0), 0.0)  # (P, C)
    out = np.zeros(errors.shape, dtype=np.float64)
    series = [at for at in windows_of if len(at)]
    series.sort(key=len)  # series of similar lengths side by side: little padding
    begin = 0
    while begin < len(series):  # a group: the next series while all of them padded to the last fit TRACKED_CELLS
        end = begin + 1
        while end < len(series) and (end + 1 - begin) * len(series[end]) * start.size <= TRACKED_CELLS:
            end += 1
        group = series[begin:end]
        tracked = _track_group([errors[at] for at in group], [origins[at] for at in group], len(group[-1]), start,
                               eta, level)  # (S, longest, P, C)
        for k, at in enumerate(group):
            out[at] = tracked[k, : len(at)]
        begin = end
    return np.maximum(out, 0.0)


def _track_group(errors: Sequence[np.ndarray], origins: Sequence[np.ndarray], longest: int, start: np.ndarray,
                 eta: np.ndarray, level: float) -> np.ndarray:
    """The tracked half-widths of a few series, (S, longest, P, C), unclipped: window ``j`` of every series sized
    after feeding back, series by series and step by step, the windows whose actuals precede it.

    Shapes: errors (W_s, P, C) and origins (W_s,) of each series, W_s <= longest; start, eta (P, C).
    """
    n_series, (n_step, n_col) = len(errors), start.shape
    steps = np.arange(n_step)
    padded = np.zeros((n_series, longest, n_step, n_col))  # (S, longest, P, C) the errors, 0 past a series' end
    known = np.zeros((n_series, longest, n_step), dtype=np.int64)  # windows with step p's actual before window j's
    for k, (err, at) in enumerate(zip(errors, origins)):
        padded[k, : len(err)] = err
        known[k, : len(at)] = np.searchsorted(at, at[:, None] - 1 - steps[None, :], side="right")  # (W_s, P)
    current = np.broadcast_to(start, (n_series, n_step, n_col)).copy()  # (S, P, C)
    out = np.empty((n_series, longest, n_step, n_col))
    done = np.zeros((n_series, n_step), dtype=np.int64)  # per series and step, windows already fed back
    for j in range(longest):
        while True:
            todo = done < known[:, j]  # (S, P)
            if not todo.any():
                break
            ss, ps = np.nonzero(todo)
            ws = done[ss, ps]
            miss = padded[ss, ws, ps] > np.maximum(out[ss, ws, ps], 0.0)  # (k, C)
            current[ss, ps] += eta[ps] * (miss - (1.0 - level))
            done[todo] += 1
        out[:, j] = current
    return out


def tracked_width_at(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float, *, at: int,
                     rate: float | np.ndarray = ADAPT_RATE) -> np.ndarray:
    """The tracked half-width a window whose last input is row ``at`` gets (:func:`track_half_widths`).

    The state after every step ``p`` of ``errors`` whose actual precedes ``at``'s forecast
    (``origins[i] + 1 + p <= at``); with no windows, ``start``.

    Args:
        errors: absolute forecast errors, (W, P, C), in the units of ``start`` (W may be 0).
        origins: the last input row of each window, (W,), increasing, each below ``at``.
        start: split-conformal half-widths, (P, C).
        level: the interval's level in (0, 1).
        at: the last input row of the window to size (the file's last row, for a forecast of the future).
        rate: the step as a fraction of ``start`` (as :func:`track_half_widths` takes it).

    Returns:
        Half-widths, (P, C), clipped at 0.
    """
    start = np.asarray(start, dtype=np.float64)
    # (W + 1, P, C): the window being sized last; its own errors are never fed back
    errors = np.concatenate([np.asarray(errors, dtype=np.float64).reshape(-1, *start.shape),
                             np.zeros((1, *start.shape))])
    origins = np.append(np.asarray(origins, dtype=np.int64), at)  # (W + 1,)
    return track_half_widths(errors, origins, start, level, rate=rate)[-1]
