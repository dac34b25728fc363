"""Patch tokens: which steps and marks each token sees, alignment with the decoder, errors."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest
import torch
from hydra.utils import instantiate
from omegaconf import OmegaConf

from forecast.attention.full import FullAttention
from forecast.attention.prob import ProbSparseAttention
from forecast.models.informer import Informer
from forecast.models.patch import PatchEmbedding
from tests.dims import with_dims

CONF = Path(__file__).resolve().parents[2] / "forecast" / "conf" / "attention"


def embedding(c_in: int = 3, patch_len: int = 4, stride: int = 3) -> PatchEmbedding:
    torch.manual_seed(0)
    return PatchEmbedding(c_in, 16, 4, "timeF", 0.0, patch_len=patch_len, stride=stride).eval()


@pytest.mark.parametrize("length,first,n", [(10, 0, 3), (11, 1, 3), (12, 2, 3), (13, 0, 4), (4, 0, 1)])
def test_patches_end_at_the_window_end(length: int, first: int, n: int) -> None:
    emb = embedding()
    assert emb.first(length) == first
    assert first + (n - 1) * 3 + 4 == length  # the last patch ends on the newest step
    assert emb(torch.randn(2, length, 3), torch.randn(2, length, 4)).shape == (2, n, 16)


def test_each_token_is_a_linear_map_of_its_own_steps_only() -> None:
    emb, length = embedding(), 11  # patches start at 1, 4, 7
    x, marks = torch.randn(2, length, 3), torch.randn(2, length, 4)
    base = emb(x, marks)
    for t in range(length):
        moved = x.clone()
        moved[:, t, 1] += 1.0
        changed = (emb(moved, marks) - base).abs().amax(dim=(0, 2)) > 0  # (N,)
        expected = torch.tensor([s <= t < s + 4 for s in (1, 4, 7)])
        assert torch.equal(changed, expected), t
    # the value part is the projection of the time-major flattened patch
    j, start = 2, 7
    flat = x[:, start:start + 4, :].reshape(2, -1)  # (B, patch_len * C): step 0's channels, then step 1's ...
    value = base[:, j] - emb.position(base)[0, j] - emb.temporal(marks[:, start])
    torch.testing.assert_close(value, emb.token(flat), rtol=0, atol=1e-5)


def test_each_token_takes_the_marks_of_its_first_step() -> None:
    emb, length = embedding(), 11
    x, marks = torch.randn(2, length, 3), torch.randn(2, length, 4)
    base = emb(x, marks)
    for t in range(length):
        moved = marks.clone()
        moved[:, t] += 1.0
        changed = (emb(x, moved) - base).abs().amax(dim=(0, 2)) > 0
        assert torch.equal(changed, torch.tensor([t == s for s in (1, 4, 7)])), t


def make(**kw) -> Informer:
    args = dict(enc_in=7, c_out=7, n_time_features=4, seq_len=96, label_len=48, pred_len=24,
                target_index=list(range(7)), encoder_attention=ProbSparseAttention,
                decoder_attention=ProbSparseAttention, cross_attention=functools.partial(FullAttention),
                d_model=32, n_heads=4, d_ff=64, e_layers=2, d_layers=1, dropout=0.0, patch_len=16, patch_stride=8)
    args.update(kw)
    return Informer(**with_dims(**args))


def inputs(b: int = 2, seq_len: int = 96, label_len: int = 48):
    torch.manual_seed(0)
    return torch.randn(b, seq_len, 7), torch.rand(b, seq_len, 9), torch.rand(b, label_len + 24, 9)


@pytest.mark.parametrize("options", [{}, {"patch_stride": None}, {"stack_layers": [2, 1]}, {"distil": False}])
def test_informer_with_patch_tokens_keeps_the_output_shape(options: dict) -> None:
    assert make(**options)(*inputs()).shape == (2, 24, 7)


def test_encoder_sees_one_token_per_patch() -> None:
    model = make(e_layers=3)
    tokens = model.enc_embedding(torch.randn(2, 96, 7), torch.rand(2, 96, 9))
    assert tokens.shape == (2, 11, 32)  # (96 - 16) // 8 + 1
    assert model.encoder(tokens).shape == (2, 3, 32)  # 11 -> 6 -> 3 after two distilling convs


class Recording(FullAttention):
    """Full attention that records the time alignment it is given."""

    seen: list[tuple[int, int]] = []

    def forward(self, q, k, v, *, q_offset: int = 0, k_stride: int = 1, **kw):
        # the decoder's last layer passes the horizon rows alone (rowwise), so step 0 is q_offset - label_len
        Recording.seen.append((q_offset - (48 + 24 - q.shape[2]), k_stride))
        return super().forward(q, k, v, q_offset=q_offset, k_stride=k_stride, **kw)


@pytest.mark.parametrize("seq_len,patch_len,stride,e_layers", [(96, 16, 8, 2), (100, 16, 8, 3), (96, 24, 24, 1)])
def test_cross_attention_places_memory_at_the_patch_starts(seq_len: int, patch_len: int, stride: int,
                                                           e_layers: int) -> None:
    Recording.seen = []
    model = make(seq_len=seq_len, patch_len=patch_len, patch_stride=stride, e_layers=e_layers,
                 cross_attention=Recording)
    model(*inputs(seq_len=seq_len))
    ((q_offset, k_stride),) = Recording.seen
    first = (seq_len - patch_len) % stride
    # decoder step 0 is time seq_len - label_len; memory 0 is the first patch; both relative to it
    assert q_offset == seq_len - 48 - first
    assert k_stride == stride * 2 ** (e_layers - 1)


@pytest.mark.parametrize("name", sorted(p.stem for p in CONF.glob("*.yaml")))
def test_every_cross_capable_backend_attends_to_patch_tokens(name: str) -> None:
    factory = instantiate(OmegaConf.load(CONF / f"{name}.yaml"))
    if not (factory().supports_cross and not factory().replaces_layer):
        pytest.skip(f"{name} cannot be a cross-attention")
    # label_len = seq_len puts the decoder's first step before the first patch (a negative q_offset)
    model = make(cross_attention=factory, label_len=96, patch_len=16, patch_stride=10).eval()
    out = model(*inputs(label_len=96))
    assert out.shape == (2, 24, 7) and torch.isfinite(out).all()


def test_patch_errors_name_the_setting() -> None:
    with pytest.raises(ValueError, match=r"^patch_len \(120\) cannot exceed the encoder input length \(96\)$"):
        make(patch_len=120)
    with pytest.raises(ValueError, match=r"^patch_stride needs patch_len"):
        make(patch_len=None, patch_stride=8)
    with pytest.raises(ValueError, match=r"^patch_len and patch_stride must be at least 1, got 16 and 0$"):
        make(patch_stride=0)
