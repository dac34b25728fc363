"""The ridge floor's penalty chosen on the later training windows where its regression has few rows per
regressor: the scale a brute-force search over the held-out windows picks, alpha itself elsewhere, and a forecast
that does not fit the noise of a short series."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.ridge.penalty import FALLBACK_SCALE, PENALTY_SCALES, spread
from forecast.baselines.ridge.stats import RidgeStats
from forecast.data.batch import Batch, WindowRange, window_count

SEQ, PRED = 48, 6


def dims(channels: int = 1) -> dict:
    return dict(enc_in=channels, c_out=channels, n_time_features=0, n_future=0, seq_len=SEQ, label_len=0,
                pred_len=PRED, target_index=list(range(channels)))


def windows(series: torch.Tensor, size: int = 32) -> list[Batch]:
    """Every window of ``series`` (N, C) in order, in batches of ``size``."""
    starts = range(len(series) - SEQ - PRED + 1)
    x = torch.stack([series[s:s + SEQ] for s in starts])
    y = torch.stack([series[s + SEQ:s + SEQ + PRED] for s in starts])
    none = torch.zeros(len(x), 0)
    return [Batch(x[i:i + size], none[i:i + size], none[i:i + size], y[i:i + size]) for i in range(0, len(x), size)]


def noisy_level(n: int, seed: int) -> torch.Tensor:
    """White noise around a level: the best forecast is the level, and every lag is noise. Shape (n, 1)."""
    return (5.0 + torch.randn(n, 1, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)).float()


def test_a_short_fit_takes_the_scale_that_scores_best_on_the_later_windows() -> None:
    data = windows(noisy_level(200, 0))  # 147 windows: about 3 rows per regressor
    floor = RidgeFloor(dims=dims(), alpha=1.0, choose_below=10)
    floor.fit_closed_form(data)
    n = window_count(data)
    earlier, later = RidgeStats(n_in=SEQ, n_out=PRED), RidgeStats(n_in=SEQ, n_out=PRED)
    for batch in WindowRange(data, 0, n // 2):
        earlier.update(*floor.regression(batch))
    for batch in WindowRange(data, n // 2 + PRED, n):
        later.update(*floor.regression(batch))
    losses = {s: later.squared_error(*earlier.solve(alpha=s * spread(earlier), fit_intercept=True))
              for s in PENALTY_SCALES}
    scale = min(losses, key=losses.get)
    x, y = (torch.cat(part).numpy() for part in zip(*(floor.regression(batch) for batch in data)))
    alpha = scale * float(((x - x.mean(0)) ** 2).sum(0).mean())
    assert float(floor.penalty) == pytest.approx(alpha)
    reference = Ridge(alpha=alpha).fit(x, y)
    np.testing.assert_allclose(floor.weight.double().numpy(), reference.coef_.T, rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(floor.bias.double().numpy(), reference.intercept_, rtol=1e-5, atol=1e-8)


def test_a_fit_of_enough_rows_per_regressor_keeps_alpha() -> None:
    data = windows(noisy_level(2000, 0))  # 1,947 windows: over 40 rows per regressor
    chosen, fixed = RidgeFloor(dims=dims(), choose_below=10), RidgeFloor(dims=dims())
    chosen.fit_closed_form(data)
    fixed.fit_closed_form(data)
    assert float(chosen.penalty) == 1.0
    assert torch.equal(chosen.weight, fixed.weight) and torch.equal(chosen.bias, fixed.bias)


def test_rows_count_every_target_channel() -> None:
    """150 windows of 4 channels are 600 rows, over 10 per regressor: alpha; of 1 channel, 150: chosen."""
    wide = windows(torch.cat([noisy_level(203, seed) for seed in range(4)], dim=1))
    floor = RidgeFloor(dims=dims(4), choose_below=10)
    floor.fit_closed_form(wide)
    assert float(floor.penalty) == 1.0
    narrow = RidgeFloor(dims=dims(), choose_below=10)
    narrow.fit_closed_form(windows(noisy_level(203, 0)))
    assert float(narrow.penalty) != 1.0


def test_too_few_windows_to_hold_any_out_take_the_fallback_scale() -> None:
    data = windows(noisy_level(SEQ + PRED + 8, 0))  # 9 windows: the later half starts past the last
    floor = RidgeFloor(dims=dims(), choose_below=10)
    floor.fit_closed_form(data)
    stats = floor.statistics(data)
    assert float(floor.penalty) == pytest.approx(FALLBACK_SCALE * spread(stats))


def test_on_a_short_noisy_series_the_chosen_penalty_forecasts_near_the_level_and_alpha_1_fits_noise() -> None:
    train, test = windows(noisy_level(200, 0)), windows(noisy_level(600, 1))
    chosen, fixed = RidgeFloor(dims=dims(), choose_below=10), RidgeFloor(dims=dims())
    chosen.fit_closed_form(train)
    fixed.fit_closed_form(train)

    def mse(floor: RidgeFloor) -> float:
        return float(torch.cat([(floor(b.x_enc) - b.y) ** 2 for b in test]).mean())

    assert mse(chosen) < 1.15  # the level's error is the noise's variance, 1; the last value's, 2
    assert mse(fixed) > 1.3 * mse(chosen)


def test_window_count_reads_a_range_without_a_pass() -> None:
    data = windows(noisy_level(200, 0))
    assert window_count(data) == 147
    assert window_count(WindowRange(data, 40, 100)) == 60
    assert window_count(WindowRange(data, 140, 400)) == 7
    assert window_count(WindowRange(data, 400, 500)) == 0


def test_window_count_sees_through_a_wrapper_that_keeps_the_windows() -> None:
    from forecast.wrappers.calendar import Residuals

    class Counting(list):
        passes = 0

        def __iter__(self):
            Counting.passes += 1
            return super().__iter__()

    data = Counting(windows(noisy_level(200, 0)))
    wrapped = Residuals(profile=None, batches=WindowRange(data, 10, 60), target_index=[0])  # type: ignore[arg-type]
    assert window_count(wrapped) == 50
    assert Counting.passes == 1  # the list's own count; the wrapper and the range added none


@pytest.mark.parametrize("choose_below", [0, -1.0])
def test_a_choose_below_of_zero_or_less_is_refused_in_one_line(choose_below: float) -> None:
    from forecast.core.errors import ConfigError

    with pytest.raises(ConfigError, match=rf"a ridge's choose_below \({choose_below}\) must be above 0 \(regression "
                                          r"rows per regressor\), or null to keep alpha"):
        RidgeFloor(dims=dims(), choose_below=choose_below)
