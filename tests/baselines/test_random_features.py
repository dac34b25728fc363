"""Random Fourier features in the ridge floor: a Gaussian-kernel ridge correction, fitted in closed form."""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import pytest
import torch
from sklearn.linear_model import Ridge

from forecast.baselines.ridge.features import RandomFeatures
from forecast.core.errors import ConfigError
from forecast.training.recipe import load_checkpoint, load_model
from tests.baselines.test_ridge_lookbacks import PRED_LEN, SEQ_LEN, batches, floor, informer, train_floor, windows


def rf(n_features: int, **options: object) -> functools.partial:
    """The factory of ``n_features`` random features with ``options``, as a config gives the floor."""
    return functools.partial(RandomFeatures, n_features=n_features, **options)


def relative_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The floor's regression rows of windows, by hand. Shapes: x (N, L, 3) -> rows (N*2, L) float64, last (N, 1, 2)."""
    last = x[:, -1:, [0, 2]]
    return (x[..., [0, 2]] - last).transpose(1, 2).reshape(-1, SEQ_LEN).double(), last


def relative_targets(y: torch.Tensor, last: torch.Tensor) -> np.ndarray:
    """The floor's regression targets, by hand: the horizon relative to the last step. Shapes: (N, P, 2) -> (N*2, P)."""
    return (y - last).transpose(1, 2).reshape(-1, PRED_LEN).double().numpy()


def as_forecast(flat: np.ndarray, last: torch.Tensor) -> torch.Tensor:
    """Flat predictions back to forecasts. Shapes: (N*2, P) -> (N, P, 2)."""
    return torch.from_numpy(flat).float().reshape(-1, 2, PRED_LEN).transpose(1, 2) + last


