"""The ridge floor as an ensemble over look-backs: one ridge per look-back, forecasts averaged."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
import torch

from forecast.attention.full import FullAttention
from forecast.attention.prob import ProbSparseAttention
from forecast.baselines.ridge import RidgeFloor
from forecast.training.pipeline import train
from forecast.data.batch import Batch
from forecast.core.errors import ConfigError
from forecast.models.informer import Informer
from forecast.wrappers.floor_residual import FloorResidual
from forecast.wrappers.instance_norm import InstanceNorm
from tests.conftest import compose_train, etth1_slice

SEQ_LEN, PRED_LEN = 16, 4


def floor(seq_len: int = SEQ_LEN, **kwargs: object) -> RidgeFloor:
    return RidgeFloor(dims=dict(enc_in=3, c_out=2, n_time_features=4, n_future=0, seq_len=seq_len, label_len=0,
                                pred_len=PRED_LEN, target_index=[0, 2]), **kwargs)


def informer(**floor_options: object) -> FloorResidual:
    """The default's composition at a tiny width, on the same data dimensions as :func:`floor` (label_len 8):
    a ridge floor with ``floor_options`` plus an Informer residual inside instance norm."""
    torch.manual_seed(0)
    net = functools.partial(Informer, encoder_attention=ProbSparseAttention, decoder_attention=FullAttention,
                            cross_attention=FullAttention, d_model=16, n_heads=2, d_ff=32, dropout=0.0)
    return FloorResidual(floor=functools.partial(RidgeFloor, **floor_options),
                         net=functools.partial(InstanceNorm, net=net, restore_mean=False),
                         dims=dict(enc_in=3, c_out=2, n_time_features=4, n_future=0, seq_len=SEQ_LEN, label_len=8,
                                   pred_len=PRED_LEN, target_index=[0, 2])).eval()


def windows(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """Every window of a 3-channel random walk. Shapes: x (N, SEQ_LEN, 3), y (N, PRED_LEN, 2)."""
    gen = torch.Generator().manual_seed(seed)
    series = torch.cumsum(torch.randn(300, 3, generator=gen), dim=0)
    starts = range(0, 300 - SEQ_LEN - PRED_LEN + 1)
    x = torch.stack([series[s:s + SEQ_LEN] for s in starts])
    y = torch.stack([series[s + SEQ_LEN:s + SEQ_LEN + PRED_LEN, [0, 2]] for s in starts])
    return x, y


def batches(x: torch.Tensor, y: torch.Tensor) -> list[Batch]:
    none = torch.zeros(0)
    return [Batch(x[i:i + 64], none, none, y[i:i + 64]) for i in range(0, len(x), 64)]


def test_the_ensemble_is_the_mean_of_one_ridge_per_lookback_on_the_last_steps() -> None:
    x, y = windows()
    ensemble = floor(lookbacks=[16, 4, 8], alpha=3.0)
    ensemble.fit_closed_form(batches(x, y))
    assert ensemble.lookbacks == [4, 8, 16]
    references = []
    for lookback in (4, 8, 16):  # each fitted alone on its own sub-windows of the same training windows
        single = floor(seq_len=lookback, alpha=3.0)
        single.fit_closed_form(batches(x[:, -lookback:], y))
        references.append(single)
    x_new, _ = windows(seed=1)
    expected = torch.stack([m(x_new[:, -m.seq_len:]) for m in references]).mean(0)  # (N, P, 2)
    torch.testing.assert_close(ensemble(x_new), expected, rtol=1e-4, atol=1e-4)
    # steps older than 8 are seen by the 16-step ridge alone, at a third of its weight
    torch.testing.assert_close(ensemble.weight[:8], references[2].weight[:8] / 3, rtol=1e-5, atol=1e-6)


def test_one_lookback_of_the_whole_window_is_the_plain_floor() -> None:
    x, y = windows()
    plain, same = floor(), floor(lookbacks=[SEQ_LEN])
    plain.fit_closed_form(batches(x, y))
    same.fit_closed_form(batches(x, y))
    torch.testing.assert_close(same.weight, plain.weight, rtol=0, atol=0)
    torch.testing.assert_close(same.bias, plain.bias, rtol=0, atol=0)


@pytest.mark.parametrize("lookbacks", [[8, 32], [0, 8]])
def test_a_lookback_outside_the_window_is_refused(lookbacks: list[int]) -> None:
    with pytest.raises(ConfigError, match=r"^ridge look-backs must be between 1 and seq_len \(16\), got "
                                          + re.escape(str(lookbacks)) + "$"):
        floor(lookbacks=lookbacks)


def test_the_floor_residual_takes_the_same_ensemble() -> None:
    x, y = windows()
    model = informer(lookbacks=[4, 16])
    reference = floor(lookbacks=[4, 16])
    model.fit_closed_form(batches(x, y))
    reference.fit_closed_form(batches(x, y))
    marks = torch.zeros(len(x), SEQ_LEN, 4), torch.zeros(len(x), 8 + PRED_LEN, 4)
    # the Informer's projection starts at zero: the untrained model is exactly the ensemble floor
    torch.testing.assert_close(model(x, *marks), reference(x), rtol=0, atol=1e-5)


def train_floor(tmp_path: Path, name: str, *extra: str) -> dict:
    """``model=linear`` through ``train`` on 1,500 rows of ETTh1, look-back 48, horizon 24, in ``tmp_path/name``."""
    csv = tmp_path / "etth1.csv"
    if not csv.exists():
        etth1_slice(csv, 1500)
    base = ["data=csv", f"data.path={csv}", "data.target=OT", "data.seq_len=48", "data.label_len=0",
            "data.pred_len=24", "model=linear", "logger=none", "plot=false", "trainer.enable_progress_bar=false"]
    return train(compose_train([*base, *extra], tmp_path / name))


def test_lookbacks_through_train(tmp_path: Path) -> None:
    plain = train_floor(tmp_path, "plain")
    ensemble = train_floor(tmp_path, "ensemble", "model.lookbacks=[12,24,48]")
    assert ensemble["n_params"] == plain["n_params"] == 48 * 24 + 24  # one linear map whatever the look-backs
    assert ensemble["test/mse"] != plain["test/mse"]
    assert "lookbacks:\n  - 12\n  - 24\n  - 48" in (tmp_path / "ensemble" / "config.yaml").read_text()
