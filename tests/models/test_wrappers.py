"""The add-on wrappers around any forecaster: instance norm, channel independence, floor residual."""

from __future__ import annotations

import functools
import pathlib
import re

import pytest
import torch

from forecast.attention.full import FullAttention
from forecast.baselines.dlinear import DLinear
from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.naive import Naive
from forecast.core.errors import ConfigError
from forecast.core.forecaster import Forecaster
from forecast.data.batch import Batch
from forecast.models.informer import Informer
from forecast.wrappers.channel_independent import ChannelIndependent
from forecast.wrappers.floor_residual import FloorResidual
from forecast.wrappers.instance_norm import InstanceNorm

FULL = functools.partial(FullAttention, dropout=0.0)
INFORMER = functools.partial(Informer, encoder_attention=FULL, decoder_attention=FULL, cross_attention=FULL,
                             d_model=16, n_heads=2, d_ff=32, dropout=0.0)


def dims(enc_in: int = 3, target_index: list[int] | None = None) -> dict:
    target_index = list(range(enc_in)) if target_index is None else target_index
    return dict(enc_in=enc_in, c_out=len(target_index), n_time_features=4, n_future=0, seq_len=24, label_len=12,
                pred_len=8, target_index=target_index)


def inputs(b: int = 4, c: int = 3) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    torch.manual_seed(0)
    return torch.randn(b, 24, c) * 3 + 5, torch.rand(b, 24, 9) - 0.5, torch.rand(b, 20, 9) - 0.5


