"""The lane-mask dropout: its drop rate and scale, its gradient, and that a seed fixes its masks."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from forecast.models.dropout import Dropout, dropout, keep_mask, keep_threshold
from forecast.models.layers import FeedForward


def test_the_drop_probability_is_p_to_a_multiple_of_2_to_the_minus_16() -> None:
    assert keep_threshold(0.05) == (3277 - 32768, 3277 / 65536)
    assert keep_threshold(0.5) == (0, 0.5)
    assert keep_threshold(0.0) == (-32768, 0.0)


@pytest.mark.parametrize("p", [0.05, 0.3])
def test_the_masks_drop_at_the_rate_and_keep_the_expectation(p: float) -> None:
    torch.manual_seed(0)
    n = 1_000_003  # not a multiple of the four lanes in a word
    keep, p_drawn = keep_mask(torch.Size([n]), p, torch.device("cpu"))
    dropped = 1.0 - keep.double().mean().item()
    assert abs(dropped - p_drawn) < 5 * math.sqrt(p * (1 - p) / n)  # five binomial standard errors
    x = torch.ones(n)
    assert abs(dropout(x, p).double().mean().item() - 1.0) < 5 * math.sqrt(p / (1 - p) / n)


def test_each_of_the_four_lanes_of_a_word_drops_at_the_rate() -> None:
    torch.manual_seed(1)
    p, n = 0.25, 400_000
    keep, _ = keep_mask(torch.Size([n, 4]), p, torch.device("cpu"))
    rates = 1.0 - keep.double().mean(dim=0)
    assert torch.all((rates - p).abs() < 5 * math.sqrt(p * (1 - p) / n)), rates


def test_kept_elements_are_scaled_and_dropped_ones_are_zero_and_the_gradient_is_the_same_mask() -> None:
    torch.manual_seed(2)
    x = torch.randn(8, 24, 32, requires_grad=True)
    y = dropout(x, 0.2)
    scale = 1.0 / (1.0 - keep_threshold(0.2)[1])
    kept = y != 0
    torch.testing.assert_close(y[kept], x[kept] * scale)
    y.backward(torch.ones_like(y))
    torch.testing.assert_close(x.grad, kept.float() * scale)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_scaled_mask_gives_the_bits_of_the_mask_then_the_scale(dtype: torch.dtype) -> None:
    """One product each way, with the bits of ``x * mask * scale`` forward and ``grad * scale * mask``
    backward, signed zeros and a non-finite input included."""
    x = torch.randn(8, 24, 32, dtype=dtype)
    x[0, 0, :4] = torch.tensor([float("inf"), -float("inf"), float("nan"), -0.0], dtype=dtype)
    x.requires_grad_(True)
    grad = torch.randn(8, 24, 32, dtype=dtype)
    torch.manual_seed(4)
    y = dropout(x, 0.2)
    (dx,) = torch.autograd.grad(y, x, grad)
    torch.manual_seed(4)
    keep, p_drawn = keep_mask(x.shape, 0.2, x.device)
    scale = 1.0 / (1.0 - p_drawn)
    mask, bits = keep.to(dtype), torch.int64 if dtype == torch.float64 else torch.int32
    assert y.dtype == dtype
    assert torch.equal(y.detach().view(bits), (x.detach() * mask * scale).view(bits))
    assert torch.equal(dx.view(bits), (grad * scale * mask).view(bits))


def test_the_same_seed_gives_the_same_masks_at_any_thread_count() -> None:
    x = torch.randn(4, 96, 64)
    masks = []
    for threads in (1, 2):
        torch.set_num_threads(threads)
        torch.manual_seed(7)
        masks.append(dropout(x, 0.05))
    torch.testing.assert_close(masks[0], masks[1], rtol=0, atol=0)
    assert not torch.equal(dropout(x, 0.05), masks[1])  # the generator moved on: a fresh mask


def test_it_is_the_identity_in_eval_and_at_p_0_and_a_drop_in_for_nn_dropout() -> None:
    x = torch.randn(3, 5, 7)
    module = Dropout(0.5)
    assert isinstance(module, nn.Dropout) and module.p == 0.5
    module.eval()
    assert module(x) is x
    assert dropout(x, 0.0) is x
    assert torch.equal(dropout(x, 1.0), torch.zeros_like(x))
    ff = FeedForward(7, 11, 0.1)
    assert isinstance(ff.dropout, Dropout)
    assert set(ff.state_dict()) == {"fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"}


def test_under_bf16_autocast_the_mask_multiplies_in_bf16() -> None:
    torch.manual_seed(3)
    x = torch.randn(16, 32, dtype=torch.bfloat16)
    y = dropout(x, 0.1)
    assert y.dtype == torch.bfloat16
    kept = y != 0
    scale = 1.0 / (1.0 - keep_threshold(0.1)[1])
    torch.testing.assert_close(y[kept].float(), (x[kept].float() * scale).bfloat16().float())


def test_under_torch_compile_the_mask_is_the_eager_one_and_the_backward_reuses_it() -> None:
    """Compiled, the mask comes from the same draw as in eager mode (one operator the compiler calls), and
    the gradient is that mask again: the compiler must not draw it a second time for the backward."""
    x = torch.randn(6, 40, 33)

    def loss_and_out(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out = dropout(torch.tanh(x), 0.3) * 2.0
        return (out * x).sum(), out

    compiled = torch.compile(loss_and_out, backend="aot_eager_decomp_partition", fullgraph=True)
    results = []
    for fn in (loss_and_out, compiled):
        leaf = x.clone().requires_grad_(True)
        torch.manual_seed(7)
        loss, out = fn(leaf)
        loss.backward()
        results.append((out.detach(), leaf.grad))
    (eager_out, eager_grad), (compiled_out, compiled_grad) = results
    torch.testing.assert_close(compiled_out, eager_out)
    torch.testing.assert_close(compiled_grad, eager_grad)
    kept = eager_out != 0
    assert 0.2 < 1.0 - kept.double().mean().item() < 0.4
