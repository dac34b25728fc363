"""Any CSV end to end: a plain numeric matrix, a panel of many series, infinities and gaps, config errors.

Tiny checkpoints are trained in-process (tests/predict/tiny.py); the command-line checks (exit status,
no run directory) run ``forecast-train`` in a subprocess.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.api import train as api_train
from forecast.data.errors import DataError
from tests.predict.tiny import PRED_LEN, SEQ_LEN, etth1_rows, panel, predict, train_tiny

N_SERIES = 24


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("any_csv_runs")


@pytest.fixture(scope="module")
def matrix_run(root: Path) -> Path:
    """A tiny model on ETTh1's 7 value columns written with no header and no timestamps."""
    frame = etth1_rows(600).drop(columns=["date"])
    return train_tiny(root, "matrix", frame, target="6", header=False,
                      extra=["data.header=false", "data.timestamp_col=null"])


@pytest.fixture(scope="module")
def panel_run(root: Path) -> Path:
    """A tiny model on 24 hourly series in long format (one too short, skipped), scaled per series."""
    return train_tiny(root, "panel", panel(N_SERIES, short=(7,)), target="sales", extra=["data.id_col=store"])


@pytest.fixture(scope="module")
def column_run(root: Path) -> Path:
    """A tiny model on one column of numbers with no header, trained with data.header=false alone."""
    return train_tiny(root, "column", etth1_rows(600)[["OT"]], target=None, header=False, extra=["data.header=false"])


