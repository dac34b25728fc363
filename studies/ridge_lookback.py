#!/usr/bin/env python
"""How low can the ridge floor go? Validation and test MSE of the ridge floor over look-backs and alphas.

    python studies/ridge_lookback.py --data data/ETTh1.csv --horizons 24 48 168 336 720 \\
        --lookbacks 48 96 168 336 512 720 1440 --alphas 1 100 10000 --out docs/ridge_lookback_etth1.csv

One row per (horizon, look-back, alpha): MSE on the normalised scale over every validation and test
window, with the ETT borders (train [0, 8640), val [8640, 11520), test [11520, 14400)) unless
--ratios is given. The test windows are the same for every look-back (the look-back is taken before
the border), so rows of one horizon compare like for like. Prints the table; --out also writes it
as CSV. Bad input: one error line, exit status 2, nothing written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd
import torch
from torch.utils.data import DataLoader

from forecast.baselines.ridge import RidgeFloor
from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.io import atomic_path

ETT_BORDERS = (8640, 11520, 14400)


@torch.no_grad()
def mse(model: RidgeFloor, loader: DataLoader) -> float:
    """Mean squared error of ``model`` over every window of ``loader`` (normalised scale)."""
    total, count = 0.0, 0
    for batch in loader:
        err = model(batch.x_enc) - batch.y  # (B, P, C)
        total += float(err.double().pow(2).sum())
        count += err.numel()
    return total / count


def scan(path: Path, *, horizons: list[int], lookbacks: list[int], alphas: list[float],
         borders: tuple[int, ...] | None, ratios: tuple[float, ...]) -> pd.DataFrame:
    """Fit the ridge floor once per (horizon, look-back) and solve it for every alpha."""
    rows = []
    for pred_len in horizons:
        for seq_len in lookbacks:
            dm = ForecastDataModule(path=str(path), features="M", seq_len=seq_len, label_len=0, pred_len=pred_len,
                                    borders=borders, ratios=ratios, eval_batch_size=512)
            dm.setup("fit")
            model = RidgeFloor(dims=dm.model_dims())
            stats = model.statistics(dm.ordered_train_dataloader())
            for alpha in alphas:
                model.solve(stats, alpha=float(alpha))
                rows.append({"data": path.stem, "pred_len": pred_len, "seq_len": seq_len, "alpha": alpha,
                             "val_mse": mse(model, dm.val_dataloader()), "test_mse": mse(model, dm.test_dataloader()),
                             "test_windows": len(dm.datasets["test"])})
            print(f"{path.stem} pred_len {pred_len} seq_len {seq_len}: done", file=sys.stderr, flush=True)
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True, help="CSV: a timestamp column, then numeric columns")
    parser.add_argument("--horizons", type=int, nargs="+", required=True)
    parser.add_argument("--lookbacks", type=int, nargs="+", required=True)
    parser.add_argument("--alphas", type=float, nargs="+", default=[1.0])
    parser.add_argument("--ratios", type=float, nargs=3, default=None,
                        help="train/val/test fractions instead of the ETT borders")
    parser.add_argument("--threads", type=int, default=None, help="torch intra-op threads")
    parser.add_argument("--out", type=Path, default=None, help="CSV to write")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    borders = None if args.ratios else ETT_BORDERS
    try:
        table = scan(args.data, horizons=args.horizons, lookbacks=args.lookbacks, alphas=args.alphas,
                     borders=borders, ratios=tuple(args.ratios or (0.7, 0.1, 0.2)))
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    if args.out is not None:
        with atomic_path(args.out) as tmp:
            table.to_csv(tmp, index=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
