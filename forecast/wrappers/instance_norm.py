"""Reversible instance normalisation (RevIN, Kim et al. ICLR 2022) around any forecaster."""

from __future__ import annotations

from typing import Any, Iterable

import torch
from torch import Tensor, nn

from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims, ForecasterFactory
from forecast.wrappers.base import Wrapper


class InstanceNorm(Wrapper):
    """Normalise each input window by its own per-channel mean and std; undo it on the forecast.

    Args:
        net: factory of the wrapped forecaster (built with the same ``dims``).
        affine: learn a per-channel scale and bias applied after normalising (undone on the forecast
            when ``restore_mean``).
        restore_mean: return ``forecast * std + mean`` in the window's units. False returns
            ``forecast * std`` alone: a residual in units of each window's spread, to add to a floor
            that already carries the window's level (``FloorResidual``); then the forecast starts at
            zero when the wrapped net's does.
        eps: added to the variance.
        dims: the data's sizes.
    """

    def __init__(self, *, net: ForecasterFactory, affine: bool = False, restore_mean: bool = True,
                 eps: float = 1e-5, dims: DataDims) -> None:
        super().__init__()
        self.eps, self.affine, self.restore_mean = eps, affine, restore_mean
        self.target_index = [int(i) for i in dims["target_index"]]
        if affine:
            self.weight = nn.Parameter(torch.ones(dims["enc_in"]))
            self.bias = nn.Parameter(torch.zeros(dims["enc_in"]))
        self.net = net(dims=dims)

    def normalize(self, x: Tensor) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        """Shapes: x (B, L, C) -> normalised (B, L, C) and stats ((B, 1, C), (B, 1, C)).

        The population variance is taken by the corrected two-pass formula over the centred window c,
        ``mean(c^2) - mean(c)^2`` (the second term removes the rounding of the mean): reductions along the
        time axis that run over contiguous channels, as accurate as ``x.var(unbiased=False)`` and several
        times faster on a wide window.
        """
        mean = x.mean(dim=1, keepdim=True).detach()  # (B, 1, C)
        centred = x - mean  # (B, L, C)
        c = centred.detach()
        var = c.square().mean(dim=1, keepdim=True) - c.mean(dim=1, keepdim=True).square()  # (B, 1, C)
        std = torch.sqrt(var.clamp_min(0.0) + self.eps)  # (B, 1, C)
        y = centred / std
        if self.affine:
            y = y * self.weight + self.bias
        return y, (mean, std)

    def denormalize(self, y: Tensor, stats: tuple[Tensor, Tensor]) -> Tensor:
        """Undo :meth:`normalize` on the forecast of the target channels.

        Shapes: y (B, P, C_out), stats ((B, 1, C_in), (B, 1, C_in)) -> (B, P, C_out).
        """
        mean, std = stats[0][..., self.target_index], stats[1][..., self.target_index]  # (B, 1, C_out) each
        if not self.restore_mean:
            return y * std
        if self.affine:
            y = (y - self.bias[self.target_index]) / (self.weight[self.target_index] + self.eps * self.eps)
        return y * std + mean

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """Nothing: the wrapped net sees transformed windows, so a choice on raw ones would not be its own."""

    def normalize_prior(self, prior: Tensor, stats: tuple[Tensor, Tensor]) -> Tensor:
        """A forecast of the target channels in the units :meth:`normalize` gives the window.

        Shapes: prior (B, P, C_out), stats ((B, 1, C_in), (B, 1, C_in)) -> (B, P, C_out).
        """
        mean, std = stats[0][..., self.target_index], stats[1][..., self.target_index]  # (B, 1, C_out) each
        y = (prior - mean) / std
        if self.affine:
            y = y * self.weight[self.target_index] + self.bias[self.target_index]
        return y

    def takes_prior(self) -> bool:
        """Whether the wrapped net reads a prior forecast (it gets it in normalised units)."""
        return self.net.takes_prior()

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor, prior: Tensor | None = None) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), x_mark_enc (B, seq_len, M), x_mark_dec (B, T + P, M),
        prior (B, P, C_out) or None (read only where :meth:`takes_prior`) -> (B, P, C_out)."""
        x, stats = self.normalize(x_enc)  # (B, seq_len, C_in)
        if prior is None or not self.net.takes_prior():
            return self.denormalize(self.net(x, x_mark_enc, x_mark_dec), stats)  # (B, P, C_out)
        prior = self.normalize_prior(prior, stats)  # (B, P, C_out)
        return self.denormalize(self.net(x, x_mark_enc, x_mark_dec, prior=prior), stats)  # (B, P, C_out)

    def zero_output_(self) -> None:
        """Zero start of the wrapped net; only a residual (``restore_mean=False``) can start at zero."""
        if self.restore_mean:
            raise ConfigError("instance norm adds each window's mean back, so its forecast cannot start at zero; "
                              "set restore_mean: false on the InstanceNorm inside a FloorResidual")
        self.net.zero_output_()

    def output_is_zero(self) -> bool:
        """A residual's output (``forecast * std``) is zero where the wrapped net's is."""
        return not self.restore_mean and self.net.output_is_zero()

    def extra_repr(self) -> str:
        return f"affine={self.affine}, restore_mean={self.restore_mean}"