def run_train(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "forecast.cli.train", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


# ---------------------------------------------------------------------------- a plain numeric matrix
def test_headerless_timestampless_matrix_trains_and_predicts(matrix_run: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture) -> None:
    metrics = json.loads((matrix_run / "metrics.json").read_text())
    assert metrics["test_windows"] == 120 - PRED_LEN + 1
    csv = tmp_path / "new.csv"
    etth1_rows(600).drop(columns=["date"]).tail(50).to_csv(csv, index=False, header=False)
    code, out, err = predict(capsys, matrix_run, csv)
    assert code == 0, err
    got = pd.read_csv(tmp_path / "new.forecast.csv")
    assert list(got.columns) == ["step"] + [str(i) for i in range(7)]
    assert got["step"].tolist() == list(range(50, 50 + PRED_LEN))  # numbered after the last row (0-based)
    assert np.isfinite(got.iloc[:, 1:].to_numpy()).all()
    assert "freq none (rows are steps)" in out and "forecast:   6 steps after 49: 50 .. 55" in out


def test_one_column_of_numbers_needs_no_target_nor_timestamps(column_run: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    """The file's one value column is the target and its rows are steps; the checkpoint forecasts a new file of
    the column alone."""
    metrics = json.loads((column_run / "metrics.json").read_text())
    assert metrics["test_windows"] == 120 - PRED_LEN + 1
    csv = tmp_path / "new.csv"
    etth1_rows(600)[["OT"]].tail(50).to_csv(csv, index=False, header=False)
    code, out, err = predict(capsys, column_run, csv)
    assert code == 0, err
    got = pd.read_csv(tmp_path / "new.forecast.csv")
    assert list(got.columns) == ["step", "0"] and got["step"].tolist() == list(range(50, 50 + PRED_LEN))
    assert "freq none (rows are steps)" in out


def test_a_file_of_several_columns_names_its_target_for_s(tmp_path: Path) -> None:
    csv = tmp_path / "two.csv"
    pd.DataFrame({"a": np.sin(np.arange(300.0)), "b": np.cos(np.arange(300.0))}).to_csv(csv, index=False)
    run_dir = tmp_path / "run"
    proc = run_train("data=csv", f"data.path={csv}", "data.features=S", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"note: {csv}: detected rows without timestamps (no column 'date' nor any of times), read as consecutive "
        f"steps without calendar features (data.timestamp_col=NAME names a column of times)",
        f"error: {csv}: data.features=S forecasts one column, and data.target is not set; add data.target=COLUMN, one "
        f"of a, b"]
    assert not run_dir.exists()


def test_matrix_backtest_reproduces_training_metrics(matrix_run: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    metrics = json.loads((matrix_run / "metrics.json").read_text())
    out = tmp_path / "bt.csv"
    code, _, err = predict(capsys, matrix_run, matrix_run / "matrix.csv", "--rolling", "--span", "test", "--output", out)
    assert code == 0, err
    model = json.loads(out.with_suffix(".json").read_text())["metrics"]["model"]
    assert model["mse"] == pytest.approx(metrics["test/mse"], abs=1e-5)
    assert list(pd.read_csv(out).columns) == ["origin", "step", "column", "prediction", "actual"]


def test_a_calendar_model_needs_timestamps(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_dir = train_tiny(root, "etth1", etth1_rows(600))
    csv = tmp_path / "in.csv"
    etth1_rows(600).tail(50).to_csv(csv, index=False)
    code, _, err = predict(capsys, run_dir, csv, "--timestamp-col", "none")
    assert code == 2 and err == (f"error: {csv}: the model was trained with calendar features at frequency 'h', so it "
                                 f"needs the file's timestamps; pass --timestamp-col NAME\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


# --------------------------------------------------------------------------------- infinities, gaps
def test_predict_refuses_infinity_and_fill_treats_it_as_missing(root: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    run_dir = train_tiny(root, "etth1", etth1_rows(600))
    frame = etth1_rows(600).tail(50).reset_index(drop=True).astype({"OT": object})
    frame.loc[45, "OT"] = "inf"
    csv = tmp_path / "in.csv"
    frame.to_csv(csv, index=False)
    code, _, err = predict(capsys, run_dir, csv)
    assert code == 2 and err == (f"error: {csv}: line 47: column 'OT' has the non-finite value 'inf'; replace it, or "
                                 f"pass --fill ffill|interpolate to treat it as missing\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]  # nothing written
    code, _, err = predict(capsys, run_dir, csv, "--fill", "ffill")
    got = pd.read_csv(tmp_path / "in.forecast.csv")
    assert code == 0 and np.isfinite(got.iloc[:, 1:].to_numpy()).all()


def test_predict_fills_missing_dates_on_request(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_dir = train_tiny(root, "etth1", etth1_rows(600))
    csv = tmp_path / "in.csv"
    etth1_rows(600).tail(60).drop(index=[570]).to_csv(csv, index=False)
    code, _, err = predict(capsys, run_dir, csv)
    assert code == 2 and "1 row(s) missing: pass --fill-missing-dates with --fill ffill|interpolate" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]
    code, _, err = predict(capsys, run_dir, csv, "--fill-missing-dates", "--fill", "interpolate")
    assert code == 0 and err == (f"note: {csv}: added 1 missing row(s) at frequency 'h' in 1 gap(s) (1 row before "
                                 f"line 32 (after 2016-07-24 17:00:00)), filled by interpolate\n")


def test_predict_fills_as_the_training_run_did(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A run trained with data.fill and data.fill_missing_dates reads new files the same way by default."""
    run_dir = train_tiny(root, "etth1_filled", etth1_rows(600),
                         extra=["data.fill=interpolate", "data.fill_missing_dates=true"])
    frame = etth1_rows(600).tail(60).drop(index=[570]).reset_index(drop=True)
    frame.loc[40, "OT"] = np.nan
    csv = tmp_path / "in.csv"
    frame.to_csv(csv, index=False)
    code, _, err = predict(capsys, run_dir, csv)
    assert code == 0, err
    assert "added 1 missing row(s) at frequency 'h'" in err and "filled by interpolate" in err
    by_default = pd.read_csv(tmp_path / "in.forecast.csv")
    code, _, err = predict(capsys, run_dir, csv, "--fill", "interpolate", "--fill-missing-dates", "--output",
                           tmp_path / "flags.csv")
    assert code == 0, err
    pd.testing.assert_frame_equal(by_default, pd.read_csv(tmp_path / "flags.csv"))
    code, _, err = predict(capsys, run_dir, csv, "--fill", "ffill", "--output", tmp_path / "ffill.csv")
    assert code == 0 and "filled by ffill" in err  # a flag still overrides the training run's method


def test_training_refuses_infinity_in_training_rows_and_a_gap_with_freq_set(tmp_path: Path) -> None:
    frame = etth1_rows(400).astype({"HUFL": object})
    frame.loc[30, "HUFL"] = "-inf"
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    run_dir = tmp_path / "run"
    proc = run_train("data=csv", f"data.path={bad}", "data.target=OT", "data.freq=h", f"hydra.run.dir={run_dir}",
                     cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [f"error: {bad}: line 32: column 'HUFL' has the non-finite value "
                                                f"'-inf'; replace it, or pass data.fill=ffill|interpolate to treat it "
                                                f"as missing"]
    assert not run_dir.exists()
    etth1_rows(400).drop(index=[100]).to_csv(bad, index=False)
    with pytest.raises(DataError) as caught:  # in process: forecast.train raises the line the command prints
        api_train(None, ["data=etth1", f"data.path={bad}", "data.borders=[200,300,399]"], run_dir=run_dir)
    assert str(caught.value).splitlines() == [
        f"{bad}: line 102: timestamp 2016-07-05 05:00:00 follows 2016-07-05 03:00:00, but data.freq 'h' expects "
        f"2016-07-05 04:00:00; 1 row(s) missing: pass data.fill_missing_dates=true with data.fill=ffill|interpolate "
        f"to add and fill them, or fill the gap in the file"]
    assert not run_dir.exists()


# ------------------------------------------------------------------------------------ config errors
@pytest.mark.parametrize("args,message", [
    (("data=csv",), "data.path is not set: add data.path=FILE (the CSV file) to the command line"),
    (("data.seq_ln=48",), "unknown setting data.seq_ln: did you mean data.seq_len?"),
    (("data.targt=OT",), "unknown setting data.targt: did you mean data.target?"),
    (("target=OT",), "unknown setting target: did you mean data.target?"),
    (("data.pred_len=soon",), "data.pred_len must be an integer, got 'soon'; set data.pred_len=<an integer>"),
    (("data=mine",), "unknown option data=mine; available: csv, etth1, etth2"),
    (("data.target=CO(GT)",), "cannot parse the command line: Error parsing override 'data.target=CO(GT)'; quote a "
                              "value with other characters: \"data.target='CO(GT)'\""),
    (("data.target=Température",), "cannot parse the command line: LexerNoViableAltException: "
                                   "data.target=Température; quote a value with other characters: "
                                   "\"data.target='Température'\""),
])
def test_config_errors_are_one_line_exit_2_and_no_run_dir(args: tuple[str, ...], message: str, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = run_train(*args, f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {message}"]
    assert not run_dir.exists()


@pytest.mark.parametrize("args,start", [(("data.seq_ln=48",), "unknown setting data.seq_ln"),
                                        (("data=csv",), "data.path is not set"),
                                        (("data=csv", "data.path=x.csv", "data.target=OT"),
                                         "x.csv: file not found; check the path")])
def test_config_errors_stop_before_lightning_is_imported(args: tuple[str, ...], start: str, tmp_path: Path) -> None:
    """A misspelt or unset key, or a CSV that is not there, is reported from the composed config alone, before
    the seconds Lightning takes to import."""
    code = (f"import sys\nsys.argv = ['forecast-train', *{list(args)!r}, 'hydra.run.dir=run']\n"
            "from forecast.cli.train import main\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    print(exc.code, 'lightning' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.stdout.split() == ["2", "False"], proc.stderr[-2000:]
    assert proc.stderr.startswith(f"error: {start}") and not (tmp_path / "run").exists()


# -------------------------------------------------------------------------------------------- panels
def test_panel_trains_and_forecasts_every_series(panel_run: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture) -> None:
    metrics = json.loads((panel_run / "metrics.json").read_text())
    trained = sorted(metrics["series"])
    assert len(trained) == N_SERIES - 1 and "s07" not in trained
    csv = tmp_path / "new.csv"
    frame = panel(N_SERIES, short=(7,))
    frame.to_csv(csv, index=False)
    code, out, err = predict(capsys, panel_run, csv)
    assert code == 0
    assert err == (f"note: {csv}: skipping 1 series the model was not trained on (each series has its own scaler; "
                   f"train with data.scaler=global to forecast new series): s07\n")
    got = pd.read_csv(tmp_path / "new.forecast.csv", parse_dates=["date"])
    assert list(got.columns) == ["store", "date", "sales", "temp"]
    assert sorted(got["store"].unique()) == trained and len(got) == len(trained) * PRED_LEN
    last = pd.to_datetime(frame["date"]).max()
    assert (got.groupby("store")["date"].min() == last + pd.Timedelta(hours=1)).all()
    for store, part in got.groupby("store"):  # each series forecast at its own level (per-series scaler)
        level = frame.loc[frame.store == store, "sales"].tail(SEQ_LEN).mean()
        assert abs(part["sales"].mean() - level) < 0.5 * level
    assert "forecast:   6 steps after the last row of each of 23 series" in out


def test_panel_backtest_matches_the_per_series_training_metrics(panel_run: Path, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture) -> None:
    metrics = json.loads((panel_run / "metrics.json").read_text())
    out = tmp_path / "bt.csv"
    code, stdout, err = predict(capsys, panel_run, panel_run / "panel.csv", "--rolling", "--span", "test",
                                "--output", out)
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    assert summary["windows"] == metrics["test_windows"]
    assert summary["metrics"]["model"]["mse"] == pytest.approx(metrics["test/mse"], abs=1e-5)
    assert summary["metrics"]["model"]["mae"] == pytest.approx(metrics["test/mae"], abs=1e-5)
    assert summary["series"].keys() == metrics["series"].keys()
    for store, trained in metrics["series"].items():
        got = summary["series"][store]
        assert got["windows"] == trained["windows"]
        for key in ("mse", "mae", "mse_orig", "mae_orig"):
            assert got[key] == pytest.approx(trained[key], rel=1e-5), (store, key)
    orig = np.sqrt(summary["metrics"]["model"]["mse_orig"])  # pooled, each series unscaled with its own scaler
    assert metrics["test/rmse_orig"] == pytest.approx(orig, rel=1e-5)
    assert metrics["test/mae_orig"] == pytest.approx(summary["metrics"]["model"]["mae_orig"], rel=1e-5)
    long = pd.read_csv(out)
    assert list(long.columns) == ["store", "origin", "timestamp", "column", "prediction", "actual"]
    code, written, _ = predict(capsys, panel_run, panel_run / "panel.csv", "--rolling", "--span", "test", "-o", "-")
    assert code == 0 and written.count("store,origin") == 1  # a series at a time, one header
    pd.testing.assert_frame_equal(pd.read_csv(io.StringIO(written)), long)
    assert f"backtest:   {metrics['test_windows']} windows (every 1), of {N_SERIES - 1} series" in stdout
