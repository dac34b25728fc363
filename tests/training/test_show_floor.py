"""A residual over the ridge learns what the ridge misses when its decoder sees the ridge's forecast."""

from __future__ import annotations

import functools

import numpy as np
import torch

from forecast.attention.full import FullAttention
from forecast.baselines.ridge import RidgeFloor
from forecast.data.batch import Batch
from forecast.models.informer import Informer
from forecast.wrappers.floor_residual import FloorResidual
from forecast.wrappers.instance_norm import InstanceNorm

FULL = functools.partial(FullAttention, dropout=0.0)
INFORMER = functools.partial(Informer, encoder_attention=FULL, decoder_attention=FULL, cross_attention=FULL,
                             d_model=32, n_heads=2, d_ff=64, dropout=0.0)
SEQ, LABEL, PRED = 48, 24, 12
DIMS = dict(enc_in=1, c_out=1, n_time_features=4, n_future=0, seq_len=SEQ, label_len=LABEL, pred_len=PRED,
            target_index=[0])


def chirp(n: int = 6000) -> torch.Tensor:
    """A sine whose period sweeps from 24 to 6 steps over every 500 steps, and again: (n, 1).

    A fixed linear filter cannot follow the changing frequency; a model that reads the phase can.
    """
    t = np.arange(n)
    frequency = 1 / 24 + (1 / 6 - 1 / 24) * (t % 500) / 500
    values = np.sin(2 * np.pi * np.cumsum(frequency)) + 0.05 * np.random.default_rng(0).standard_normal(n)
    return torch.tensor(values, dtype=torch.float32)[:, None]


def windows(values: torch.Tensor, starts) -> Batch:
    x = torch.stack([values[s:s + SEQ] for s in starts])  # (B, SEQ, 1)
    y = torch.stack([values[s + SEQ:s + SEQ + PRED] for s in starts])  # (B, PRED, 1)
    return Batch(x, torch.zeros(len(x), SEQ, 9), torch.zeros(len(x), LABEL + PRED, 9), y)


def test_a_residual_that_sees_the_ridges_forecast_learns_the_chirp_the_ridge_misses() -> None:
    values = chirp()
    torch.manual_seed(0)
    model = FloorResidual(floor=RidgeFloor, net=functools.partial(InstanceNorm, net=INFORMER, restore_mean=False),
                          show_floor=True, dims=DIMS)
    model.fit_closed_form([windows(values, range(4000))])
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    draws = np.random.default_rng(0)
    for _ in range(300):
        batch = windows(values, draws.integers(0, 4000, 32))
        optimiser.zero_grad()
        torch.nn.functional.mse_loss(model(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec), batch.y).backward()
        optimiser.step()
    held_out = windows(values, range(4000, len(values) - SEQ - PRED, 7))
    with torch.no_grad():
        ridge = torch.nn.functional.mse_loss(model.floor(held_out.x_enc), held_out.y).item()
        learned = torch.nn.functional.mse_loss(model(*held_out[:3]), held_out.y).item()
    assert ridge > 0.2  # the ridge misses most of it
    assert learned < 0.5 * ridge
