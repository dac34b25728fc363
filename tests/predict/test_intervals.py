"""forecast-predict --intervals: conformal columns, refusals, rolling coverage, the Python API."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

import forecast
from forecast.data.spec import DataSpec
from forecast.training.conformal import CONFORMAL_KEY, tracked_width_at
from forecast.training.recipe import RECIPE_KEY, load_checkpoint
from tests.predict.tiny import PRED_LEN, ckpt_of, etth1_rows, predict, train_tiny

ROWS = 600
COLUMNS = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]


@pytest.fixture(scope="session")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return train_tiny(tmp_path_factory.mktemp("interval_runs"), "etth1", etth1_rows(ROWS))


@pytest.fixture
def new_csv(tmp_path: Path) -> Path:
    path = tmp_path / "new.csv"
    etth1_rows(ROWS).tail(100).to_csv(path, index=False)
    return path


def test_training_stores_the_calibration(run_dir: Path) -> None:
    entry = load_checkpoint(ckpt_of(run_dir))[RECIPE_KEY][CONFORMAL_KEY]
    assert entry["n"] > 0 and tuple(entry["half_widths"].shape) == (99, PRED_LEN, len(COLUMNS))
    assert torch.isfinite(entry["half_widths"][79]).all()  # 80% is finite with this many windows


def test_interval_columns_order_and_values(run_dir: Path, new_csv: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    plain, with_iv = tmp_path / "plain.csv", tmp_path / "iv.csv"
    assert predict(capsys, run_dir, new_csv, "-o", plain)[0] == 0
    code, out, err = predict(capsys, run_dir, new_csv, "-o", with_iv, "--intervals", "0.95", "0.8",
                             "--plot", tmp_path / "p.png")
    assert code == 0, err
    frame, base = pd.read_csv(with_iv), pd.read_csv(plain)
    expected = ["date"] + [f"{c}{s}" for c in COLUMNS for s in ("", "_lo_80", "_hi_80", "_lo_95", "_hi_95")]
    assert list(frame.columns) == expected
    pd.testing.assert_frame_equal(frame[list(base.columns)], base)  # the forecast itself is unchanged
    ckpt = load_checkpoint(ckpt_of(run_dir))
    table = ckpt[RECIPE_KEY][CONFORMAL_KEY]["half_widths"].double().numpy()  # (99, P, C) scaled
    spec = DataSpec.from_dict(ckpt[RECIPE_KEY]["spec"])
    std = np.asarray(spec.scale)[list(spec.target_index)]  # (C,) the training rows' std of each target
    # the rolling backtest of the file from its validation span (rows 70.. of 100 at ratios 0.7/0.1/0.2) on
    backtest = tmp_path / "bt.csv"
    code, _, err = predict(capsys, run_dir, new_csv, "--rolling", "--start", "70", "-o", backtest)
    assert code == 0, err
    long = pd.read_csv(backtest)
    n_win = len(long) // (PRED_LEN * len(COLUMNS))
    assert n_win == 100 - 70 - PRED_LEN + 1
    shape = (n_win, PRED_LEN, len(COLUMNS))  # rows: origin, then step, then column
    errors = np.abs(long["prediction"].to_numpy() - long["actual"].to_numpy()).reshape(shape) / std  # scaled
    origins = np.arange(n_win) + 69  # the last input row of each window
    for level, row in (("80", 79), ("95", 94)):
        lo = frame[[f"{c}_lo_{level}" for c in COLUMNS]].to_numpy()
        hi = frame[[f"{c}_hi_{level}" for c in COLUMNS]].to_numpy()
        centre = frame[COLUMNS].to_numpy()
        np.testing.assert_allclose(hi - centre, centre - lo, rtol=1e-9, atol=1e-9)  # symmetric
        tracked = tracked_width_at(errors, origins, table[row], int(level) / 100, at=99)  # (P, C) scaled
        np.testing.assert_allclose(hi - centre, tracked * std, rtol=1e-6)  # tracked half-width * std
        assert not np.allclose(tracked, table[row])  # the recent windows moved it from the split start
    hi95, hi80 = (frame[[f"{c}_hi_{level}" for c in COLUMNS]].to_numpy() for level in ("95", "80"))
    assert np.all(hi95 >= hi80)
    assert (tmp_path / "p.png").is_file()
    assert "intervals:  80%, 95%: the validation calibration tracked through the file's last 25 windows\n" \
        in out
    one_lookback = tmp_path / "short.csv"
    pd.read_csv(new_csv).tail(24).to_csv(one_lookback, index=False)
    code, out, err = predict(capsys, run_dir, one_lookback, "-o", tmp_path / "short_iv.csv",
                             "--intervals", "0.8")
    assert code == 0, err
    assert ("intervals:  80%: the validation calibration, untracked (no window with known actuals after the "
            "training rows)\n") in out


@pytest.mark.parametrize("levels, message", [
    (["80"], "error: --intervals takes levels in (0, 1), got 80 (a fraction: write 0.8 for 80%)\n"),
    (["0.8", "1"], "error: --intervals takes levels in (0, 1), got 1\n"),
    (["0.975"], "error: --intervals takes whole-percent levels (0.01 .. 0.99), got 0.975\n"),
])
def test_bad_levels_refused(levels: list[str], message: str, run_dir: Path, new_csv: Path, tmp_path: Path,
                            capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "f.csv"
    code, stdout, err = predict(capsys, run_dir, new_csv, "-o", out, "--intervals", *levels)
    assert code == 2 and err == message and stdout == ""
    assert not out.exists()


@pytest.mark.parametrize("rolling", [False, True])
def test_checkpoint_without_calibration_refused(rolling: bool, run_dir: Path, new_csv: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture) -> None:
    ckpt = torch.load(ckpt_of(run_dir), map_location="cpu", weights_only=False)
    del ckpt[RECIPE_KEY][CONFORMAL_KEY]  # as written before intervals existed
    old = tmp_path / "old.ckpt"
    torch.save(ckpt, old)
    out = tmp_path / "f.csv"
    extra = ["--rolling", "--span", "all"] if rolling else []
    code, stdout, err = predict(capsys, old, new_csv, "-o", out, "--intervals", "0.8", *extra)
    assert code == 2 and stdout == ""
    assert err == (f"error: {old}: the checkpoint has no interval calibration (written before --intervals existed); "
                   f"retrain it with forecast-train to use --intervals\n")
    assert not out.exists() and not out.with_suffix(".json").exists()
    assert predict(capsys, old, new_csv, "-o", out)[0] == 0  # without --intervals it still forecasts


def test_rolling_coverage_matches_the_long_csv(run_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "bt.csv"
    code, stdout, err = predict(capsys, run_dir, run_dir / "etth1.csv", "--rolling", "--span", "test", "-o", out,
                                "--intervals", "0.8", "0.95")
    assert code == 0, err
    summary = json.loads(out.with_suffix(".json").read_text())
    long = pd.read_csv(out)
    assert list(long.columns) == ["origin", "timestamp", "column", "prediction", "actual", "lo_80", "hi_80",
                                  "lo_95", "hi_95"]
    step = (np.arange(len(long)) // len(COLUMNS)) % PRED_LEN  # rows: origin, then step, then column
    for level in ("80", "95"):
        lo, hi, actual = long[f"lo_{level}"], long[f"hi_{level}"], long["actual"]
        inside = (actual >= lo) & (actual <= hi)
        width = hi - lo
        score = width + 2 / (1 - int(level) / 100) * ((lo - actual).clip(lower=0) + (actual - hi).clip(lower=0))
        got = summary["intervals"][level]
        assert got["coverage"] == pytest.approx(inside.mean(), abs=1e-12)
        assert got["width"] == pytest.approx(width.mean(), rel=1e-9)
        assert got["interval_score"] == pytest.approx(score.mean(), rel=1e-9)
        np.testing.assert_allclose(got["coverage_per_step"], inside.groupby(step).mean().to_numpy(), atol=1e-12)
        np.testing.assert_allclose(got["width_per_step"], width.groupby(step).mean().to_numpy(), rtol=1e-9)
        np.testing.assert_allclose(got["interval_score_per_step"], score.groupby(step).mean().to_numpy(), rtol=1e-9)
        assert 0 < got["coverage_se"] < 0.5
        assert set(got["split"]) == {"coverage", "coverage_se", "width", "interval_score"}
        own = ["start_floor"] if "start_floor" in summary else []  # the run's start, where it is a profile
        assert list(got["floors"]) == ["naive_last", "naive_mean", "ridge_floor", *own]
        for other in [got["split"], *got["floors"].values()]:
            assert set(other) == set(got["split"]) and 0 < other["coverage_se"] < 0.5
    assert "cover 80%" in stdout and "width 95%" in stdout and "score 95%" in stdout
    assert (f"coverage standard error over the overlapping windows (Newey-West): "
            f"80% {summary['intervals']['80']['coverage_se']:.3f}, 95% {summary['intervals']['95']['coverage_se']:.3f}"
            in stdout)
    assert any(line.split()[0] == "ridge_floor" for line in stdout.splitlines() if line.strip())


def test_api_passes_intervals_through(run_dir: Path, new_csv: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "cli.csv"
    assert predict(capsys, run_dir, new_csv, "-o", out, "--intervals", "0.8", "0.95")[0] == 0
    frame = forecast.load(run_dir).predict(pd.read_csv(new_csv), intervals=(0.8, 0.95))
    cli = pd.read_csv(out)
    assert list(frame.columns) == list(cli.columns)
    np.testing.assert_allclose(frame[cli.columns[1:]].to_numpy(), cli[cli.columns[1:]].to_numpy(), rtol=1e-9)


def test_panel_intervals_use_each_series_scale(tmp_path_factory: pytest.TempPathFactory, tmp_path: Path) -> None:
    """Per-series scalers: a series' half-width in original units is the scaled one times its own std."""
    from forecast.predict.trained_model import TrainedModel
    from tests.predict.tiny import panel

    frame = panel(6, rows=200)
    run = train_tiny(tmp_path_factory.mktemp("interval_panel"), "panel_iv", frame, target="sales",
                     extra=["data.id_col=store"])
    fc = TrainedModel.load(run)
    csv = tmp_path / "panel.csv"
    frame.to_csv(csv, index=False)
    table = fc.conformal["half_widths"].double().numpy()[79]  # (P, C_out) scaled
    out = fc.forecast(fc.read(csv), widths=[{0.8: table}] * 6)
    columns = list(fc.spec.target_columns)
    assert list(out.columns) == ["store", "date"] + [f"{c}{s}" for c in columns for s in ("", "_lo_80", "_hi_80")]
    widths = {}
    for store, part in out.groupby("store"):
        _, scale = fc.spec.stats(store)
        half = part[[f"{c}_hi_80" for c in columns]].to_numpy() - part[columns].to_numpy()
        np.testing.assert_allclose(half, table * np.asarray(scale)[list(fc.spec.target_index)], rtol=1e-6)
        widths[store] = half.mean()
    assert len(set(np.round(list(widths.values()), 6))) == len(widths)  # the series' scales differ
    # the series go through the model in batches of batch_windows: batches of 4 (2 passes) give the same table
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(TrainedModel, "batch_windows", property(lambda self: 4))
        batched = fc.forecast(fc.read(csv), widths=[{0.8: table}] * 6)
    pd.testing.assert_frame_equal(batched, out, rtol=1e-6)


