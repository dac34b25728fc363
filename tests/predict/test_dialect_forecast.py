"""Each kind of exported CSV trains with at most one option (none where it is detected), and forecast-predict and
the API read it again from the checkpoint alone: the forecast's timestamps continue the file's (issue #39)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from forecast.api import load
from forecast.runtime import CONF_DIR, register_resolvers
from tests.conftest import ETTH1, tiny_model
from tests.predict.tiny import LABEL_LEN, PRED_LEN, SEQ_LEN, predict

ETT_END = pd.Timestamp("2016-07-17 15:00")  # the last of ETTh1's first 400 rows
BERLIN = "Europe/Berlin"


def ett(rows: int = 400) -> pd.DataFrame:
    return pd.read_csv(ETTH1, nrows=rows)


def hours(start: str, end: str) -> pd.DatetimeIndex:
    return pd.date_range(start, end, freq="h", tz=BERLIN)


def series(index: pd.DatetimeIndex, stamps: list[str] | pd.Index, name: str = "date") -> pd.DataFrame:
    t = np.arange(len(index), dtype=np.float64)
    rng = np.random.default_rng(0)
    return pd.DataFrame({name: stamps, "load": 50 + 10 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 1, len(t)),
                         "OT": 20 + 5 * np.cos(2 * np.pi * t / 24) + rng.normal(0, 0.5, len(t))})


def european(path: Path) -> None:
    ett().to_csv(path, sep=";", decimal=",", index=False)


def day_first(path: Path) -> None:
    frame = ett()
    frame["date"] = pd.to_datetime(frame["date"]).dt.strftime("%d/%m/%Y %H:%M")
    frame.to_csv(path, index=False)


def local_time(path: Path) -> None:  # the October hour repeats on lines 268 and 269
    index = hours("2021-10-20", "2021-11-05")
    series(index, index.strftime("%Y-%m-%d %H:%M:%S")).to_csv(path, index=False)


def offsets(path: Path) -> None:  # the offsets change from +01:00 to +02:00 on 2021-03-28
    index = hours("2021-03-27", "2021-04-12 23:00")
    series(index, [t.isoformat() for t in index]).to_csv(path, index=False)


def missing_code(path: Path) -> None:
    frame = ett()
    frame.loc[[7, 150, 390], "HULL"] = -200
    frame.to_csv(path, index=False)


TRADING = pd.bdate_range("2019-01-02", "2020-12-31")
TRADING = TRADING[~TRADING.isin(pd.to_datetime(["2019-05-27", "2019-07-04", "2019-12-25", "2020-01-01",
                                                "2020-07-03", "2020-12-25"]))]


def trading_days(path: Path) -> None:
    rng = np.random.default_rng(0)
    pd.DataFrame({"Date": TRADING.strftime("%Y-%m-%d"), "OT": 100 + np.cumsum(rng.normal(0, 1, len(TRADING))),
                  "Volume": np.arange(len(TRADING)) % 5 + 1.0}).to_csv(path, index=False)


def unix_seconds(path: Path) -> None:
    frame = ett()
    seconds = (pd.to_datetime(frame.pop("date")) - pd.Timestamp("1970-01-01")) // pd.Timedelta(seconds=1)
    frame.insert(0, "timestamp", seconds)
    frame.to_csv(path, index=False)


def thousands(path: Path) -> None:
    frame = ett()
    frame["HUFL"] = (frame["HUFL"] * 1000).map(lambda v: f"{v:,.1f}")
    frame.to_csv(path, index=False)


def years(path: Path) -> None:  # 1750 .. 2011, written as whole numbers
    index = pd.date_range("1750", "2011", freq="YS")
    series(index, list(index.year), name="year").to_csv(path, index=False)


LOG_END = pd.Timestamp("2024-01-17 15:00")  # the hour of the sensor log's last reading


def sensor_log(path: Path) -> None:  # 6 readings an hour at random seconds, two at the same second
    rng = np.random.default_rng(0)
    hours = pd.date_range("2024-01-01", LOG_END, freq="h")
    times = np.sort(np.repeat(hours.to_numpy(), 6) + rng.integers(0, 3600, 6 * len(hours)).astype("timedelta64[s]"))
    times[41] = times[40]
    t = (times - times[0]) / np.timedelta64(1, "h")
    pd.DataFrame({"time": pd.DatetimeIndex(times).strftime("%Y-%m-%d %H:%M:%S"),
                  "OT": 20 + 5 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 0.5, len(t)),
                  "rain": rng.choice([0.0, 0.2, 1.0], len(t))}).to_csv(path, index=False)


def after(last: pd.Timestamp, freq: str | pd.DateOffset) -> pd.DatetimeIndex:
    return pd.date_range(last, periods=PRED_LEN + 1, freq=freq)[1:]


# name: (writer, the one option, the timestamp column, the forecast's timestamps)
CASES: dict[str, tuple[Callable[[Path], None], list[str], str, pd.DatetimeIndex]] = {
    "european": (european, [], "date", after(ETT_END, "h")),
    "day_first": (day_first, [], "date", after(ETT_END, "h")),
    "local_time": (local_time, [f"data.tz={BERLIN}"], "date", after(pd.Timestamp("2021-11-05", tz=BERLIN), "h")),
    "offsets": (offsets, [], "date", after(pd.Timestamp("2021-04-12 21:00", tz="UTC"), "h")),
    "missing_code": (missing_code, ["data.na_values=[-200]"], "date", after(ETT_END, "h")),
    "trading_days": (trading_days, [], "Date", after(TRADING[-1], "B")),
    "unix_seconds": (unix_seconds, [], "timestamp", after(ETT_END.tz_localize("UTC"), "h")),
    "thousands": (thousands, [], "date", after(ETT_END, "h")),
    "years": (years, [], "year", after(pd.Timestamp("2011-01-01"), "YS")),
    "sensor_log": (sensor_log, ["data.resample=h", "data.agg={rain: sum}"], "time", after(LOG_END, "h")),
}
_RUNS: dict[str, tuple[Path, Path]] = {}


def trained(root: Path, name: str) -> tuple[Path, Path]:
    """The CSV of case ``name`` and the run trained on it (once per session)."""
    if name in _RUNS:
        return _RUNS[name]
    from forecast.training.pipeline import train

    write, options, _, _ = CASES[name]
    run_dir = root / name
    run_dir.mkdir(parents=True)
    csv = run_dir / f"{name}.csv"
    write(csv)
    register_resolvers()
    overrides = ["data=csv", f"data.path={csv}", "data.target=OT", f"data.seq_len={SEQ_LEN}",
                 f"data.label_len={LABEL_LEN}", f"data.pred_len={PRED_LEN}", "data.batch_size=16",
                 "data.eval_batch_size=64", *tiny_model(e_layers=1), "trainer=cpu", "trainer.max_epochs=1",
                 "trainer.limit_train_batches=2", "trainer.enable_progress_bar=false",
                 "trainer.enable_model_summary=false", "logger=none", "callbacks.lr_monitor=null", "plot=false",
                 f"paths.output_dir={run_dir}", *options]
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("train", overrides=overrides)
    train(cfg)
    _RUNS[name] = (csv, run_dir)
    return _RUNS[name]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dialects")


def stamps_of(column: pd.Series, expected: pd.DatetimeIndex) -> pd.DatetimeIndex:
    """A forecast CSV's timestamps (years read back as ints: as text), in the zone of ``expected``."""
    column = column.astype(str)
    if expected.tz is None:
        return pd.DatetimeIndex(pd.to_datetime(column))
    return pd.DatetimeIndex(pd.to_datetime(column, utc=True)).tz_convert(expected.tz)


