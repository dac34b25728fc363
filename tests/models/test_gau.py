"""GAU layers and the Informer's switch to them for backends with ``replaces_layer``."""

from __future__ import annotations

from functools import partial

import pytest
import torch

from forecast.attention.flash import FlashAttention
from forecast.attention.flash_quad import FlashQuadAttention
from forecast.attention.full import FullAttention
from forecast.models.decoder import DecoderLayer
from forecast.models.encoder import EncoderLayer
from forecast.models.gau import GAUDecoderLayer, GAUEncoderLayer, GatedAttentionUnit
from forecast.models.informer import Informer
from tests.dims import with_dims

SIZES = with_dims(enc_in=3, c_out=2, n_time_features=4, seq_len=40, label_len=16, pred_len=8, target_index=[0, 1],
                  d_model=16, n_heads=2, d_ff=32)
FLASH = partial(FlashAttention, group_size=8, query_key_dim=8)
QUAD = partial(FlashQuadAttention, query_key_dim=8)


@pytest.mark.parametrize("factory", [FLASH, QUAD], ids=["flash", "flash_quad"])
def test_informer_builds_gau_layers_and_runs(factory: partial) -> None:
    torch.manual_seed(0)
    model = Informer(encoder_attention=factory, decoder_attention=factory, cross_attention=FullAttention,
                     **SIZES)
    assert all(isinstance(layer, GAUEncoderLayer) for layer in model.encoder.layers)
    assert all(isinstance(layer, GAUDecoderLayer) for layer in model.decoder.layers)
    assert len(model.encoder.convs) == 1  # distilling kept
    out = model(torch.randn(2, 40, 3), torch.randn(2, 40, 4), torch.randn(2, 24, 4))
    assert out.shape == (2, 8, 2)
    out.sum().backward()
    assert all(p.grad is not None for p in model.parameters() if p.requires_grad)


def test_mixed_roles_keep_standard_layers() -> None:
    model = Informer(encoder_attention=FLASH, decoder_attention=FullAttention, cross_attention=FullAttention,
                     **SIZES)
    assert isinstance(model.encoder.layers[0], GAUEncoderLayer)
    assert isinstance(model.decoder.layers[0], DecoderLayer)
    model = Informer(encoder_attention=FullAttention, decoder_attention=QUAD, cross_attention=FullAttention,
                     **SIZES)
    assert isinstance(model.encoder.layers[0], EncoderLayer)


def test_flash_cross_attention_is_refused_naming_full() -> None:
    with pytest.raises(ValueError, match="use full"):
        Informer(encoder_attention=FLASH, decoder_attention=FLASH, cross_attention=FLASH, **SIZES)


def test_mix_with_gau_decoder_is_refused() -> None:
    with pytest.raises(ValueError, match="single-head"):
        Informer(encoder_attention=FLASH, decoder_attention=FLASH, cross_attention=FullAttention, mix=True,
                 **SIZES)


@pytest.mark.parametrize("factory", [FLASH, QUAD], ids=["flash", "flash_quad"])
def test_causal_gau_block_does_not_see_the_future(factory: partial) -> None:
    torch.manual_seed(0)
    block = GatedAttentionUnit(factory(), d_model=16, dropout=0.0).double()
    with torch.no_grad():
        block.gamma.normal_()  # make the attention non-negligible
        x = torch.randn(2, 30, 16, dtype=torch.float64)
        y = x.clone()
        y[:, 17:] += torch.randn(2, 13, 16, dtype=torch.float64)
        torch.testing.assert_close(block(x, causal=True)[:, :17], block(y, causal=True)[:, :17])
        assert not torch.allclose(block(x)[:, :17], block(y)[:, :17])  # non-causal does


def test_gau_block_needs_a_gau_kernel() -> None:
    with pytest.raises(ValueError, match="not a GAU kernel"):
        GatedAttentionUnit(FullAttention(), d_model=16, dropout=0.0)
