"""The trained residual scaled down, offline: ``floor + w * net`` against the start (``w = 0``) (docs/results.md §12.9).

    python studies/residual_blend.py OUT/runs/*      # run dirs of studies/keep_rule.py

For every run whose best round was weighed against its closed-form start (``metrics.json`` → ``keep`` has a
``gain``), loads the best round's checkpoint, rebuilds its data module from the checkpoint's config, and splits
the forecast of each validation window the keep rule scores (and of each test window) into the floor's error
and the net's output. Prints one JSON line a run: for each ``w`` the test MSE, the keep rule's p-value against
the start and whether it would replace it, and the validation MSE; and the validation-optimal ``w`` (least
squares, clipped to [0, 1]) with its test MSE.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import torch
from hydra.utils import instantiate
from omegaconf import OmegaConf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from forecast.predict.trained_model import TrainedModel  # noqa: E402
from forecast.training.evidence import hac_lag, weigh  # noqa: E402

SCALES = (0.25, 0.5, 0.75, 1.0)


def parts(model: torch.nn.Module, loader: object) -> tuple[np.ndarray, np.ndarray]:
    """The floor's error (forecast - target) and the net's output on every window of ``loader``.

    Shapes: (W, P, C_out) each, float64.
    """
    errors, nets = [], []
    with torch.inference_mode():
        for b in loader:
            floor = model.floor(b.x_enc.float(), b.x_mark_enc.float(), b.x_mark_dec.float())  # (B, P, C)
            errors.append((floor - b.y).double())
            nets.append(model.net(b.x_enc, b.x_mark_enc, b.x_mark_dec).double())
    return torch.cat(errors).numpy(), torch.cat(nets).numpy()


def window_mse(error: np.ndarray, net: np.ndarray, w: float) -> np.ndarray:
    """Per-window MSE of ``floor + w * net``. Shapes: (W, P, C), (W, P, C) -> (W,)."""
    return ((error + w * net) ** 2).mean(axis=(1, 2))


def one_run(run: Path) -> dict | None:
    keep = json.loads((run / "metrics.json").read_text()).get("keep", {})
    if "gain" not in keep:
        return None
    trained = TrainedModel.load(sorted((run / "checkpoints").glob("best*.ckpt"))[-1])
    model = trained.model.eval()
    datamodule = instantiate(OmegaConf.create(trained.config["data"]))
    datamodule.setup("fit")
    datamodule.setup("test")
    lag = hac_lag(int(datamodule.pred_len), int(getattr(datamodule, "eval_stride", 1)))
    val_error, val_net = parts(model, datamodule.round_val_dataloader())
    test_error, test_net = parts(model, datamodule.test_dataloader())
    start = window_mse(val_error, val_net, 0.0)
    out: dict = {"run": run.name, "decision": keep["decision"], "p_value": keep.get("p_value"),
                 "start": {"test": float(window_mse(test_error, test_net, 0.0).mean()), "val": float(start.mean())}}
    for w in SCALES:
        verdict = weigh(start, window_mse(val_error, val_net, w), lag=lag)
        out[f"w{w}"] = {"test": float(window_mse(test_error, test_net, w).mean()),
                        "val": float(window_mse(val_error, val_net, w).mean()),
                        "p_value": verdict.p_value, "replace": verdict.replace}
    best = float(np.clip(-(val_error * val_net).sum() / (val_net * val_net).sum(), 0.0, 1.0))
    out["w_val_optimal"] = {"w": best, "test": float(window_mse(test_error, test_net, best).mean())}
    return out


def main() -> None:
    torch.set_num_threads(1)
    for run in map(Path, sys.argv[1:]):
        row = one_run(run)
        if row is not None:
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
