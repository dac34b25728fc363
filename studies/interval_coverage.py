"""Interval coverage study (issue 41): why split-conformal intervals calibrated on validation over-cover the
test span, and how candidate calibrations compare on the same windows.

    python studies/interval_runs.py OUT_DIR            # the runs (ETT and five real series, two seeds)
    python studies/interval_coverage.py OUT_DIR        # backtests them; writes OUT_DIR/interval_coverage.csv

Each finished run is backtested once (its arrays in OUT_DIR/backtests/<run>.npz) and scored once
(OUT_DIR/scored/<run>.json; delete it to re-score from the cached backtests); the tables are printed from
every run scored.

For every run: a rolling backtest of its validation and test spans (every window), the model's and the
ridge floor's forecasts, scaled. The validation errors calibrate, the test windows score. Methods, each
applied to the model and to the ridge floor from that forecaster's own validation errors:

- ``split``: split conformal on every validation window (what training stores; the untracked interval);
- ``split_late``: split conformal on the later half of the validation windows only (nearer the test);
- ``aci``: adaptive conformal inference (Gibbs & Candès 2021) on the level: per (step, column) the level
  ``1 - alpha_t`` of the validation scores' conformal quantile, ``alpha_t += gamma (alpha - miss)`` with each
  window's feedback once its actual is known, gamma 0.005 (the paper's); ``alpha_t <= 0`` is an infinite
  interval;
- ``track_<rate>``: online quantile tracking of the half-width from its split start
  (:func:`forecast.training.conformal.track_half_widths`, what ``forecast-predict --rolling`` reports at
  the default rate 0.05);
- ``logtrack_<eta>``: multiplicative tracking, ``w <- w * exp(eta (miss - (1 - a)))`` from the split start (the
  additive tracker on the log of the width);
- ``pool_<eta>``: pooled scale tracking, one factor per column on the split half-widths of every step,
  moved by the misses of all revealed steps (``eta / P`` each);
- ``decay_<rate>_<power>``: additive tracking whose step decays with the feedback count ``k`` of its (step,
  column), ``rate * (k0 / (k0 + k)) ** power`` of the split start, ``k0 = 1 / (1 - level)``, never below 0.01
  (decaying step sizes: Angelopoulos, Barber & Bates 2024);
- ``band_<delta>``: additive tracking at rate 0.05 with a dead band: ``w = w0 + 0.05 w0 soft(D, B)``, ``D`` the
  cumulative ``miss - (1 - a)`` of the (step, column) over its ``k`` feedbacks (the plain tracker is
  ``w0 + 0.05 w0 D``), ``soft`` shrinking ``D`` towards 0 by ``B = delta k``: the width stays at the split start
  while the running miss share is within ``delta`` of its level, so the long-run miss share stays within
  ``delta`` of the level plus the tracker's own ``O(1 / T)``;
- ``hindsight_scale``: not a method but a reference: the split half-widths times the one factor per column that
  gives the lowest interval score on the test span itself (a grid from 0.5 to 2.5 in steps of 0.01), the best
  any rule that rescales the split interval by a constant could score;
- ``scaled_0.02``: tracking on a smoothed error scale: ``w = sigma * exp(q)``, ``sigma`` an exponential average
  (weight 0.05) of the revealed errors from the validation mean, ``q`` tracked multiplicatively at 0.02.

Coverage: the share of test (window, step, column) actuals inside; width and interval score (Gneiting &
Raftery) in scaled units, so they average across series. Also written, the causes: coverage of the
calibration on its own windows, on the later half of validation calibrated on the earlier half, and the
test / validation ratio of the mean absolute error per horizon step, for the model and the ridge floor
(fitted on the training rows only, never selected on validation).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from forecast.predict.scores import coverage_standard_error, interval_score
from forecast.training.conformal import conformal_quantiles, track_half_widths

LEVELS = (0.8, 0.95)
ACI_GAMMA = 0.005
RATES = (0.01, 0.05, 0.1)
LOG_RATES = (0.03, 0.05)
POOL_RATES = (0.03, 0.05, 0.07)
DECAYS = ((0.1, 0.5), (0.2, 0.5))  # (rate, power) of decay_<rate>_<power>
DECAY_FLOOR = 0.01
BANDS = (0.01, 0.02, 0.03)
HINDSIGHT_GRID = np.round(np.arange(0.5, 2.5 + 1e-9, 0.01), 2)


BACKTEST_KEYS = ("model", "ridge", "actual", "origins")


def backtests(run_dir: Path, cache: Path) -> tuple[dict, dict[str, dict[str, np.ndarray]]]:
    """The run's metrics and ``{span: {model, ridge, actual, origins}}`` for the val and test spans (scaled).

    The arrays are read from ``cache/<run>.npz`` when it exists (keys ``<span>_<name>``), else computed
    and written there, so methods can be re-scored without rerunning the backtests.
    """
    metrics = json.loads((run_dir / "metrics.json").read_text())
    saved = cache / f"{run_dir.name}.npz"
    if saved.is_file():
        with np.load(saved) as arrays:
            return metrics, {span: {k: arrays[f"{span}_{k}"] for k in BACKTEST_KEYS} for span in ("val", "test")}
    out = compute_backtests(run_dir)
    cache.mkdir(parents=True, exist_ok=True)
    tmp = saved.with_suffix(".tmp.npz")
    np.savez(tmp, **{f"{span}_{k}": v for span, arrays in out.items() for k, v in arrays.items()})
    tmp.replace(saved)
    return metrics, out


def compute_backtests(run_dir: Path) -> dict[str, dict[str, np.ndarray]]:
    """``{span: {model, ridge, actual, origins}}`` from rolling backtests of the run's checkpoint (scaled)."""
    import forecast
    from forecast.predict.rolling import run_backtest
    from forecast.predict.span import resolve_spans

    fc = forecast.load(run_dir).trained
    spec = fc.spec
    data = fc.config["data"]
    panel = fc.read(data["path"], fill=data.get("fill"))
    out = {}
    for span in ("val", "test"):
        p, spans = resolve_spans(panel, fc.config, seq_len=spec.seq_len, pred_len=spec.pred_len, span=span)
        bt = run_backtest(fc, p, spans)
        out[span] = {"model": bt.pred.astype(np.float64), "ridge": bt.ridge_floor.astype(np.float64),
                     "actual": bt.actual.astype(np.float64), "origins": bt.origins}
    stored = np.asarray(fc.conformal["half_widths"], dtype=np.float64)[[79, 94]]  # (2, P, C) the checkpoint's
    errors = np.abs(out["val"]["model"] - out["val"]["actual"])
    np.testing.assert_allclose(conformal_quantiles(errors, LEVELS), stored, rtol=1e-4, atol=1e-6)
    return out


