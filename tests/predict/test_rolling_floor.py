"""The run's ridge floor beside the naive baselines in ``forecast-predict --rolling``, rebuilt from the
checkpoint, and the floor the model started from where it is another one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from forecast.baselines.best_floor import BestFloor
from forecast.cli.predict import run
from forecast.predict.trained_model import own_floor
from forecast.predict.rolling import format_table
from forecast.training.floors import standing
from forecast.training.recipe import RECIPE_KEY
from forecast.wrappers.calendar_residual import CalendarResidual
from tests.predict.tiny import etth1_rows, train_tiny


@pytest.fixture(scope="module")
def etth1_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("floor_runs"), "etth1", etth1_rows(600))


def backtest(capsys: pytest.CaptureFixture, checkpoint: Path, csv: Path, out: Path) -> tuple[dict, list[str]]:
    code = run([str(checkpoint), str(csv), "--rolling", "--span", "test", "--output", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out.with_suffix(".json").read_text()), stdout.splitlines()


def test_the_ridge_floor_column_reproduces_the_runs_floor(etth1_run: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    trained = json.loads((etth1_run / "metrics.json").read_text())
    summary, lines = backtest(capsys, etth1_run, etth1_run / "etth1.csv", tmp_path / "bt.csv")
    got = summary["metrics"]
    start = trained["floor_choice"]["chosen"]
    assert start == summary["start_floor"] == "day_profile"  # hourly: the day's profile
    assert list(got) == ["model", "naive_last", "naive_mean", "ridge_floor", "start_floor"]
    for key in ("mse", "mae"):
        assert got["ridge_floor"][key] == pytest.approx(trained["floors"]["ridge"][f"test/{key}"], rel=1e-5)
        assert got["naive_last"][key] == pytest.approx(trained["floors"]["naive"][f"test/{key}"], rel=1e-5)
        assert got["start_floor"][key] == pytest.approx(trained["floors"][start][f"test/{key}"], rel=1e-5)
    header = next(line for line in lines if line.lstrip().startswith("step"))
    assert header.endswith(f"{'ridge_floor mse':>16} {'ridge_floor mae':>16} {'start_floor mse':>16} "
                           f"{'start_floor mae':>16}")
    floors = {"ridge": got["ridge_floor"]["mse"], "naive": got["naive_last"]["mse"],
              "mean": got["naive_mean"]["mse"], start: got["start_floor"]["mse"]}
    assert f"vs floors: {standing(got['model']['mse'], floors)}" in lines  # the closing line's floors
    assert f"{start} {got['start_floor']['mse']:.4f}" in standing(got["model"]["mse"], floors)


def test_a_checkpoint_without_the_stored_floor_omits_its_column(etth1_run: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    ckpt_path = Path(json.loads((etth1_run / "metrics.json").read_text())["checkpoint"])
    ckpt = torch.load(ckpt_path, map_location="cpu", weights_only=False)
    del ckpt[RECIPE_KEY]["floors"]  # as written before floors were stored
    old = tmp_path / "old.ckpt"
    torch.save(ckpt, old)
    summary, lines = backtest(capsys, old, etth1_run / "etth1.csv", tmp_path / "bt.csv")
    assert list(summary["metrics"]) == ["model", "naive_last", "naive_mean", "start_floor"]  # from the model
    assert not any("ridge" in line for line in lines if not line.startswith(("checkpoint:", "wrote")))


def test_the_own_floor_is_the_best_floors_choice_unless_the_backtest_has_it() -> None:
    dims = dict(enc_in=2, c_out=2, n_time_features=4, n_future=0, seq_len=24, label_len=0, pred_len=6,
                target_index=[0, 1])
    best = BestFloor(dims=dims, period=24, profiles=["day"], profile=CalendarResidual)
    model = torch.nn.Sequential(torch.nn.ModuleDict({"floor": best}))
    assert own_floor(torch.nn.Linear(2, 2)) is None
    cases = [("naive", None), ("mean", None), ("ridge", None), ("seasonal_naive", "seasonal_naive"),
             ("day_profile", "day_profile")]
    for chosen, expected in cases:
        best.load_state_dict({**best.state_dict(), "choice": torch.tensor(best.names.index(chosen))})
        got = own_floor(model)
        assert (None if got is None else got[0]) == expected
        if got is not None:
            assert type(got[1]) is type(best.candidates[chosen]) and got[1] is not best.candidates[chosen]
            assert not got[1].training


def test_format_table_has_one_column_pair_per_method() -> None:
    row = {"mse": 1.0, "mae": 0.5, "mse_orig": 10.0, "mae_orig": 2.0, "mse_per_step": [1.0], "mae_per_step": [0.5]}
    table = format_table({"model": row, "ridge_floor": {**row, "mse": 0.25}})
    assert table.splitlines() == [
        f" step {'model mse':>16} {'model mae':>16} {'ridge_floor mse':>16} {'ridge_floor mae':>16}",
        f"    1 {1:>16.4f} {0.5:>16.4f} {1:>16.4f} {0.5:>16.4f}",
        f"  all {1:>16.4f} {0.5:>16.4f} {0.25:>16.4f} {0.5:>16.4f}",
        f" orig {10:>16.4f} {2:>16.4f} {10:>16.4f} {2:>16.4f}",
    ]
