"""Least squares in closed form: the sufficient statistics of ``Y ~ X W + b`` and their ridge solution."""

from __future__ import annotations

from typing import Sequence

import torch
from torch import Tensor


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
        self.sum_yy = 0.0  # the (weighted) sum of squares of Y

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
        self.sum_yy += float(y.square().sum() if w is None else w @ y.square().sum(1))

    def __add__(self, other: "RidgeStats") -> "RidgeStats":
        """The statistics of both sets of rows."""
        out = RidgeStats(n_in=self.xtx.shape[0], n_out=self.xty.shape[1])
        out.n, out.sum_yy = self.n + other.n, self.sum_yy + other.sum_yy
        out.sum_x, out.sum_y = self.sum_x + other.sum_x, self.sum_y + other.sum_y
        out.xtx, out.xty = self.xtx + other.xtx, self.xty + other.xty
        return out

    def centred_xtx(self) -> Tensor:
        """``X^T X`` of X less its column means, (n_in, n_in)."""
        mean_x = self.sum_x / max(self.n, 1)
        return self.xtx - self.n * torch.outer(mean_x, mean_x)

    def squared_error(self, w: Tensor, b: Tensor) -> float:
        """``|Y - X W - b|^2`` over these rows, from the statistics alone.

        Shapes: w (n_in, n_out), b (n_out,).
        """
        w, b = w.double(), b.double()
        return float(self.sum_yy - 2 * (w * self.xty).sum() - 2 * b @ self.sum_y + (w * (self.xtx @ w)).sum()
                     + 2 * b @ (w.T @ self.sum_x) + self.n * b @ b)

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
        xtx = (self.centred_xtx() if fit_intercept else self.xtx)[cols][:, cols]
        xty, sum_x = self.xty[cols], self.sum_x[cols]
        if fit_intercept:
            mean_x, mean_y = sum_x / self.n, self.sum_y / self.n
            xty = xty - self.n * torch.outer(mean_x, mean_y)  # centred X^T Y
        eye = torch.eye(xtx.shape[0], dtype=torch.float64)
        w = torch.linalg.solve(xtx + alpha * eye, xty)
        b = mean_y - mean_x @ w if fit_intercept else torch.zeros(xty.shape[1], dtype=torch.float64)
        return w, b
