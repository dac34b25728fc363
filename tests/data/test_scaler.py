"""The scaler sees training rows only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from tests.conftest import ETTH1


@pytest.mark.parametrize("features", ["M", "S", "MS"])
def test_scaler_statistics_are_the_training_rows_statistics(features: str) -> None:
    dm = ForecastDataModule(path=str(ETTH1), target="OT", features=features, seq_len=96, label_len=48, pred_len=24,
                            borders=[8640, 11520, 14400])
    dm.setup()
    frame = pd.read_csv(ETTH1)
    cols = list(dm.spec.input_columns)
    train = frame[cols].iloc[:8640].to_numpy()
    np.testing.assert_allclose(dm.spec.mean, train.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(dm.spec.scale, train.std(axis=0, ddof=0), rtol=1e-12)
    whole = frame[cols].to_numpy()
    assert not np.allclose(dm.spec.mean, whole.mean(axis=0))  # the reference predict bug would use these


def test_changing_future_rows_leaves_the_scaler_unchanged(tmp_path) -> None:
    frame = pd.read_csv(ETTH1, nrows=2000)
    a = tmp_path / "a.csv"
    frame.to_csv(a, index=False)
    frame.loc[1400:, "OT"] += 1000.0  # rows after the training border
    b = tmp_path / "b.csv"
    frame.to_csv(b, index=False)
    specs = []
    for path in (a, b):
        dm = ForecastDataModule(path=str(path), seq_len=48, label_len=24, pred_len=24, ratios=[0.7, 0.1, 0.2])
        dm.setup()
        specs.append(dm.spec)
    assert specs[0].mean == specs[1].mean and specs[0].scale == specs[1].scale


def test_windows_hold_scaled_values_and_targets_follow_features() -> None:
    dm = ForecastDataModule(path=str(ETTH1), target="OT", features="MS", seq_len=96, label_len=48, pred_len=24,
                            borders=[8640, 11520, 14400])
    dm.setup()
    frame = pd.read_csv(ETTH1)
    b = dm.datasets["test"][0]
    assert b.x_enc.shape == (96, 7) and b.y.shape == (24, 1)
    ot = frame["OT"].to_numpy()
    i = dm.spec.input_columns.index("OT")
    expected = (ot[11520:11544] - dm.spec.mean[i]) / dm.spec.scale[i]
    np.testing.assert_allclose(b.y[:, 0].numpy(), expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", [0, 1])
def test_training_moments_equal_standard_scaler_bitwise(seed: int) -> None:
    from sklearn.preprocessing import StandardScaler

    from forecast.data.windowed import _moments

    rng = np.random.default_rng(seed)
    rows = np.column_stack([rng.normal(5.0, 3.0, 5000), rng.lognormal(0.0, 2.0, 5000) * 1e6,
                            np.full(5000, 7.25), 1e9 + rng.normal(0.0, 1e-3, 5000)])
    scaler = StandardScaler().fit(rows)
    mean, std = _moments(rows, True)
    assert np.array_equal(mean, scaler.mean_) and np.array_equal(std, scaler.scale_)
    assert std[2] == 1.0  # a constant column is left unscaled
