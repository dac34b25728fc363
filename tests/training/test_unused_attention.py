"""Attention settings given to a model without attention layers are named in a note, not ignored silently."""

from __future__ import annotations

import functools

import pytest

from forecast.attention.full import FullAttention
from forecast.models.informer import Informer
from forecast.models.mlp import WindowMLP
from forecast.training.pipeline import unused_attention

DIMS = dict(enc_in=2, c_out=2, n_time_features=4, n_future=0, seq_len=24, label_len=12, pred_len=8,
            target_index=[0, 1])
FULL = functools.partial(FullAttention, dropout=0.0)


def test_an_attention_setting_on_a_model_without_attention_is_named() -> None:
    net = WindowMLP(dims=DIMS)
    overrides = ["data.pred_len=8", "attention=full", "+encoder_attention.window=32", "attention@cross_attention=local"]
    assert unused_attention(net, overrides, "mlp_floor") == (
        "attention=full, +encoder_attention.window=32, attention@cross_attention=local: no effect, model mlp_floor "
        "has no attention layers; model=informer_floor (the default's floor and an Informer residual) has them")


@pytest.mark.parametrize("overrides", [["data.pred_len=8"], ["model.net.net.hidden=64", "attentiveness=1"]])
def test_no_note_without_an_attention_setting(overrides: list[str]) -> None:
    assert unused_attention(WindowMLP(dims=DIMS), overrides, "mlp_floor") is None


def test_no_note_where_the_model_has_attention() -> None:
    net = Informer(dims=DIMS, encoder_attention=FULL, decoder_attention=FULL, cross_attention=FULL, d_model=16,
                   n_heads=2, d_ff=32)
    assert unused_attention(net, ["attention=full"], "informer_floor") is None
