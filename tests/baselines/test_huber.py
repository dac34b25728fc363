"""The ridge floor's robust fit: a Huber loss on each row's error, by iteratively reweighted least squares."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

from forecast.baselines.ridge.huber import Huber
from forecast.core.errors import ConfigError
from tests.baselines.test_random_features import relative_rows, relative_targets
from tests.baselines.test_ridge_lookbacks import PRED_LEN, SEQ_LEN, batches, floor, informer, train_floor, windows


def huber_reference(rows: np.ndarray, target: np.ndarray, *, lookbacks: list[int], alpha: float, quantile: float,
                    steps: int) -> np.ndarray:
    """The Huber fit by hand with scikit-learn: least squares, then ``steps`` rounds of ``Ridge`` with
    ``sample_weight`` min(1, d / error), d the nearest-rank ``quantile`` of the ensemble's row errors.

    Shapes: rows (N, L), target (N, P) -> the fitted rows (N, P).
    """
    weight = np.ones(len(rows))
    for _ in range(steps + 1):
        members = [Ridge(alpha=alpha, solver="cholesky").fit(rows[:, -n:], target, sample_weight=weight)
                   for n in lookbacks]
        fit = np.mean([m.predict(rows[:, -n:]) for m, n in zip(members, lookbacks)], axis=0)  # (N, P)
        errors = np.sqrt(np.mean((fit - target) ** 2, axis=1))  # (N,)
        threshold = np.sort(errors)[math.ceil(quantile * len(errors)) - 1]
        weight = np.minimum(1.0, threshold / errors)
    return fit


@pytest.mark.parametrize("lookbacks", [[SEQ_LEN], [4, SEQ_LEN]])
def test_the_huber_fit_is_ridge_reweighted_by_each_rows_error_against_the_quantile(lookbacks: list[int]) -> None:
    x, y = (t.double() for t in windows())
    y = y + 5 * (torch.rand(y.shape, generator=torch.Generator().manual_seed(1)) > 0.97)  # spikes in 3% of steps
    model = floor(alpha=2.0, lookbacks=lookbacks, huber=Huber(quantile=0.8, steps=2)).double()
    model.fit_closed_form(batches(x, y))
    rows, last = relative_rows(x)  # (N*C, L)
    expected = huber_reference(rows.numpy(), relative_targets(y, last), lookbacks=lookbacks, alpha=2.0,
                               quantile=0.8, steps=2)  # (N*C, P)
    fitted = (rows @ model.weight + model.bias).numpy()  # (N*C, P)
    plain = floor(alpha=2.0, lookbacks=lookbacks).double()
    plain.fit_closed_form(batches(x, y))
    assert not np.allclose(fitted, (rows @ plain.weight + plain.bias).numpy(), atol=1e-3)  # the weights mattered
    np.testing.assert_allclose(fitted, expected, rtol=1e-6, atol=1e-8)


def test_spiked_horizons_pull_the_least_squares_map_more_than_the_huber_one() -> None:
    # the horizon continues each window's last change; 3% of the windows carry a large spike
    gen = torch.Generator().manual_seed(0)
    x = torch.cumsum(torch.randn(3000, SEQ_LEN, 3, generator=gen), dim=1)  # (N, L, 3) random walks
    change = x[:, -1:, [0, 2]] - x[:, -2:-1, [0, 2]]  # (N, 1, 2)
    clean = x[:, -1:, [0, 2]] + change * torch.arange(1, PRED_LEN + 1)[None, :, None]  # (N, P, 2)
    spiked = (torch.rand(3000, 1, 1, generator=gen) < 0.03) * 30 * torch.randn(3000, 1, 2, generator=gen)
    errors = {}
    for name, model in {"least squares": floor(), "huber": floor(huber=Huber(quantile=0.9))}.items():
        model.fit_closed_form(batches(x[:2000], (clean + spiked)[:2000]))
        errors[name] = float((model(x[2000:]) - clean[2000:]).pow(2).mean())
    assert errors["huber"] < 0.01 * errors["least squares"], errors  # 1e-6 against 0.09


def test_the_floor_residual_takes_the_same_huber_fit() -> None:
    x, y = windows()
    model = informer(lookbacks=[4, 16], huber=Huber(quantile=0.7, steps=2))
    reference = floor(lookbacks=[4, 16], huber=Huber(quantile=0.7, steps=2))
    model.fit_closed_form(batches(x, y))
    reference.fit_closed_form(batches(x, y))
    torch.testing.assert_close(model.floor.weight, reference.weight, rtol=0, atol=0)
    torch.testing.assert_close(model.floor.bias, reference.bias, rtol=0, atol=0)


@pytest.mark.parametrize("kwargs,message", [
    ({"quantile": 1.0}, "huber quantile must be between 0 and 1 (exclusive), got 1.0"),
    ({"quantile": 0}, "huber quantile must be between 0 and 1 (exclusive), got 0"),
    ({"quantile": 0.9, "steps": 0}, "huber steps must be at least 1, got 0"),
])
def test_an_impossible_huber_setting_is_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        Huber(**kwargs)
    assert str(error.value) == message


def test_the_huber_fit_through_train(tmp_path: Path) -> None:
    plain = train_floor(tmp_path, "plain")
    robust = train_floor(tmp_path, "huber", "+ridge@model.huber=huber", "model.huber.quantile=0.7")
    assert robust["n_params"] == plain["n_params"]  # the same linear map, fitted with other row weights
    assert robust["test/mse"] != plain["test/mse"]
    assert "huber:\n    _target_: forecast.baselines.ridge.huber.Huber\n    quantile: 0.7" in \
        (tmp_path / "huber" / "config.yaml").read_text()