def test_rolling_level_beyond_the_validation_windows(run_dir: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture) -> None:
    """Too few validation windows for 99% (rank ceil((n+1)*0.99) > n): infinite bounds, coverage 1,
    width null in the JSON (strict JSON, no Infinity) and ``inf`` in the table."""
    n = load_checkpoint(ckpt_of(run_dir))[RECIPE_KEY][CONFORMAL_KEY]["n"]
    assert np.ceil((n + 1) * 0.99) > n  # this tiny run calibrates on 55 windows
    out = tmp_path / "bt.csv"
    code, stdout, err = predict(capsys, run_dir, run_dir / "etth1.csv", "--rolling", "--span", "test", "-o", out,
                                "--intervals", "0.99")
    assert code == 0, err
    text = out.with_suffix(".json").read_text()
    assert "Infinity" not in text
    got = json.loads(text)["intervals"]["99"]
    assert got["coverage"] == 1.0 and got["width"] is None and got["width_per_step"] == [None] * PRED_LEN
    assert got["interval_score"] is None and got["split"]["interval_score"] is None
    assert np.isinf(pd.read_csv(out)["hi_99"]).all()
    assert "inf" in [line for line in stdout.splitlines() if line.split()[:1] == ["all"]][-1]  # the intervals table


def _future_widths(run_dir: Path, frame: pd.DataFrame, tmp_path: Path, **caps: int) -> tuple[dict, dict]:
    """The split-conformal half-widths at 0.8 and 0.95, and what ``future_widths`` makes of them on ``frame``
    (one series)."""
    from forecast.predict.future_widths import future_widths
    from forecast.predict.trained_model import TrainedModel

    fc = TrainedModel.load(run_dir)
    csv = tmp_path / f"f{len(list(tmp_path.iterdir()))}.csv"
    frame.to_csv(csv, index=False)
    split = fc.half_widths((0.8, 0.95))
    return split, future_widths(fc, fc.read(csv), split, **caps)[0]


