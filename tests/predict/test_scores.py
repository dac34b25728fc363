"""forecast.predict.scores: MAPE, sMAPE and MASE against the naive forecast, checked against their formulas."""

from __future__ import annotations

import numpy as np
import pytest

from forecast.predict.scores import relative_errors


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
    assert np.isnan(relative_errors(pred, actual, actual)["mase"])


def test_mape_is_undefined_where_an_actual_is_zero() -> None:
    actual = np.array([[[0.0], [2.0]]])
    pred = np.array([[[0.5], [2.5]]])
    got = relative_errors(pred, actual, actual + 1.0)
    assert got["mape"] is None
    assert got["smape"] == pytest.approx(np.mean([2 * 0.5 / 0.5, 2 * 0.5 / 4.5]))
