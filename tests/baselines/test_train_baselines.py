"""End to end: parameter-free and closed-form baselines through ``train(cfg)`` (no fit, still a checkpoint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from forecast.training.pipeline import train
from forecast.core.errors import ConfigError
from forecast.training.recipe import load_checkpoint, load_model
from tests.conftest import compose_train, etth1_slice


def overrides(csv: Path, model: str, *extra: str) -> list[str]:
    return ["data=csv", f"data.path={csv}", "data.target=OT", "data.seq_len=48", "data.label_len=24",
            "data.pred_len=12", f"model={model}", "logger=none", "plot=false", "trainer.enable_progress_bar=false",
            "trainer.enable_model_summary=false", *extra]


@pytest.fixture(scope="module")
def csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return etth1_slice(tmp_path_factory.mktemp("data") / "etth1_small.csv", 1000)


def test_window_mean_runs_without_fit_and_writes_metrics_and_a_loadable_checkpoint(csv: Path, tmp_path: Path) -> None:
    metrics = train(compose_train(overrides(csv, "mean"), tmp_path))
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert saved["epochs"] == 0 and saved["n_params"] == 0 and saved["model"] == "WindowMean"
    assert saved["encoder_attention"] == saved["cross_attention"] == "none"
    assert len(saved["test/mse_per_step"]) == 12 and saved["test/mse"] == pytest.approx(metrics["test/mse"])
    model, spec = load_model(load_checkpoint(tmp_path / "checkpoints" / "best.ckpt"))
    x = torch.randn(2, 48, 7)
    torch.testing.assert_close(model(x, None, None), x.mean(1, keepdim=True).expand(-1, 12, -1))
    assert spec.seq_len == 48 and saved["checkpoint"].endswith("best.ckpt")


def test_ridge_floor_is_fitted_in_closed_form_and_its_weights_are_checkpointed(csv: Path, tmp_path: Path) -> None:
    metrics = train(compose_train(overrides(csv, "linear"), tmp_path))
    assert metrics["epochs"] == 0 and metrics["fit_seconds"] > 0
    assert metrics["n_params"] == 48 * 12 + 12 and metrics["n_trainable_params"] == 0
    model, _ = load_model(load_checkpoint(tmp_path / "checkpoints" / "best.ckpt"))
    assert model.weight.abs().sum() > 0  # the fitted W, not the zero init


def test_seasonal_naive_takes_its_season_from_the_inferred_frequency_or_asks_for_model_period(csv: Path, tmp_path: Path) -> None:
    cfg = compose_train(overrides(csv, "seasonal_naive"), tmp_path)  # data=csv: freq null (inferred)
    assert cfg.model.period is None
    trained = train(cfg)  # the inferred frequency (hourly) gives the season
    assert "period: 24" in (tmp_path / "config.yaml").read_text() and "freq: h" in (tmp_path / "config.yaml").read_text()
    assert trained["test/mse"] == pytest.approx(trained["floors"]["seasonal_naive"]["test/mse"], rel=1e-5)
    cfg = compose_train(overrides(csv, "seasonal_naive", "data.freq=h"), tmp_path)
    assert cfg.model.period == 24
    with pytest.raises(ConfigError, match="model.period"):
        train(compose_train(overrides(csv, "seasonal_naive", "model.period=null"), tmp_path / "none"))


def test_dlinear_trains_like_any_model(csv: Path, tmp_path: Path) -> None:
    metrics = train(compose_train(overrides(csv, "dlinear", "trainer.max_epochs=1", "trainer.limit_train_batches=3",
                                            "task.optimizer.lr=0.005"), tmp_path))
    assert metrics["epochs"] == 1 and metrics["n_trainable_params"] == 2 * (48 * 12 + 12)
    assert Path(metrics["checkpoint"]).is_file()


def test_an_unknown_floor_profile_is_refused_before_the_floors_are_fitted(csv: Path, tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """The default's floor profiles are day, week and year: another one names the key, and no floor is fitted first."""
    fitted: list[str] = []
    monkeypatch.setattr("forecast.training.pipeline.evaluate_floors", lambda *args: fitted.append("floors"))
    with pytest.raises(ConfigError) as error:
        train(compose_train(overrides(csv, "informer_floor", "model.floor.profiles=[day,month]"), tmp_path))
    assert str(error.value) == ("floor profiles must be among day, week, year, got ['day', 'month'] (model.floor.profiles in "
                                "the default model, model.profiles with model=best_floor; [] for none)")
    assert fitted == [] and not (tmp_path / "config.yaml").exists()