@pytest.mark.parametrize("name", list(CASES))
def test_trains_and_forecasts_from_the_checkpoint_alone(name: str, root: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    csv, run_dir = trained(root, name)
    _, _, column, expected = CASES[name]
    out = tmp_path / "forecast.csv"
    code, stdout, err = predict(capsys, run_dir, csv, "-o", out)  # no reading option repeated, no --fill
    assert code == 0, err
    frame = pd.read_csv(out)
    assert list(frame.columns[:1]) == [column] and len(frame) == PRED_LEN
    assert stamps_of(frame[column], expected).equals(expected)
    if name == "years":  # written as the file writes them
        assert frame[column].tolist() == list(range(2012, 2012 + PRED_LEN))
    assert np.isfinite(frame.drop(columns=[column]).to_numpy()).all()
    api = load(run_dir).predict(csv)
    assert pd.DatetimeIndex(api[column]).equals(expected)
    np.testing.assert_allclose(api.drop(columns=[column]).to_numpy(), frame.drop(columns=[column]).to_numpy(),
                               rtol=1e-4)


def test_the_forecast_crosses_the_repeated_hour_in_local_time(root: Path, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture) -> None:
    csv, run_dir = trained(root, "local_time")
    history = tmp_path / "to_midnight.csv"
    frame = pd.read_csv(csv)
    frame.iloc[: int(np.flatnonzero(frame["date"] == "2021-10-31 00:00:00")[0]) + 1].to_csv(history, index=False)
    out = tmp_path / "forecast.csv"
    code, _, err = predict(capsys, run_dir, history, "-o", out)
    assert code == 0, err
    assert list(pd.read_csv(out)["date"]) == [
        "2021-10-31 01:00:00+02:00", "2021-10-31 02:00:00+02:00", "2021-10-31 02:00:00+01:00",
        "2021-10-31 03:00:00+01:00", "2021-10-31 04:00:00+01:00", "2021-10-31 05:00:00+01:00"]


def test_trading_days_say_how_many_holidays(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv, run_dir = trained(root, "trading_days")
    code, _, err = predict(capsys, run_dir, csv, "-o", tmp_path / "f.csv")
    assert code == 0
    assert (f"note: {csv}: 6 holiday(s) (business days at 'B' without a row: 2019-05-27, 2019-07-04, 2019-12-25, "
            f"...)") in err


def test_a_dataframe_reads_with_the_checkpoints_time_options(root: Path) -> None:
    """A DataFrame of the European file (read by the user with pandas) forecasts as the file does."""
    csv, run_dir = trained(root, "european")
    frame = pd.read_csv(csv, sep=";", decimal=",")
    model = load(run_dir)
    pd.testing.assert_frame_equal(model.predict(frame), model.predict(csv))


def test_the_day_first_order_is_stored_for_a_short_file(root: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    """05/07/2016 04:00 .. 06/07/2016 03:00 reads increasing either way: the checkpoint's order settles it."""
    csv, run_dir = trained(root, "day_first")
    short = tmp_path / "short.csv"
    pd.read_csv(csv).iloc[100:100 + SEQ_LEN].to_csv(short, index=False)
    code, _, err = predict(capsys, run_dir, short, "-o", tmp_path / "f.csv")
    assert code == 0, err
    forecast = pd.DatetimeIndex(pd.read_csv(tmp_path / "f.csv")["date"])
    assert forecast.equals(after(pd.Timestamp("2016-07-06 03:00"), "h"))


def test_backtest_bounds_are_local_time_in_the_files_zone() -> None:
    from forecast.data.errors import DataError
    from forecast.predict.span import resolve_span

    index = hours("2021-10-30", "2021-11-01")  # 02:00 twice on 2021-10-31
    first = lambda start: resolve_span(index, {}, seq_len=4, start=start).start + 4  # noqa: E731 - the forecast row
    assert index[first("2021-10-31 03:00")] == pd.Timestamp("2021-10-31 03:00", tz=BERLIN)
    assert index[first("2021-10-31 02:00+01:00")] == pd.Timestamp("2021-10-31 01:00", tz="UTC")
    with pytest.raises(DataError, match=r"--start 2021-10-31 02:00:00: not a single time in Europe/Berlin"):
        first("2021-10-31 02:00")
    with pytest.raises(DataError, match="the file's timestamps have no time zone"):
        resolve_span(index.tz_localize(None), {}, seq_len=4, start="2021-10-31 03:00+01:00")


def test_a_file_of_years_forecasts_years(root: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Timestamps written as years come back as years, in the forecast and in the rolling backtest."""
    csv, run_dir = trained(root, "years")
    code, stdout, err = predict(capsys, run_dir, csv, "-o", tmp_path / "f.csv")
    assert code == 0, err
    assert (tmp_path / "f.csv").read_text().splitlines()[1].startswith("2012,")
    assert list(pd.read_csv(tmp_path / "f.csv")["year"]) == list(range(2012, 2012 + PRED_LEN))
    code, _, err = predict(capsys, run_dir, csv, "--rolling", "--span", "test", "-o", tmp_path / "r.csv")
    assert code == 0, err
    rolling = pd.read_csv(tmp_path / "r.csv")
    assert (rolling["timestamp"] - rolling["origin"]).between(1, PRED_LEN).all()
    assert rolling["timestamp"].max() == 2011
