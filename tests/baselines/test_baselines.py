"""Baselines: exact values on hand-made windows, DLinear shapes and decomposition, ridge == scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

from forecast.baselines.dlinear import DLinear, MovingAverageDecomposition
from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.ridge.stats import RidgeStats
from forecast.baselines.mean import WindowMean
from forecast.baselines.naive import Naive
from forecast.baselines.seasonal_naive import SeasonalNaive
from forecast.data.season import calendar_step, period_for
from forecast.data.batch import Batch


def dims(seq_len: int, pred_len: int, target_index: list[int], enc_in: int = 3) -> dict:
    return {"enc_in": enc_in, "c_out": len(target_index), "n_time_features": 4, "n_future": 0, "seq_len": seq_len,
            "label_len": 0, "pred_len": pred_len, "target_index": target_index}


def window() -> torch.Tensor:
    """(B=2, L=6, C=3): channel c of window b holds 100 * b + 10 * c + t."""
    t = torch.arange(6.0)
    return torch.stack([torch.stack([100 * b + 10 * c + t for c in range(3)], dim=1) for b in range(2)])


def test_naive_repeats_the_last_value_of_every_channel() -> None:
    out = Naive(dims=dims(6, 4, [0, 1, 2]))(window(), None, None)
    assert out.shape == (2, 4, 3)
    assert torch.equal(out[1, :, 2], torch.full((4,), 125.0))
    assert torch.equal(out[0, 3], torch.tensor([5.0, 15.0, 25.0]))


def test_mean_is_the_window_mean_and_ms_selects_the_target_channel() -> None:
    out = WindowMean(dims=dims(6, 3, [2]))(window(), None, None)  # MS: target is input channel 2
    assert out.shape == (2, 3, 1)
    assert torch.equal(out[:, :, 0], torch.tensor([[22.5] * 3, [122.5] * 3]))


def test_seasonal_naive_repeats_the_last_season() -> None:
    out = SeasonalNaive(dims=dims(6, 5, [1], enc_in=3), period=2)(window(), None, None)
    assert out.shape == (2, 5, 1)
    assert out[0, :, 0].tolist() == [14.0, 15.0, 14.0, 15.0, 14.0]
    assert out[1, :, 0].tolist() == [114.0, 115.0, 114.0, 115.0, 114.0]


def test_seasonal_naive_needs_a_period_that_fits_the_window() -> None:
    with pytest.raises(ValueError, match="model.period"):
        SeasonalNaive(dims=dims(6, 5, [0]), period=None)
    with pytest.raises(ValueError, match="seq_len"):
        SeasonalNaive(dims=dims(6, 5, [0]), period=7)


@pytest.mark.parametrize(("freq", "period"), [("h", 24), ("15min", 96), ("D", 7), ("B", 5), ("W", 52),
                                              ("W-SUN", 52), ("MS", 12), ("2h", 12), (None, None), ("nonsense", None)])
def test_period_for_frequency(freq: str | None, period: int | None) -> None:
    assert period_for(freq) == period


@pytest.mark.parametrize(("freq", "step"), [("h", 60), ("15min", 15), ("2h", 120), ("90min", 90), ("7min", 1),
                                            ("min", 1), ("30s", 1), ("D", 1440), ("3D", 1440), ("B", 1440),
                                            ("W", 1), ("MS", 1), ("QS", 1), (None, 1), ("bogus", 1)])
def test_calendar_step_is_the_step_in_minutes_where_it_divides_a_day(freq: str | None, step: int) -> None:
    assert calendar_step(freq) == step


def test_baselines_take_no_attention_arguments() -> None:
    assert Naive(dims=dims(6, 2, [0]))(window(), None, None).shape == (2, 2, 1)
    with pytest.raises(TypeError, match="encoder_attention"):
        Naive(dims=dims(6, 2, [0]), encoder_attention=object())


def test_decomposition_sums_back_to_the_input_and_averages_with_replicate_padding() -> None:
    x = torch.randn(3, 40, 2)
    seasonal, trend = MovingAverageDecomposition(kernel_size=25)(x)
    torch.testing.assert_close(seasonal + trend, x)
    padded = torch.cat([x[:, :1].expand(-1, 12, -1), x, x[:, -1:].expand(-1, 12, -1)], dim=1)
    torch.testing.assert_close(trend[:, 0], padded[:, :25].mean(1))
    torch.testing.assert_close(trend[:, -1], padded[:, -25:].mean(1))


@pytest.mark.parametrize("individual", [False, True])
def test_dlinear_shapes_and_channel_independence(individual: bool) -> None:
    torch.manual_seed(0)
    model = DLinear(dims=dims(48, 12, [0, 2]), individual=individual)
    x = torch.randn(4, 48, 3)
    out = model(x, None, None)
    assert out.shape == (4, 12, 2)
    x2 = x.clone()
    x2[..., 1] = 0.0  # not a target channel: no influence
    torch.testing.assert_close(model(x2, None, None), out)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    assert sum(p.numel() for p in model.parameters()) == 2 * (2 if individual else 1) * (48 * 12 + 12)


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_ridge_closed_form_equals_sklearn(fit_intercept: bool) -> None:
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(300, 10)), rng.normal(size=(300, 4))
    stats = RidgeStats(n_in=10, n_out=4)
    stats.update(torch.from_numpy(x[:120]), torch.from_numpy(y[:120]))  # in two chunks
    stats.update(torch.from_numpy(x[120:]), torch.from_numpy(y[120:]))
    w, b = stats.solve(alpha=1.0, fit_intercept=fit_intercept)
    ref = Ridge(alpha=1.0, fit_intercept=fit_intercept, solver="cholesky").fit(x, y)
    np.testing.assert_allclose(w.numpy(), ref.coef_.T, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(b.numpy(), np.broadcast_to(ref.intercept_, (4,)), rtol=1e-8, atol=1e-10)


def test_ridge_floor_fits_the_relative_design_of_every_channel_and_forecasts_with_it() -> None:
    torch.manual_seed(0)
    seq_len, pred_len = 8, 3
    model = RidgeFloor(dims=dims(seq_len, pred_len, [0, 1, 2]))
    assert not any(p.requires_grad for p in model.parameters())
    series = torch.cumsum(torch.randn(200, 3), dim=0)
    starts = range(0, 200 - seq_len - pred_len + 1)
    x_enc = torch.stack([series[s:s + seq_len] for s in starts])  # (N, L, C)
    y = torch.stack([series[s + seq_len:s + seq_len + pred_len] for s in starts])  # (N, P, C)
    batches = [Batch(x_enc[i:i + 50], torch.zeros(0), torch.zeros(0), y[i:i + 50]) for i in range(0, len(x_enc), 50)]
    assert model.fit_closed_form(batches) == 3 * len(x_enc)

    last = x_enc[:, -1:, :]
    design = (x_enc - last).permute(0, 2, 1).reshape(-1, seq_len).double().numpy()  # (N*C, L)
    target = (y - last).permute(0, 2, 1).reshape(-1, pred_len).double().numpy()  # (N*C, P)
    ref = Ridge(alpha=1.0).fit(design, target)
    np.testing.assert_allclose(model.weight.numpy(), ref.coef_.T, rtol=1e-4, atol=1e-5)
    pred = model(x_enc, None, None)  # (N, P, C)
    expected = torch.from_numpy(ref.predict(design)).float().reshape(-1, 3, pred_len).permute(0, 2, 1) + last
    torch.testing.assert_close(pred, expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("target_index", [[0, 1, 2], [1, 2], [2], [2, 0], [0, 2]])
def test_target_channels_are_a_view_when_consecutive_and_the_same_values_either_way(target_index: list[int]) -> None:
    x = window()  # (2, 6, 3)
    targets = Naive(dims=dims(6, 2, target_index)).targets(x)  # (2, 6, C_out)
    torch.testing.assert_close(targets, x[..., torch.tensor(target_index)], rtol=0, atol=0)
    consecutive = target_index == list(range(target_index[0], target_index[0] + len(target_index)))
    assert (targets.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()) == consecutive
