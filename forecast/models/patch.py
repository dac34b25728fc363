"""Patch tokens (PatchTST, Nie et al. 2023): the encoder sees one token per run of time steps.

The input window is cut into patches of ``patch_len`` steps, ``stride`` steps apart, aligned to its
end so the last patch always holds the newest step (the first ``(L - patch_len) % stride`` steps are
left out). Each patch, all its channels together, is flattened and mapped linearly to ``d_model``;
the sinusoidal position counts patches and the temporal embedding takes the marks of each patch's
first step, so patch ``j`` stands at time ``first + j * stride``.
"""

from __future__ import annotations

from torch import Tensor, nn

from forecast.models.dropout import Dropout
from forecast.models.embedding import Embed, PositionalEmbedding, TemporalEmbedding
from forecast.core.errors import ConfigError


class PatchEmbedding(nn.Module):
    """Window -> patch tokens: linear patch projection + sinusoidal position + temporal embedding, dropout.

    Args:
        c_in: input channels.
        d_model: model width.
        n_time_features: continuous time-feature columns in the marks.
        embed: temporal embedding type.
        dropout: dropout after the sum.
        patch_len: steps per patch.
        stride: steps between the starts of consecutive patches (``patch_len`` = no overlap).
        n_future: known-future columns in the marks (read at each patch's first step).
    """

    def __init__(self, c_in: int, d_model: int, n_time_features: int, embed: Embed = "timeF",
                 dropout: float = 0.05, *, patch_len: int, stride: int, n_future: int = 0) -> None:
        super().__init__()
        if patch_len < 1 or stride < 1:
            raise ConfigError(f"patch_len and patch_stride must be at least 1, got {patch_len} and {stride}")
        self.patch_len, self.stride = patch_len, stride
        self.token = nn.Linear(patch_len * c_in, d_model)
        self.position = PositionalEmbedding(d_model)
        self.temporal = TemporalEmbedding(d_model, n_time_features, embed, n_future)
        self.dropout = Dropout(dropout)

    def first(self, length: int) -> int:
        """Start of the first patch in a window of ``length`` steps (patches end at the window's end)."""
        if length < self.patch_len:
            raise ConfigError(f"patch_len ({self.patch_len}) cannot exceed the encoder input length ({length})")
        return (length - self.patch_len) % self.stride

    def forward(self, x: Tensor, marks: Tensor) -> Tensor:
        """Shapes: x (B, L, C), marks (B, L, M) -> (B, N, d_model), N = (L - patch_len) // stride + 1."""
        b = x.shape[0]
        start = self.first(x.shape[1])
        patches = x[:, start:].unfold(1, self.patch_len, self.stride)  # (B, N, C, patch_len)
        tokens = patches.transpose(2, 3).reshape(b, patches.shape[1], -1)  # (B, N, patch_len * C), time-major
        starts = marks[:, start::self.stride][:, : patches.shape[1]]  # (B, N, M): marks of each patch's first step
        return self.dropout(self.token(tokens) + self.position(tokens) + self.temporal(starts))
