"""The same mistake in Python and on the command line: each message names what its caller typed.

``forecast.load(...)`` is told about its keywords (``span='nope'``, ``batch_size must be >= 1``, ``pass more
rows``), ``forecast-predict`` about its options, word for word as before (:mod:`forecast.spelling`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Callable

import pandas as pd
import pytest
import torch

import forecast
from forecast.api import Model
from forecast.data.errors import DataError
from forecast.predict.span import resolve_span
from forecast.spelling import API, CLI
from tests.predict.tiny import etth1_rows, predict, train_tiny

ROWS = 600
LAST = "2016-07-25 23:00:00"  # the timestamp of ETTh1's row 599


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("message_runs"), "etth1", etth1_rows(ROWS))


@pytest.fixture(scope="module")
def model(run_dir: Path) -> Model:
    return forecast.load(run_dir)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return etth1_rows(ROWS)


def refused(call: Callable[[], Any]) -> str:
    """The message of the DataError ``call`` raises."""
    with pytest.raises(DataError) as caught:
        call()
    return str(caught.value)


BACKTESTS = [  # Model.backtest's keywords -> the message, word for word
    ({"span": "nope"}, "span='nope': use one of train, val, test, all"),
    ({"span": "test", "start": 80}, "pass either span or start/end, not both"),
    ({"start": "soon"}, "start='soon': neither a row number nor a timestamp like 2018-01-01 00:00:00"),
    ({"end": 5000}, "end=5000: row out of range; the data has 600 data rows (0-based)"),
    ({"start": "2099-01-01"},
     f"start='2099-01-01': after the data's last timestamp, {LAST}; give a time within the data"),
    ({"end": "2016-06-01"},
     "end='2016-06-01': before the data's first timestamp, 2016-07-01 00:00:00; give a time within the data"),
    ({"start": "2016-07-02 00:00+01:00"},
     "start='2016-07-02 00:00:00+01:00': the data's timestamps have no time zone; give the time without an offset"),
    ({"start": 80, "end": 50},
     "start=80 and end=50 leave no row to forecast (rows 80 to 50, the end exclusive); give an end after the start"),
    ({"start": 597},
     "the backtest span (rows 573..599) is too short for one window of seq_len 24 + pred_len 6; widen start/end"),
    ({"span": "test", "every": 0}, "every must be >= 1, got 0"),
    ({"span": "test", "batch_size": 0}, "batch_size must be >= 1, got 0"),
]


@pytest.mark.parametrize("keywords, message", BACKTESTS, ids=[m.split(":")[0][:30] for _, m in BACKTESTS])
def test_backtest_names_its_keywords(keywords: dict[str, Any], message: str, model: Model,
                                     frame: pd.DataFrame) -> None:
    assert refused(lambda: model.backtest(frame, **keywords)) == message


@pytest.mark.parametrize("levels, message", [
    ([1.5], "intervals takes levels in (0, 1), got 1.5 (a fraction: write 0.015 for 1.5%)"),
    ([0.8, 1], "intervals takes levels in (0, 1), got 1"),
    ([80], "intervals takes levels in (0, 1), got 80 (a fraction: write 0.8 for 80%)"),
    ([0.975], "intervals takes whole-percent levels (0.01 .. 0.99), got 0.975"),
])
def test_predict_names_intervals(levels: list[float], message: str, model: Model, frame: pd.DataFrame) -> None:
    assert refused(lambda: model.predict(frame, intervals=levels)) == message
    assert refused(lambda: model.backtest_report(frame, intervals=levels)) == message


def test_intervals_without_calibration(model: Model, frame: pd.DataFrame) -> None:
    old = Model(dataclasses.replace(model.trained, conformal=None))  # a checkpoint written before intervals
    assert refused(lambda: old.predict(frame, intervals=[0.8])) == (
        f"{model.trained.checkpoint}: the checkpoint has no interval calibration (written before intervals "
        f"existed); retrain it with forecast-train to use intervals")


def test_a_short_dataframe_asks_for_more_rows(model: Model, frame: pd.DataFrame) -> None:
    assert refused(lambda: model.predict(frame.head(10))) == (
        "<DataFrame>: 10 data rows, but the model's input window (seq_len 24) needs at least 24; pass more rows")
    assert refused(lambda: model.backtest(frame.head(20))) == (
        "<DataFrame>: 20 data rows, but one backtest window (seq_len 24 + pred_len 6) needs at least 30; "
        "pass more rows")


def test_reading_remedies_name_the_keywords(model: Model, frame: pd.DataFrame) -> None:
    assert refused(lambda: model.predict(frame, timestamp_col=None)) == (
        "<DataFrame>: the model was trained with calendar features at frequency 'h', so it needs the file's "
        "timestamps; pass timestamp_col='NAME'")
    holed = frame.copy()
    holed.loc[ROWS - 3, "OT"] = float("nan")
    assert refused(lambda: model.predict(holed)) == (
        f"<DataFrame>: row {ROWS - 3}: column 'OT' is empty or NaN; fill the gap or pass "
        f"fill='ffill'|'interpolate'")


def test_load_names_device(run_dir: Path) -> None:
    assert refused(lambda: forecast.load(run_dir, device="tpu")) == "device='tpu': unknown device; use cpu or cuda"
    if not torch.cuda.is_available():
        assert refused(lambda: forecast.load(run_dir, device="cuda")) == (
            "device='cuda': no CUDA device is available here; use device='cpu'")


def test_the_shared_code_speaks_as_the_command_unless_told() -> None:
    index = pd.RangeIndex(100)
    assert refused(lambda: resolve_span(index, {}, seq_len=4, span="nope")) == (
        "--span 'nope': use one of train, val, test, all")
    assert refused(lambda: resolve_span(index, {}, seq_len=4, span="nope", spelling=CLI)) == (
        "--span 'nope': use one of train, val, test, all")
    assert refused(lambda: resolve_span(index, {}, seq_len=4, span="nope", spelling=API)) == (
        "span='nope': use one of train, val, test, all")


COMMANDS = [  # forecast-predict's options -> the line it prints, as it always has
    (["--intervals", "1.5"], "--intervals takes levels in (0, 1), got 1.5 (a fraction: write 0.015 for 1.5%)"),
    (["--rolling", "--span", "test", "--start", "80"], "pass either --span or --start/--end, not both"),
    (["--rolling", "--start", "80", "--end", "50"],
     "--start 80 and --end 50 leave no row to forecast (rows 80 to 50, the end exclusive); give an --end after "
     "the --start"),
    (["--rolling", "--start", "soon"],
     "--start 'soon': neither a row number nor a timestamp like 2018-01-01 00:00:00"),
    (["--rolling", "--span", "test", "--every", "0"], "--every must be >= 1, got 0"),
    (["--rolling", "--span", "test", "--batch-size", "0"], "--batch-size must be >= 1, got 0"),
    (["--device", "tpu"], "--device 'tpu': unknown device; use cpu or cuda"),
]


@pytest.mark.parametrize("options, message", COMMANDS, ids=[" ".join(o) for o, _ in COMMANDS])
def test_the_command_names_its_options(options: list[str], message: str, run_dir: Path, frame: pd.DataFrame,
                                       tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv = tmp_path / "in.csv"
    frame.to_csv(csv, index=False)
    assert predict(capsys, run_dir, csv, "-o", tmp_path / "out.csv", *options) == (2, "", f"error: {message}\n")


def test_the_command_asks_for_a_longer_file(run_dir: Path, frame: pd.DataFrame, tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    csv = tmp_path / "short.csv"
    frame.head(10).to_csv(csv, index=False)
    assert predict(capsys, run_dir, csv, "-o", tmp_path / "out.csv") == (
        2, "", f"error: {csv}: 10 data rows, but the model's input window (seq_len 24) needs at least 24; pass a "
               f"longer file\n")
