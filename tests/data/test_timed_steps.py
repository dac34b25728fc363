"""Files of steps timed by data.start: rows, panels and tables of steps get timestamps and a calendar."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from tests.predict.tiny import ckpt_of, predict, train_tiny


def read(path: Path, **kwargs):
    return read_panel(path, header=None, steps_without_timestamps=True, **kwargs)


def steps(rows: int = 300) -> pd.DataFrame:
    t = np.arange(rows)
    return pd.DataFrame({"a": np.sin(2 * np.pi * t / 7) + 0.01 * t, "OT": np.cos(2 * np.pi * t / 7)})


def test_rows_without_timestamps_are_timed_from_the_start_at_the_frequency(tmp_path: Path) -> None:
    csv = tmp_path / "steps.csv"
    steps().to_csv(csv, index=False, header=False)
    panel = read(csv, start="2012-01-01 00:00", freq="h")
    frame = panel.series[0].frame
    assert panel.freq == "h" and panel.timestamp_col == "date"
    assert frame.index.equals(pd.date_range("2012-01-01", periods=300, freq="h", name="date"))
    assert np.allclose(frame.to_numpy(), steps().to_numpy())
    assert f"steps timed from 2012-01-01 00:00 at 'h' (data.start)" in panel.notes[0]
    assert read(csv).freq is None and read(csv).series[0].frame.index.name == "step"


def test_each_series_of_a_long_file_of_steps_starts_at_the_start(tmp_path: Path) -> None:
    a, b = steps(40).assign(shop="a"), steps(25).assign(shop="b")
    csv = tmp_path / "long.csv"
    pd.concat([a, b]).to_csv(csv, index=False)
    panel = read(csv, id_col="shop", start="2020-03-02", freq="W-MON")
    assert [s.series_id for s in panel.series] == ["a", "b"]
    assert [s.frame.index[0] for s in panel.series] == [pd.Timestamp("2020-03-02")] * 2
    assert panel.series[1].frame.index[-1] == pd.Timestamp("2020-03-02") + pd.Timedelta(weeks=24)


def test_a_table_of_steps_is_timed_by_its_columns_and_a_late_series_starts_late(tmp_path: Path) -> None:
    """The M5 layout (``id,d_1,...``): a row's first empty cells are steps before its series begins."""
    values = np.arange(2 * 30, dtype=float).reshape(2, 30)
    values[1, :3] = np.nan
    table = pd.DataFrame(values, columns=[f"d_{i}" for i in range(1, 31)])
    table.insert(0, "id", ["item_1", "item_2"])
    csv = tmp_path / "m5.csv"
    table.to_csv(csv, index=False)
    panel = read(csv, start="2011-01-29", freq="D")
    first, late = (s.frame for s in panel.series)
    assert first.index.equals(pd.date_range("2011-01-29", periods=30, freq="D", name="date"))
    assert late.index[0] == pd.Timestamp("2011-02-01") and late["value"].iloc[0] == 33.0
    assert panel.freq == "D"


@pytest.mark.parametrize("kwargs, message", [
    (dict(start="2011-01-29"), "{csv}: data.start=2011-01-29 times the steps from it at a frequency: also set "
                               "data.freq (D, h, 15min, MS ...)"),
    (dict(start="soon", freq="D"), "{csv}: data.start=soon is not a time; write it as 2011-01-29 or "
                                   "'2011-01-29 00:00'")])
def test_a_start_without_a_frequency_or_not_a_time_is_refused(kwargs: dict, message: str, tmp_path: Path) -> None:
    csv = tmp_path / "steps.csv"
    steps().to_csv(csv, index=False, header=False)
    with pytest.raises(DataError) as err:
        read(csv, **kwargs)
    assert str(err.value) == message.format(csv=csv)


def test_a_start_for_a_file_with_times_of_its_own_is_refused(tmp_path: Path) -> None:
    dated = tmp_path / "dated.csv"
    steps(30).assign(date=pd.date_range("2020-01-01", periods=30).strftime("%Y-%m-%d")).to_csv(dated, index=False)
    days = tmp_path / "days.csv"
    pd.DataFrame([["p1", 1, 2, 3, 4]], columns=["Page", "2020-01-01", "2020-01-02", "2020-01-03",
                                                "2020-01-04"]).to_csv(days, index=False)
    for csv, has in ((dated, "timestamps in column 'date'"),
                     (days, "a table of series by days (columns 2020-01-01 .. 2020-01-04)")):
        with pytest.raises(DataError) as err:
            read(csv, start="2011-01-29", freq="D")
        assert str(err.value) == f"{csv}: data.start times a file of steps, and this one has {has}: leave " \
                                 f"data.start out"


def test_a_model_of_timed_steps_has_a_calendar_and_forecasts_the_times_after_the_file(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_dir = train_tiny(tmp_path, "timed", steps(), header=False, target="1",
                         extra=["data.start=2012-01-01", "data.freq=D", "data.timestamp_col=null"])
    dm = ForecastDataModule(path=str(run_dir / "timed.csv"), target="1", seq_len=24, label_len=12, pred_len=6,
                            start="2012-01-01", freq="D", timestamp_col=None)
    dm.setup()
    assert dm.spec.freq == "D" and dm.spec.timestamp_col == "date"
    out = tmp_path / "forecast.csv"
    code, _, err = predict(capsys, ckpt_of(run_dir), run_dir / "timed.csv", "-o", out)
    assert code == 0, err
    written = pd.read_csv(out)
    last = pd.Timestamp("2012-01-01") + pd.Timedelta(days=299)
    assert pd.to_datetime(written["date"]).tolist() == list(pd.date_range(last, periods=7, freq="D")[1:])