def test_recent_errors_larger_than_the_calibration_widen_the_future_interval(run_dir: Path,
                                                                             tmp_path: Path) -> None:
    frame = etth1_rows(ROWS).tail(100).reset_index(drop=True)
    rng = np.random.default_rng(0)
    noisy = frame.copy()
    noisy.loc[46:, COLUMNS] += rng.normal(0, 20, (100 - 46, len(COLUMNS)))  # the rows the tracker reads
    split, calm = _future_widths(run_dir, frame, tmp_path)
    _, wild = _future_widths(run_dir, noisy, tmp_path)
    for level in (0.8, 0.95):
        assert np.all(wild[level] > split[level]) and np.all(wild[level] > calm[level])


def test_the_future_tracks_only_the_latest_windows(run_dir: Path, tmp_path: Path) -> None:
    """With ``max_windows=5`` the widths are those of a file holding only its last 5 windows (34 rows, too
    short for the run's splits, so every window is read); a file of one look-back keeps the split widths."""
    frame = etth1_rows(ROWS).tail(100).reset_index(drop=True)
    _, capped = _future_widths(run_dir, frame, tmp_path, max_windows=5)
    _, short = _future_widths(run_dir, frame.tail(5 + 24 + PRED_LEN - 1), tmp_path)
    _, by_total = _future_widths(run_dir, frame, tmp_path, total_windows=5)
    split, none = _future_widths(run_dir, frame.tail(24), tmp_path)
    for level in (0.8, 0.95):
        np.testing.assert_array_equal(capped[level], short[level])
        np.testing.assert_array_equal(capped[level], by_total[level])
        np.testing.assert_array_equal(none[level], split[level])
        assert not np.array_equal(capped[level], split[level])