def aci_widths(errors: np.ndarray, origins: np.ndarray, calib: np.ndarray, level: float,
               gamma: float = ACI_GAMMA) -> np.ndarray:
    """Half-widths (W, P, C) of ACI on the level, with the delayed feedback of track_half_widths."""
    n = calib.shape[0]
    ordered = np.sort(calib, axis=0)  # (n, P, C)
    _, n_step, n_col = errors.shape
    steps, cols = np.arange(n_step), np.arange(n_col)

    def width(state: dict[str, np.ndarray]) -> np.ndarray:  # (P, C) levels 1 - alpha -> conformal quantile
        a = state["alpha"]
        rank = np.ceil((n + 1) * (1.0 - a) - 1e-9).astype(np.int64)
        w = ordered[np.clip(rank, 1, n) - 1, steps[:, None], cols[None, :]]
        return np.where(rank > n, np.inf, np.where(a >= 1.0, 0.0, w))

    def update(state: dict[str, np.ndarray], ps: np.ndarray, err: np.ndarray, widths: np.ndarray) -> None:
        state["alpha"][ps] += gamma * ((1.0 - level) - (err > widths))

    return delayed_feedback(errors, origins, {"alpha": np.full((n_step, n_col), 1.0 - level)}, width, update)


def delayed_feedback(errors: np.ndarray, origins: np.ndarray, state: dict[str, np.ndarray], width,
                     update) -> np.ndarray:
    """Half-widths (W, P, C) of an online rule with the delayed feedback of track_half_widths: before window
    ``j`` every newly known (window, step) error is fed to ``update(state, steps, errors (k, C), widths (k, C))``;
    window ``j`` then gets ``width(state)`` (P, C)."""
    n_win, n_step, _ = errors.shape
    steps = np.arange(n_step)
    known = np.searchsorted(origins, origins[:, None] - 1 - steps[None, :], side="right")  # (W, P)
    done = np.zeros(n_step, dtype=np.int64)
    out = np.empty(errors.shape)
    for j in range(n_win):
        while True:
            todo = done < known[j]
            if not todo.any():
                break
            ps, ws = steps[todo], done[todo]
            update(state, ps, errors[ws, ps], out[ws, ps])
            done[todo] += 1
        out[j] = width(state)
    return out


