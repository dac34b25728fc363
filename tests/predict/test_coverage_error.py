"""The standard error of a backtest's coverage over overlapping windows: calibrated where the binomial one is not."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from forecast.predict.scores import coverage_standard_error
from forecast.training.evidence import hac_lag, newey_west_variance

W, P, LEVEL = 600, 12, 0.8


def random_walk_backtest(rng: np.random.Generator) -> np.ndarray:
    """(W, P, 1) inside flags of the exact 80% interval of the naive forecast of a Gaussian random walk: the
    step-p error of window w is the sum of innovations w+1 .. w+p+1, so neighbouring windows share them."""
    shocks = rng.standard_normal(W + P)
    walk = np.cumsum(shocks)
    errors = np.stack([walk[np.arange(W) + p + 1] - walk[np.arange(W)] for p in range(P)], axis=1)  # (W, P)
    half = norm.ppf(0.5 + LEVEL / 2) * np.sqrt(np.arange(1, P + 1))  # (P,)
    return (np.abs(errors) <= half)[..., None]


def test_the_standard_error_matches_the_spread_of_coverage_over_draws() -> None:
    """Over 300 draws the coverage's spread is what the Newey-West standard error says, within 25%, and the
    spread is more than four times the binomial error, which treats the W x P actuals as independent."""
    rng = np.random.default_rng(3)
    series, origins = np.zeros(W, dtype=int), np.arange(W)
    coverages, errors = [], []
    for _ in range(300):
        inside = random_walk_backtest(rng)
        coverages.append(inside.mean())
        errors.append(coverage_standard_error(inside, series, origins))
    spread, mean_error = float(np.std(coverages)), float(np.mean(errors))
    assert abs(np.mean(coverages) - LEVEL) < 3 * spread / np.sqrt(300)
    assert 0.75 < mean_error / spread < 1.25, (mean_error, spread)
    binomial = np.sqrt(LEVEL * (1 - LEVEL) / (W * P))
    assert spread > 4 * binomial


def test_one_series_is_the_newey_west_error_of_the_window_shares() -> None:
    rng = np.random.default_rng(0)
    inside = rng.random((50, 4, 3)) < 0.8
    share = inside.reshape(50, -1).mean(axis=1)
    expected = np.sqrt(newey_west_variance(share, hac_lag(4)) / 50)
    assert coverage_standard_error(inside, np.zeros(50, dtype=int), np.arange(50)) == pytest.approx(expected, rel=1e-12)


def test_series_are_independent_and_windows_are_taken_in_origin_order() -> None:
    """Two copies of a series (a panel, shuffled): the error of one over the square root of two; a stride of 4
    between origins shortens the lag to 2 * ceil(P / 4)."""
    rng = np.random.default_rng(1)
    inside = random_walk_backtest(rng)
    one = coverage_standard_error(inside, np.zeros(W, dtype=int), np.arange(W))
    order = rng.permutation(2 * W)
    both = np.concatenate([inside, inside])[order]
    series = np.repeat([0, 1], W)[order]
    origins = np.tile(np.arange(W), 2)[order]
    assert coverage_standard_error(both, series, origins) == pytest.approx(one / np.sqrt(2), rel=1e-12)
    share = inside.reshape(W, -1).mean(axis=1)
    strided = coverage_standard_error(inside, np.zeros(W, dtype=int), 4 * np.arange(W))
    assert strided == pytest.approx(np.sqrt(newey_west_variance(share, hac_lag(P, 4)) / W), rel=1e-12)


def test_one_window_has_no_standard_error() -> None:
    assert coverage_standard_error(np.ones((1, 3, 1), dtype=bool), np.zeros(1, dtype=int), np.zeros(1)) is None
