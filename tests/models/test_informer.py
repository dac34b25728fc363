"""Informer shapes, distilling, decoder causality and fidelity to the reference size."""

from __future__ import annotations

import functools
import inspect

import pytest
import torch

from forecast.attention.full import FullAttention
from forecast.attention.prob import ProbSparseAttention
from forecast.models.decoder import Decoder, DecoderLayer
from forecast.models.encoder import DistilConv
from forecast.models.informer import Informer
from forecast.models.multihead import MultiHeadAttention
from forecast.models.start_token import decoder_input
from tests.dims import with_dims

FULL = functools.partial(FullAttention, dropout=0.0)
PROB = functools.partial(ProbSparseAttention)


def make(enc_in: int = 7, c_out: int = 7, target_index=None, **kw) -> Informer:
    args = dict(enc_in=enc_in, c_out=c_out, n_time_features=4, seq_len=96, label_len=48, pred_len=24,
                target_index=target_index or list(range(c_out)), encoder_attention=PROB, decoder_attention=PROB,
                cross_attention=FULL, d_model=32, n_heads=4, d_ff=64, e_layers=2, d_layers=1, dropout=0.0)
    args.update(kw)
    return Informer(**with_dims(**args))


def inputs(b: int = 3, c: int = 7, seq_len: int = 96, label_len: int = 48, pred_len: int = 24):
    torch.manual_seed(0)
    return (torch.randn(b, seq_len, c), torch.rand(b, seq_len, 9) - 0.5, torch.rand(b, label_len + pred_len, 9) - 0.5)


@pytest.mark.parametrize("features,enc_in,c_out,target", [("M", 7, 7, None), ("S", 1, 1, [0]), ("MS", 7, 1, [6])])
def test_output_shapes_for_m_s_ms(features: str, enc_in: int, c_out: int, target) -> None:
    model = make(enc_in, c_out, target)
    out = model(*inputs(c=enc_in))
    assert out.shape == (3, 24, c_out)


@pytest.mark.parametrize("embed", ["timeF", "fixed", "learned"])
@pytest.mark.parametrize("options", [{}, {"distil": False}, {"mix": True}, {"stack_layers": [3, 2, 1]}])
def test_options_keep_the_output_shape(embed: str, options: dict) -> None:
    x, me, md = inputs(b=2)
    md = md.abs() * 10  # calendar fields must be valid indices for fixed/learned tables
    me = me.abs() * 10
    assert make(embed=embed, **options)(x, me, md).shape == (2, 24, 7)


@pytest.mark.parametrize("length,expected", [(96, 48), (97, 49), (48, 24), (25, 13), (1, 1)])
def test_distilling_halves_the_length_ceil(length: int, expected: int) -> None:
    assert DistilConv(8)(torch.randn(2, length, 8)).shape == (2, expected, 8)


def test_encoder_output_length_and_stride() -> None:
    model = make(e_layers=3)
    emb = model.enc_embedding(torch.randn(2, 96, 7), torch.zeros(2, 96, 9))
    assert model.encoder(emb).shape == (2, 24, 32) and model.encoder.stride == 4
    flat = make(distil=False)
    assert flat.encoder(emb).shape == (2, 96, 32) and flat.encoder.stride == 1


def test_decoder_input_is_start_token_plus_zero_placeholders() -> None:
    x = torch.randn(2, 10, 3)
    dec = decoder_input(x, label_len=4, pred_len=5)
    assert dec.shape == (2, 9, 3)
    assert torch.equal(dec[:, :4], x[:, 6:]) and torch.all(dec[:, 4:] == 0)


def test_decoder_input_takes_a_placeholder_of_the_horizons_shape_only() -> None:
    x, prior = torch.randn(2, 10, 3), torch.randn(2, 5, 3)
    dec = decoder_input(x, label_len=4, pred_len=5, placeholder=prior)
    assert torch.equal(dec[:, :4], x[:, 6:]) and torch.equal(dec[:, 4:], prior)
    with pytest.raises(ValueError, match=r"placeholder must be of shape \(2, 5, 3\), got \(2, 4, 3\)"):
        decoder_input(x, label_len=4, pred_len=5, placeholder=prior[:, :4])