def test_a_panel_named_by_two_columns_is_forecast_under_both(tmp_path_factory: pytest.TempPathFactory,
                                                            tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Series named by ``data.id_col=[region,store]`` are written back as those two columns, as the file has them."""
    from tests.predict.tiny import panel

    frame = panel(4, rows=200)
    frame.insert(0, "region", np.where(frame["store"].isin(["s00", "s01"]), "north", "south"))
    run = train_tiny(tmp_path_factory.mktemp("two_ids"), "two_ids", frame, target="sales",
                     extra=["data.id_col=[region,store]"])
    csv = tmp_path / "new.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / "fc.csv"
    assert predict(capsys, run, csv, "-o", out)[0] == 0
    forecast_rows = pd.read_csv(out)
    assert list(forecast_rows.columns[:3]) == ["region", "store", "date"]
    assert forecast_rows.groupby("store")["region"].first().to_dict() == {
        "s00": "north", "s01": "north", "s02": "south", "s03": "south"}
    assert predict(capsys, run, csv, "--rolling", "--span", "test", "-o", tmp_path / "bt.csv")[0] == 0
    backtest = pd.read_csv(tmp_path / "bt.csv")
    assert list(backtest.columns[:3]) == ["region", "store", "origin"] and set(backtest["store"]) == {
        "s00", "s01", "s02", "s03"}