def log_track_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float,
                     eta: float) -> np.ndarray:
    """Multiplicative tracking: ``w <- w * exp(eta * (miss - (1 - level)))`` from the split start (P, C)."""
    positive = start > 0
    state = {"log": np.log(np.where(positive, start, 1.0))}

    def update(st, ps, err, w):
        st["log"][ps] += eta * ((err > w) - (1.0 - level))

    return delayed_feedback(errors, origins, state, lambda st: np.where(positive, np.exp(st["log"]), start), update)


def scaled_track_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, scale: np.ndarray, level: float,
                        eta: float, beta: float) -> np.ndarray:
    """Tracking on a smoothed error scale: ``w = sigma * exp(q)``, ``q`` tracked multiplicatively at ``eta``,
    ``sigma`` an exponential average (weight ``beta``) of the revealed errors from the validation mean ``scale``."""
    state = {"q": np.log(start / scale), "sigma": scale.astype(np.float64).copy()}

    def update(st, ps, err, w):
        st["q"][ps] += eta * ((err > w) - (1.0 - level))
        st["sigma"][ps] = (1 - beta) * st["sigma"][ps] + beta * err

    return delayed_feedback(errors, origins, state, lambda st: st["sigma"] * np.exp(st["q"]), update)


def decaying_track_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float, rate: float,
                          power: float, floor: float = DECAY_FLOOR) -> np.ndarray:
    """Additive tracking from the split start (P, C) with a step of ``max(floor, rate * (k0 / (k0 + k)) ** power)``
    times the start, ``k`` the feedback count of each (step, column) so far, ``k0 = 1 / (1 - level)``."""
    base = np.where(np.isfinite(start), start, 0.0)
    k0 = 1.0 / (1.0 - level)
    state = {"w": start.astype(np.float64).copy(), "k": np.zeros(start.shape)}

    def update(st, ps, err, w):
        step = np.maximum(floor, rate * (k0 / (k0 + st["k"][ps])) ** power)
        st["w"][ps] += step * base[ps] * ((err > np.maximum(w, 0.0)) - (1.0 - level))
        st["k"][ps] += 1

    return np.maximum(delayed_feedback(errors, origins, state, lambda st: st["w"].copy(), update), 0.0)


def banded_track_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float, delta: float,
                        rate: float = 0.05) -> np.ndarray:
    """Additive tracking from the split start (P, C) with a dead band: ``w = start + rate * start * soft(D, B)``,
    ``D`` the cumulative ``miss - (1 - level)`` over the ``k`` feedbacks of each (step, column), ``B = delta * k``."""
    base = np.where(np.isfinite(start), start, 0.0)
    state = {"d": np.zeros(start.shape), "k": np.zeros(start.shape)}

    def update(st, ps, err, w):
        st["d"][ps] += (err > w) - (1.0 - level)
        st["k"][ps] += 1

    def width(st):
        soft = np.sign(st["d"]) * np.maximum(np.abs(st["d"]) - delta * st["k"], 0.0)
        return np.maximum(start + rate * base * soft, 0.0)

    return delayed_feedback(errors, origins, state, width, update)


