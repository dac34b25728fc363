"""The cross-channel ridge floor: scikit-learn's ridge on the flattened window, its penalty chosen on later
training windows, and a candidate of the best floor where the data has the channels for it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

from forecast.baselines.best_floor import BestFloor, candidate_floors
from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.ridge.cross import CrossRidgeFloor, fits_cross
from forecast.baselines.ridge.penalty import PENALTY_SCALES
from forecast.baselines.ridge.stats import RidgeStats
from forecast.data.batch import Batch, WindowRange

SEQ, PRED = 12, 3
SIZES = dict(enc_in=3, c_out=2, n_time_features=0, n_future=0, seq_len=SEQ, label_len=0, pred_len=PRED,
             target_index=[0, 2])


def led_series(n: int, *, seed: int = 0) -> torch.Tensor:
    """Three channels: channel 1 a smooth random signal, channel 0 the same 4 steps later plus noise, channel
    2 noise. Shape (n, 3)."""
    gen = torch.Generator().manual_seed(seed)
    signal = torch.cumsum(torch.randn(n + 4, generator=gen, dtype=torch.float64), 0)
    signal = signal - torch.nn.functional.avg_pool1d(signal[None, None], 25, 1, 12, count_include_pad=False)[0, 0]
    lead, lagged = signal[4:], signal[:-4]
    noise = 0.1 * torch.randn(n, 2, generator=gen, dtype=torch.float64)
    return torch.stack([lagged + noise[:, 0], lead, noise[:, 1]], dim=1).float()


def batches(series: torch.Tensor, targets: list[int], size: int = 64) -> list[Batch]:
    """Every window of ``series`` (N, C) in order, in batches of ``size``."""
    rows = range(len(series) - SEQ - PRED + 1)
    x = torch.stack([series[r:r + SEQ] for r in rows])
    y = torch.stack([series[r + SEQ:r + SEQ + PRED, targets] for r in rows])
    none = torch.zeros(len(x), 0)
    return [Batch(x[i:i + size], none[i:i + size], none[i:i + size], y[i:i + size]) for i in range(0, len(x), size)]


def test_the_fit_is_scikit_learns_ridge_on_the_flattened_window_at_the_chosen_penalty() -> None:
    series = led_series(400)
    data = batches(series, SIZES["target_index"])
    floor = CrossRidgeFloor(dims=SIZES)
    assert floor.fit_closed_form(data) == 400 - SEQ - PRED + 1
    x = torch.cat([b.x_enc for b in data]).double()
    y = torch.cat([b.y for b in data]).double()
    last = x[:, -1:, :]
    regressors = (x - last).reshape(len(x), -1).numpy()  # (W, SEQ * 3), step-major
    targets = (y - last[..., SIZES["target_index"]]).reshape(len(x), -1).numpy()  # (W, PRED * 2)
    centred = regressors - regressors.mean(0)
    alpha = float(floor.scale) * float((centred ** 2).sum(0).mean())
    reference = Ridge(alpha=alpha).fit(regressors, targets)
    np.testing.assert_allclose(floor.weight.double().numpy(), reference.coef_.T, rtol=2e-4, atol=1e-6)
    np.testing.assert_allclose(floor.bias.double().numpy(), reference.intercept_, rtol=2e-4, atol=1e-6)
    forecast = floor(torch.cat([b.x_enc for b in data]))  # (W, PRED, 2)
    assert forecast.shape == (len(x), PRED, 2)
    expected = (reference.predict(regressors).reshape(len(x), PRED, 2) + last[..., SIZES["target_index"]].numpy())
    np.testing.assert_allclose(forecast.double().numpy(), expected, rtol=1e-4, atol=1e-4)


def test_one_window_fits_without_a_penalty_of_zero() -> None:
    """The penalty is a multiple of the inputs' spread, which one regression row does not have: the fit is then
    the window's change (W = 0, b = the row's targets less its last values), not a singular solve (statsmodels'
    longley.csv, 16 years: the earlier half of the held-out check is one window)."""
    series = led_series(SEQ + PRED)
    floor = CrossRidgeFloor(dims=SIZES)
    assert floor.fit_closed_form(batches(series, SIZES["target_index"])) == 1
    assert not floor.weight.any()
    x, y = series[:SEQ], series[SEQ:SEQ + PRED, SIZES["target_index"]]
    torch.testing.assert_close(floor.bias, (y - x[-1:, SIZES["target_index"]]).reshape(-1))


def test_more_windows_than_the_cap_are_taken_at_an_even_stride(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("forecast.baselines.ridge.cross.MAX_WINDOWS", 100)
    data = batches(led_series(400), SIZES["target_index"])  # 386 windows: every 4th, 97 of them
    floor = CrossRidgeFloor(dims=SIZES)
    assert floor.fit_closed_form(data) == 97
    x = torch.cat([b.x_enc for b in data]).double()[::4]
    y = torch.cat([b.y for b in data]).double()[::4]
    last = x[:, -1:, :]
    regressors = (x - last).reshape(len(x), -1).numpy()
    targets = (y - last[..., SIZES["target_index"]]).reshape(len(x), -1).numpy()
    alpha = float(floor.scale) * float(((regressors - regressors.mean(0)) ** 2).sum(0).mean())
    reference = Ridge(alpha=alpha).fit(regressors, targets)
    np.testing.assert_allclose(floor.weight.double().numpy(), reference.coef_.T, rtol=2e-4, atol=1e-6)


def test_the_penalty_is_the_scale_that_scores_best_on_the_later_training_windows() -> None:
    data = batches(led_series(400), SIZES["target_index"])
    floor = CrossRidgeFloor(dims=SIZES)
    floor.fit_closed_form(data)
    windows = 400 - SEQ - PRED + 1
    earlier = RidgeStats(n_in=SEQ * 3, n_out=PRED * 2)
    later = RidgeStats(n_in=SEQ * 3, n_out=PRED * 2)
    for batch in WindowRange(data, 0, windows // 2):
        earlier.update(*floor.regression(batch))
    for batch in WindowRange(data, windows // 2 + PRED, windows):
        later.update(*floor.regression(batch))
    mean_diagonal = float(earlier.centred_xtx().diagonal().mean())
    losses = {s: later.squared_error(*earlier.solve(alpha=s * mean_diagonal, fit_intercept=True))
              for s in PENALTY_SCALES}
    assert float(floor.scale) == min(losses, key=losses.get)


def test_a_channel_that_leads_the_target_is_forecast_from_it() -> None:
    """Channel 0 follows channel 1 by 4 steps: the shared ridge sees channel 0's own past only."""
    train, test = batches(led_series(1500), [0]), batches(led_series(600, seed=1), [0])
    dims = {**SIZES, "c_out": 1, "target_index": [0]}
    cross, shared = CrossRidgeFloor(dims=dims), RidgeFloor(dims=dims)
    cross.fit_closed_form(train)
    shared.fit_closed_form(train)

    def mse(floor: torch.nn.Module) -> float:
        return float(torch.cat([(floor(b.x_enc) - b.y) ** 2 for b in test]).mean())

    assert mse(cross) < 0.25 * mse(shared)


@pytest.mark.parametrize("enc_in,seq_len,fits", [(1, 96, False), (2, 96, True), (21, 96, True), (22, 96, False)])
def test_the_cross_ridge_is_a_candidate_where_the_data_has_the_channels_for_it(enc_in: int, seq_len: int,
                                                                              fits: bool) -> None:
    dims = {**SIZES, "enc_in": enc_in, "seq_len": seq_len, "c_out": 1, "target_index": [0]}
    assert fits_cross(dims) == fits
    assert ("cross_ridge" in candidate_floors(dims, None, cross=True)) == fits
    assert "cross_ridge" not in candidate_floors(dims, None)
    assert ("cross_ridge" in BestFloor(dims=dims, cross=True).names) == fits


def test_the_best_floor_chooses_the_cross_ridge_where_another_channel_leads() -> None:
    series = led_series(2000)
    dims = {**SIZES, "c_out": 1, "target_index": [0]}
    floor = BestFloor(dims=dims, cross=True)
    floor.fit_closed_form(batches(series[:1400], [0]))
    floor.select_on_validation(batches(series[1400:], [0]))
    assert floor.chosen == "cross_ridge"
