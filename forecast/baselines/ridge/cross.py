"""The cross-channel ridge floor: each target channel regressed on the look-back of every input channel."""

from __future__ import annotations

from typing import Any, Iterable

import torch
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.baselines.ridge.penalty import choose_penalty
from forecast.baselines.ridge.stats import RidgeStats
from forecast.core.forecaster import DataDims
from forecast.data.batch import window_count

#: most regressors (look-back steps x input channels) a cross-channel ridge is built for: its
#: statistics are regressors^2 float64 values (32 MB at 2,048)
MAX_REGRESSORS = 2048
#: most windows a fit takes: more are taken at an even stride (neighbouring windows nearly repeat each other)
MAX_WINDOWS = 20_000


def fits_cross(dims: DataDims) -> bool:
    """Whether the data suits a cross-channel ridge: two input channels or more, and at most
    :data:`MAX_REGRESSORS` regressors."""
    return int(dims["enc_in"]) >= 2 and int(dims["seq_len"]) * int(dims["enc_in"]) <= MAX_REGRESSORS


class CrossRidgeFloor(Baseline):
    """One ridge regression from the whole window (every input channel, relative to its last value) to the
    horizon of every target channel, relative to its last value.

    ``forecast[c] = last[c] + vec(window - last) @ W[:, c] + b[:, c]``: the multivariate linear map that the
    shared ridge (:class:`~forecast.baselines.ridge.floor.RidgeFloor`, one map for every channel alone)
    cannot express, as when humidity and pressure say where the temperature goes. Its penalty is chosen
    in the fit on the later training windows (:func:`~forecast.baselines.ridge.penalty.choose_penalty`). Of more
    than :data:`MAX_WINDOWS` windows every k-th is taken.
    ``W`` and ``b`` are frozen parameters.

    Args:
        dims: the data's sizes; ``seq_len x enc_in`` regressors.
    """

    def __init__(self, *, dims: DataDims) -> None:
        super().__init__(dims=dims)
        self.n_regressors = self.seq_len * int(dims["enc_in"])
        n_out = self.pred_len * len(self.target_index)
        self.weight = nn.Parameter(torch.zeros(self.n_regressors, n_out), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(n_out), requires_grad=False)
        self.register_buffer("scale", torch.tensor(float("nan"), dtype=torch.float64))  # the chosen scale

    def regression(self, batch: Any) -> tuple[Tensor, Tensor]:
        """A batch's regressors and targets relative to each channel's last value, float64.

        Shapes: x_enc (B, seq_len, C_in), y (B, P, C_out) -> (B, seq_len * C_in), (B, P * C_out).
        """
        x = batch.x_enc.cpu().double()
        last = x[:, -1:, :]  # (B, 1, C_in)
        target = batch.y.cpu().double() - self.targets(last)  # (B, P, C_out)
        return (x - last).reshape(len(x), -1), target.reshape(len(x), -1)

    def _statistics(self, batches: Iterable[Any], stride: int = 1, first: int = 0) -> RidgeStats:
        """The statistics of the windows of ``batches`` whose index, counted from ``first`` (their own index
        among all the training windows), divides by ``stride``."""
        stats = RidgeStats(n_in=self.n_regressors, n_out=self.weight.shape[1])
        seen = first
        for batch in batches:
            take = slice((-seen) % stride, None, stride)  # the batch's windows whose index divides by stride
            seen += len(batch.y)
            if len(batch.y[take]):
                stats.update(*self.regression(batch._replace(x_enc=batch.x_enc[take], y=batch.y[take])))
        return stats

    @torch.no_grad()
    def fit_closed_form(self, batches: Iterable[Any]) -> int:
        """Choose the penalty on the later training windows, then fit W and b on every window of ``batches``
        (in window order; re-iterable).

        Returns:
            The number of regression rows (windows taken).
        """
        windows = window_count(batches)
        stride = -(-windows // MAX_WINDOWS)
        chosen = choose_penalty(batches, self.pred_len, lambda part, first: self._statistics(part, stride, first),
                                lambda stats, alpha: stats.solve(alpha=alpha, fit_intercept=True), windows)
        weight, bias = chosen.stats.solve(alpha=chosen.alpha, fit_intercept=True)
        self.weight.copy_(weight.to(self.weight))
        self.bias.copy_(bias.to(self.bias))
        self.scale.fill_(chosen.scale)
        return chosen.stats.n

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        last = x_enc[:, -1:, :]  # (B, 1, C_in)
        flat = (x_enc - last).reshape(x_enc.shape[0], -1)  # (B, seq_len * C_in), step-major as in the fit
        out = flat @ self.weight + self.bias  # (B, P * C_out)
        return out.reshape(x_enc.shape[0], self.pred_len, -1) + self.targets(last)  # (B, P, C_out)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, regressors={self.n_regressors}"
