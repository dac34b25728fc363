"""The channel-independent MLP residual net: what each channel's forecast reads, and its zero start."""

from __future__ import annotations

import re

import pytest
import torch

from forecast.baselines.ridge import RidgeFloor
from forecast.data.batch import Batch
from forecast.models.mlp import WindowMLP
from forecast.wrappers.floor_residual import FloorResidual
from forecast.wrappers.instance_norm import InstanceNorm


def dims(enc_in: int = 3, target_index: list[int] | None = None) -> dict:
    target_index = list(range(enc_in)) if target_index is None else target_index
    return dict(enc_in=enc_in, c_out=len(target_index), n_time_features=4, n_future=0, seq_len=24, label_len=12,
                pred_len=8, target_index=target_index)


def inputs(b: int = 4, c: int = 3) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(0)
    return (torch.randn(b, 24, c, generator=g), torch.rand(b, 24, 9, generator=g) - 0.5,
            torch.rand(b, 20, 9, generator=g) - 0.5, torch.randn(b, 8, 2, generator=g))


def model(**options) -> WindowMLP:
    torch.manual_seed(0)
    return WindowMLP(dims=dims(3, [0, 2]), hidden=16, **options).eval()


def test_each_channel_is_one_shared_mlp_of_its_own_window_prior_and_the_horizon_marks() -> None:
    net = model()
    x, me, md, prior = inputs()
    out = net(x, me, md, prior=prior)  # (B, P, 2)
    assert out.shape == (4, 8, 2)
    marks = md[:, -8:, :4].reshape(4, -1)  # (B, P * 4): the continuous calendar features of the horizon
    for position, channel in enumerate((0, 2)):
        row = torch.cat([x[..., channel], prior[..., position], marks], dim=-1)  # (B, L + P + 4P)
        torch.testing.assert_close(out[..., position], net.head(net.body(row)), rtol=0, atol=1e-6)


def test_a_channel_forecast_does_not_read_another_channel_or_the_input_marks() -> None:
    net = model()
    x, me, md, prior = inputs()
    out = net(x, me, md, prior=prior)
    moved = x.clone()
    moved[..., 1:] += 5.0  # channel 1 (not a target) and channel 2
    prior_moved = prior.clone()
    prior_moved[..., 1] += 5.0
    other = net(moved, me + 1.0, md, prior=prior_moved)
    torch.testing.assert_close(other[..., 0], out[..., 0], rtol=0, atol=0)
    assert not torch.allclose(other[..., 1], out[..., 1])


def test_without_marks_the_calendar_is_not_read_and_no_prior_reads_zeros() -> None:
    net = model(marks=False)
    x, me, md, prior = inputs()
    torch.testing.assert_close(net(x, me, md), net(x, me, md + 1.0, prior=torch.zeros_like(prior)), rtol=0, atol=0)
    assert not torch.allclose(net(x, me, md), net(x, me, md, prior=prior))


@pytest.mark.parametrize("options,message", [(dict(hidden=0), "the MLP's hidden (0) must be at least 1"),
                                             (dict(layers=0), "the MLP's layers (0) must be at least 1"),
                                             (dict(dropout=1.0), "the MLP's dropout (1.0) must be in [0, 1)")])
def test_an_impossible_size_is_refused(options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        WindowMLP(dims=dims(), **options)


def test_as_a_floor_residual_it_starts_at_the_floor_reads_it_and_then_learns() -> None:
    torch.manual_seed(0)
    x, me, md, _ = inputs(b=32)
    y = x[:, -8:, :] + 0.1 * torch.randn(32, 8, 3)
    batches = [Batch(x, me, md, y)]
    residual = FloorResidual(floor=RidgeFloor, show_floor=True, dims=dims(),
                             net=lambda dims: InstanceNorm(net=WindowMLP, restore_mean=False, dims=dims))
    residual.fit_closed_form(batches)
    assert residual.net.output_is_zero() and residual.net.takes_prior()
    torch.testing.assert_close(residual.eval()(x, me, md), residual.floor(x, me, md), rtol=0, atol=0)
    seen = []
    residual.net.net.register_forward_hook(lambda module, args, kwargs, out: seen.append(kwargs.get("prior")),
                                           with_kwargs=True)
    residual.train()
    optimiser = torch.optim.Adam(residual.net.parameters(), lr=1e-2)
    torch.nn.functional.mse_loss(residual(x, me, md), y).backward()
    optimiser.step()
    assert seen[0] is not None and seen[0].shape == (32, 8, 3)  # the floor's forecast, normalised
    assert not residual.net.output_is_zero()
    assert not torch.allclose(residual.eval()(x, me, md), residual.floor(x, me, md))


def test_known_future_inputs_of_the_horizon_are_read_and_the_integer_calendar_fields_are_not() -> None:
    torch.manual_seed(0)
    net = WindowMLP(dims={**dims(3, [0, 2]), "n_future": 2}, hidden=16).eval()
    x, me, md, prior = inputs()
    out = net(x, me, md, prior=prior)
    fields = md.clone()
    fields[:, :, 6:] += 3.0  # the integer calendar fields after the 4 features and 2 known inputs
    torch.testing.assert_close(net(x, me, fields, prior=prior), out, rtol=0, atol=0)
    known = md.clone()
    known[:, -8:, 5] += 1.0  # a known input in the horizon
    assert not torch.allclose(net(x, me, known, prior=prior), out)
    label = md.clone()
    label[:, :-8, :6] += 1.0  # the start token's rows are not the horizon
    torch.testing.assert_close(net(x, me, label, prior=prior), out, rtol=0, atol=0)
