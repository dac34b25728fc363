"""forecast-predict end to end: forecasts in original units, future timestamps, bad inputs, backtests.

Tiny checkpoints are trained once per session in-process (tests/predict/tiny.py), a few seconds each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from forecast.data.time_features import time_marks
from forecast.training.recipe import load_checkpoint, load_model
from tests.predict.tiny import (LABEL_LEN, PRED_LEN, SEQ_LEN, ckpt_of, etth1_rows, generated, predict, train_tiny)

ROWS = 600


@pytest.fixture(scope="session")
def runs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("predict_runs")


@pytest.fixture(scope="session")
def etth1_run(runs_root: Path) -> Path:
    """Run dir of a tiny M model on the first 600 rows of ETTh1 (hourly)."""
    return train_tiny(runs_root, "etth1", etth1_rows(ROWS))


@pytest.fixture
def good_csv(tmp_path: Path) -> Path:
    """The last 100 training-compatible rows (hourly, ETTh1 columns)."""
    path = tmp_path / "new.csv"
    etth1_rows(ROWS).tail(100).to_csv(path, index=False)
    return path


def manual_forecast(ckpt: Path, frame: pd.DataFrame) -> tuple[np.ndarray, pd.DatetimeIndex]:
    """Forecast by hand: scale with the stored stats, forward, invert (pred * std + mean)."""
    model, spec = load_model(load_checkpoint(ckpt))
    index = pd.DatetimeIndex(pd.to_datetime(frame["date"]))
    values = frame[list(spec.input_columns)].to_numpy(np.float64)[-spec.seq_len:]
    mean, std = np.asarray(spec.mean), np.asarray(spec.scale)
    x = torch.tensor((values - mean) / std, dtype=torch.float32)[None]
    future = pd.date_range(index[-1], periods=spec.pred_len + 1, freq=spec.freq)[1:]
    marks = torch.tensor(time_marks(index[-spec.seq_len:].append(future), spec.freq))[None]
    with torch.no_grad():
        pred = model(x, marks[:, :spec.seq_len], marks[:, spec.seq_len - spec.label_len:])[0].double().numpy()
    idx = spec.target_index
    return pred * std[idx] + mean[idx], future


# ----------------------------------------------------------------------------------------- success
def test_forecast_m_original_units(etth1_run: Path, good_csv: Path, capsys: pytest.CaptureFixture) -> None:
    code, out, err = predict(capsys, etth1_run, good_csv)
    assert code == 0, err
    out_csv = good_csv.with_name("new.forecast.csv")
    got = pd.read_csv(out_csv, parse_dates=["date"])
    expected, future = manual_forecast(ckpt_of(etth1_run), pd.read_csv(good_csv))
    assert list(got.columns) == ["date", "HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
    assert len(got) == PRED_LEN
    assert (pd.DatetimeIndex(got["date"]) == future).all()
    assert got["date"].iloc[0] == pd.Timestamp("2016-07-26 00:00:00")  # row 600 of ETTh1 follows 07-25 23:00
    np.testing.assert_allclose(got.iloc[:, 1:].to_numpy(), expected, rtol=1e-5, atol=1e-5)
    assert f"wrote {out_csv}" in out


@pytest.mark.parametrize("features", ["S", "MS"])
def test_forecast_s_ms_original_units(features: str, runs_root: Path, good_csv: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    run_dir = train_tiny(runs_root, "etth1", etth1_rows(ROWS), features=features)
    out_csv = tmp_path / "out.csv"
    code, _, err = predict(capsys, run_dir, good_csv, "--output", out_csv)
    assert code == 0, err
    got = pd.read_csv(out_csv)
    assert list(got.columns) == ["date", "OT"]
    expected, _ = manual_forecast(ckpt_of(run_dir), pd.read_csv(good_csv))
    np.testing.assert_allclose(got[["OT"]].to_numpy(), expected, rtol=1e-5, atol=1e-5)
    # the inversion uses OT's own training-rows statistics (first 70% of the rows), whatever its position
    _, spec = load_model(load_checkpoint(ckpt_of(run_dir)))
    train_ot = etth1_rows(ROWS)["OT"].to_numpy()[: int(0.7 * ROWS)]
    k = spec.input_columns.index("OT")
    assert spec.target_index == [k] and (k == 6 if features == "MS" else k == 0)
    assert spec.mean[k] == pytest.approx(train_ot.mean()) and spec.scale[k] == pytest.approx(train_ot.std())
    if features == "S":  # an S model ignores the other columns, with a note
        assert "note: ignoring column(s) HUFL" in err


@pytest.mark.parametrize("freq,start,expected_first", [
    ("15min", "2021-03-01 00:00", "2021-03-04 03:00:00"),
    ("D", "2020-01-06", "2020-11-01 00:00:00"),
    ("B", "2020-01-06", "2021-03-01 00:00:00"),
    ("MS", "1990-01-01", "2015-01-01 00:00:00"),
])
def test_future_timestamps_follow_frequency(freq: str, start: str, expected_first: str, runs_root: Path,
                                            tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = generated(freq, 300, start=start)
    run_dir = train_tiny(runs_root, f"gen_{freq}", frame, extra=["data.freq=null"])
    csv = tmp_path / "series.csv"
    frame.tail(50).to_csv(csv, index=False)
    code, _, err = predict(capsys, run_dir, csv)
    assert code == 0, err
    got = pd.DatetimeIndex(pd.read_csv(tmp_path / "series.forecast.csv", parse_dates=["date"])["date"])
    last = pd.Timestamp(frame["date"].iloc[-1])
    assert list(got) == list(pd.date_range(last, periods=PRED_LEN + 1, freq=freq)[1:])
    assert got[0] == pd.Timestamp(expected_first)
    if freq == "B":
        assert last.day_of_week == 4 and (got.day_of_week < 5).all()  # Friday -> Monday, no weekends
    if freq == "MS":
        assert (got.day == 1).all() and got[-1] == pd.Timestamp("2015-06-01")


def test_run_dir_resolves_to_best_checkpoint(etth1_run: Path, good_csv: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert predict(capsys, etth1_run, good_csv, "--output", a)[0] == 0
    assert predict(capsys, ckpt_of(etth1_run), good_csv, "--output", b)[0] == 0
    assert a.read_text() == b.read_text()


def test_plot_written(etth1_run: Path, good_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    png = tmp_path / "f.png"
    assert predict(capsys, etth1_run, good_csv, "--plot", png)[0] == 0
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_no_overwrite_unless_asked(etth1_run: Path, good_csv: Path, tmp_path: Path,
                                   capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out.csv"
    out.write_text("keep me\n")
    code, _, err = predict(capsys, etth1_run, good_csv, "--output", out)
    assert code == 2 and err == f"error: {out}: already exists; pass --overwrite or another --output\n"
    assert out.read_text() == "keep me\n"
    code, _, _ = predict(capsys, etth1_run, good_csv, "--output", out, "--overwrite")
    assert code == 0 and len(pd.read_csv(out)) == PRED_LEN


def test_fill_option_fills_gaps(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = etth1_rows(ROWS).tail(60)
    frame.iloc[10, 3] = np.nan
    csv = tmp_path / "gaps.csv"
    frame.to_csv(csv, index=False)
    code, _, err = predict(capsys, etth1_run, csv, "--fill", "interpolate")
    assert code == 0, err


def test_timestamp_col_option(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv = _bad(_base().rename(columns={"date": "time"}), tmp_path / "in.csv")
    code, _, err = predict(capsys, etth1_run, csv, "--timestamp-col", "time")
    assert code == 0, err
    assert list(pd.read_csv(tmp_path / "in.forecast.csv").columns)[:2] == ["time", "HUFL"]


# ----------------------------------------------------------------------------------------- rolling
def test_rolling_test_span_reproduces_training_mse(etth1_run: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    metrics = json.loads((etth1_run / "metrics.json").read_text())
    out = tmp_path / "bt.csv"
    code, stdout, err = predict(capsys, etth1_run, etth1_run / "etth1.csv", "--rolling", "--span", "test",
                                "--output", out, "--batch-size", "17")
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    model = summary["metrics"]["model"]
    assert summary["windows"] == metrics["test_windows"]
    assert model["mse"] == pytest.approx(metrics["test/mse"], abs=1e-5)
    assert model["mae"] == pytest.approx(metrics["test/mae"], abs=1e-5)
    np.testing.assert_allclose(model["mse_per_step"], metrics["test/mse_per_step"], atol=1e-5)
    assert model["mae_orig"] == pytest.approx(metrics["test/mae_orig"], rel=1e-5)
    long = pd.read_csv(out)
    assert list(long.columns) == ["origin", "timestamp", "column", "prediction", "actual"]
    assert len(long) == summary["windows"] * PRED_LEN * 7
    assert f"model mse {metrics['test/mse']:.6f}"[:14] in stdout


def test_rolling_naive_baselines_and_every(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv = etth1_run / "etth1.csv"
    out = tmp_path / "bt.csv"
    code, _, err = predict(capsys, etth1_run, csv, "--rolling", "--start", "500", "--end", "560", "--every", "2",
                           "--output", out)
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    origins = np.arange(499, 560 - PRED_LEN, 2)  # last input rows; targets in rows [500, 560)
    assert summary["windows"] == len(origins)
    ot = etth1_rows(ROWS)["OT"].to_numpy()
    long = pd.read_csv(out)
    first = long[(long["column"] == "OT")].iloc[0]
    assert first["actual"] == ot[500] and first["origin"] == "2016-07-21 19:00:00"
    # naive "repeat last value", step 1, original units, by hand over the same windows and all columns
    values = etth1_rows(ROWS).iloc[:, 1:].to_numpy()
    by_hand = np.mean((values[origins + 1] - values[origins]) ** 2)
    step1 = summary["metrics"]["naive_last"]["mse_orig_per_step"][0]
    assert step1 == pytest.approx(by_hand, rel=1e-5)


# ----------------------------------------------------------------------------------------- bad input
def _bad(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, index=False)
    return path


def _base() -> pd.DataFrame:
    return etth1_rows(ROWS).tail(60).reset_index(drop=True)


def _nonnumeric() -> pd.DataFrame:
    f = _base().astype({"HUFL": object})
    f.loc[7, "HUFL"] = "abc"
    return f


def _nan() -> pd.DataFrame:
    f = _base()
    f.loc[9, "OT"] = np.nan
    return f


def _set_date(row: int, value: str) -> pd.DataFrame:
    f = _base()
    f.loc[row, "date"] = value
    return f


def _swap() -> pd.DataFrame:
    f = _base()
    f.loc[[4, 5], "date"] = f.loc[[5, 4], "date"].to_numpy()
    return f


def _gap() -> pd.DataFrame:
    return _base().drop(index=20)


def _half_hourly() -> pd.DataFrame:
    f = _base()
    f["date"] = pd.date_range("2020-01-01", periods=len(f), freq="30min").strftime("%Y-%m-%d %H:%M:%S")
    return f


BAD_CSV = {
    "no_timestamp_column": (lambda: _base().drop(columns=["date"]),
                            "no timestamp column 'date' (columns: HUFL, HULL"),
    "unparsable_timestamp": (lambda: _set_date(3, "yesterday"), "line 5: cannot parse timestamp 'yesterday'"),
    "missing_columns": (lambda: _base().drop(columns=["OT", "LULL"]), "missing column(s) LULL, OT that the model needs"),
    "non_numeric": (_nonnumeric, "line 9: column 'HUFL' has non-numeric value 'abc'"),
    "nan_cell": (_nan, "line 11: column 'OT' is empty or NaN; fill the gap or pass --fill ffill|interpolate"),
    "empty_column": (lambda: _base().assign(OT=float("nan")),
                     "column 'OT' is empty or NaN on every row; the model needs its values"),
    "duplicate_timestamp": (lambda: _set_date(6, _base().loc[5, "date"]), "line 8: duplicate timestamp"),
    "year_back": (lambda: _set_date(5, "2015-07-23 17:00:00"), "line 7: timestamp 2015-07-23 17:00:00 comes before "
                  "the previous row's 2016-07-23 16:00:00; it goes on from that day in another year (2015)"),
    "irregular": (_gap, "line 22: timestamp 2016-07-24 09:00:00 follows 2016-07-24 07:00:00, but the model's "
                        "frequency 'h' expects 2016-07-24 08:00:00"),
    "other_frequency": (_half_hourly, "timestamps are at frequency '30min' but the model was trained on 'h'"),
    "too_few_rows": (lambda: _base().tail(10), "10 data rows, but the model's input window (seq_len 24) needs"),
}


@pytest.mark.parametrize("case", sorted(BAD_CSV))
def test_bad_csv(case: str, etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    make, message = BAD_CSV[case]
    csv = _bad(make(), tmp_path / "in.csv")
    code, out, err = predict(capsys, etth1_run, csv)
    assert code == 2
    assert err.startswith(f"error: {csv}") and err.count("\n") == 1 and "Traceback" not in err
    assert message in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]  # nothing written


def test_rows_out_of_order_forecast_as_sorted(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, out, _ = predict(capsys, etth1_run, _bad(_base(), tmp_path / "sorted.csv"), "-o", "-", "-q")
    assert code == 0
    code, swapped, err = predict(capsys, etth1_run, _bad(_swap(), tmp_path / "in.csv"), "-o", "-", "-q")
    assert code == 0 and swapped == out
    assert err == (f"note: {tmp_path / 'in.csv'}: detected rows out of time order read in time order (line 7: "
                   f"2016-07-23 16:00:00 after 2016-07-23 17:00:00)\n")


def test_missing_and_unreadable_files(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, _, err = predict(capsys, etth1_run, tmp_path / "nope.csv")
    assert code == 2 and err == f"error: {tmp_path / 'nope.csv'}: file not found; check the path\n"
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01garbage\x00")
    code, _, err = predict(capsys, etth1_run, binary)
    assert code == 2 and "cannot read as CSV" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin.csv"]


def test_extra_columns_ignored_with_note(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv = _bad(_base().assign(humidity=1.0), tmp_path / "in.csv")
    code, _, err = predict(capsys, etth1_run, csv)
    assert code == 0
    assert err == "note: ignoring column(s) humidity that the model was not trained on\n"


@pytest.mark.parametrize("kind", ["missing", "foreign", "corrupt", "empty_dir"])
def test_bad_checkpoint(kind: str, good_csv: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    ckpt = tmp_path / "model.ckpt"
    if kind == "foreign":
        torch.save({"state_dict": {}, "epoch": 3}, ckpt)
        message = "not a forecast checkpoint (no recipe inside)"
    elif kind == "corrupt":
        ckpt.write_bytes(b"PK\x03\x04 this is not a checkpoint")
        message = "not a readable checkpoint"
    elif kind == "empty_dir":
        ckpt = tmp_path / "run"
        ckpt.mkdir()
        message = "no checkpoint in this directory"
    else:
        message = "checkpoint not found"
    code, _, err = predict(capsys, ckpt, good_csv)
    assert code == 2 and err.startswith(f"error: {ckpt}: {message}") and err.count("\n") == 1
    assert not good_csv.with_name("new.forecast.csv").exists()


def test_a_checkpoint_of_the_earlier_model_format_is_refused_in_one_line(etth1_run: Path, good_csv: Path,
                                                                          tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture) -> None:
    ckpt = torch.load(next((etth1_run / "checkpoints").glob("*.ckpt")), map_location="cpu", weights_only=False)
    del ckpt["forecast_recipe"]["format"]  # written before the recipe recorded its model format
    old = tmp_path / "old.ckpt"
    torch.save(ckpt, old)
    code, out, err = predict(capsys, old, good_csv)
    assert code == 2 and err == (f"error: {old}: written by an earlier version of forecast (model format 1; this "
                                 f"version reads format 2); retrain it with forecast-train and the same settings\n")
    assert not good_csv.with_name("new.forecast.csv").exists()


def test_option_errors(etth1_run: Path, good_csv: Path, capsys: pytest.CaptureFixture) -> None:
    code, _, err = predict(capsys, etth1_run, good_csv, "--span", "test")
    assert code == 2 and err == "error: --span applies only with --rolling\n"
    code, _, err = predict(capsys, etth1_run, good_csv, "--rolling", "--start", "soon")
    assert code == 2 and "--start 'soon': neither a row number nor a timestamp" in err
    code, _, err = predict(capsys, etth1_run, good_csv, "--output", good_csv)
    assert code == 2 and "is an input file" in err
    if not torch.cuda.is_available():
        code, _, err = predict(capsys, etth1_run, good_csv, "--device", "cuda")
        assert code == 2 and "no CUDA device is available" in err
    assert not good_csv.with_name("new.forecast.csv").exists()
    assert not good_csv.with_name("new.backtest.csv").exists()


# ----------------------------------------------------------------------------------------- streams
def test_output_dash_writes_the_csv_alone_to_stdout(etth1_run: Path, good_csv: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    reference = tmp_path / "file.csv"
    assert predict(capsys, etth1_run, good_csv, "-o", reference)[0] == 0
    code, out, err = predict(capsys, etth1_run, good_csv, "-o", "-")
    assert code == 0, err
    assert out == reference.read_text()  # stdout is exactly the CSV the file output holds
    lines = err.splitlines()
    assert lines[0] == f"checkpoint: {ckpt_of(etth1_run)} (M, freq h, seq_len {SEQ_LEN}, pred_len {PRED_LEN})"
    assert lines[1].startswith(f"forecast:   {PRED_LEN} steps after 2016-07-25 23:00:00: ")
    assert len(lines) == 2  # no table, no "wrote"
    assert sorted(p.name for p in good_csv.parent.iterdir()) == ["file.csv", "new.csv"]  # no default file


def test_file_output_prints_status_and_table_on_stdout(etth1_run: Path, good_csv: Path, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    out_csv = tmp_path / "f.csv"
    code, out, err = predict(capsys, etth1_run, good_csv, "-o", out_csv)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("checkpoint: ") and lines[1].startswith("forecast:   ")
    assert lines[2].split() == list(pd.read_csv(out_csv).columns)  # the table's header
    assert len(lines) == 3 + PRED_LEN + 1 and lines[-1] == f"wrote {out_csv}"


def test_quiet_prints_nothing_but_writes(etth1_run: Path, good_csv: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture) -> None:
    out_csv = tmp_path / "q.csv"
    assert predict(capsys, etth1_run, good_csv, "-o", out_csv, "--quiet") == (0, "", "")
    assert len(pd.read_csv(out_csv)) == PRED_LEN
    code, out, err = predict(capsys, etth1_run, good_csv, "-o", "-", "-q")
    assert (code, err) == (0, "") and out == out_csv.read_text()


def test_quiet_keeps_notes_and_errors(etth1_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = etth1_rows(ROWS).tail(100).assign(extra=1.0)
    csv = tmp_path / "extra.csv"
    frame.to_csv(csv, index=False)
    code, out, err = predict(capsys, etth1_run, csv, "-o", "-", "--quiet")
    assert code == 0 and err == "note: ignoring column(s) extra that the model was not trained on\n"
    assert out.splitlines()[0] == "date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT"
    code, out, err = predict(capsys, etth1_run, tmp_path / "nope.csv", "-o", "-", "--quiet")
    assert code == 2 and out == "" and err.startswith("error: ")


def test_rolling_to_stdout_writes_no_summary_unless_asked(etth1_run: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    csv = tmp_path / "in.csv"
    etth1_rows(ROWS).to_csv(csv, index=False)
    code, out, err = predict(capsys, etth1_run, csv, "--rolling", "--start", "500", "--end", "560", "-o", "-")
    assert code == 0, err
    assert out.splitlines()[0] == "origin,timestamp,column,prediction,actual"
    assert len(out.splitlines()) == 1 + (560 - 500 - PRED_LEN + 1) * PRED_LEN * 7
    assert err.splitlines()[0].startswith("checkpoint: ") and err.splitlines()[-1].startswith("vs floors: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]
    summary = tmp_path / "bt.json"
    code, _, err = predict(capsys, etth1_run, csv, "--rolling", "--start", "500", "--end", "560", "-o", "-",
                           "--summary", summary)
    assert code == 0 and err.splitlines()[-1] == f"wrote {summary}"
    assert json.loads(summary.read_text())["output"] == "-"


def test_pipe_into_head_prints_csv_only(etth1_run: Path, good_csv: Path, tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from forecast.runtime import PROJECT_ROOT

    # unbuffered: each CSV row is its own write, so head exits mid-CSV and the writes after it meet a closed pipe
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "PYTHONUNBUFFERED": "1"}
    cmd = f"'{sys.executable}' -m forecast.cli.predict '{etth1_run}' '{good_csv}' -o - 2>'{tmp_path}/err' | head -3"
    piped = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], capture_output=True, text=True, env=env,
                           timeout=300)
    assert piped.returncode == 0, (tmp_path / "err").read_text()
    lines = piped.stdout.splitlines()
    assert len(lines) == 3 and lines[0] == "date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT"
    assert all(len(line.split(",")) == 8 for line in lines[1:])
    status = (tmp_path / "err").read_text().splitlines()  # the status lines, and no BrokenPipeError
    assert len(status) == 2 and status[0].startswith("checkpoint: ") and status[1].startswith("forecast:   ")


def test_rolling_summary_has_mape_smape_and_mase(etth1_run: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "bt.csv"
    code, stdout, err = predict(capsys, etth1_run, etth1_run / "etth1.csv", "--rolling", "--span", "test",
                                "--output", out)
    assert code == 0, err
    metrics = json.loads(out.with_suffix(".json").read_text())["metrics"]
    assert all({"mape", "smape", "mase"} <= set(m) for m in metrics.values())
    assert metrics["naive_last"]["mase"] == pytest.approx(1.0)
    long = pd.read_csv(out)  # the model's forecasts and actuals, original units
    err_abs = (long["prediction"] - long["actual"]).abs()
    has_zero = bool((long["actual"] == 0).any())  # ETTh1 has actuals of exactly 0: MAPE is undefined there
    expected_mape = None if has_zero else pytest.approx((err_abs / long["actual"].abs()).mean(), rel=1e-5)
    assert metrics["model"]["mape"] == expected_mape
    assert metrics["model"]["smape"] == pytest.approx(
        (2 * err_abs / (long["actual"].abs() + long["prediction"].abs())).mean(), rel=1e-5)
    m = metrics["model"]
    mape = "n/a (an actual is 0)" if has_zero else f"{m['mape']:.2%}"
    assert (f"model mape {mape}  smape {m['smape']:.4f}  mase {m['mase']:.4f}  (original units; mase: MAE "
            f"over the naive forecast's on the same windows)") in stdout.splitlines()


def test_a_forecast_imports_neither_lightning_nor_the_compiler_nor_plotting(etth1_run: Path, good_csv: Path,
                                                                            tmp_path: Path) -> None:
    """A single forecast starts in the time of ``import torch`` and pandas: nothing that only training,
    ``torch.compile``, plots or backtests need is loaded (Lightning alone costs seconds)."""
    script = ("import sys\nfrom forecast.cli.predict import run\n"
              f"assert run([{str(etth1_run)!r}, {str(good_csv)!r}, '-o', {str(tmp_path / 'f.csv')!r}, '--quiet']) == 0\n"
              "heavy = ('lightning', 'pytorch_lightning', 'torch._dynamo', 'torchmetrics', 'matplotlib', 'scipy')\n"
              "print(sorted({m for m in sys.modules if m.split('.')[0] in heavy or m.startswith('torch._dynamo')}))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
    assert (tmp_path / "f.csv").exists()


def test_the_console_table_of_a_wide_forecast_shows_its_ends_and_its_size() -> None:
    from forecast.cli.predict import preview

    frame = pd.DataFrame(np.random.default_rng(0).normal(size=(24, 862)), columns=[f"c{i}" for i in range(862)])
    frame.insert(0, "date", pd.date_range("2022-01-01", periods=24, freq="h"))
    lines = preview(frame).splitlines()
    assert lines[0].split() == ["date", "c0", "c1", "c2", "c3", "...", "c857", "c858", "c859", "c860", "c861"]
    assert len(lines) == 1 + 12 + 1 + 2 and lines[-1] == "[24 rows x 863 columns]"  # 12 rows, "...", a gap
    assert max(map(len, lines)) < 120
    narrow = frame.iloc[:6, :8]
    assert preview(narrow).splitlines()[0].split() == list(narrow.columns)  # nothing cut: no size line
    assert len(preview(narrow).splitlines()) == 7


def test_rolling_without_a_span_backtests_every_window_of_the_file(etth1_run: Path, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "bt.csv"
    code, _, err = predict(capsys, etth1_run, etth1_run / "etth1.csv", "--rolling", "--output", out)
    assert code == 0, err
    assert json.loads(out.with_suffix(".json").read_text())["windows"] == ROWS - SEQ_LEN - PRED_LEN + 1


def test_a_file_in_another_encoding_is_read_with_encoding(runs_root: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    """A model trained on a UTF-8 file of Japanese names (日付, 売上) forecasts the same export saved by Excel on a
    Japanese Windows (Shift-JIS) with --encoding cp932; an unknown codec is refused naming the option."""
    frame = generated("h", ROWS).rename(columns={"date": "日付", "OT": "売上"})
    run_dir = train_tiny(runs_root, "japanese", frame, target="'売上'", extra=["data.timestamp_col='日付'"])
    utf8, shift_jis = tmp_path / "utf8.csv", tmp_path / "sjis.csv"
    frame.tail(100).to_csv(utf8, index=False)
    frame.tail(100).to_csv(shift_jis, index=False, encoding="cp932")
    code, _, err = predict(capsys, run_dir, shift_jis, "-o", tmp_path / "guessed.csv", "-q")
    assert code == 2 and not (tmp_path / "guessed.csv").exists()
    assert "is neither UTF-8 nor Windows-1252 text; pass --encoding NAME, the file's encoding, such as cp932" in err
    code, _, err = predict(capsys, run_dir, shift_jis, "--encoding", "cp932", "-o", tmp_path / "sjis_out.csv", "-q")
    assert code == 0, err
    code, _, err = predict(capsys, run_dir, utf8, "-o", tmp_path / "utf8_out.csv", "-q")
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "sjis_out.csv"), pd.read_csv(tmp_path / "utf8_out.csv"))
    code, _, err = predict(capsys, run_dir, shift_jis, "--encoding", "nope", "-o", tmp_path / "x.csv")
    assert code == 2 and err.strip().endswith("--encoding: unknown text encoding 'nope'; use a Python codec name such "
                                              "as cp932 (Japanese Windows), cp1251 (Cyrillic), big5 or latin-1")
