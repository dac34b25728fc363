"""The evidence rule: the Diebold-Mariano statistic with a Newey-West variance, its p-value, and the verdict."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forecast.training.evidence import (Verdict, degrees_of_freedom, diebold_mariano, hac_lag, lines,
                                        newey_west_variance, student_t_sf, weigh)


def overlapping_losses(rng: np.random.Generator, n: int, horizon: int, shift: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-window losses of two forecasters whose differences are a moving sum over ``horizon`` shocks
    (as overlapping windows give), the challenger's lower by ``shift`` on average."""
    shocks = rng.normal(size=n + horizon)
    d = np.convolve(shocks, np.ones(horizon) / math.sqrt(horizon), "valid")[:n] + shift  # (n,)
    incumbent = 2.0 + np.abs(rng.normal(size=n))
    return incumbent, incumbent - d


def test_newey_west_variance_is_the_bartlett_weighted_sum_of_autocovariances() -> None:
    d = np.array([1.0, -2.0, 0.5, 3.0, -1.0, 0.0, 2.0])
    c = d - d.mean()
    gamma = [float(c[k:] @ c[:len(c) - k]) / len(c) for k in range(3)]
    assert newey_west_variance(d, 2) == pytest.approx(gamma[0] + 2 * (2 / 3) * gamma[1] + 2 * (1 / 3) * gamma[2])
    assert newey_west_variance(d, 0) == pytest.approx(gamma[0])


def test_the_statistic_equals_statsmodels_hac_t_value() -> None:
    sm = pytest.importorskip("statsmodels.api")
    rng = np.random.default_rng(3)
    incumbent, challenger = overlapping_losses(rng, 400, 12, 0.1)
    statistic, _ = diebold_mariano(incumbent, challenger, lag=24)
    d = incumbent - challenger
    fit = sm.OLS(d, np.ones(len(d))).fit(cov_type="HAC", cov_kwds={"maxlags": 24, "use_correction": False})
    assert statistic == pytest.approx(float(fit.tvalues[0]), rel=1e-10)


def test_student_t_tail_matches_scipy() -> None:
    stats = pytest.importorskip("scipy.stats")
    for t, df in [(0.3, 1), (2.0, 4), (-1.5, 3), (5.0, 57), (1.7, 30), (12.0, 2)]:
        assert student_t_sf(t, df) == pytest.approx(float(stats.t.sf(t, df)), rel=1e-9, abs=1e-15)


def test_overlap_is_accounted_for_a_gain_iid_counting_would_call_significant_is_not() -> None:
    # 1,500 windows whose loss differences are a moving sum over 24 shocks: ~60 independent looks
    rng = np.random.default_rng(0)
    incumbent, challenger = overlapping_losses(rng, 1500, 24, 0.2)
    naive_t = float(np.mean(incumbent - challenger) / (np.std(incumbent - challenger) / math.sqrt(1500)))
    assert naive_t > 4  # counting every window as a look: "significant" (p < 1e-5)
    verdict = weigh(incumbent, challenger, lag=hac_lag(24))
    assert verdict.gain > 0 and verdict.p_value > verdict.alpha and not verdict.replace
    assert verdict.line().startswith("kept the start over the model: the model's")
    assert "not significant" in verdict.line()


def test_false_replacements_stay_near_alpha_under_no_difference() -> None:
    rng = np.random.default_rng(1)
    verdicts = [weigh(*overlapping_losses(rng, 800, 12, 0.0), lag=hac_lag(12)) for _ in range(300)]
    assert sum(v.replace for v in verdicts) / 300 <= 1.3 * verdicts[0].alpha


def test_a_real_gain_is_kept() -> None:
    rng = np.random.default_rng(2)
    incumbent, challenger = overlapping_losses(rng, 1500, 24, 1.0)
    verdict = weigh(incumbent, challenger, lag=hac_lag(24), names=("naive", "ridge"))
    assert verdict.replace and verdict.p_value < 1e-3
    assert verdict.line().startswith("ridge replaces naive: ridge's")


def test_a_gain_lost_on_the_later_half_is_not_kept() -> None:
    incumbent = np.full(400, 1.0)
    challenger = np.concatenate([np.full(200, 0.2), np.full(200, 1.05)])  # great early, worse late
    challenger = challenger + 0.01 * np.sin(np.arange(400))
    verdict = weigh(incumbent, challenger, lag=4)
    assert verdict.gain > 0 and verdict.later_gain < 0 and not verdict.replace
    assert "does not hold on the later half" in verdict.line() or "not significant" in verdict.line()
    assert weigh(incumbent, challenger, lag=4, confirm_later=False).replace == (verdict.p_value < verdict.alpha)


