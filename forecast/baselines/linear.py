"""The ridge floor: closed-form ridge regression from the input window to the horizon."""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import torch
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.baselines.random_features import RandomFeatures
from forecast.core.errors import ConfigError


class RidgeStats:
    """Sufficient statistics of a (row-weighted) least-squares problem ``Y ~ X W + b``, accumulated in float64.

    Args:
        n_in: columns of X.
        n_out: columns of Y.
    """

    def __init__(self, *, n_in: int, n_out: int) -> None:
        self.n = 0
        self.sum_x = torch.zeros(n_in, dtype=torch.float64)
        self.sum_y = torch.zeros(n_out, dtype=torch.float64)
        self.xtx = torch.zeros(n_in, n_in, dtype=torch.float64)
        self.xty = torch.zeros(n_in, n_out, dtype=torch.float64)

    def update(self, x: Tensor, y: Tensor, weight: Tensor | None = None) -> None:
        """Add rows, each counted ``weight`` times (1 when None).

        Shapes: x (N, n_in), y (N, n_out), weight (N,).
        """
        x, y = x.double(), y.double()
        w = None if weight is None else weight.double()  # (N,)
        wx = x if w is None else x * w[:, None]  # (N, n_in): the rows scaled by their weights
        self.n += x.shape[0] if w is None else float(w.sum())
        self.sum_x += wx.sum(0)
        self.sum_y += y.sum(0) if w is None else w @ y
        self.xtx += wx.T @ x
        self.xty += wx.T @ y

    def solve(self, *, alpha: float, fit_intercept: bool, columns: Sequence[int] | None = None
              ) -> tuple[Tensor, Tensor]:
        """Minimise ``|Y - X W - b|^2 + alpha |W|^2`` (b unpenalised, as scikit-learn's ``Ridge``).

        Args:
            alpha: L2 penalty on W.
            fit_intercept: fit b; else b = 0.
            columns: regress on these columns of X only (their block of the statistics); None for all.

        Returns:
            W (len(columns) or n_in, n_out) and b (n_out,), float64.

        Raises:
            ValueError: no rows were added.
        """
        if self.n == 0:
            raise ValueError("no training rows to fit the ridge regression on")
        cols = slice(None) if columns is None else torch.as_tensor(list(columns))
        xtx, xty, sum_x = self.xtx[cols][:, cols], self.xty[cols], self.sum_x[cols]
        if fit_intercept:
            mean_x, mean_y = sum_x / self.n, self.sum_y / self.n
            xtx = xtx - self.n * torch.outer(mean_x, mean_x)  # centred X^T X
            xty = xty - self.n * torch.outer(mean_x, mean_y)  # centred X^T Y
        eye = torch.eye(xtx.shape[0], dtype=torch.float64)
        w = torch.linalg.solve(xtx + alpha * eye, xty)
        b = mean_y - mean_x @ w if fit_intercept else torch.zeros(xty.shape[1], dtype=torch.float64)
        return w, b


