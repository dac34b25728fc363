"""Random Fourier features: a ridge regression on them is a Gaussian-kernel ridge regression, in closed form.

For a row ``r`` the features are ``sqrt(2 / D) cos(r @ omega + phase)`` with ``omega ~ N(0, 1 / sigma^2)``
and ``phase ~ U(0, 2 pi)``; their inner product approximates ``exp(-|r - r'|^2 / (2 sigma^2))``
(Rahimi & Recht, NeurIPS 2007). The ridge floor appends them to its linear rows, so one solve fits a
linear map plus a smooth nonlinear correction, and the solution stays exact, frozen and seed-free
(docs/results.md §3.1).
"""

from __future__ import annotations

import math
from typing import Iterable

import torch
from torch import Tensor, nn

from forecast.core.errors import ConfigError


class RandomFeatures(nn.Module):
    """Fixed random Fourier features of the last ``lookback`` steps of each row, with the kernel width
    set from the training rows.

    ``sigma = rms * sqrt(n_in) / gamma``, where ``n_in`` is the look-back and ``rms`` the root mean
    square of the training rows' entries over it (:meth:`fit`): ``gamma`` is the typical row norm over
    the kernel width, so one value suits any look-back and scale. ``omega`` and ``phase`` come from a
    generator seeded with ``seed``, not from the global seed, so a fit depends on the data alone; all
    three are saved in the checkpoint.

    Args:
        seq_len: columns of a row (the window's steps).
        n_features: D, the number of random features.
        gamma: row norm over kernel width (larger: a narrower, more nonlinear kernel).
        lookback: the last steps of a row the features read, at most ``seq_len``; None for all.
        seed: seed of ``omega`` and ``phase`` (not the run's seed: the floor is the same for every run).

    Raises:
        ConfigError: ``n_features`` < 1, ``gamma`` <= 0, or a look-back outside 1..seq_len.
    """

    def __init__(self, *, seq_len: int, n_features: int, gamma: float = 0.3, lookback: int | None = None,
                 seed: int = 0) -> None:
        super().__init__()
        if n_features < 1 or gamma <= 0:
            raise ConfigError(f"random features need n_features >= 1 and gamma > 0, got {n_features} and {gamma}")
        n_in = seq_len if lookback is None else int(lookback)
        if not 1 <= n_in <= seq_len:
            raise ConfigError(f"the random features' lookback must be between 1 and seq_len ({seq_len}), "
                              f"got {lookback}")
        self.seq_len, self.n_in, self.n_features, self.gamma = seq_len, n_in, n_features, float(gamma)
        generator = torch.Generator().manual_seed(seed)
        self.register_buffer("omega", torch.randn(n_in, n_features, generator=generator))
        self.register_buffer("phase", torch.rand(n_features, generator=generator) * 2 * math.pi)
        self.register_buffer("rms", torch.ones(()))

    def window(self, rows: Tensor) -> Tensor:
        """The steps of the rows the features read. Shapes: (N, seq_len) -> (N, lookback)."""
        return rows[:, self.seq_len - self.n_in:]

    @torch.no_grad()
    def fit(self, rows: Iterable[Tensor]) -> None:
        """Set ``rms`` from the training rows. Shapes: each (N, seq_len)."""
        total, count = 0.0, 0
        for r in map(self.window, rows):
            total += float(r.double().pow(2).sum())
            count += r.numel()
        if count == 0:
            raise ValueError("no training rows to set the random features' kernel width from")
        self.rms.fill_(math.sqrt(total / count) or 1.0)

    def forward(self, rows: Tensor) -> Tensor:
        """The rows' random features. Shapes: (N, seq_len) -> (N, D)."""
        rows = self.window(rows)  # (N, lookback)
        scale = self.gamma / (self.rms * math.sqrt(self.n_in))  # 1 / sigma
        # in the rows' own precision: under bf16 autocast the cosine's argument would be off by ~1e-2
        with torch.autocast(device_type=rows.device.type, enabled=False):
            features = torch.cos(rows @ (self.omega.to(rows) * scale) + self.phase.to(rows))  # (N, D)
        return features * math.sqrt(2.0 / self.n_features)

    def extra_repr(self) -> str:
        return f"lookback={self.n_in}, n_features={self.n_features}, gamma={self.gamma}"