def test_fewer_than_two_blocks_of_windows_are_no_evidence() -> None:
    # 7 overlapping windows at lag 8, the challenger steadily ahead by about 31% (Australian residents' validation
    # span): one block is one look, however small its spread
    incumbent = np.array([2.1, 2.4, 2.8, 3.0, 3.1, 3.3, 3.5]) * 1e-3
    challenger = incumbent * np.array([0.70, 0.68, 0.71, 0.69, 0.70, 0.72, 0.66])
    verdict = weigh(incumbent, challenger, lag=8)
    assert verdict.statistic > 5 and verdict.p_value == 1.0 and not verdict.replace
    assert verdict.line() == ("kept the start over the model: the model's 30.6% validation gain cannot be weighed: "
                              "7 windows are fewer than two blocks of 9 (lag 8); a longer validation span "
                              "(data.ratios) can")
    assert weigh(np.tile(incumbent, 3)[:18], np.tile(challenger, 3)[:18], lag=8).p_value < 0.10  # two blocks: weighed


def test_degenerate_differences() -> None:
    same = np.linspace(1, 2, 50)
    assert diebold_mariano(same, same, lag=3) == (0.0, 1.0)
    statistic, p = diebold_mariano(same, same - 0.1, lag=3)  # better everywhere by the same amount
    assert statistic == math.inf and p == 0.0
    assert degrees_of_freedom(50, 4) == 9 and degrees_of_freedom(26, 12) == 1 and degrees_of_freedom(25, 12) == 0
    with pytest.raises(ValueError, match="differ in shape"):
        weigh(same, same[:10], lag=2)
    assert diebold_mariano(same[:1], same[:1] - 0.5, lag=2) == (0.0, 1.0)  # one window: nothing to weigh
    one = weigh(same[:1], same[:1] - 0.5, lag=2)
    assert not one.replace and one.line() == ("kept the start over the model: the model's 50.0% validation gain "
                                              "cannot be weighed: 1 windows are fewer than two blocks of 3 (lag 2); "
                                              "a longer validation span (data.ratios) can")


def test_gains_too_few_to_weigh_share_one_line_per_span() -> None:
    def verdict(challenger: str, gain: float, windows: int, span: str = "validation", p: float = 1.0) -> Verdict:
        return Verdict(incumbent="ridge", challenger=challenger, replace=False, gain=gain, later_gain=gain,
                       statistic=1.0, p_value=p, lag=48, windows=windows, alpha=0.1, span=span)

    span = "held-out training and validation"
    said = lines([verdict("naive", 0.067, 4), verdict("mean", 0.551, 4), verdict("naive", -0.188, 10, span),
                  verdict("mean", 0.415, 10, span), verdict("seasonal_naive", 0.477, 4),
                  verdict("week_profile", 0.02, 500, p=0.4)])
    too_few = "cannot be weighed: {} windows are fewer than two blocks of 49 (lag 48); a longer validation span " \
              "(data.ratios) can"
    assert said == [
        f"kept ridge over mean, seasonal_naive and naive: their validation gains (55.1%, 47.7%, 6.7%) "
        f"{too_few.format(4)}",
        "kept ridge over naive: naive's 18.8% held-out training and validation loss",
        f"kept ridge over mean: mean's 41.5% held-out training and validation gain {too_few.format(10)}",
        "kept ridge over week_profile: week_profile's 2.0% validation gain is not significant (p = 0.4)"]


def test_a_gain_under_a_tenth_of_a_percent_is_said_to_its_first_digit() -> None:
    verdict = Verdict(incumbent="the start", challenger="the trained model", replace=True, gain=0.00023,
                      later_gain=0.0002, statistic=1.7, p_value=0.097, lag=48, windows=4096, alpha=0.1)
    assert verdict.line() == ("the trained model replaces the start: the trained model's 0.02% validation gain is "
                              "significant (p = 0.097, 4096 windows, lag 48; later half +0.02%)")
    tiny = Verdict(incumbent="ridge", challenger="week_profile", replace=False, gain=2e-7, later_gain=-5e-9,
                   statistic=0.8, p_value=0.4, lag=48, windows=4096, alpha=0.1)
    assert tiny.line() == "kept ridge over week_profile: week_profile's 0.00002% validation gain is not significant " \
                          "(p = 0.4)"
