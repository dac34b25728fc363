"""Split conformal quantiles: the finite-sample rank, infinity when too few windows, coverage, levels; the
half-widths tracked online: nominal coverage on exchangeable and on drifting errors, only known actuals used."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from forecast.data.errors import DataError
from forecast.predict.scores import interval_score
from forecast.training.conformal import (ADAPT_RATE, LEVELS, calibrate, check_levels, conformal_quantile, half_widths,
                                         label, step_rates, track_half_widths, tracked_width_at,
                                         validation_scores)


@pytest.mark.parametrize("n", [1, 9, 19, 99, 100, 257])
@pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99])
def test_quantile_is_the_finite_sample_rank(n: int, level: float) -> None:
    scores = np.random.default_rng(n).exponential(size=(n, 3, 2))
    got = conformal_quantile(scores, level)
    rank = math.ceil((n + 1) * level - 1e-9)
    if rank > n:
        assert np.isinf(got).all()
    else:  # the rank-th smallest of each (step, channel), by a direct sort
        for p in range(3):
            for c in range(2):
                assert got[p, c] == sorted(scores[:, p, c])[rank - 1]


def test_rank_at_exact_multiples() -> None:
    """(n+1)*level an integer (99 windows at 0.8: rank 80) takes that rank, not the next one."""
    scores = np.arange(1, 100, dtype=np.float64)[:, None]  # 1 .. 99
    assert conformal_quantile(scores, 0.8)[0] == 80.0
    assert conformal_quantile(scores, 0.99)[0] == 99.0  # ceil(100 * 0.99) = 99 <= n
    assert np.isinf(conformal_quantile(scores[:98], 0.99)[0])  # ceil(99 * 0.99) = 99 > 98


def test_coverage_on_exchangeable_errors_is_near_nominal() -> None:
    """Averaged over calibration draws, coverage on fresh errors from the same distribution is
    ceil((n+1)a)/(n+1): at least the level, and within 1/(n+1) of it."""
    rng = np.random.default_rng(0)
    n, reps, fresh = 39, 400, 500
    scale = np.array([[0.5, 2.0], [1.0, 3.0]])  # (P, C): each (step, channel) has its own spread
    for level in (0.5, 0.8, 0.95):
        covered = []
        for _ in range(reps):
            calib = np.abs(rng.standard_t(4, size=(n, 2, 2)) * scale)
            test = np.abs(rng.standard_t(4, size=(fresh, 2, 2)) * scale)
            covered.append((test <= conformal_quantile(calib, level)).mean(axis=0))
        mean = np.mean(covered, axis=0)  # (P, C)
        expected = math.ceil((n + 1) * level) / (n + 1)
        assert np.all(np.abs(mean - expected) < 0.012), (level, mean)
        assert np.all(mean > level - 0.012)


def test_calibrate_stores_every_grid_level() -> None:
    scores = np.random.default_rng(1).random((50, 4, 3))
    entry = calibrate(scores)
    assert entry["n"] == 50 and len(entry["levels"]) == 99 and tuple(entry["half_widths"].shape) == (99, 4, 3)
    widths = half_widths(entry, [0.8, 0.95], source="x")
    np.testing.assert_allclose(widths[0.8], conformal_quantile(scores, 0.8), rtol=1e-6)
    assert np.isfinite(widths[0.95]).all()
    assert np.all(np.diff(entry["half_widths"].numpy(), axis=0) >= 0)  # wider with the level


def test_every_level_is_its_own_rank_of_one_sort_and_the_scores_are_copied_once() -> None:
    scores = np.random.default_rng(2).random((400, 24, 7)).astype(np.float32)  # (n, P, C_out), 269 KB
    tracemalloc.start()
    entry = calibrate(scores)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    ordered = np.sort(scores, axis=0)
    for k, level in enumerate(LEVELS):  # rank ceil(401 * level) <= 400 for every grid level
        np.testing.assert_array_equal(entry["half_widths"][k].numpy(),
                                      ordered[math.ceil(401 * level - 1e-9) - 1])
    # one sorted copy and the (99, P, C_out) table, not a sorted copy per level (99 x 269 KB)
    assert peak < 2 * scores.nbytes + 3 * 99 * 24 * 7 * 4


def test_levels_checked() -> None:
    assert check_levels([0.95, 0.8, 0.8]) == [0.8, 0.95]
    assert [label(a) for a in (0.8, 0.95, 0.05)] == ["80", "95", "5"]
    assert 0.8 in LEVELS and 0.99 in LEVELS
    with pytest.raises(DataError, match=r"in \(0, 1\), got 80 \(a fraction: write 0.8 for 80%\)"):
        check_levels([80])
    with pytest.raises(DataError, match="in \\(0, 1\\), got 1$"):
        check_levels([1.0])
    with pytest.raises(DataError, match="whole-percent"):
        check_levels([0.975])
    with pytest.raises(DataError, match="no interval calibration"):
        half_widths(None, [0.8], source="old.ckpt")


def test_validation_scores_leave_the_rng_alone() -> None:
    from forecast.data.windows import WindowDataset

    n, c = 80, 2
    x = torch.randn(n, c)
    ds = WindowDataset(x, x, torch.zeros(n, 1), start=0, end=n, seq_len=8, label_len=4, pred_len=3)

    class Last(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = torch.nn.Parameter(torch.ones(()))

        def forward(self, x_enc, x_mark_enc, x_mark_dec):  # (B, S, C) -> (B, P, C): the last value repeated
            return self.w * x_enc[:, -1:, :].expand(-1, 3, -1)

    torch.manual_seed(3)
    scores = validation_scores(Last(), DataLoader(ds, batch_size=7))
    after = torch.rand(1)
    torch.manual_seed(3)
    assert torch.equal(after, torch.rand(1))
    assert scores.shape == (len(ds), 3, c)
    first = ds[0]
    np.testing.assert_allclose(scores[0], (first.x_enc[-1:].expand(3, -1) - first.y).abs().numpy(), rtol=1e-6)


def _sampling_error(level: float, n: int) -> float:
    """Three standard errors of a share ``level`` estimated from ``n`` independent draws."""
    return 3 * math.sqrt(level * (1 - level) / n)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_tracked_and_split_cover_exchangeable_errors_at_the_nominal_rate(level: float) -> None:
    """i.i.d. errors (validation and test alike): both the split interval and the tracked one cover within
    sampling error of the level."""
    rng = np.random.default_rng(4)
    n_win, n_step, n_col = 1000, 3, 2
    scale = np.array([[1.0, 2.0], [1.5, 0.5], [3.0, 1.0]])  # (P, C)
    calib = np.abs(rng.normal(size=(500, n_step, n_col))) * scale
    errors = np.abs(rng.normal(size=(n_win, n_step, n_col))) * scale
    start = conformal_quantile(calib, level)
    tracked = track_half_widths(errors, np.arange(n_win), start, level)
    tolerance = _sampling_error(level, errors.size)
    assert abs((errors <= start).mean() - level) < tolerance + 1 / 501  # split: ceil((n+1)a)/(n+1) on average
    assert abs((errors <= tracked).mean() - level) < tolerance
    assert np.all(np.abs((errors <= tracked).mean(axis=0) - level) < 3 * tolerance)  # every (step, column)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_tracking_keeps_the_level_when_the_errors_drift(level: float) -> None:
    """Errors that grow threefold through the span: the split interval from the calm start under-covers, the
    tracked one stays within the deterministic bound (B + (d + 2) eta) / (eta T) of the level, per stream."""
    rng = np.random.default_rng(5)
    n_win, n_step = 3000, 4
    growth = np.linspace(1.0, 3.0, n_win)[:, None, None]
    calib = np.abs(rng.normal(size=(400, n_step, 1)))
    errors = np.abs(rng.normal(size=(n_win, n_step, 1))) * growth
    start = conformal_quantile(calib, level)
    tracked = track_half_widths(errors, np.arange(n_win), start, level)
    assert (errors <= start).mean() < level - 0.15
    eta = ADAPT_RATE * start  # (P, 1)
    delay = np.arange(1, n_step + 1)[:, None]  # step p's feedback arrives p + 1 windows later
    bound = (errors.max(axis=0) + (delay + 2) * eta) / (eta * n_win)  # (P, 1)
    per_stream = (errors <= tracked).mean(axis=0)  # (P, 1)
    assert np.all(np.abs(per_stream - level) <= bound)
    assert abs((errors <= tracked).mean() - level) < 0.02


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_tracking_recovers_the_level_after_a_step_change_in_the_error_scale(level: float) -> None:
    """Errors three times larger from the middle of the span on: the split interval under-covers the second
    half; the tracked one is back within sampling error of the level over the last quarter."""
    rng = np.random.default_rng(8)
    n_win, n_step = 4000, 2
    scale = np.where(np.arange(n_win) < n_win // 2, 1.0, 3.0)[:, None, None]
    calib = np.abs(rng.normal(size=(500, n_step, 1)))
    errors = np.abs(rng.normal(size=(n_win, n_step, 1))) * scale
    start = conformal_quantile(calib, level)
    tracked = track_half_widths(errors, np.arange(n_win), start, level)
    late = slice(3 * n_win // 4, None)
    assert (errors[n_win // 2:] <= start).mean() < level - 0.2
    assert abs((errors[late] <= tracked[late]).mean() - level) < _sampling_error(level, errors[late].size)


@pytest.mark.parametrize("level", [0.8, 0.95])
def test_tracking_bound_holds_against_an_adaptive_adversary(level: float) -> None:
    """An adversary that sees each window's half-width before choosing its errors (bound ``B`` when the
    width is below ``B``, a miss; else 0, a hit) and one that alternates long calm and wild blocks: per
    step, the miss share stays within (B + (d + 2) eta) / (eta T) of 1 - level, B bounding errors and start."""
    n_win, n_step, bound_b = 400, 3, 2.0
    start = np.array([[0.5], [1.0], [2.0]])  # (P, 1), at most B
    origins = np.arange(n_win)
    errors = np.zeros((n_win, n_step, 1))
    for j in range(n_win):  # window j's widths do not depend on errors[j]: choose them after seeing the widths
        widths = track_half_widths(errors[:j + 1], origins[:j + 1], start, level)[j]
        errors[j] = np.where(widths < bound_b, bound_b, 0.0)
    blocks = np.where((np.arange(n_win) // 50) % 2 == 0, 0.0, bound_b)[:, None, None] * np.ones((1, n_step, 1))
    eta = ADAPT_RATE * start  # (P, 1)
    delay = np.arange(n_step)[:, None]  # step p of window i is known at window i + p + 1: p windows late
    limit = (bound_b + (delay + 2) * eta) / (eta * n_win)  # (P, 1)
    for errs in (errors, blocks):
        tracked = track_half_widths(errs, origins, start, level)
        miss_share = (errs > tracked).mean(axis=0)  # (P, 1)
        assert np.all(np.abs(miss_share - (1 - level)) <= limit)
    assert np.all((errors > track_half_widths(errors, origins, start, level)).mean(axis=0) > 1 - level)


def test_tracking_uses_only_the_actuals_known_at_each_origin() -> None:
    """Every 3rd origin: window j's widths do not move when an error not yet known at its origin changes
    (step p of window i is known once origins[i] + 1 + p <= origins[j]), and do move with a known one."""
    rng = np.random.default_rng(6)
    n_win, n_step = 60, 7
    origins = 3 * np.arange(n_win) + 100
    errors = np.abs(rng.normal(size=(n_win, n_step, 2)))
    start = np.ones((n_step, 2))
    base = track_half_widths(errors, origins, start, 0.8)
    j = 30
    unknown = origins[:, None] + 1 + np.arange(n_step)[None, :] > origins[j]  # (W, P)
    changed = errors.copy()
    changed[unknown] = 50.0  # every not-yet-known error becomes a miss
    np.testing.assert_array_equal(track_half_widths(changed, origins, start, 0.8)[:j + 1], base[:j + 1])
    known = errors.copy()
    known[~unknown] = 50.0  # every known error becomes a miss: window j's intervals widen
    assert np.all(track_half_widths(known, origins, start, 0.8)[j] > base[j])


@pytest.mark.parametrize("cells", [1 << 23, 7 * 3 * 2])  # one group; a series a group (the smallest is 7 windows)
def test_series_tracked_side_by_side_are_each_tracked_alone(monkeypatch: pytest.MonkeyPatch, cells: int) -> None:
    """Five series of 7 to 40 windows at strides 1, 2 and 5, their windows interleaved as a panel's backtest holds
    them: the widths of each, to the bit, those it gets tracked on its own."""
    import forecast.training.conformal as conformal

    monkeypatch.setattr(conformal, "TRACKED_CELLS", cells)
    rng = np.random.default_rng(7)
    sizes, strides = (40, 7, 23, 40, 12), (1, 2, 5, 1, 2)
    series = rng.permutation(np.repeat(np.arange(5), sizes))  # (W,) each window's series, shuffled
    windows_of = [np.flatnonzero(series == k) for k in range(5)]
    origins = np.empty(len(series), dtype=np.int64)
    for k, at in enumerate(windows_of):
        origins[at] = 50 + strides[k] * np.arange(len(at))
    errors = np.abs(rng.normal(size=(len(series), 3, 2))) * rng.uniform(0.5, 2, size=(len(series), 1, 1))
    start = np.array([[1.0, 0.5], [1.2, np.inf], [1.5, 0.0]])
    together = conformal.track_series(errors, origins, windows_of, start, 0.9)
    for at in windows_of:
        np.testing.assert_array_equal(together[at], track_half_widths(errors[at], origins[at], start, 0.9))
    assert not np.array_equal(together[windows_of[0]], together[windows_of[3]])  # the same sizes, other errors


def test_the_width_at_a_later_row_is_the_state_a_window_there_would_get() -> None:
    """``tracked_width_at(errors[:j], ..., at=origins[j])`` is window j's tracked width, whatever comes after
    it; with no windows it is the start."""
    rng = np.random.default_rng(8)
    n_win, n_step = 40, 5
    origins = 2 * np.arange(n_win) + 50
    errors = np.abs(rng.normal(size=(n_win, n_step, 3))) * np.linspace(0.5, 3, n_win)[:, None, None]
    start = np.full((n_step, 3), 1.2)
    tracked = track_half_widths(errors, origins, start, 0.9)
    for j in (0, 1, 7, 39):
        got = tracked_width_at(errors[:j], origins[:j], start, 0.9, at=int(origins[j]))
        np.testing.assert_array_equal(got, tracked[j])
    unseen = origins[:, None] + 1 + np.arange(n_step)[None, :] > origins[-1]  # (W, P): unknown then
    errors[unseen] = 50.0
    later = tracked_width_at(errors, origins, start, 0.9, at=int(origins[-1]) + n_step)  # every error known
    assert np.all(later > tracked[-1])
    np.testing.assert_array_equal(tracked_width_at(errors[:0], origins[:0], start, 0.9, at=10), start)


def test_tracking_keeps_infinite_and_zero_starts() -> None:
    errors = np.abs(np.random.default_rng(7).normal(size=(50, 2, 1)))
    start = np.array([[np.inf], [0.0]])
    got = track_half_widths(errors, np.arange(50), start, 0.9)
    assert np.isinf(got[:, 0]).all() and (got[:, 1] == 0).all()


def test_step_rates_shrink_after_the_first_steps_as_one_over_the_square_root() -> None:
    rates = step_rates(0.05, 9)
    np.testing.assert_allclose(rates[:4], 0.05)
    np.testing.assert_allclose(rates[4:], 0.05 * np.sqrt(4 / np.arange(5, 10)))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("level", [0.8, 0.95])
def test_long_horizon_widths_do_not_swing_with_the_overlap_of_the_errors(seed: int, level: float) -> None:
    """Naive forecasts of a random walk, 192 steps ahead: step p's error is N(0, p + 1), shared in part by the
    next p windows. Started at the true quantiles, a fixed rate of 0.05 at every step swings the late steps'
    widths (interval score 1.9-2.7 x the true quantiles' here); the rate shrunk with the step stays near them."""
    from statistics import NormalDist

    horizon, windows = 192, 2000
    walk = np.cumsum(np.random.default_rng(seed).standard_normal(windows + horizon + 1))
    origins = np.arange(windows)
    errors = np.abs(walk[origins[:, None] + 1 + np.arange(horizon)] - walk[origins][:, None])[..., None]  # (W, P, 1)
    start = NormalDist().inv_cdf((1 + level) / 2) * np.sqrt(np.arange(horizon) + 1.0)[:, None]  # (P, 1)

    def score(widths: np.ndarray) -> float:  # of the interval around the forecast, on the absolute errors
        return float(interval_score(-widths, widths, errors, level).mean())

    true = score(np.broadcast_to(start, errors.shape))
    shrunk = score(track_half_widths(errors, origins, start, level))
    fixed = score(track_half_widths(errors, origins, start, level, rate=np.full(horizon, ADAPT_RATE)))
    assert shrunk < 1.5 * true and fixed > 1.8 * true and shrunk < 0.75 * fixed
