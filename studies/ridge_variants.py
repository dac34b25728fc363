#!/usr/bin/env python
"""Prototype behind docs/results.md §6: seven changes to the single ridge floor, validation and test MSE.

    python studies/ridge_variants.py ../shared/data/ETTh2.csv 336 48
    python studies/ridge_variants.py data/ETTh1.csv 336 168

numpy only, not part of the package: ETT borders (train [0, 8640), val [8640, 11520), test [11520, 14400),
the look-back taken before each border), every column (features M) scaled on training rows, one ridge
(alpha 1, intercept) shared by all channels on values relative to the window's last value. Its first
line reproduces `forecast-train model=linear` at that look-back and horizon (ETTh2-48: val 0.1533,
test 0.2160). Nothing here was kept: none of the variants clears the goals of issue 5.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

BORDERS = (8640, 11520, 14400)


def windows(z: np.ndarray, lb: int, h: int, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Window start indices, inputs (N, lb, C) and targets (N, h, C) of the windows inside [lo, hi)."""
    starts = np.arange(lo, hi - lb - h + 1)
    x = np.stack([z[s:s + lb] for s in starts])
    y = np.stack([z[s + lb:s + lb + h] for s in starts])
    return starts, x, y


def rows(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relative to the last input value, channels stacked as rows: (N*C, lb) and (N*C, h)."""
    last = x[:, -1:, :]
    flat = lambda a: a.transpose(0, 2, 1).reshape(-1, a.shape[1])  # (N, T, C) -> (N*C, T)
    return flat(x - last), flat(y - last)


def fit(x: np.ndarray, y: np.ndarray, alpha: float, w: np.ndarray | None = None,
        prior: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Weighted ridge with an unpenalised intercept, shrunk toward ``prior`` (zero when None)."""
    w = np.ones(len(x)) if w is None else w
    mx, my = w @ x / w.sum(), w @ y / w.sum()
    xc, yc = x - mx, y - my
    rhs = (xc * w[:, None]).T @ yc + (0 if prior is None else alpha * prior)
    coef = np.linalg.solve((xc * w[:, None]).T @ xc + alpha * np.eye(x.shape[1]), rhs)
    return coef, my - mx @ coef


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("lookback", type=int)
    parser.add_argument("horizon", type=int)
    args = parser.parse_args()
    lb, h = args.lookback, args.horizon
    raw = pd.read_csv(args.csv).iloc[:, 1:].to_numpy(np.float64)
    z = (raw - raw[:BORDERS[0]].mean(0)) / raw[:BORDERS[0]].std(0)
    n_ch = z.shape[1]
    lo = (0, BORDERS[0] - lb, BORDERS[1] - lb)
    (s_tr, x_tr, y_tr), (s_va, x_va, y_va), (s_te, x_te, y_te) = (
        windows(z, lb, h, a, b) for a, b in zip(lo, BORDERS))
    (a_tr, b_tr), (a_va, b_va), (a_te, b_te) = rows(x_tr, y_tr), rows(x_va, y_va), rows(x_te, y_te)

    def report(name: str, pred_va: np.ndarray, pred_te: np.ndarray) -> None:
        print(f"{name:48s} val {((pred_va - b_va) ** 2).mean():.4f}  test {((pred_te - b_te) ** 2).mean():.4f}")

    coef, icpt = fit(a_tr, b_tr, 1.0)
    report(f"floor (lb {lb}, h {h}, alpha 1)", a_va @ coef + icpt, a_te @ coef + icpt)

    t = np.repeat(s_tr, n_ch).astype(float)  # each row's window start
    for half_life in (500, 1000, 2000, 4000, 8000):
        c, b = fit(a_tr, b_tr, 1.0, w=0.5 ** ((t.max() - t) / half_life))
        report(f"recency half-life {half_life}", a_va @ c + b, a_te @ c + b)

    by_ch = lambda a: a.reshape(-1, n_ch, a.shape[1])  # (N*C, T) -> (N, C, T)
    for beta in (1e2, 1e3, 1e4, 1e5):
        pv, pt = by_ch(a_va @ coef + icpt), by_ch(a_te @ coef + icpt)
        for ch in range(n_ch):
            c, b = fit(by_ch(a_tr)[:, ch], by_ch(b_tr)[:, ch], beta, prior=coef)
            pv[:, ch], pt[:, ch] = by_ch(a_va)[:, ch] @ c + b, by_ch(a_te)[:, ch] @ c + b
        report(f"per channel, shrunk to shared, beta {beta:g}", pv.reshape(-1, h), pt.reshape(-1, h))

    _, _, vt = np.linalg.svd((a_tr - a_tr.mean(0)) @ coef, full_matrices=False)
    for rank in (2, 4, 8, 16, 32):
        proj = vt[:rank].T @ vt[:rank]
        report(f"reduced rank {rank}", a_va @ coef @ proj + icpt, a_te @ coef @ proj + icpt)

    mx, my = a_tr.mean(0), b_tr.mean(0)
    eig, vec = np.linalg.eigh((a_tr - mx).T @ (a_tr - mx))
    xty = vec.T @ ((a_tr - mx).T @ (b_tr - my))
    err_va, err_te = [], []
    for alpha in (0.01, 1, 100, 1e3, 1e4, 1e5):
        c = vec @ (xty / (eig + alpha)[:, None])
        b = my - mx @ c
        err_va.append(((a_va @ c + b - b_va) ** 2).mean(0))
        err_te.append(((a_te @ c + b - b_te) ** 2).mean(0))
    pick = np.array(err_va).argmin(0)  # per horizon step
    print(f"{'alpha per horizon step, picked on validation':48s} val {np.array(err_va).min(0).mean():.4f}  "
          f"test {np.array(err_te)[pick, np.arange(h)].mean():.4f}")

    for k in (4, 24):
        def cross(x: np.ndarray) -> np.ndarray:
            rel = x - x[:, -1:, :]
            n = len(x)
            every = np.repeat(rel[:, -k:, :].reshape(n, 1, -1), n_ch, 1)  # (N, C, k*C): all channels' last k
            onehot = np.broadcast_to(np.eye(n_ch), (n, n_ch, n_ch))
            return np.concatenate([rel.transpose(0, 2, 1), every, onehot], 2).reshape(n * n_ch, -1)
        for alpha in (1, 100):
            c, b = fit(cross(x_tr), b_tr, alpha)
            report(f"other channels' last {k} steps, alpha {alpha}", cross(x_va) @ c + b, cross(x_te) @ c + b)

    hour = lambda s: np.repeat((s + lb - 1) % 24, n_ch)  # hour of the origin (ETT starts at 00:00)
    h_tr, h_va, h_te = hour(s_tr), hour(s_va), hour(s_te)
    for beta in (1e3, 1e4, 1e5):
        pv, pt = a_va @ coef + icpt, a_te @ coef + icpt
        for hh in range(24):
            c, b = fit(a_tr[h_tr == hh], b_tr[h_tr == hh], beta, prior=coef)
            pv[h_va == hh], pt[h_te == hh] = a_va[h_va == hh] @ c + b, a_te[h_te == hh] @ c + b
        report(f"per origin hour, shrunk to shared, beta {beta:g}", pv, pt)

    for k in (24, 96, lb):
        var = a_tr[:, -k:].var(1)
        c, b = fit(a_tr, b_tr, 1.0, w=1 / np.sqrt(var + np.median(var)))
        report(f"weight 1/sqrt(var + median), last {k} steps", a_va @ c + b, a_te @ c + b)


if __name__ == "__main__":
    main()
