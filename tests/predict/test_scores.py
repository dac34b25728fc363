"""forecast.predict.scores: MAPE, sMAPE and MASE against the naive forecast, checked against their formulas; the
interval score against its formula and as a proper score."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.predict.scores import interval_score, relative_errors


def test_against_the_formulas() -> None:
    rng = np.random.default_rng(0)
    actual = rng.uniform(1.0, 5.0, size=(7, 4, 3))
    pred = actual + rng.normal(0, 0.3, size=actual.shape)
    naive = actual + rng.normal(0, 0.6, size=actual.shape)
    got = relative_errors(pred, actual, naive)
    assert got["mape"] == pytest.approx(np.mean(np.abs(actual - pred) / np.abs(actual)))
    assert got["smape"] == pytest.approx(np.mean(2 * np.abs(actual - pred) / (np.abs(actual) + np.abs(pred))))
    per_column = np.abs(pred - actual).mean(axis=(0, 1)) / np.abs(naive - actual).mean(axis=(0, 1))
    assert got["mase"] == pytest.approx(per_column.mean())


def test_the_naive_forecast_scores_mase_one_and_a_perfect_one_zero() -> None:
    actual = np.arange(1.0, 25.0).reshape(2, 4, 3)
    naive = actual + 1.0
    assert relative_errors(naive, actual, naive)["mase"] == pytest.approx(1.0)
    perfect = relative_errors(actual, actual, naive)
    assert perfect == {"mape": 0.0, "smape": 0.0, "mase": 0.0}


def test_a_column_the_naive_forecast_gets_right_is_left_out() -> None:
    actual = np.ones((2, 3, 2))
    naive = actual.copy()
    naive[..., 1] += 2.0  # column 0: naive exact; column 1: off by 2
    pred = actual + 1.0
    assert relative_errors(pred, actual, naive)["mase"] == pytest.approx(0.5)
    assert relative_errors(pred, actual, actual)["mase"] is None  # a constant series: JSON null, not NaN


def test_mape_is_undefined_where_an_actual_is_zero() -> None:
    actual = np.array([[[0.0], [2.0]]])
    pred = np.array([[[0.5], [2.5]]])
    got = relative_errors(pred, actual, actual + 1.0)
    assert got["mape"] is None
    assert got["smape"] == pytest.approx(np.mean([2 * 0.5 / 0.5, 2 * 0.5 / 4.5]))


def test_interval_score_is_the_width_plus_the_scaled_miss() -> None:
    lower, upper = np.array([0.0, 0.0, 0.0, -np.inf]), np.array([2.0, 2.0, 2.0, np.inf])
    actual = np.array([1.0, -0.5, 3.0, 1.0])
    # level 0.8: 2 / (1 - 0.8) = 10 per unit outside
    np.testing.assert_allclose(interval_score(lower, upper, actual, 0.8), [2.0, 2.0 + 5.0, 2.0 + 10.0, np.inf])


def test_the_true_quantiles_score_best() -> None:
    """Normal actuals: the central 80% interval (+-1.2816) has a lower mean score than narrower or wider ones."""
    actual = np.random.default_rng(8).normal(size=200_000)
    scores = {k: interval_score(-k * 1.2816, k * 1.2816, actual, 0.8).mean() for k in (0.8, 1.0, 1.25)}
    assert scores[1.0] < scores[0.8] and scores[1.0] < scores[1.25]