def pooled_scale_widths(errors: np.ndarray, origins: np.ndarray, start: np.ndarray, level: float,
                        eta: float) -> np.ndarray:
    """Pooled scale tracking: ``w = start * exp(s)`` with one ``s`` per column (C,), moved by
    ``eta / P`` times the sum over the newly revealed steps of ``miss - (1 - level)``."""
    n_step = start.shape[0]
    state = {"s": np.zeros(start.shape[1])}

    def update(st, ps, err, w):
        st["s"] += eta / n_step * ((err > w) - (1.0 - level)).sum(axis=0)

    return delayed_feedback(errors, origins, state, lambda st: start * np.exp(st["s"])[None, :], update)


def hindsight_scale_widths(errors: np.ndarray, start: np.ndarray, level: float) -> np.ndarray:
    """Half-widths (P, C): ``start`` times, per column, the factor of HINDSIGHT_GRID with the lowest mean interval
    score on ``errors`` (W, P, C) themselves."""
    out = np.empty(start.shape)
    for c in range(start.shape[1]):
        scores = [interval_score(-f * start[:, c], f * start[:, c], errors[..., c], level).mean()
                  for f in HINDSIGHT_GRID]
        out[:, c] = HINDSIGHT_GRID[int(np.argmin(scores))] * start[:, c]
    return out


