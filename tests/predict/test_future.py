"""forecast-predict --future: the known-future file, its refusals, --rolling with future columns, the API."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest
import torch

import forecast
from forecast.data.errors import DataError
from forecast.data.spec import DataSpec
from forecast.predict.trained_model import TrainedModel
from forecast.training.recipe import RECIPE_KEY, load_checkpoint
from tests.predict.tiny import PRED_LEN, SEQ_LEN, ckpt_of, etth1_rows, predict, train_tiny

ROWS = 600
TARGETS = ["HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]  # every column but the known HUFL


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("future_runs"), "etth1", etth1_rows(ROWS),
                      extra=["data.future_columns=[HUFL]", "keep_start=false"])  # a trained residual: it reads HUFL


@pytest.fixture(scope="session")
def plain_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("interval_runs"), "etth1", etth1_rows(ROWS))


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    """history.csv (rows 400..499) and future.csv (the next PRED_LEN rows, every column)."""
    rows = etth1_rows(ROWS)
    history, future = tmp_path / "history.csv", tmp_path / "future.csv"
    rows.iloc[400:500].to_csv(history, index=False)
    rows.iloc[500:500 + PRED_LEN].to_csv(future, index=False)
    return history, future


def test_checkpoint_records_the_future_columns(run_dir: Path) -> None:
    recipe = load_checkpoint(ckpt_of(run_dir))[RECIPE_KEY]
    spec = DataSpec.from_dict(recipe["spec"])
    assert spec.future_columns == ("HUFL",) and spec.target_columns == tuple(TARGETS)
    train = etth1_rows(ROWS)["HUFL"].iloc[:int(ROWS * 0.7)]
    assert spec.future_mean == pytest.approx((train.mean(),))
    assert spec.future_scale == pytest.approx((train.std(ddof=0),))
    assert recipe["model_dims"]["n_future"] == 1
    fc = TrainedModel.load(run_dir)
    assert fc.spec == spec


def test_forecast_follows_the_known_column_only(run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    history, future = files
    base, moved, other = tmp_path / "base.csv", tmp_path / "moved.csv", tmp_path / "other.csv"
    code, _, err = predict(capsys, run_dir, history, "--future", future, "-o", base)
    assert code == 0, err
    frame = pd.read_csv(base)
    assert list(frame.columns) == ["date"] + TARGETS and len(frame) == PRED_LEN
    assert list(frame["date"]) == list(pd.read_csv(future)["date"])
    changed = pd.read_csv(future)
    changed.loc[PRED_LEN - 1, "HUFL"] += 20.0  # the known column, at the last step
    changed.to_csv(future, index=False)
    assert predict(capsys, run_dir, history, "--future", future, "-o", moved)[0] == 0
    assert not np.allclose(pd.read_csv(moved)[TARGETS], frame[TARGETS])
    unknown = pd.read_csv(future)
    unknown.loc[:, "HULL"] += 20.0  # a column the model forecasts, not a known one: future.csv's copy is ignored
    unknown.to_csv(future, index=False)
    assert predict(capsys, run_dir, history, "--future", future, "-o", other)[0] == 0
    pd.testing.assert_frame_equal(pd.read_csv(other), pd.read_csv(moved))


def _drop_column(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=["HUFL"])


def _cell(row: int, value: str) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.astype({"HUFL": object})
        frame.loc[row, "HUFL"] = value
        return frame
    return change


def _shift(hours: int) -> Callable[[pd.DataFrame], pd.DataFrame]:
    def change(frame: pd.DataFrame) -> pd.DataFrame:
        stamps = pd.to_datetime(frame["date"]) + pd.Timedelta(hours=hours)
        return frame.assign(date=stamps.dt.strftime("%Y-%m-%d %H:%M:%S"))
    return change


BAD_FUTURES = [
    ("missing column", _drop_column,
     "{f}: missing column(s) HUFL that the model needs (file has: HULL, MUFL, MULL, LUFL, LULL, OT)"),
    ("too few rows", lambda frame: frame.head(3),
     "{f}: 3 data rows, but the horizon needs pred_len 6 rows of HUFL; give one row per forecast step"),
    ("not continuing", _shift(1),
     "{f}: line 2: timestamp 2016-07-21 21:00:00 does not continue the history (its last row is 2016-07-21 "
     "19:00:00, so forecast step 1 is 2016-07-21 20:00:00 at frequency 'h'); give the 6 timestamps after the "
     "history's last one"),
    ("the history again", lambda frame: etth1_rows(ROWS).iloc[480:500 + PRED_LEN],
     "{f}: line 2: timestamp 2016-07-21 00:00:00 does not continue the history (its last row is 2016-07-21 "
     "19:00:00, so forecast step 1 is 2016-07-21 20:00:00 at frequency 'h'); give the 6 timestamps after the "
     "history's last one"),
    ("NaN", _cell(2, "nan"),
     "{f}: line 4: column 'HUFL' is empty or NaN; fill the gap or pass --fill ffill|interpolate"),
    ("inf", _cell(1, "inf"),
     "{f}: line 3: column 'HUFL' has the non-finite value 'inf'; replace it, or pass --fill ffill|interpolate to "
     "treat it as missing"),
    ("non-numeric", _cell(0, "high"),
     "{f}: line 2: column 'HUFL' has non-numeric value 'high'; every data column must be numeric"),
]


@pytest.mark.parametrize("name, change, message", BAD_FUTURES, ids=[b[0] for b in BAD_FUTURES])
def test_bad_future_files_refused_in_one_line(name: str, change: Callable[[pd.DataFrame], pd.DataFrame],
                                              message: str, run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    history, future = files
    change(pd.read_csv(future)).to_csv(future, index=False)
    out = tmp_path / "out.csv"
    code, stdout, err = predict(capsys, run_dir, history, "--future", future, "-o", out)
    assert (code, stdout, err) == (2, "", f"error: {message.format(f=future)}\n")
    assert not out.exists()


def test_a_gap_in_the_future_is_refused(run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture) -> None:
    history, future = files
    pd.read_csv(future).drop(index=3).to_csv(future, index=False)
    code, stdout, err = predict(capsys, run_dir, history, "--future", future, "-o", tmp_path / "out.csv")
    assert code == 2 and stdout == "" and err.count("\n") == 1 and err.startswith(f"error: {future}: ")
    assert "line 5" in err and not (tmp_path / "out.csv").exists()


def test_missing_future_file_refused(run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                     capsys: pytest.CaptureFixture) -> None:
    history, _ = files
    absent, out = tmp_path / "nowhere.csv", tmp_path / "out.csv"
    code, stdout, err = predict(capsys, run_dir, history, "--future", absent, "-o", out)
    assert (code, stdout, err) == (2, "", f"error: {absent}: file not found; check the path\n")
    assert not out.exists()


def test_future_option_must_match_the_checkpoint(run_dir: Path, plain_run: Path, files: tuple[Path, Path],
                                                 tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    history, future = files
    out = tmp_path / "out.csv"
    code, stdout, err = predict(capsys, plain_run, history, "--future", future, "-o", out)
    assert (code, stdout) == (2, "") and err == (
        f"error: {ckpt_of(plain_run)}: this model was trained without known-future columns (data.future_columns), "
        f"so it has no use for --future FILE; leave it out\n")
    code, stdout, err = predict(capsys, run_dir, history, "-o", out)
    assert (code, stdout) == (2, "") and err == (
        f"error: {ckpt_of(run_dir)}: this model was trained with the known-future column(s) HUFL: pass --future FILE "
        f"with the horizon's {PRED_LEN} timestamps and their values (a backtest, --rolling, takes them from the "
        f"input file)\n")
    code, stdout, err = predict(capsys, run_dir, history, "--rolling", "--future", future, "-o", out)
    assert (code, stdout) == (2, "") and err == (
        "error: --future gives the horizon of one forecast; --rolling takes the known-future columns from the input "
        "file itself, so leave --future out\n")
    assert not out.exists()


def test_history_needs_the_known_column(run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                        capsys: pytest.CaptureFixture) -> None:
    history, future = files
    pd.read_csv(history).drop(columns=["HUFL"]).to_csv(history, index=False)
    code, _, err = predict(capsys, run_dir, history, "--future", future, "-o", tmp_path / "out.csv")
    assert code == 2 and err == (f"error: {history}: missing column(s) HUFL that the model needs (file has: HULL, "
                                 f"MUFL, MULL, LUFL, LULL, OT)\n")


def test_rolling_takes_the_known_values_from_the_file(run_dir: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    rows = etth1_rows(ROWS)
    data = tmp_path / "data.csv"
    rows.to_csv(data, index=False)
    out = tmp_path / "bt.csv"
    code, _, err = predict(capsys, run_dir, data, "--rolling", "--span", "test", "--intervals", "0.8", "-o", out)
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["windows"] > 0 and summary["columns"] == TARGETS and "80" in summary["intervals"]
    backtest = pd.read_csv(out)
    first = summary["first_forecast_row"]  # the first window forecasts rows first .. first + PRED_LEN - 1
    history, future = tmp_path / "h.csv", tmp_path / "f.csv"
    rows.iloc[first - SEQ_LEN:first].to_csv(history, index=False)
    rows.iloc[first:first + PRED_LEN].to_csv(future, index=False)
    single = tmp_path / "single.csv"
    assert predict(capsys, run_dir, history, "--future", future, "-o", single)[0] == 0
    window = backtest[backtest["origin"] == backtest["origin"].iloc[0]]
    got = window.pivot(index="timestamp", columns="column", values="prediction")[TARGETS].to_numpy()
    np.testing.assert_allclose(got, pd.read_csv(single)[TARGETS].to_numpy(), rtol=1e-5, atol=1e-5)


def test_python_api_takes_future(run_dir: Path, files: tuple[Path, Path], tmp_path: Path,
                                 capsys: pytest.CaptureFixture) -> None:
    history, future = files
    out = tmp_path / "cli.csv"
    assert predict(capsys, run_dir, history, "--future", future, "-o", out)[0] == 0
    model = forecast.load(run_dir)
    frame = model.predict(pd.read_csv(history), future=pd.read_csv(future)[["date", "HUFL"]])
    np.testing.assert_allclose(frame[TARGETS].to_numpy(), pd.read_csv(out)[TARGETS].to_numpy(), rtol=1e-6)
    with pytest.raises(DataError, match="pass future= with the horizon's 6 timestamps"):
        model.predict(pd.read_csv(history))
    torch.testing.assert_close(torch.tensor(model.backtest(pd.read_csv(history), span="all")["model"]["mse"]),
                               torch.tensor(model.backtest(history, span="all")["model"]["mse"]))


def test_python_api_names_future(run_dir: Path, plain_run: Path, files: tuple[Path, Path]) -> None:
    """The refusals of test_future_option_must_match_the_checkpoint, in the API's words."""
    history, future = (pd.read_csv(f) for f in files)
    with pytest.raises(DataError) as caught:
        forecast.load(plain_run).predict(history, future=future)
    assert str(caught.value) == (f"{ckpt_of(plain_run)}: this model was trained without known-future columns "
                                 f"(data.future_columns), so it has no use for future=; leave it out")
    with pytest.raises(DataError) as caught:
        forecast.load(run_dir).predict(history)
    assert str(caught.value) == (f"{ckpt_of(run_dir)}: this model was trained with the known-future column(s) HUFL: "
                                 f"pass future= with the horizon's {PRED_LEN} timestamps and their values (a backtest, "
                                 f"Model.backtest, takes them from the input file)")
    bad = future.assign(HUFL=future["HUFL"].where(future.index != 1))
    with pytest.raises(DataError) as caught:
        forecast.load(run_dir).predict(history, future=bad)
    assert str(caught.value) == ("<DataFrame>: row 1: column 'HUFL' is empty or NaN; fill the gap or pass "
                                 "fill='ffill'|'interpolate'")
    late = future.assign(date=(pd.to_datetime(future["date"]) + pd.Timedelta(hours=1)).astype(str))
    with pytest.raises(DataError) as caught:
        forecast.load(run_dir).predict(history, future=late)
    assert str(caught.value).startswith("<DataFrame>: row 0: timestamp 2016-07-21 21:00:00 does not continue the "
                                        "history (its last row is 2016-07-21 19:00:00")


def test_a_future_file_in_an_unknown_encoding_is_refused_naming_the_option(tmp_path: Path) -> None:
    """``Model.predict(panel, future=..., encoding=...)`` reads no other file first: the future file's own read
    refuses the codec in one line."""
    from types import SimpleNamespace

    from forecast.predict.future import read_future
    from forecast.spelling import API

    path = tmp_path / "future.csv"
    path.write_text("date,x\n2020-01-01 00:00:00,1\n2020-01-01 01:00:00,2\n")
    spec = SimpleNamespace(future_columns=("x",), freq="h", pred_len=2)
    with pytest.raises(DataError, match=r"^encoding: unknown text encoding 'nope'; use a Python codec name"):
        read_future(path, spec, None, timestamp_col="date", encoding="nope", spelling=API)
