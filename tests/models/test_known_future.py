"""Known-future mark columns inside the models: the Informer reads them, the calendar profile and the
mark-blind forecasters do not."""

from __future__ import annotations

import torch

from forecast.baselines.dlinear import DLinear
from forecast.baselines.ridge import RidgeFloor
from forecast.wrappers.calendar import CalendarProfile
from forecast.models.embedding import TemporalEmbedding
from forecast.models.informer import Informer
from forecast.attention.full import FullAttention

B, S, T, P, C, N_CAL, K = 3, 16, 8, 4, 2, 4, 2
DIMS = dict(enc_in=C, c_out=C, n_time_features=N_CAL, seq_len=S, label_len=T, pred_len=P, target_index=[0, 1])



def marks(length: int, known: torch.Tensor) -> torch.Tensor:
    """Hourly-looking marks (B, length, 4 + K + 5): continuous features, the known columns, the five fields."""
    g = torch.Generator().manual_seed(0)
    cont = torch.rand(B, length, N_CAL, generator=g) - 0.5
    hour = torch.arange(length).remainder(24).float()
    fields = torch.stack([torch.full((length,), 3.0), torch.full((length,), 5.0),
                          torch.arange(length).div(24, rounding_mode="floor").remainder(7).float(), hour,
                          torch.zeros(length)], dim=1).expand(B, length, 5)
    return torch.cat([cont, known, fields], dim=-1)


def informer(n_future: int, embed: str = "timeF") -> Informer:
    torch.manual_seed(0)
    return Informer(dims={**DIMS, "n_future": n_future}, encoder_attention=FullAttention, decoder_attention=FullAttention,
                    cross_attention=FullAttention, d_model=16, n_heads=2, d_ff=32, e_layers=1, d_layers=1,
                    dropout=0.0, embed=embed).eval()


def test_the_informer_forecast_follows_the_known_horizon_values() -> None:
    x = torch.randn(B, S, C)
    enc = marks(S, torch.randn(B, S, K))
    known = torch.randn(B, T + P, K)
    for embed in ("timeF", "fixed"):
        net = informer(K, embed)
        base = net(x, enc, marks(T + P, known))
        assert base.shape == (B, P, C)
        later = known.clone()
        later[:, -1, 0] += 3.0  # the last horizon step of the first known column
        assert not torch.allclose(net(x, enc, marks(T + P, later)), base)
        token = known.clone()
        token[:, 0, 1] += 3.0  # a start-token step: the decoder sees that span too
        assert not torch.allclose(net(x, enc, marks(T + P, token)), base)


def test_without_known_columns_the_embedding_keeps_its_parameters() -> None:
    assert not any("known" in name for name in informer(0).state_dict())
    emb = TemporalEmbedding(16, N_CAL, "timeF", n_future=K)
    assert tuple(emb.known.weight.shape) == (16, K)


def test_the_calendar_profile_reads_only_the_calendar_fields() -> None:
    profile = CalendarProfile(C, "week")
    profile.profile.data.copy_(torch.randn_like(profile.profile))
    known = torch.randn(B, T + P, K)
    with_known, without = marks(T + P, known), marks(T + P, known[..., :0])
    torch.testing.assert_close(profile(with_known), profile(without))
    torch.testing.assert_close(profile(marks(T + P, known * 10)), profile(with_known))


def test_mark_blind_forecasters_ignore_the_known_columns() -> None:
    x = torch.randn(B, S, C)
    for net in (RidgeFloor(dims={**DIMS, "n_future": K}), DLinear(dims={**DIMS, "n_future": K})):
        one = net(x, marks(S, torch.randn(B, S, K)), marks(T + P, torch.randn(B, T + P, K)))
        two = net(x, marks(S, torch.randn(B, S, K)), marks(T + P, torch.randn(B, T + P, K)))
        torch.testing.assert_close(one, two)