@pytest.mark.parametrize("enc_in,c_out,target", [(7, 7, None), (7, 1, [6]), (3, 2, [0, 2])])
def test_a_prior_fills_the_target_channels_of_the_decoder_placeholders(enc_in: int, c_out: int, target) -> None:
    torch.manual_seed(0)
    model = make(enc_in=enc_in, c_out=c_out, target_index=target, encoder_attention=FULL,
                 decoder_attention=FULL).eval()
    assert model.takes_prior()
    x, me, md = inputs(c=enc_in)
    with torch.no_grad():
        plain = model(x, me, md)
        assert torch.equal(model(x, me, md, prior=torch.zeros(3, 24, c_out)), plain)  # zeros: the paper's input
        prior = torch.randn(3, 24, c_out)
        seen = []
        hook = model.dec_embedding.register_forward_hook(lambda _m, args, _out: seen.append(args[0]))
        guided = model(x, me, md, prior=prior)
        hook.remove()
    target = list(range(c_out)) if target is None else target
    others = [c for c in range(enc_in) if c not in target]
    assert torch.equal(seen[0][:, 48:, target], prior) and torch.all(seen[0][:, 48:, others] == 0)
    assert torch.equal(seen[0][:, :48], x[:, 48:])
    assert guided.shape == plain.shape and not torch.equal(guided, plain)


@pytest.mark.parametrize("n_layers", [1, 2])
def test_decoder_outputs_up_to_t_ignore_inputs_after_t(n_layers: int) -> None:
    torch.manual_seed(1)
    d = 16
    layers = [DecoderLayer(MultiHeadAttention(FullAttention(), d_model=d, n_heads=2),
                           MultiHeadAttention(FullAttention(), d_model=d, n_heads=2), d_model=d, d_ff=32, dropout=0.0)
              for _ in range(n_layers)]
    dec = Decoder(layers, d_model=d, c_out=3).eval()
    x, memory = torch.randn(2, 30, d), torch.randn(2, 12, d)
    t = 17
    changed = x.clone()
    changed[:, t + 1:] = torch.randn(2, 30 - t - 1, d)
    a = dec(x, memory, q_offset=72, k_stride=2)
    b = dec(changed, memory, q_offset=72, k_stride=2)
    torch.testing.assert_close(a[:, : t + 1], b[:, : t + 1], rtol=0, atol=1e-6)
    assert not torch.allclose(a[:, t + 1:], b[:, t + 1:])


def test_mix_scrambles_heads_and_time_like_the_reference() -> None:
    torch.manual_seed(0)
    mha = MultiHeadAttention(FullAttention(), d_model=8, n_heads=2, mix=True)
    mha.out_proj = torch.nn.Identity()
    x = torch.randn(1, 4, 8)
    out = mha(x, x, x)
    ref = MultiHeadAttention(FullAttention(), d_model=8, n_heads=2, mix=False)
    ref.load_state_dict(mha.state_dict(), strict=False)
    ref.out_proj = torch.nn.Identity()
    heads = ref(x, x, x).view(1, 4, 2, 4).transpose(1, 2)  # (B, H, L, D)
    torch.testing.assert_close(out, heads.reshape(1, 4, 8))


def test_non_causal_backend_is_refused_in_the_decoder() -> None:
    class NonCausal(FullAttention):
        supports_causal = False

    with pytest.raises(ValueError, match="cannot be used for decoder self-attention: it is not causal.*use full"):
        make(decoder_attention=NonCausal)


def test_parameter_count_matches_the_reference_small_config() -> None:
    # reference Informer2020, d_model 128, d_ff 512, 4 heads, e2/d1, ETTh1 M: 718,983 parameters
    model = make(d_model=128, n_heads=4, d_ff=512)
    assert sum(p.numel() for p in model.parameters()) == 718_983


def test_the_informer_takes_the_papers_architecture_only() -> None:
    names = list(inspect.signature(Informer).parameters)
    assert len(names) <= 24  # 21 + the two patch options + n_future (a data size: DataDims)
    assert not [n for n in names if n.startswith(("ridge", "revin", "cycle", "skip", "channel"))]


def test_zero_output_makes_the_forecast_exactly_zero() -> None:
    model = make()
    model.zero_output_()
    assert torch.count_nonzero(model(*inputs())) == 0
    assert make().fit_closed_form([]) is None  # nothing closed-form in the paper's model
