"""The ridge floor's penalty chosen on training windows it was not fitted on (docs/results.md §12.5).

    python studies/ridge_alpha.py OUT_DIR [--series wineind lynx ...] [--alphas 0.1 1 10 100 1000 10000 100000]

For each package series of studies/keep_rule.py (its files in ``OUT_DIR/data``, written when missing) and the
default's windows: the ridge floor (alpha 1) and the same regression at each alpha of a grid, fitted on every
training window and scored on validation and test, and fitted on the earlier half of the training windows and
scored on the later half (less the first ``pred_len``, whose targets the earlier half saw). The held-out pick
is the alpha with the lowest later-half MSE; it replaces alpha 1 only where its gain there is evidence
(:func:`forecast.training.evidence.weigh`, the floors' rule). Prints one line a series: test MSE at alpha 1, at
the validation pick, at the held-out pick and at the evidenced pick, and the lowest over the grid.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keep_rule import ETT, ROOT, SERIES, data_overrides, write_series  # noqa: E402


def arrays(ridge, loader) -> tuple[np.ndarray, np.ndarray]:
    """The ridge's regressors and targets of every window of ``loader`` (N, seq_len), (N, P), window-major."""
    parts = [ridge.regression(batch) for batch in loader]
    return np.concatenate([x.numpy() for x, _ in parts]), np.concatenate([y.numpy() for _, y in parts])


def solve(x: np.ndarray, y: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """W and b of the ridge floor's own solve (``RidgeStats``, unpenalised intercept) on rows ``x``, ``y``."""
    import torch

    from forecast.baselines.ridge.stats import RidgeStats

    stats = RidgeStats(n_in=x.shape[1], n_out=y.shape[1])
    stats.update(torch.from_numpy(x), torch.from_numpy(y))
    w, b = stats.solve(alpha=alpha, fit_intercept=True)
    return w.numpy(), b.numpy()


def window_mse(x: np.ndarray, y: np.ndarray, fit: tuple[np.ndarray, np.ndarray], channels: int) -> np.ndarray:
    """MSE of each window (W,), over its channels and horizon."""
    return ((x @ fit[0] + fit[1] - y) ** 2).reshape(-1, channels * y.shape[1]).mean(1)


def one_series(name: str, data_dir: Path, alphas: list[float]) -> str:
    import torch
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate

    from forecast.baselines.ridge import RidgeFloor
    from forecast.training.evidence import hac_lag, weigh

    with initialize_config_dir(str(ROOT / "forecast" / "conf"), version_base="1.3"):
        cfg = compose("train", overrides=[*data_overrides(name, data_dir), "paths.output_dir=/tmp/unused"])
    dm = instantiate(cfg.data)
    dm.setup("fit")
    dims = dm.model_dims()
    ridge, channels = RidgeFloor(dims=dims), int(dims["c_out"])
    with torch.random.fork_rng(devices=[]):
        train, val, test = (arrays(ridge, dm.ordered_dataloader(split)) for split in ("train", "val", "test"))
    windows = len(train[0]) // channels
    half, later = windows // 2 * channels, (windows // 2 + dm.pred_len) * channels
    scores, held_out = {}, {}
    for alpha in alphas:
        full, earlier = solve(*train, alpha), solve(train[0][:half], train[1][:half], alpha)
        held_out[alpha] = window_mse(train[0][later:], train[1][later:], earlier, channels)
        scores[alpha] = (window_mse(*val, full, channels).mean(), window_mse(*test, full, channels).mean())
    by_val = min(alphas, key=lambda a: scores[a][0])
    by_held_out = min(alphas, key=lambda a: held_out[a].mean())
    verdict = weigh(held_out[1.0], held_out[by_held_out], lag=hac_lag(dm.pred_len),
                    names=("alpha 1", f"alpha {by_held_out:g}"), span="held-out training")
    evidenced = by_held_out if verdict.replace else 1.0
    test = {a: scores[a][1] for a in alphas}
    return (f"{name}: rows {len(train[0])}, test MSE alpha 1 {test[1.0]:.5g}; validation pick {by_val:g} "
            f"{test[by_val]:.5g}; held-out pick {by_held_out:g} {test[by_held_out]:.5g}; evidenced {evidenced:g} "
            f"{test[evidenced]:.5g} ({test[evidenced] / test[1.0]:.3f}); lowest {min(test.values()):.5g} "
            f"| {verdict.line()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    parser.add_argument("--alphas", nargs="+", type=float, default=[0.1, 1, 10, 100, 1e3, 1e4, 1e5])
    args = parser.parse_args()
    if 1.0 not in args.alphas:
        parser.error("--alphas must hold 1, the floor's own")
    if not all((args.out / "data" / SERIES[name][0]).is_file() for name in SERIES if name not in ETT):
        write_series(args.out / "data")
    for name in args.series:
        print(one_series(name, args.out / "data", args.alphas), flush=True)


if __name__ == "__main__":
    main()
