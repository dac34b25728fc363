"""The floors beside every run: equal to the baselines' own runs, stored in the checkpoint, worded in the closing line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from forecast.training.pipeline import train
from forecast.data.datamodule import ForecastDataModule
from forecast.core.standing import score
from forecast.training.floors import build_floors, evaluate_floors, ridge_from_state, standing
from forecast.training.recipe import RECIPE_KEY, load_checkpoint, load_model
from tests.conftest import compose_train, etth1_slice

MODEL_OF_FLOOR = {"ridge": "linear", "naive": "naive", "mean": "mean", "seasonal_naive": "seasonal_naive",
                  "cross_ridge": "cross_ridge",
                  "day_profile": "linear_profile", "week_profile": "linear_profile model.period=week"}


def overrides(csv: Path, model: str) -> list[str]:
    return ["data=csv", f"data.path={csv}", "data.target=OT", "data.freq=h", "data.seq_len=24", "data.label_len=12",
            "data.pred_len=6", "data.eval_batch_size=50", *f"model={model}".split(), "logger=none", "plot=false",
            "trainer.enable_progress_bar=false", "trainer.enable_model_summary=false"]


@pytest.fixture(scope="module")
def csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return etth1_slice(tmp_path_factory.mktemp("data") / "etth1_small.csv", 800)


@pytest.mark.parametrize("floor", sorted(MODEL_OF_FLOOR))
def test_each_floor_equals_the_run_of_its_own_model(floor: str, csv: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    metrics = train(compose_train(overrides(csv, MODEL_OF_FLOOR[floor]), tmp_path))
    saved = json.loads((tmp_path / "metrics.json").read_text())
    assert set(saved["floors"]) == set(MODEL_OF_FLOOR)
    for key in ("val/mse", "val/mae", "test/mse", "test/mae"):
        assert saved["floors"][floor][key] == pytest.approx(metrics[key], rel=1e-5), key
    if floor == "ridge":  # the model is the floor: its line says so, and the stored state is the model's
        line = capsys.readouterr().out.splitlines()[-3]
        assert f"(ridge floor {metrics['test/mse']:.4f}, naive " in line
        floor_tests = {name: m["test/mse"] for name, m in saved["floors"].items()}
        assert f"({standing(metrics['test/mse'], floor_tests)})" in line
        ckpt = load_checkpoint(metrics["checkpoint"])
        model, _ = load_model(ckpt)
        stored = ckpt[RECIPE_KEY]["floors"]["ridge"]
        torch.testing.assert_close(stored["weight"], model.weight.detach())
        torch.testing.assert_close(stored["bias"], model.bias.detach())


def test_floors_score_the_windows_the_cap_leaves_to_the_model(csv: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    # 800 rows: the 160 test rows and the 24 before give 155 windows of 24 + 6; under a cap of 40 every 4th
    # (39) would do, but 4 shares a factor with the hourly season (24): every 5th (31)
    metrics = train(compose_train([*overrides(csv, "naive"), "data.eval_max_windows=40"], tmp_path))
    assert (metrics["test_windows"], metrics["test_stride"]) == (31, 5)
    assert metrics["val_windows"] <= 40 and metrics["val_stride"] > 1
    for key in ("val/mse", "val/mae", "test/mse", "test/mae"):
        assert metrics["floors"]["naive"][key] == pytest.approx(metrics[key], rel=1e-5), key
    assert "(31 test windows at stride 5, " in capsys.readouterr().out.splitlines()[-3]


def test_closing_line_names_the_floors_and_the_models_standing(csv: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    metrics = train(compose_train(overrides(csv, "naive"), tmp_path))
    first = capsys.readouterr().out.splitlines()[-3]
    floors = metrics["floors"]
    expected = standing(metrics["test/mse"], {n: m["test/mse"] for n, m in floors.items()})
    assert first.startswith(f"test/mse {metrics['test/mse']:.4f} ({expected})  test/mae ")
    assert f"ridge floor {floors['ridge']['test/mse']:.4f}" in first


def datamodule(csv: Path, **kw: object) -> ForecastDataModule:
    dm = ForecastDataModule(path=str(csv), seq_len=24, label_len=12, pred_len=6, eval_batch_size=64, **kw)
    dm.setup("fit")
    return dm


def test_floors_leave_the_random_state_as_they_found_it(csv: Path) -> None:
    dm = datamodule(csv)
    torch.manual_seed(3)
    before = torch.get_rng_state()
    floors = evaluate_floors(dm, dm.model_dims(), dm.spec.freq)
    assert torch.equal(torch.get_rng_state(), before)
    assert floors.seconds > 0 and set(floors.ridge_state) == {"weight", "bias"}


def test_rebuilt_ridge_forecasts_as_the_fitted_one(csv: Path) -> None:
    dm = datamodule(csv)
    dims = dm.model_dims()
    floors = evaluate_floors(dm, dims, dm.spec.freq)
    ridge = ridge_from_state(dims, floors.checkpoint_state()["ridge"])
    batch = next(iter(torch.utils.data.DataLoader(dm.datasets["test"], batch_size=8)))
    fitted = build_floors(dims, None)["ridge"]
    fitted.fit_closed_form(dm.ordered_train_dataloader())
    torch.testing.assert_close(ridge(batch.x_enc), fitted(batch.x_enc))


@pytest.mark.parametrize("freq,seq_len,has_season", [("h", 24, True), ("h", 23, False), (None, 48, False),
                                                     ("D", 7, True), ("MS", 12, True), ("QS", 4, True),
                                                     ("W", 60, True), ("2MS", 12, False)])
def test_seasonal_naive_only_when_a_season_fits_the_window(freq: str | None, seq_len: int, has_season: bool) -> None:
    dims = {"enc_in": 2, "c_out": 2, "n_time_features": 4, "seq_len": seq_len, "label_len": 0, "pred_len": 3,
            "target_index": [0, 1]}
    names = list(build_floors(dims, freq))
    profiles = {"h": ["day_profile", "week_profile"], "D": ["week_profile"], "MS": ["year_profile"],
                "QS": ["year_profile"]}.get(freq, [])
    assert names == ["naive", "mean", *(["seasonal_naive"] if has_season else []), "ridge", "cross_ridge", *profiles]


def test_no_calendar_profile_without_timestamps() -> None:
    dims = {"enc_in": 2, "c_out": 2, "n_time_features": 0, "seq_len": 24, "label_len": 0, "pred_len": 3,
            "target_index": [0, 1]}
    assert list(build_floors(dims, "h")) == ["naive", "mean", "seasonal_naive", "ridge", "cross_ridge"]


# ---------------------------------------------------------------------------------------- wording
def test_a_model_worse_than_the_ridge_floor_says_so() -> None:
    assert standing(0.5103, {"naive": 1.2220, "mean": 0.68, "ridge": 0.3096}) == (
        "ridge floor 0.3096, naive 1.2220: 65% worse than the ridge floor")


def test_a_model_better_than_every_floor_says_by_how_much() -> None:
    assert standing(0.3, {"naive": 1.2220, "ridge": 0.3096}) == (
        "ridge floor 0.3096, naive 1.2220: 3.1% better than the best floor, ridge")


def test_a_best_floor_other_than_ridge_is_named() -> None:
    floors = {"naive": 0.40, "seasonal_naive": 0.20, "ridge": 0.25}
    assert standing(0.22, floors) == (
        "ridge floor 0.2500, naive 0.4000, seasonal_naive 0.2000: 10% worse than the best floor, seasonal_naive")
    assert standing(0.2002, floors).endswith(": 0.1% worse than the best floor, seasonal_naive")


def test_scores_under_a_thousandth_keep_their_digits() -> None:
    """Cumulative counts scale to tiny errors: four decimals would print them all as 0.0000."""
    assert standing(3.1e-05, {"naive": 0.0039, "ridge": 5.2e-05}) == (
        "ridge floor 5.2e-05, naive 0.0039: 40% better than the best floor, ridge")
    assert [score(v) for v in (0.3045, 0.000999, 0.0, 12.5)] == ["0.3045", "0.000999", "0.0000", "12.5000"]


def test_a_run_of_the_floor_itself_is_level_with_it() -> None:
    assert standing(0.3096001, {"naive": 1.2220, "ridge": 0.3096}) == (
        "ridge floor 0.3096, naive 1.2220: level with the ridge floor")


def test_no_floors_no_words() -> None:
    assert standing(0.5, {}) == ""
