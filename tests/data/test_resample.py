"""Readings at irregular or repeated times aggregated into steps (``data.resample``, ``data.agg``): each step equals
pandas' resample of the readings, a step with no reading is refused by its neighbours' lines or filled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.hints import PREDICT
from forecast.data.reader import read_panel


def sensor_log(path: Path, *, hours: int = 48, per_hour: int = 4, skip: tuple[int, ...] = (), seed: int = 0,
               station: str | None = None) -> pd.DataFrame:
    """``per_hour`` readings at random seconds of every hour but those in ``skip``, the 2nd and 3rd reading of
    hour 5 at the same second; written to ``path``, returned with parsed times."""
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2024-01-01")
    times = []
    for h in range(hours):
        if h not in skip:
            times += sorted(start + pd.Timedelta(hours=h, seconds=int(s)) for s in rng.integers(0, 3600, per_hour))
    times[5 * per_hour + 2] = times[5 * per_hour + 1]
    frame = pd.DataFrame({"time": times, "temp": rng.normal(20, 2, len(times)).round(2),
                          "rain": rng.choice([0.0, 0.2, 1.0], len(times))})
    if station is not None:
        frame.insert(0, "station", station)
    frame.to_csv(path, index=False)
    return frame


def test_each_step_is_pandas_resample_of_its_readings(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    log = sensor_log(csv)
    panel = read_panel(csv, resample="h", agg={"rain": "sum"})
    frame = panel.series[0].frame
    expected = log.set_index("time").resample("h").agg({"temp": "mean", "rain": "sum"})
    assert panel.freq == "h" and len(frame) == 48
    np.testing.assert_allclose(frame.to_numpy(), expected.to_numpy())
    assert frame.index.equals(pd.DatetimeIndex(expected.index, name="time"))
    assert panel.notes == (f"{csv}: detected timestamps in column 'time', 192 reading(s) aggregated into 48 step(s) "
                           f"of 'h', each the mean ('rain' the sum) of its readings (data.resample)",)
    for how in ("median", "max", "last"):
        got = read_panel(csv, resample="h", agg=how).series[0].frame
        np.testing.assert_allclose(got.to_numpy(), getattr(log.set_index("time").resample("h"), how)().to_numpy())


def test_coarser_steps_and_a_day_of_fifteen_minutes(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    log = sensor_log(csv, hours=72)
    frame = read_panel(csv, resample="D", agg="max").series[0].frame
    assert list(frame.index.strftime("%Y-%m-%d")) == ["2024-01-01", "2024-01-02", "2024-01-03"]
    np.testing.assert_allclose(frame["temp"], log.set_index("time")["temp"].resample("D").max())
    for freq in ("W", "6h"):  # a week is labelled by its last day, as pandas labels it
        got = read_panel(csv, resample=freq, agg="sum").series[0].frame
        expected = log.set_index("time")[["temp", "rain"]].resample(freq).sum()
        assert got.index.equals(pd.DatetimeIndex(expected.index, name="time"))
        np.testing.assert_allclose(got.to_numpy(), expected.to_numpy())
    counts = log.set_index("time")["temp"].resample("15min").size()
    empty = counts.index[counts.to_numpy() == 0][0]
    before = int(np.searchsorted(log["time"], empty)) - 1  # the row of the last reading before it
    with pytest.raises(DataError, match=rf"log.csv: no reading in the step of '15min' at {empty} \(between line "
                                        rf"{before + 2}, {log['time'][before]}, and line {before + 3}, "):
        read_panel(csv, resample="15min")


def test_a_step_without_a_reading_is_refused_by_its_neighbours_lines_or_filled(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    log = sensor_log(csv, skip=(10, 11))
    before, after = log["time"].iloc[39], log["time"].iloc[40]
    with pytest.raises(DataError) as err:
        read_panel(csv, resample="h")
    assert str(err.value) == (f"{csv}: no reading in the step of 'h' at 2024-01-01 10:00:00 (between line 41, "
                              f"{before}, and line 42, {after}); pass data.fill=ffill|interpolate to fill such steps, "
                              f"or a longer data.resample")
    with pytest.raises(DataError, match=r"pass --fill ffill\|interpolate to fill such steps$"):
        read_panel(csv, resample="h", hints=PREDICT)  # forecast-predict cannot change the model's steps
    panel = read_panel(csv, resample="h", fill="interpolate")
    frame = panel.series[0].frame
    assert len(frame) == 48 and np.isfinite(frame.to_numpy()).all()
    means = log.set_index("time")["temp"].resample("h").mean()
    np.testing.assert_allclose(frame["temp"].iloc[10:12], means.iloc[9] + (means.iloc[12] - means.iloc[9]) * np.array(
        [1, 2]) / 3)
    assert "184 reading(s) aggregated into 48 step(s) of 'h', each the mean of its readings (data.resample); 2 " \
           "step(s) with no reading" in panel.notes[0]
    assert panel.notes[1] == f"{csv}: 4 missing cell(s) filled by interpolate"


def test_a_readings_empty_cell_is_left_out_of_its_step(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    log = sensor_log(csv)
    log.loc[[0, 1], "temp"] = np.nan
    log.to_csv(csv, index=False)
    frame = read_panel(csv, resample="h").series[0].frame
    assert frame["temp"].iloc[0] == pytest.approx(log["temp"].iloc[2:4].mean())
    log.loc[[2, 3], "temp"] = np.nan
    log.to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"log.csv: line 2: column 'temp' is empty on every reading of the step of "
                                        r"'h' at 2024-01-01 00:00:00; pass data.fill"):
        read_panel(csv, resample="h")


def test_each_series_of_a_long_file_is_aggregated_on_its_own(tmp_path: Path) -> None:
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    both = pd.concat([sensor_log(a, station="A", hours=24), sensor_log(b, station="B", hours=30, seed=1)])
    both = both.sort_values("time", kind="stable")
    csv = tmp_path / "stations.csv"
    both.to_csv(csv, index=False)
    panel = read_panel(csv, id_col="station", resample="h", agg="sum")
    assert panel.ids == ["A", "B"] and [len(s.frame) for s in panel.series] == [24, 30]
    for series, station in zip(panel.series, "AB"):
        own = both[both["station"] == station].set_index("time")[["temp", "rain"]].resample("h").sum()
        np.testing.assert_allclose(series.frame.to_numpy(), own.to_numpy())


def test_times_out_of_order_are_read_in_time_order(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    log = sensor_log(csv)
    ordered = read_panel(csv, resample="h").series[0].frame
    log.iloc[[20, 21]] = log.iloc[[21, 20]].to_numpy()
    log.to_csv(csv, index=False)
    panel = read_panel(csv, resample="h")
    pd.testing.assert_frame_equal(panel.series[0].frame, ordered)
    assert "rows out of time order read in time order (line 23: " in panel.notes[0]


def test_without_resample_repeated_and_irregular_times_name_it(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    sensor_log(csv)
    remedy = "; or aggregate the readings into steps: data.resample=FREQ (e.g. h), data.agg=mean|sum|..."
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value).endswith("remove or aggregate duplicates" + remedy)
    pd.read_csv(csv).drop_duplicates("time").to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert "timestamps must be evenly spaced" in str(err.value) and str(err.value).endswith(remedy)


@pytest.mark.parametrize("options, message", [
    ({"resample": "h", "agg": "avg"}, "unknown aggregation 'avg' in data.agg: use one of mean, sum, median, min, max, "
                                      "first, last, or count (the readings of each step)"),
    ({"resample": "h", "agg": {"rain": "count"}}, "data.agg=count counts the readings of each step into a column of "
                                                  "its own ('count'); it takes no column: pass data.agg=count alone"),
    ({"resample": "h", "agg": {"rain": "total"}}, "unknown aggregation 'total' of column 'rain' in data.agg"),
    ({"resample": "h", "agg": {"snow": "sum"}}, "data.agg names column 'snow', which is not read (columns: temp, "
                                               "rain)"),
    ({"agg": "sum"}, "data.agg (sum) aggregates readings into steps: also pass data.resample=FREQ (e.g. h)"),
    ({"resample": "hourly"}, "unknown frequency 'hourly': use a pandas alias"),
    ({"resample": "h", "freq": "D"}, "data.freq 'D' and data.resample 'h' differ: leave data.freq out"),
    ({"resample": "h", "timestamp_col": None}, "data.resample aggregates readings by their timestamps: name the "
                                               "timestamp column"),
])
def test_bad_settings_get_one_line(tmp_path: Path, options: dict, message: str) -> None:
    csv = tmp_path / "log.csv"
    sensor_log(csv)
    with pytest.raises(DataError) as err:
        read_panel(csv, **({"timestamp_col": "time"} | options))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_the_data_module_windows_the_steps_and_checks_agg(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    sensor_log(csv, hours=200)
    dm = ForecastDataModule(path=csv, target="temp", timestamp_col="time", resample="h", agg={"rain": "sum"},
                            seq_len=24, label_len=12, pred_len=6)
    dm.setup()
    assert dm.spec.freq == "h" and dm.index[0] == pd.Timestamp("2024-01-01") and len(dm.index) == 200
    with pytest.raises(DataError, match=r"data.agg must be mean, sum, median, min, max, first, last or count, or "
                                        r"\{column: sum\} or null, got 3"):
        ForecastDataModule(path=csv, target="temp", resample="h", agg=3)


def test_a_last_step_the_log_only_began_is_named_for_a_sum(tmp_path: Path) -> None:
    """Readings every 10 minutes up to 05:00: the 05:00 step holds one where the others hold six."""
    csv = tmp_path / "meter.csv"
    times = pd.date_range("2024-01-01", "2024-01-01 05:00", freq="10min")
    pd.DataFrame({"time": times, "kwh": np.ones(len(times))}).to_csv(csv, index=False)
    frame = read_panel(csv, resample="h", agg="sum").series[0].frame
    assert frame["kwh"].tolist() == [6.0] * 5 + [1.0]
    assert read_panel(csv, resample="h", agg="sum").notes[0].endswith(
        "each the sum of its readings (data.resample); the last step (2024-01-01 05:00:00) holds 1 reading(s) where "
        "a step holds 6: its sum covers a part of the step")
    assert read_panel(csv, resample="h").notes[0].endswith("each the mean of its readings (data.resample)")


def test_a_log_of_events_is_counted_into_steps_with_none_counted_as_zero(tmp_path: Path) -> None:
    """A call log (a row a call, the agent's name and the call's length beside its time): data.agg=count forecasts
    the calls an hour, an hour without a call 0, not missing."""
    csv = tmp_path / "calls.csv"
    log = sensor_log(csv, hours=30, skip=(7, 8))
    log.assign(agent="ann").to_csv(csv, index=False)
    panel = read_panel(csv, resample="h", agg="count")
    frame = panel.series[0].frame
    expected = log.set_index("time")["temp"].resample("h").size()
    assert list(frame.columns) == ["count"] and panel.extra_columns == ("temp", "rain", "agent")
    assert frame.index.equals(pd.DatetimeIndex(expected.index, name="time"))
    assert frame["count"].tolist() == expected.astype(float).tolist() and frame["count"].iloc[7:9].tolist() == [0, 0]
    assert panel.notes == (f"{csv}: detected timestamps in column 'time', 112 reading(s) aggregated into 30 step(s) "
                           f"of 'h', each the count of its readings (data.resample); 2 step(s) with no reading",)
    times = tmp_path / "times.csv"  # the times alone
    log[["time"]].to_csv(times, index=False)
    with pytest.raises(DataError) as err:
        read_panel(times)
    assert str(err.value) == (f"{times}: no numeric columns besides 'time'; a log of events (a row each) is counted "
                              f"into steps by data.resample=FREQ (e.g. h) data.agg=count")
    counted = read_panel(times, resample="h", agg="count")
    assert counted.series[0].frame["count"].tolist() == frame["count"].tolist()
    assert counted.notes[0].startswith(f"{times}: detected timestamps in column 'time', 112 reading(s)")  # one column
    log.rename(columns={"rain": "count"}).to_csv(csv, index=False)
    with pytest.raises(DataError) as err:
        read_panel(csv, resample="h", agg="count")
    assert str(err.value) == (f"{csv}: data.agg=count counts the readings into a column 'count', and the file has "
                              f"one; rename it, or aggregate it: data.agg=sum")