class RidgeFloor(Baseline):
    """One ridge regression shared by all target channels, on values relative to the window's last value.

    ``forecast = last + (window - last) @ W + b``: fitted in closed form (``fit_closed_form``) on every
    training window, all channels stacked as rows; ``W`` and ``b`` are frozen parameters (saved in the
    checkpoint, counted in ``n_params``, never touched by an optimiser).

    With several ``lookbacks`` it is an ensemble over look-backs: one ridge regression on the last L
    steps of the window for each L, forecasts averaged. The average of linear maps is one linear map,
    so ``W`` is the mean of their weights, each zero over the steps older than its L, and the forward
    pass and the checkpoint do not change. Short look-backs forecast smoothly, long ones see more
    days; averaging them shrinks the long ones' noise (docs/results.md §2.2).

    With ``random_features`` D, each row is extended by D random Fourier features of its last
    ``rf_lookback`` steps (``forecast.baselines.random_features``) and ``W`` has ``seq_len + D`` rows:
    the same closed-form solve then fits the linear map plus a Gaussian-kernel ridge correction
    (docs/results.md §3.1). With look-backs too, every member regresses on its own steps and the same
    features; their weights average as before, the features' with them (§3.2).

    With ``huber_quantile`` q the fit is robust: after the least-squares solve, ``huber_steps`` rounds
    of iteratively reweighted least squares minimise a Huber loss on each row's root-mean-square
    error over the horizon, its threshold the q-quantile of those errors under the previous solution.
    A row with error r above the threshold d counts d / r times, so the rare windows with a spike in
    the horizon stop pulling the map towards them (docs/results.md §3.3).

    Args:
        enc_in: input channels (unused).
        c_out: predicted channels.
        n_time_features: time-feature columns (unused).
        n_future: known-future mark columns (unused: this forecaster reads no marks).
        seq_len: input window length.
        label_len: start-token length (unused).
        pred_len: horizon.
        target_index: positions of the predicted channels among the inputs.
        alpha: L2 penalty on W (each look-back's).
        fit_intercept: fit an unpenalised bias per horizon step.
        lookbacks: the look-backs of the ensemble, each at most ``seq_len``; None for ``seq_len`` alone.
        random_features: D random Fourier features appended to each row; None for a linear map only.
        rf_gamma: the features' row norm over kernel width (``RandomFeatures``' ``gamma``).
        rf_lookback: the last steps of the window the features read, at most ``seq_len``; None for all.
        rf_seed: seed of the features' draw (``RandomFeatures``' ``seed``), to check a result over draws.
        huber_quantile: the quantile of the rows' errors where the Huber loss turns linear, in (0, 1);
            None for plain least squares.
        huber_steps: reweighting rounds of the Huber fit.

    Raises:
        ConfigError: a look-back or ``rf_lookback`` outside 1..seq_len, ``rf_lookback`` without random
            features, or ``random_features`` < 1 or ``rf_gamma`` <= 0, ``huber_quantile`` outside (0, 1),
            or ``huber_steps`` < 1.
    """

    def __init__(self, *, enc_in: int, c_out: int, n_time_features: int, seq_len: int, label_len: int,
                 pred_len: int, target_index: Sequence[int], n_future: int = 0, alpha: float = 1.0,
                 fit_intercept: bool = True, lookbacks: Sequence[int] | None = None, random_features: int | None = None,
                 rf_gamma: float = 0.3, rf_lookback: int | None = None, rf_seed: int = 0,
                 huber_quantile: float | None = None, huber_steps: int = 3) -> None:
        super().__init__(enc_in=enc_in, c_out=c_out, n_time_features=n_time_features, seq_len=seq_len,
                         label_len=label_len, pred_len=pred_len, target_index=target_index, n_future=n_future)
        self.alpha, self.fit_intercept = float(alpha), fit_intercept
        self.lookbacks = sorted({int(n) for n in lookbacks}) if lookbacks else [seq_len]
        if self.lookbacks[0] < 1 or self.lookbacks[-1] > seq_len:
            raise ConfigError(f"ridge look-backs must be between 1 and seq_len ({seq_len}), "
                              f"got {list(lookbacks or [])}")
        if rf_lookback is not None and random_features is None:
            raise ConfigError("rf_lookback needs random_features: set both, or drop rf_lookback")
        self.rf_lookback = seq_len if rf_lookback is None else int(rf_lookback)
        if not 1 <= self.rf_lookback <= seq_len:
            raise ConfigError(f"rf_lookback must be between 1 and seq_len ({seq_len}), got {rf_lookback}")
        if huber_quantile is not None and not 0 < huber_quantile < 1:
            raise ConfigError(f"huber_quantile must be between 0 and 1 (exclusive), got {huber_quantile}")
        if huber_steps < 1:
            raise ConfigError(f"huber_steps must be at least 1, got {huber_steps}")
        self.huber_quantile, self.huber_steps = huber_quantile, int(huber_steps)
        # RandomFeatures refuses a count < 1 or rf_gamma <= 0
        self.features = (RandomFeatures(self.rf_lookback, random_features, rf_gamma, seed=rf_seed)
                         if random_features is not None else None)
        n_rows = seq_len + (random_features or 0)
        self.weight = nn.Parameter(torch.zeros(n_rows, pred_len), requires_grad=False)
        self.bias = nn.Parameter(torch.zeros(pred_len), requires_grad=False)

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

    def feature_window(self, rows: Tensor) -> Tensor:
        """The steps of the rows the random features read. Shapes: (N, seq_len) -> (N, rf_lookback)."""
        return rows[:, self.seq_len - self.rf_lookback:]

    def regressors(self, rows: Tensor) -> Tensor:
        """What W multiplies: the rows, with the random features of their last ``rf_lookback`` steps if any.

        Shapes: (N, seq_len) -> (N, seq_len + D).
        """
        if self.features is None:
            return rows
        return torch.cat([rows, self.features(self.feature_window(rows))], dim=1)

    @torch.no_grad()
    def fit_closed_form(self, batches: Iterable[Any]) -> int:
        """Fit the features' kernel width (if any), then W and b on every window of ``batches``
        (robustly with ``huber_quantile``).

        Args:
            batches: ``Batch`` tuples (``x_enc``, ``y``), re-iterable (a DataLoader) when there are
                random features or a Huber fit: one pass per closed-form part, two per reweighting round.

        Returns:
            The number of regression rows (windows x channels).
        """
        if self.features is not None:
            self.features.fit(self.feature_window(self.design(batch.x_enc.cpu())[0]) for batch in batches)
        stats = self.statistics(batches)
        self.solve(stats)
        for _ in range(self.huber_steps if self.huber_quantile is not None else 0):
            errors = torch.cat([self.row_errors(*self.regression(batch)) for batch in batches])  # (N,)
            rank = max(1, math.ceil(self.huber_quantile * errors.numel()))  # nearest-rank quantile, any size
            threshold = float(errors.kthvalue(rank).values)
            self.solve(self.statistics(batches, huber_threshold=threshold))
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
        """The least-squares statistics of every window of ``batches``, to solve for one or more alphas.

        With ``huber_threshold`` d, a row whose error under the current W and b is r > d counts d / r
        times: one reweighting round of the Huber fit.
        """
        stats = RidgeStats(n_in=self.weight.shape[0], n_out=self.pred_len)
        for batch in batches:
            regressors, target = self.regression(batch)  # (B*C, seq_len + D), (B*C, P)
            weight = None
            if huber_threshold is not None:
                weight = (huber_threshold / self.row_errors(regressors, target).clamp(min=1e-12)).clamp(max=1.0)
            stats.update(regressors, target, weight)
        return stats

    @torch.no_grad()
    def solve(self, stats: RidgeStats) -> None:
        """Set W and b to the ridge solution of ``stats`` at this model's ``alpha``: the mean over the
        look-backs of each one's solution on its last L steps (and the random features, if any), its W
        zero over the older steps."""
        weight = torch.zeros_like(self.weight, dtype=torch.float64)  # (seq_len + D, P)
        bias = torch.zeros(self.pred_len, dtype=torch.float64)
        feature_columns = list(range(self.seq_len, weight.shape[0]))  # the D features, after the window's steps
        for lookback in self.lookbacks:
            columns = [*range(self.seq_len - lookback, self.seq_len), *feature_columns]
            w, b = stats.solve(alpha=self.alpha, fit_intercept=self.fit_intercept, columns=columns)  # (L + D, P)
            weight[columns] += w / len(self.lookbacks)
            bias += b / len(self.lookbacks)
        self.weight.copy_(weight.to(self.weight))
        self.bias.copy_(bias.to(self.bias))

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Forecast.

        Shapes:
            x_enc: (B, seq_len, C_in); the marks are ignored.
            returns: (B, pred_len, C_out).
        """
        rows, last = self.design(x_enc)  # (B*C, L), (B, 1, C)
        out = self.regressors(rows) @ self.weight + self.bias  # (B*C, P)
        return out.reshape(x_enc.shape[0], -1, self.pred_len).transpose(1, 2) + last  # (B, P, C)

    def extra_repr(self) -> str:
        return (f"{super().extra_repr()}, alpha={self.alpha}, fit_intercept={self.fit_intercept}, "
                f"lookbacks={self.lookbacks}, huber_quantile={self.huber_quantile}")
