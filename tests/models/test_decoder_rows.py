"""The decoder's last layer run on the horizon rows alone gives exactly those rows of the whole decoder."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hydra.utils import instantiate
from omegaconf import OmegaConf
from torch import Tensor

from forecast.models.informer import Informer
from forecast.models.start_token import decoder_input
from tests.dims import with_dims
from tests.attention.configs import ATTENTION_CONFIGS, load_backend

SEQ, LABEL, PRED = 64, 24, 12


def factory(path: Path):
    return instantiate(OmegaConf.load(path))


def make(*, decoder: Path, cross: Path, d_layers: int) -> Informer:
    torch.manual_seed(0)
    prob = Path(ATTENTION_CONFIGS[0]).with_name("prob.yaml")
    return Informer(**with_dims(enc_in=3, c_out=3, n_time_features=4, seq_len=SEQ, label_len=LABEL, pred_len=PRED,
                    target_index=[0, 1, 2], encoder_attention=factory(prob), decoder_attention=factory(decoder),
                    cross_attention=factory(cross), d_model=16, n_heads=2, d_ff=32, e_layers=2, d_layers=d_layers,
                    dropout=0.0)).eval()


def whole_decoder(model: Informer, x: Tensor, mark_enc: Tensor, mark_dec: Tensor) -> Tensor:
    """Informer.forward with every decoder row computed, then the horizon sliced. Shapes -> (B, P, C_out)."""
    memory = model.encoder(model.enc_embedding(x, mark_enc))
    dec = model.dec_embedding(decoder_input(x, label_len=LABEL, pred_len=PRED), mark_dec)
    first = model.enc_embedding.first(SEQ)
    out = model.decoder(dec, memory, q_offset=SEQ - LABEL - first,
                        k_stride=model.encoder.stride * model.enc_embedding.stride)  # (B, T+P, C_out)
    return out[:, -PRED:]


def inputs() -> tuple[Tensor, Tensor, Tensor]:
    torch.manual_seed(1)
    return torch.randn(2, SEQ, 3), torch.rand(2, SEQ, 4) - 0.5, torch.rand(2, LABEL + PRED, 4) - 0.5


def kind(path: Path) -> type:
    return type(load_backend(path))


FULL = Path(ATTENTION_CONFIGS[0]).with_name("full.yaml")
CAUSAL = [p for p in ATTENTION_CONFIGS if kind(p).supports_causal]
CROSS = [p for p in ATTENTION_CONFIGS if kind(p).supports_cross and not kind(p).replaces_layer]


@pytest.mark.parametrize("d_layers", [1, 2])
@pytest.mark.parametrize("path", CAUSAL, ids=lambda p: p.stem)
def test_horizon_rows_equal_the_whole_decoders_with_each_self_attention(path: Path, d_layers: int) -> None:
    model = make(decoder=path, cross=FULL, d_layers=d_layers)
    x = inputs()
    with torch.no_grad():
        torch.testing.assert_close(model(*x), whole_decoder(model, *x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("path", CROSS, ids=lambda p: p.stem)
def test_horizon_rows_equal_the_whole_decoders_with_each_cross_attention(path: Path) -> None:
    model = make(decoder=FULL, cross=path, d_layers=1)
    x = inputs()
    with torch.no_grad():
        torch.testing.assert_close(model(*x), whole_decoder(model, *x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("lq,m", [(36, 12), (37, 5)])
@pytest.mark.parametrize("path", [p for p in CROSS if kind(p).rowwise], ids=lambda p: p.stem)
def test_a_rowwise_backend_gives_the_last_rows_from_the_last_queries(path: Path, lq: int, m: int) -> None:
    backend = load_backend(path).eval()
    torch.manual_seed(2)
    q, k, v = torch.randn(2, 2, lq, 8), torch.randn(2, 2, 20, 8), torch.randn(2, 2, 20, 8)
    whole = backend(q, k, v, q_offset=40, k_stride=4)  # (B, H, Lq, D)
    last = backend(q[:, :, lq - m:], k, v, q_offset=40 + lq - m, k_stride=4)  # (B, H, m, D)
    torch.testing.assert_close(last, whole[:, :, lq - m:], rtol=1e-5, atol=1e-6)


def test_the_query_set_dependent_backends_are_not_rowwise() -> None:
    """ProbSparse picks its active queries among all of them and Nystrom's landmarks are query means."""
    assert {p.stem for p in CROSS if not kind(p).rowwise} == {"prob", "nystrom"}


def test_training_output_has_the_horizon_shape_and_gradients_reach_every_decoder_layer() -> None:
    model = make(decoder=FULL, cross=FULL, d_layers=2).train()
    model(*inputs()).sum().backward()
    assert model(*inputs()).shape == (2, PRED, 3)
    assert all(p.grad is not None for p in model.decoder.parameters())
