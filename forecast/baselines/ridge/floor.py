"""The ridge floor: closed-form ridge regression from the input window to the horizon."""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

import torch
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.baselines.ridge.ensemble import LookbackEnsemble
from forecast.baselines.ridge.features import RandomFeatures
from forecast.baselines.ridge.huber import Huber
from forecast.baselines.ridge.penalty import choose_penalty
from forecast.baselines.ridge.stats import RidgeStats
from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims
from forecast.data.batch import window_count

FeatureFactory = Callable[..., RandomFeatures]
"""Builds the feature map when called with ``seq_len=`` (a Hydra ``_partial_`` node, or a class)."""


class RidgeFloor(Baseline):
    """One ridge regression shared by all target channels, on values relative to the window's last value.

    ``forecast = last + (window - last) @ W + b``: fitted in closed form (``fit_closed_form``) on every
    training window, all channels stacked as rows; ``W`` and ``b`` are frozen parameters (saved in the
    checkpoint, counted in ``n_params``, never touched by an optimiser).

    Three optional parts change the fit, each its own piece:

    * ``lookbacks``: a look-back ensemble (:class:`~forecast.baselines.ridge.ensemble.LookbackEnsemble`),
      one ridge on the last L steps per L, averaged into one ``W``.
    * ``features``: D random Fourier features appended to each row
      (:class:`~forecast.baselines.ridge.features.RandomFeatures`); ``W`` has ``seq_len + D`` rows, and
      the same solve fits the linear map plus a Gaussian-kernel ridge correction. Every member of a
      look-back ensemble regresses on its own steps and all the features.
    * ``huber``: a robust fit (:class:`~forecast.baselines.ridge.huber.Huber`), rounds of reweighted
      least squares after the first solve.

    Its penalty is ``alpha``; with ``choose_below``, a fit of fewer regression rows (windows x target channels)
    than ``choose_below`` per regressor chooses it on the later training windows instead
    (:func:`~forecast.baselines.ridge.penalty.choose_penalty`, the cross-channel ridge's rule): a ridge of nearly
    as many regressors as rows at a small penalty is nearly least squares, and forecasts what it fitted of the
    noise. The penalty W was solved at is the buffer ``penalty`` (not saved in a checkpoint: W and b are).

    Args:
        dims: the data's sizes.
        alpha: L2 penalty on W (each look-back's).
        choose_below: regression rows per regressor under which the penalty is chosen on the later training
            windows; None: always ``alpha``.
        fit_intercept: fit an unpenalised bias per horizon step.
        lookbacks: the look-backs of the ensemble, each at most ``seq_len``; None for ``seq_len`` alone.
        features: factory of the feature map (called with ``seq_len=``); None for a linear map only.
        huber: the Huber reweighting; None for plain least squares.

    Raises:
        ConfigError: a negative alpha, a choose_below of 0 or less, a look-back outside 1..seq_len, or a feature map
            the window cannot feed.
    """

    def __init__(self, *, dims: DataDims, alpha: float = 1.0, choose_below: float | None = None,
                 fit_intercept: bool = True, lookbacks: Sequence[int] | None = None,
                 features: FeatureFactory | None = None, huber: Huber | None = None) -> None:
        super().__init__(dims=dims)
        if not alpha >= 0:
            raise ConfigError(f"a ridge's alpha ({alpha}) must be 0 or more")
        if choose_below is not None and not choose_below > 0:
            raise ConfigError(f"a ridge's choose_below ({choose_below}) must be above 0 (regression rows per "
                              f"regressor), or null to keep alpha")
        self.alpha, self.fit_intercept = float(alpha), fit_intercept
        self.choose_below = None if choose_below is None else float(choose_below)
        self.ensemble = LookbackEnsemble(lookbacks, seq_len=self.seq_len)
        self.features = None if features is None else features(seq_len=self.seq_len)
        self.huber = huber
        n_rows = self.seq_len + (0 if self.features is None else self.features.n_features)
        self.weight = nn.Parameter(torch.zeros(n_rows, self.pred_len), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(self.pred_len), requires_grad=False)
        self.register_buffer("penalty", torch.tensor(self.alpha, dtype=torch.float64), persistent=False)

    @property
    def lookbacks(self) -> list[int]:
        """The look-backs of the ensemble (``[seq_len]`` for one plain ridge)."""
        return self.ensemble.lookbacks

    def design(self, x_enc: Tensor) -> tuple[Tensor, Tensor]:
        """Regression rows of a batch: one per (window, target channel).

        Shapes:
            x_enc: (B, seq_len, C_in).
            returns: rows (B * C_out, seq_len) relative to the last value, last values (B, 1, C_out).
        """
        x = self.targets(x_enc)  # (B, L, C)
        last = x[:, -1:, :]  # (B, 1, C)
        rows = (x - last).transpose(1, 2).reshape(-1, self.seq_len)  # (B*C, L)
        return rows, last

    def regressors(self, rows: Tensor) -> Tensor:
        """What W multiplies: the rows, with their random features if any.

        Shapes: (N, seq_len) -> (N, seq_len + D).
        """
        if self.features is None:
            return rows
        return torch.cat([rows, self.features(rows)], dim=1)

    @torch.no_grad()
    def fit_closed_form(self, batches: Iterable[Any]) -> int:
        """Fit the features' kernel width (if any), then W and b on every window of ``batches``, then
        the Huber rounds (if any).

        Args:
            batches: ``Batch`` tuples (``x_enc``, ``y``), re-iterable (a DataLoader) when there are
                random features or a Huber fit: one pass per closed-form part, two per reweighting round.

        Returns:
            The number of regression rows (windows x channels).
        """
        if self.features is not None:
            self.features.fit(self.design(batch.x_enc.cpu())[0] for batch in batches)
        windows = None if self.choose_below is None else window_count(batches)
        if windows is not None and windows * len(self.target_index) < self.choose_below * self.weight.shape[0]:
            chosen = choose_penalty(batches, self.pred_len, lambda part, _: self.statistics(part),
                                    lambda stats, alpha: self.ensemble.solve(stats, alpha=alpha,
                                                                             fit_intercept=self.fit_intercept),
                                    windows)
            stats, alpha = chosen.stats, chosen.alpha
        else:
            stats, alpha = self.statistics(batches), self.alpha
        self.solve(stats, alpha)
        for _ in range(0 if self.huber is None else self.huber.steps):
            errors = torch.cat([self.row_errors(*self.regression(batch)) for batch in batches])  # (N,)
            self.solve(self.statistics(batches, huber_threshold=self.huber.threshold(errors)))
        return stats.n

    def regression(self, batch: Any) -> tuple[Tensor, Tensor]:
        """A batch's regressors and targets, relative to each window's last value, in float64.

        Shapes: x_enc (B, seq_len, C_in), y (B, P, C_out) -> (B*C_out, seq_len + D), (B*C_out, P).
        """
        rows, last = self.design(batch.x_enc.cpu())
        target = (batch.y.cpu() - last).transpose(1, 2).reshape(-1, self.pred_len)  # (B*C, P)
        return self.regressors(rows.double()), target.double()

    def row_errors(self, regressors: Tensor, target: Tensor) -> Tensor:
        """Each row's root-mean-square error over the horizon under the current W and b.

        Shapes: regressors (N, seq_len + D), target (N, P) -> (N,).
        """
        fit = regressors @ self.weight.double() + self.bias.double()  # (N, P)
        return (fit - target).pow(2).mean(dim=1).sqrt()

    @torch.no_grad()
    def statistics(self, batches: Iterable[Any], huber_threshold: float | None = None) -> RidgeStats:
        """The least-squares statistics of every window of ``batches``.

        With ``huber_threshold``, each row counts as many times as the Huber reweighting says for its
        error under the current W and b: one round of the Huber fit.
        """
        stats = RidgeStats(n_in=self.weight.shape[0], n_out=self.pred_len)
        for batch in batches:
            regressors, target = self.regression(batch)  # (B*C, seq_len + D), (B*C, P)
            weight = None
            if huber_threshold is not None:
                weight = self.huber.weights(self.row_errors(regressors, target), huber_threshold)  # (B*C,)
            stats.update(regressors, target, weight)
        return stats

    @torch.no_grad()
    def solve(self, stats: RidgeStats, alpha: float | None = None) -> None:
        """Set W and b to the ensemble's ridge solution of ``stats`` at ``alpha`` (None: the penalty of the last
        fit, ``alpha`` before any), and the penalty to it."""
        if alpha is not None:
            self.penalty.fill_(alpha)
        weight, bias = self.ensemble.solve(stats, alpha=float(self.penalty), fit_intercept=self.fit_intercept)
        self.weight.copy_(weight.to(self.weight))
        self.bias.copy_(bias.to(self.bias))

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        if self.features is None:  # one product over the window's steps, in the window's own layout
            x = self.targets(x_enc)  # (B, L, C)
            last = x[:, -1:, :]  # (B, 1, C)
            # (P, L) @ (B, L, C) -> (B, P, C)
            return torch.matmul(self.weight.t(), x - last) + self.bias[:, None] + last
        rows, last = self.design(x_enc)  # (B*C, L), (B, 1, C)
        out = self.regressors(rows) @ self.weight + self.bias  # (B*C, P)
        return out.reshape(x_enc.shape[0], -1, self.pred_len).transpose(1, 2) + last  # (B, P, C)

    def extra_repr(self) -> str:
        return (f"{super().extra_repr()}, alpha={self.alpha}, choose_below={self.choose_below}, "
                f"fit_intercept={self.fit_intercept}, "
                f"lookbacks={self.lookbacks}, huber={self.huber}")
