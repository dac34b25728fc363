"""A backtest's scores summed over chunks of windows equal the formulas over the whole arrays."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from forecast.predict import rolling
from forecast.predict.rolling import Backtest, score, score_series


def _backtest() -> tuple[Backtest, SimpleNamespace, dict[str, tuple[np.ndarray, np.ndarray]]]:
    """50 windows of 3 series (one without a window), 4 steps, 2 columns; each series its own scaler."""
    rng = np.random.default_rng(0)
    shape = (50, 4, 2)
    series = rng.choice([0, 2], size=50)
    arrays = {name: rng.normal(size=shape).astype(np.float32) for name in ("pred", "actual", "naive_last", "naive_mean")}
    stats = {"a": (np.array([10.0, -3.0, 7.0]), np.array([2.0, 0.5, 4.0])), "b": (np.zeros(3), np.ones(3)),
             "c": (np.array([1.0, 100.0, 5.0]), np.array([3.0, 20.0, 1.0]))}
    bt = Backtest(origins=np.arange(50), series=series, ids=("a", "b", "c"), **arrays)
    trained = SimpleNamespace(spec=SimpleNamespace(target_index=[0, 1], stats=lambda name: stats[name]))
    return bt, trained, stats


def _units(bt: Backtest, values: np.ndarray, stats: dict) -> np.ndarray:
    mean = np.stack([stats[bt.ids[k]][0][[0, 1]] for k in bt.series])[:, None, :]  # (W, 1, C)
    scale = np.stack([stats[bt.ids[k]][1][[0, 1]] for k in bt.series])[:, None, :]
    return values.astype(np.float64) * scale + mean


@pytest.mark.parametrize("cells", [8, 24, 1 << 21])  # a window a chunk, 3 windows, all at once
def test_chunked_scores_are_the_formulas(monkeypatch: pytest.MonkeyPatch, cells: int) -> None:
    bt, trained, stats = _backtest()
    monkeypatch.setattr(rolling, "CHUNK_CELLS", cells)
    got = score(trained, bt)
    actual = _units(bt, bt.actual, stats)
    naive_mae = np.abs(_units(bt, bt.naive_last, stats) - actual).mean(axis=(0, 1))  # (C,)
    assert list(got) == ["model", "naive_last", "naive_mean"]
    for method, values in (("model", bt.pred), ("naive_last", bt.naive_last), ("naive_mean", bt.naive_mean)):
        err, err_orig = values.astype(np.float64) - bt.actual, _units(bt, values, stats) - actual
        m = got[method]
        assert m["mse"] == pytest.approx(np.mean(err ** 2), rel=1e-12)
        assert m["mae_orig"] == pytest.approx(np.mean(np.abs(err_orig)), rel=1e-12)
        np.testing.assert_allclose(m["mse_orig_per_step"], np.mean(err_orig ** 2, axis=(0, 2)), rtol=1e-12)
        np.testing.assert_allclose(m["mae_per_step"], np.mean(np.abs(err), axis=(0, 2)), rtol=1e-12)
        pred = _units(bt, values, stats)
        assert m["mape"] == pytest.approx(np.mean(np.abs(err_orig) / np.abs(actual)), rel=1e-9)
        assert m["smape"] == pytest.approx(np.mean(2 * np.abs(err_orig) / (np.abs(actual) + np.abs(pred))), rel=1e-9)
        assert m["mase"] == pytest.approx(np.mean(np.abs(err_orig).mean(axis=(0, 1)) / naive_mae), rel=1e-12)
    per_series = score_series(trained, bt)
    assert list(per_series) == ["a", "c"]  # 'b' has no window
    for k, name in ((0, "a"), (2, "c")):
        at = bt.series == k
        err, err_orig = bt.pred[at].astype(np.float64) - bt.actual[at], (_units(bt, bt.pred, stats) - actual)[at]
        assert per_series[name]["windows"] == int(at.sum())
        assert per_series[name]["mse"] == pytest.approx(np.mean(err ** 2), rel=1e-12)
        assert per_series[name]["mae_orig"] == pytest.approx(np.mean(np.abs(err_orig)), rel=1e-12)
