"""Reversible instance normalisation (RevIN, Kim et al. ICLR 2022)."""

from __future__ import annotations

import torch
from torch import Tensor, nn


class RevIN(nn.Module):
    """Normalise each window by its own per-channel mean and std; undo it on the forecast.

    Args:
        n_channels: input channels.
        affine: learn a per-channel scale and bias applied after normalising.
        eps: added to the variance.
    """

    def __init__(self, n_channels: int, *, affine: bool = False, eps: float = 1e-5) -> None:
        super().__init__()
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = nn.Parameter(torch.ones(n_channels))
            self.bias = nn.Parameter(torch.zeros(n_channels))

    def normalize(self, x: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Shapes: x (B, L, C) -> normalised (B, L, C) and stats ((B, 1, C), (B, 1, C))."""
        mean = x.mean(dim=1, keepdim=True).detach()  # (B, 1, C)
        std = torch.sqrt(x.var(dim=1, keepdim=True, unbiased=False) + self.eps).detach()  # (B, 1, C)
        y = (x - mean) / std
        if self.affine:
            y = y * self.weight + self.bias
        return y, (mean, std)

    def denormalize(self, y: Tensor, stats: tuple[Tensor, Tensor], index: list[int] | None = None) -> Tensor:
        """Undo :meth:`normalize` on outputs of channels ``index`` (all when None).

        Shapes: y (B, P, C_out), stats ((B, 1, C), (B, 1, C)) -> (B, P, C_out).
        """
        mean, std = stats
        weight = self.weight if self.affine else None
        bias = self.bias if self.affine else None
        if index is not None:
            mean, std = mean[..., index], std[..., index]
            if self.affine:
                weight, bias = weight[index], bias[index]
        if self.affine:
            y = (y - bias) / (weight + self.eps * self.eps)
        return y * std + mean