def test_feature_inner_products_approximate_the_gaussian_kernel() -> None:
    features = RandomFeatures(seq_len=6, n_features=40_000, gamma=0.5, seed=3).double()
    features.rms.fill_(2.0)
    rows = torch.randn(8, 6, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    phi = features(rows)  # (8, D)
    sigma = 2.0 * math.sqrt(6) / 0.5  # rms * sqrt(n_in) / gamma
    exact = torch.exp(-torch.cdist(rows, rows) ** 2 / (2 * sigma ** 2))
    torch.testing.assert_close(phi @ phi.T, exact, rtol=0, atol=0.02)


def test_features_keep_float32_under_bf16_autocast() -> None:
    features = RandomFeatures(seq_len=16, n_features=256, gamma=0.5)
    rows = torch.randn(32, 16, generator=torch.Generator().manual_seed(0))
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        mixed = features(rows)
    assert mixed.dtype == torch.float32
    torch.testing.assert_close(mixed, features(rows), rtol=0, atol=0)


def test_the_kernel_width_comes_from_the_training_rows() -> None:
    x, y = windows()
    model = floor(features=rf(64))
    model.fit_closed_form(batches(x, y))
    rows, _ = relative_rows(x)
    assert float(model.features.rms) == pytest.approx(float(rows.pow(2).mean().sqrt()), rel=1e-6)
    # omega and phase come from their own generator: a second model draws the same ones, another seed others
    assert torch.equal(floor(features=rf(64)).features.omega, model.features.omega)
    assert not torch.equal(floor(features=rf(64, seed=1)).features.omega, model.features.omega)


def test_the_floor_with_features_is_the_ridge_regression_on_rows_and_features() -> None:
    x, y = windows()
    model = floor(features=rf(32, gamma=0.8), alpha=0.5)
    model.fit_closed_form(batches(x, y))
    rows, last = relative_rows(x)  # (N*C, L)
    design = model.double().regressors(rows).numpy()  # (N*C, L + D)
    assert np.array_equal(design[:, :SEQ_LEN], rows.numpy())  # the rows come first, unchanged
    target = relative_targets(y, last)  # (N*C, P)
    reference = Ridge(alpha=0.5, solver="cholesky").fit(design, target)
    np.testing.assert_allclose(model.weight.double().numpy(), reference.coef_.T, rtol=1e-4, atol=1e-5)
    x_new, _ = windows(seed=1)
    rows_new, last_new = relative_rows(x_new)
    expected = as_forecast(reference.predict(model.regressors(rows_new).numpy()), last_new)  # (N, P, C)
    torch.testing.assert_close(model.float()(x_new), expected, rtol=1e-4, atol=1e-4)


def test_with_lookbacks_each_member_regresses_on_its_steps_and_the_features_of_the_last_steps() -> None:
    x, y = windows()
    model = floor(features=rf(24, gamma=0.5, lookback=6), lookbacks=[4, 16], alpha=2.0)
    model.fit_closed_form(batches(x, y))
    rows, last = relative_rows(x)  # (N*C, L)
    assert model.features.omega.shape == (6, 24)
    assert float(model.features.rms) == pytest.approx(float(rows[:, -6:].pow(2).mean().sqrt()), rel=1e-6)
    features = model.features.double()(rows).numpy()  # (N*C, D)
    older_changed = torch.cat([rows[:, :-6] + 1.0, rows[:, -6:]], dim=1)
    assert np.array_equal(model.features(older_changed).numpy(), features)  # of the last 6 steps alone
    target = relative_targets(y, last)  # (N*C, P)
    x_new, _ = windows(seed=1)
    rows_new, last_new = relative_rows(x_new)
    features_new = model.features(rows_new).numpy()
    forecasts = []
    for lookback in (4, 16):  # each member: its own last steps and the shared features
        member = Ridge(alpha=2.0, solver="cholesky").fit(np.hstack([rows[:, -lookback:], features]), target)
        forecasts.append(member.predict(np.hstack([rows_new[:, -lookback:].numpy(), features_new])))
    expected = as_forecast(np.mean(forecasts, axis=0), last_new)  # (N, P, C)
    torch.testing.assert_close(model.float()(x_new), expected, rtol=1e-4, atol=1e-4)


def test_features_fit_what_a_linear_map_cannot() -> None:
    # the horizon drifts by the square of the window's last change: no linear map of the window does that
    gen = torch.Generator().manual_seed(0)
    x = torch.cumsum(torch.randn(3000, SEQ_LEN, 3, generator=gen), dim=1)  # (N, L, 3) random walks
    change = x[:, -1, [0, 2]] - x[:, -2, [0, 2]]  # (N, 2)
    ramp = torch.arange(1, PRED_LEN + 1)[None, :, None] / PRED_LEN  # (1, P, 1)
    y = x[:, -1:, [0, 2]] + (change ** 2 - 1)[:, None, :] * ramp  # (N, P, 2)
    errors = {}
    for name, model in {"linear": floor(), "features": floor(features=rf(500, gamma=1.0))}.items():
        model.fit_closed_form(batches(x[:2000], y[:2000]))
        errors[name] = float((model(x[2000:]) - y[2000:]).pow(2).mean())
    assert errors["features"] < 0.6 * errors["linear"], errors  # 0.50 against 0.95


@pytest.mark.parametrize("features,message", [
    (rf(10, lookback=17), "the random features' lookback must be between 1 and seq_len (16), got 17"),
    (rf(10, lookback=0), "the random features' lookback must be between 1 and seq_len (16), got 0"),
    (rf(0), "random features need n_features >= 1 and gamma > 0, got 0 and 0.3"),
    (rf(10, gamma=-1.0), "random features need n_features >= 1 and gamma > 0, got 10 and -1.0"),
])
def test_impossible_feature_settings_are_refused(features: functools.partial, message: str) -> None:
    with pytest.raises(ConfigError) as error:
        floor(features=features)
    assert str(error.value) == message


def test_the_floor_residual_takes_the_same_features() -> None:
    x, y = windows()
    model = informer(features=rf(32, lookback=8), lookbacks=[4, 16])
    reference = floor(features=rf(32, lookback=8), lookbacks=[4, 16])
    model.fit_closed_form(batches(x, y))
    reference.fit_closed_form(batches(x, y))
    marks = torch.zeros(len(x), SEQ_LEN, 4), torch.zeros(len(x), 8 + PRED_LEN, 4)
    torch.testing.assert_close(model(x, *marks), reference(x), rtol=0, atol=1e-5)  # the untrained model is the floor


def test_features_through_train_and_back_from_the_checkpoint(tmp_path: Path) -> None:
    plain = train_floor(tmp_path, "plain")
    metrics = train_floor(tmp_path, "rf", "+ridge@model.features=random_features", "model.features.n_features=100")
    assert plain["n_params"] == 48 * 24 + 24
    assert metrics["n_params"] == (48 + 100) * 24 + 24  # W over rows and features, b; omega is drawn, not fitted
    assert metrics["test/mse"] != plain["test/mse"]
    model, _ = load_model(load_checkpoint(metrics["checkpoint"]))
    assert model.features.n_features == 100 and float(model.features.rms) != 1.0  # the fitted width came back
    ensemble = train_floor(tmp_path, "rf_lookbacks", "+ridge@model.features=random_features",
                           "model.features.n_features=100", "model.features.lookback=12", "model.lookbacks=[12,48]")
    assert ensemble["n_params"] == metrics["n_params"]  # the members' weights average into one W
    assert ensemble["test/mse"] != metrics["test/mse"]
    model, _ = load_model(load_checkpoint(ensemble["checkpoint"]))
    assert model.features.omega.shape == (12, 100) and model.lookbacks == [12, 48]