def method_widths(val_err: np.ndarray, test_err: np.ndarray, origins: np.ndarray,
                  level: float) -> dict[str, np.ndarray]:
    """``{method: half-widths}``, each (P, C) or (W, P, C), of one forecaster at one level."""
    split = conformal_quantiles(val_err, [level])[0]
    late = conformal_quantiles(val_err[len(val_err) // 2:], [level])[0]
    out = {"split": split, "split_late": late, "aci": aci_widths(test_err, origins, val_err, level)}
    for rate in RATES:
        out[f"track_{rate:g}"] = track_half_widths(test_err, origins, split, level, rate=rate)
    for eta in LOG_RATES:
        out[f"logtrack_{eta:g}"] = log_track_widths(test_err, origins, split, level, eta)
    for eta in POOL_RATES:
        out[f"pool_{eta:g}"] = pooled_scale_widths(test_err, origins, split, level, eta)
    for rate, power in DECAYS:
        out[f"decay_{rate:g}_{power:g}"] = decaying_track_widths(test_err, origins, split, level, rate, power)
    for delta in BANDS:
        out[f"band_{delta:g}"] = banded_track_widths(test_err, origins, split, level, delta)
    out["hindsight_scale"] = hindsight_scale_widths(test_err, split, level)
    out["scaled_0.02"] = scaled_track_widths(test_err, origins, split, val_err.mean(axis=0), level, 0.02, 0.05)
    return out


def score(errors: np.ndarray, widths: np.ndarray, level: float, origins: np.ndarray) -> dict[str, float]:
    """Coverage and its standard error over the overlapping windows, mean width, mean interval score (scaled)
    and the share of infinite intervals."""
    w = np.broadcast_to(widths, errors.shape)
    inside = errors <= w
    finite = np.isfinite(w)
    iscore = interval_score(-w, w, errors, level)  # centred on the forecast: the actual at +error
    se = coverage_standard_error(inside, np.zeros(len(inside), dtype=int), origins)
    return {"coverage": float(inside.mean()), "coverage_se": se, "width": float((2 * w[finite]).mean()) if finite.any() else math.inf,
            "interval_score": float(iscore.mean()), "infinite": float(1 - finite.mean())}


def causes(name: str, seed: int, metrics: dict, bt: dict[str, dict[str, np.ndarray]]) -> list[dict]:
    """Rows of the cause table: in-sample and half-split validation coverage, test / val error ratios."""
    rows = []
    for who in ("model", "ridge"):
        val = np.abs(bt["val"][who] - bt["val"]["actual"])
        test = np.abs(bt["test"][who] - bt["test"]["actual"])
        half = len(val) // 2
        ratio = test.mean(axis=(0, 2)) / val.mean(axis=(0, 2))  # (P,)
        row = {"data": name, "seed": seed, "forecaster": who, "kept_start": metrics.get("kept_start"),
               "val_windows": len(val), "test_windows": len(test),
               "val_mae": float(val.mean()), "test_mae": float(test.mean()), "ratio": float(test.mean() / val.mean()),
               "ratio_step1": float(ratio[0]), "ratio_step_mid": float(ratio[len(ratio) // 2]),
               "ratio_step_last": float(ratio[-1])}
        for level in LEVELS:
            w = conformal_quantiles(val, [level])[0]
            first = conformal_quantiles(val[:half], [level])[0]
            tag = f"{round(level * 100)}"
            row[f"in_sample_{tag}"] = float((val <= w).mean())
            row[f"val_half_{tag}"] = float((val[half:] <= first).mean())
            row[f"test_{tag}"] = float((test <= w).mean())
            row[f"q_ratio_{tag}"] = float(np.mean(conformal_quantiles(test, [level])[0] / w))
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the OUT_DIR of studies/interval_runs.py")
    parser.add_argument("--only", nargs="*", default=None, help="run names to score (default: all finished)")
    args = parser.parse_args()
    cache = args.out / "scored"
    cache.mkdir(exist_ok=True)
    for run_dir in sorted((args.out / "runs").iterdir()):
        done = cache / f"{run_dir.name}.json"
        if done.is_file() or not (run_dir / "metrics.json").is_file() or (args.only and run_dir.name not in args.only):
            continue
        name, seed = run_dir.name.rsplit("-s", 1)
        metrics, bt = backtests(run_dir, args.out / "backtests")
        rows = []
        origins = bt["test"]["origins"]
        for who in ("model", "ridge"):
            val_err = np.abs(bt["val"][who] - bt["val"]["actual"])
            test_err = np.abs(bt["test"][who] - bt["test"]["actual"])
            for level in LEVELS:
                for method, widths in method_widths(val_err, test_err, origins, level).items():
                    rows.append({"data": name, "seed": int(seed), "forecaster": who, "level": level,
                                 "method": method, **score(test_err, widths, level, origins)})
        done.write_text(json.dumps({"rows": rows, "causes": causes(name, int(seed), metrics, bt)}))
        print(f"{run_dir.name}: scored", file=sys.stderr, flush=True)
    rows, cause_rows = [], []
    for done in sorted(cache.glob("*.json")):
        scored = json.loads(done.read_text())
        rows += scored["rows"]
        cause_rows += scored["causes"]
    table = pd.DataFrame(rows)
    table.to_csv(args.out / "interval_coverage.csv", index=False)
    pd.DataFrame(cause_rows).to_csv(args.out / "interval_causes.csv", index=False)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    print(pd.DataFrame(cause_rows).round(3).to_string(index=False))
    model = table[table.forecaster == "model"]
    wide = model.pivot_table(index=["data", "seed"], columns=["level", "method"], values="coverage")
    print((100 * wide).round(1).to_string())
    table["gap"] = (table["coverage"] - table["level"]).abs()
    summary = table.groupby(["forecaster", "level", "method"]).agg(
        mean_gap=("gap", "mean"), max_gap=("gap", "max"), interval_score=("interval_score", "mean"),
        infinite=("infinite", "mean"))
    print(summary.round(4).to_string())


if __name__ == "__main__":
    main()