def test_instance_norm_feeds_the_net_each_window_normalised_and_undoes_it_on_the_targets() -> None:
    torch.manual_seed(0)
    model = InstanceNorm(net=INFORMER, dims=dims(3, [0, 2])).eval()
    x, me, md = inputs()
    mean, std = x.mean(1, keepdim=True), (x.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt()
    inner = model.net((x - mean) / std, me, md)  # (B, P, 2)
    torch.testing.assert_close(model(x, me, md), inner * std[..., [0, 2]] + mean[..., [0, 2]])
    residual = InstanceNorm(net=INFORMER, restore_mean=False, dims=dims(3, [0, 2])).eval()
    residual.net.load_state_dict(model.net.state_dict())
    torch.testing.assert_close(residual(x, me, md), inner * std[..., [0, 2]])


def test_instance_norm_stats_are_the_windows_mean_and_population_std_far_from_zero() -> None:
    torch.manual_seed(0)
    model = InstanceNorm(net=INFORMER, dims=dims(5)).eval()
    x = (torch.randn(3, 24, 5, dtype=torch.float64) * 0.01 + 1e4).float().requires_grad_()  # (B, L, C)
    y, (mean, std) = model.normalize(x)
    exact = x.detach().double()
    torch.testing.assert_close(mean, exact.mean(1, keepdim=True).float())
    torch.testing.assert_close(std, (exact.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt().float(), rtol=1e-5,
                               atol=0.0)
    assert not mean.requires_grad and not std.requires_grad
    y.sum().backward()  # the stats are constants: d y / d x = 1 / std
    torch.testing.assert_close(x.grad, (1 / std).expand_as(x))


def test_instance_norm_with_affine_undoes_its_scale_and_bias() -> None:
    model = InstanceNorm(net=INFORMER, affine=True, dims=dims()).eval()
    with torch.no_grad():
        model.weight.copy_(torch.tensor([2.0, 0.5, 1.5]))
        model.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
    x, me, md = inputs()
    mean, std = x.mean(1, keepdim=True), (x.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt()
    inner = model.net((x - mean) / std * model.weight + model.bias, me, md)
    expected = (inner - model.bias) / (model.weight + 1e-10) * std + mean
    torch.testing.assert_close(model(x, me, md), expected)


def test_channel_independent_forecasts_each_channel_alone_with_one_shared_net() -> None:
    model = ChannelIndependent(net=INFORMER, dims=dims(3, [0, 2])).eval()
    assert model.net.enc_embedding.token.conv.in_channels == 1
    x, me, md = inputs()
    out = model(x, me, md)  # (B, P, 2)
    assert out.shape == (4, 8, 2)
    for position, channel in enumerate((0, 2)):
        alone = model.net(x[..., channel:channel + 1], me, md)[..., 0]  # (B, P)
        torch.testing.assert_close(out[..., position], alone, rtol=0, atol=1e-5)


@pytest.mark.parametrize("net", [functools.partial(InstanceNorm, net=INFORMER, restore_mean=False),
                                 INFORMER, DLinear], ids=["instance-norm-informer", "informer", "dlinear"])
def test_a_floor_residual_starts_exactly_at_its_floor_then_learns(net) -> None:
    torch.manual_seed(0)
    x, me, md = inputs(b=16)
    y = x[:, -8:, :] + 0.1 * torch.randn(16, 8, 3)
    batches = [Batch(x, me, md, y)]
    model = FloorResidual(floor=RidgeFloor, net=net, dims=dims())
    assert model.fit_closed_form(batches) == 16 * 3
    floor = RidgeFloor(dims=dims())
    floor.fit_closed_form(batches)
    torch.testing.assert_close(model.eval()(x, me, md), floor(x), rtol=0, atol=1e-5)
    model.train()
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    before = model.floor.weight.clone()
    torch.nn.functional.mse_loss(model(x, me, md), y).backward()
    optimiser.step()
    assert torch.equal(model.floor.weight, before)  # the floor stays as fitted
    assert not torch.allclose(model.eval()(x, me, md), floor(x))  # the residual moved


@pytest.mark.parametrize("net", [functools.partial(InstanceNorm, net=INFORMER, restore_mean=False),
                                 INFORMER, DLinear], ids=["instance-norm-informer", "informer", "dlinear"])
def test_a_floor_residual_at_its_start_forecasts_the_floor_without_running_the_net(net) -> None:
    torch.manual_seed(0)
    x, me, md = inputs(b=16)
    batches = [Batch(x, me, md, x[:, -8:, :])]
    model = FloorResidual(floor=RidgeFloor, net=net, dims=dims()).eval()
    model.fit_closed_form(batches)
    calls = []
    model.net.register_forward_hook(lambda *_: calls.append(1))
    with torch.enable_grad():
        full = model(x, me, md)  # the net runs: floor + exact zeros
    assert calls == [1] and model.net.output_is_zero()
    with torch.no_grad():
        start = model(x, me, md)
    assert calls == [1]  # not run again
    assert torch.equal(start, full) and torch.equal(start, model.floor(x, me, md))
    with torch.no_grad():
        for parameter in model.net.parameters():  # as a training step would
            parameter.add_(0.01 * torch.randn_like(parameter))
        moved = model(x, me, md)
    assert not model.net.output_is_zero() and calls == [1, 1]
    assert not torch.equal(moved, start)


class PriorRecorder(Forecaster):
    """A residual net that records the prior it is given and forecasts zeros."""

    def __init__(self, *, dims: dict, reads: bool = True) -> None:
        super().__init__()
        self.reads, self.pred_len, self.c_out, self.priors = reads, dims["pred_len"], dims["c_out"], []
        self.scale = torch.nn.Parameter(torch.zeros(()))

    def takes_prior(self) -> bool:
        return self.reads

    def zero_output_(self) -> None:
        pass

    def forward(self, x_enc, x_mark_enc, x_mark_dec, prior=None):
        self.priors.append(prior)
        return self.scale * x_enc.new_ones(x_enc.shape[0], self.pred_len, self.c_out)


@pytest.mark.parametrize("reads", [True, False], ids=["reads-a-prior", "does-not"])
def test_a_floor_residual_gives_its_net_the_floors_forecast_where_the_net_reads_one(reads: bool) -> None:
    x, me, md = inputs(b=16)
    for show in (True, False):
        model = FloorResidual(floor=RidgeFloor, net=functools.partial(PriorRecorder, reads=reads), show_floor=show,
                              dims=dims(3, [0, 2]))
        model.fit_closed_form([Batch(x, me, md, x[:, -8:, [0, 2]])])
        model(x, me, md)
        if reads and show:
            torch.testing.assert_close(model.net.priors[0], model.floor(x, me, md), rtol=0, atol=0)
        else:
            assert model.net.priors == [None]


def test_instance_norm_gives_its_net_the_prior_in_the_windows_normalised_units() -> None:
    x, me, md = inputs()
    prior = torch.randn(4, 8, 2) * 3 + 5
    mean, std = x.mean(1, keepdim=True), (x.var(1, keepdim=True, unbiased=False) + 1e-5).sqrt()
    for affine in (False, True):
        model = InstanceNorm(net=PriorRecorder, affine=affine, restore_mean=False, dims=dims(3, [0, 2]))
        if affine:
            with torch.no_grad():
                model.weight.copy_(torch.tensor([2.0, 0.5, 1.5]))
                model.bias.copy_(torch.tensor([0.1, -0.2, 0.3]))
        assert model.takes_prior()
        model(x, me, md, prior=prior)
        expected = (prior - mean[..., [0, 2]]) / std[..., [0, 2]]
        if affine:
            expected = expected * model.weight[[0, 2]] + model.bias[[0, 2]]
        torch.testing.assert_close(model.net.priors[0], expected)
    assert not InstanceNorm(net=functools.partial(PriorRecorder, reads=False), dims=dims()).takes_prior()


def test_only_a_residual_instance_norm_says_its_output_is_zero() -> None:
    assert InstanceNorm(net=INFORMER, restore_mean=False, dims=dims()).output_is_zero() is False  # not zeroed
    assert InstanceNorm(net=INFORMER, restore_mean=True, dims=dims()).output_is_zero() is False
    zeroed = InstanceNorm(net=INFORMER, restore_mean=False, dims=dims())
    zeroed.zero_output_()
    assert zeroed.output_is_zero() is True
    assert Naive(dims=dims()).output_is_zero() is False


@pytest.mark.parametrize("net,message", [
    (functools.partial(InstanceNorm, net=INFORMER), "instance norm adds each window's mean back"),
    (Naive, "Naive cannot start from a zero forecast"),
])
def test_a_floor_residual_refuses_a_net_that_cannot_start_at_zero(net, message: str) -> None:
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}"):
        FloorResidual(floor=RidgeFloor, net=net, dims=dims())


def test_models_wrappers_and_baselines_do_not_import_each_other() -> None:
    root = pathlib.Path(__file__).resolve().parents[2] / "forecast"
    parts = ("models", "wrappers", "baselines")
    for package, other in [(a, b) for a in parts for b in parts if a != b] + [("core", p) for p in parts]:
        for path in (root / package).rglob("*.py"):
            imports = re.findall(rf"^\s*(?:from|import) forecast\.{other}\b", path.read_text(), flags=re.M)
            assert not imports, f"{path} imports forecast.{other}"
