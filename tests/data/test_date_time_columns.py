"""A timestamp in two columns, as the UCI air quality file writes it (``Date;Time`` / ``10/03/2004;18.00.00``,
decimal commas, ``-200`` for missing, ``;;`` at every line's end): read into one hourly series, trained on with
``data.na_values=[-200]`` alone, and forecast from without repeating it (issue #39)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from omegaconf import OmegaConf

from forecast.data.datamodule import ForecastDataModule
from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from forecast.data.spec import DataSpec
from tests.predict.tiny import PRED_LEN, etth1_rows, predict, train_tiny

START = pd.Timestamp("2004-03-10 18:00")  # written 10/03/2004;18.00.00: day-first
CODED = ((5, "HUFL"), (40, "OT"), (41, "MULL"), (200, "OT"))  # (row, column) written -200
UCI = Dialect(na_values=("-200",))


def true_frame(rows: int) -> pd.DataFrame:
    """ETTh1's values on hourly timestamps from 10 March 2004 18:00 (index ``Date``)."""
    frame = etth1_rows(rows).drop(columns=["date"])
    frame.index = pd.DatetimeIndex(pd.date_range(START, periods=rows, freq="h").to_numpy(), name="Date")
    return frame


def uci_frame(truth: pd.DataFrame, *, date: str = "%d/%m/%Y", time: str = "%H.%M.%S",
              names: tuple[str, str] = ("Date", "Time")) -> pd.DataFrame:
    """``truth`` as the UCI file writes it, every cell text: date and time columns, decimal commas, -200 codes,
    two unnamed empty columns at the end (written ``;`` separated: ``...;0,7578;;``)."""
    cells = truth.map(lambda v: repr(float(v)).replace(".", ","))
    for row, col in CODED:
        if row < len(cells):
            cells.iloc[row, cells.columns.get_loc(col)] = "-200"
    cells.insert(0, names[1], truth.index.strftime(time))
    cells.insert(0, names[0], truth.index.strftime(date))
    cells[""] = ""
    cells.insert(len(cells.columns), "", "", allow_duplicates=True)
    return cells.reset_index(drop=True)


def write(frame: pd.DataFrame, path: Path) -> Path:
    frame.to_csv(path, sep=";", index=False)
    return path


def expected(truth: pd.DataFrame) -> pd.DataFrame:
    """``truth`` with each coded cell the mean of its neighbours (linear interpolation of an isolated cell)."""
    out = truth.copy()
    for row, col in CODED:
        if row < len(out):
            out.iloc[row, out.columns.get_loc(col)] = (truth[col].iloc[row - 1] + truth[col].iloc[row + 1]) / 2
    return out


# --------------------------------------------------------------------------------------- reading
def test_a_uci_style_file_reads_as_one_hourly_series(tmp_path: Path) -> None:
    truth = true_frame(400)
    csv = write(uci_frame(truth), tmp_path / "AirQualityUCI.csv")
    assert csv.read_text().splitlines()[1] == "10/03/2004;18.00.00;" + ";".join(
        repr(float(v)).replace(".", ",") for v in truth.iloc[0]) + ";;"
    panel = read_panel(csv, dialect=UCI)
    frame = panel.series[0].frame
    assert frame.index.equals(truth.index) and panel.freq == "h" and panel.timestamp_col == "Date"
    assert frame.index[0] == pd.Timestamp("2004-03-10 18:00")  # 10 March, not 3 October
    pd.testing.assert_frame_equal(frame, expected(truth))
    assert panel.dialect == Dialect(na_values=("-200",), dayfirst=True, time_col="Time")
    assert panel.notes == (
        f"{csv}: detected semicolon-separated columns, 2 empty unnamed column(s) left out ('Unnamed: 9', "
        f"'Unnamed: 10'), timestamps from columns 'Date' and 'Time' combined, day-first dates (10/03/2004 18:00:00 "
        f"is 2004-03-10 18:00:00: the only order giving increasing timestamps), decimal commas",
        f"{csv}: 4 cell(s) written as a missing-value code (-200) filled by interpolate "
        f"(data.fill=ffill|interpolate chooses)")


def test_the_pair_named_explicitly_reads_the_same(tmp_path: Path) -> None:
    truth = true_frame(400)
    csv = write(uci_frame(truth), tmp_path / "aq.csv")
    panel = read_panel(csv, timestamp_col=["Date", "Time"], dialect=UCI)
    pd.testing.assert_frame_equal(panel.series[0].frame, expected(truth))
    assert panel.dialect.time_col == "Time" and "combined" not in panel.notes[0]
    dm = ForecastDataModule(path=str(csv), target="OT", seq_len=24, label_len=12, pred_len=6, na_values=[-200],
                            timestamp_col=OmegaConf.create(["Date", "Time"]))  # as Hydra passes a list
    dm.setup()
    assert dm.spec.timestamp_col == "Date" and dm.spec.dialect.time_col == "Time"
    assert dm.spec.input_columns == tuple(truth.columns)
    assert DataSpec.from_dict(dm.spec.to_dict()) == dm.spec


@pytest.mark.parametrize("value,message", [
    (["Date", "Time", "CO"], "data.timestamp_col must be a column name or a list [date, time] of two columns, got "
                             "['Date', 'Time', 'CO']; set data.timestamp_col=[Date,Time]"),
    ({"a": 1}, "data.timestamp_col must be a column name or a list [date, time] or null, got {'a': 1}; "
               "set data.timestamp_col=<a column name or a list [date, time]>"),
])
def test_a_bad_timestamp_setting_is_one_line(value: object, message: str) -> None:
    with pytest.raises(DataError) as err:
        ForecastDataModule(path="x.csv", timestamp_col=value)
    assert str(err.value) == message


@pytest.mark.parametrize("names,date,time", [
    (("date", "time"), "%Y-%m-%d", "%H:%M:%S"),  # the default timestamp column is a date only: joined too
    (("Datum", "Zeit"), "%d.%m.%Y", "%H.%M"),  # dots in the date are kept, in the time they become colons
    (("day", "hour"), "%d/%m/%Y", "%H"),  # whole hours
])
def test_other_date_and_time_pairs(names: tuple[str, str], date: str, time: str, tmp_path: Path) -> None:
    truth = true_frame(300)
    csv = write(uci_frame(truth, date=date, time=time, names=names), tmp_path / "pair.csv")
    panel = read_panel(csv, dialect=UCI)
    assert panel.series[0].index.equals(truth.index.rename(names[0]))
    assert f"timestamps from columns {names[0]!r} and {names[1]!r} combined" in panel.notes[0]
    assert list(panel.series[0].frame.columns) == list(truth.columns)


def hours_ending_frame(truth: pd.DataFrame, names: tuple[str, str], written: str) -> pd.DataFrame:
    """``truth`` as grid operators write it: the hour's date and its hour ending, 1 (00:00-01:00) .. 24, as
    ``written`` formats it (``{:d}``: 7; ``{:02d}:00``: 07:00)."""
    cells = truth.reset_index(drop=True)
    cells.insert(0, names[1], [written.format(h) for h in truth.index.hour + 1])
    cells.insert(0, names[0], truth.index.strftime("%m/%d/%Y"))
    return cells


@pytest.mark.parametrize("names,written,start", [
    (("Date", "HE"), "{:d}", START),
    (("Date", "Hour Ending"), "{:02d}:00", START),  # ERCOT: 01:00 .. 24:00
    (("date", "hour"), "{:d}", START),  # named as any hour: 24 and no 0 make them hours ending
    (("Date", "HE"), "{:d}", pd.Timestamp("2004-03-10 00:00")),  # hour 1 of the first day first
])
def test_hours_ending_are_stamped_with_the_start_of_their_hour(names: tuple[str, str], written: str,
                                                               start: pd.Timestamp, tmp_path: Path) -> None:
    truth = true_frame(300)
    truth.index = pd.DatetimeIndex(pd.date_range(start, periods=300, freq="h").to_numpy(), name=names[0])
    csv = tmp_path / "grid.csv"
    hours_ending_frame(truth, names, written).to_csv(csv, index=False)
    assert f",{written.format(24)}," in csv.read_text().split("\n")[24 - start.hour]  # hour 24 is written
    panel = read_panel(csv)
    assert panel.series[0].index.equals(truth.index)
    assert panel.freq == "h"
    assert (f"timestamps from columns {names[0]!r} and {names[1]!r} combined, hours 1 .. 24 in column "
            f"{names[1]!r} read as hours ending: hour 1 is stamped 00:00, its start, month-first dates "
            f"(03/10/2004 {start.hour:02d}:00 is {start}") in panel.notes[0]
    pd.testing.assert_frame_equal(panel.series[0].frame, truth.rename_axis(names[0]), check_freq=False)


def test_a_column_named_for_hours_ending_that_never_reaches_24_is_read_so(tmp_path: Path) -> None:
    truth = true_frame(5)  # 18:00 .. 22:00: written 19 .. 23
    csv = tmp_path / "grid.csv"
    hours_ending_frame(truth, ("Date", "HE"), "{:d}").to_csv(csv, index=False)
    assert read_panel(csv, freq="h", dialect=Dialect(dayfirst=False)).series[0].index.equals(truth.index)


def test_whole_hours_from_0_are_hours_of_the_day_not_hours_ending(tmp_path: Path) -> None:
    truth = true_frame(300)
    csv = write(uci_frame(truth, date="%d/%m/%Y", time="%H", names=("Date", "hour")), tmp_path / "pair.csv")
    panel = read_panel(csv, dialect=UCI)
    assert panel.series[0].index.equals(truth.index)
    assert not any("hours ending" in note for note in panel.notes)


def test_a_date_format_reads_the_joined_text_as_written(tmp_path: Path) -> None:
    truth = true_frame(300)
    csv = write(uci_frame(truth), tmp_path / "aq.csv")
    panel = read_panel(csv, dialect=Dialect(na_values=("-200",), date_format="%d/%m/%Y %H.%M.%S"))
    pd.testing.assert_frame_equal(panel.series[0].frame, expected(truth))
    with pytest.raises(DataError, match=r"line 2: cannot parse timestamp '10/03/2004 18.00.00' in column 'Date' "
                                        r"with data.date_format '%d/%m/%Y %H:%M:%S'"):
        read_panel(csv, dialect=Dialect(na_values=("-200",), date_format="%d/%m/%Y %H:%M:%S"))


def test_a_bad_time_names_the_setting_then_the_line(tmp_path: Path) -> None:
    cells = uci_frame(true_frame(300))
    cells.loc[7, "Time"] = "1 am"
    csv = write(cells, tmp_path / "bad.csv")
    with pytest.raises(DataError) as err:
        read_panel(csv, dialect=UCI)
    assert str(err.value) == (
        f"{csv}: no timestamp column 'date', and columns 'Date' and 'Time' do not hold only dates and times of day; "
        f"to read them as one timestamp pass data.timestamp_col=[Date,Time], else set data.timestamp_col=NAME, or "
        f"data.timestamp_col=null for rows without timestamps")
    with pytest.raises(DataError) as err:
        read_panel(csv, timestamp_col=["Date", "Time"], dialect=UCI)
    assert str(err.value) == (f"{csv}: line 9: cannot parse timestamp '11/03/2004 1 am' in column 'Date'; use ISO "
                              f"format like 2016-07-01 00:00:00, or pass data.date_format='%d.%m.%Y %H:%M' with the "
                              f"file's format")
    with pytest.raises(DataError) as err:
        read_panel(csv, timestamp_col=["Date", "Hour"], dialect=UCI)
    assert str(err.value).startswith(f"{csv}: no column 'Hour' for the timestamps' dates and times in columns 'Date' "
                                     f"and 'Hour' (columns: Date, Time, HUFL,")


def test_a_code_written_with_a_decimal_comma_is_a_code(tmp_path: Path) -> None:
    truth = true_frame(300)
    cells = uci_frame(truth)
    cells.loc[5, "HUFL"] = "-200,0"
    panel = read_panel(write(cells, tmp_path / "aq.csv"), dialect=UCI)
    pd.testing.assert_frame_equal(panel.series[0].frame, expected(truth))


def test_empty_rows_at_the_end_are_left_out(tmp_path: Path) -> None:
    truth = true_frame(300)
    csv = write(uci_frame(truth), tmp_path / "aq.csv")
    with csv.open("a") as f:
        f.write(";" * 10 + "\n" + ";" * 10 + "\n")
    panel = read_panel(csv, dialect=UCI)
    pd.testing.assert_frame_equal(panel.series[0].frame, expected(truth))
    assert "2 empty row(s) at the end left out" in panel.notes[0]


# -------------------------------------------------------------------------------- train and predict
@pytest.mark.parametrize("names,extra", [
    (("Date", "Time"), ()),  # detected
    (("reading_day", "reading_clock"), ("data.timestamp_col=[reading_day,reading_clock]",)),  # named: stored
])
def test_a_uci_style_file_trains_and_forecasts_without_repeating_options(names: tuple[str, str], extra: tuple[str, ...],
                                                                         tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture) -> None:
    truth = true_frame(400)
    run_dir = train_tiny(tmp_path, "AirQualityUCI", uci_frame(truth, names=names), sep=";",
                         extra=["data.na_values=[-200]", *extra])
    assert "-200" in (run_dir / "AirQualityUCI.csv").read_text()
    csv = write(uci_frame(true_frame(120), names=names), tmp_path / "new.csv")
    code, out, err = predict(capsys, run_dir, csv)
    assert code == 0, err
    got = pd.read_csv(tmp_path / "new.forecast.csv")
    assert list(got.columns) == [names[0], *truth.columns]
    after = pd.date_range(START + pd.Timedelta(hours=119), periods=PRED_LEN + 1, freq="h")[1:]
    assert list(pd.to_datetime(got[names[0]])) == list(after)  # 15 March 2004 18:00 onwards, hourly
    assert np.isfinite(got[list(truth.columns)].to_numpy()).all()
    one = true_frame(120).rename_axis("stamp").reset_index()  # the timestamp in one column: named, read alone
    one.to_csv(tmp_path / "one.csv", index=False)
    code, _, err = predict(capsys, run_dir, tmp_path / "one.csv", "--timestamp-col", "stamp")
    assert code == 0, err
    assert list(pd.to_datetime(pd.read_csv(tmp_path / "one.forecast.csv")["stamp"])) == list(after)


@pytest.mark.parametrize("dates", ["timestamps", "dates"])
@pytest.mark.parametrize("times", ["text", "times"])
def test_a_typed_date_and_time_pair_joins(dates: str, times: str, tmp_path: Path) -> None:
    """Parquet (and pandas) store dates as midnight timestamps or ``date`` objects and times as ``time`` objects
    or text: each pair reads as the same hourly timestamps."""
    index = pd.date_range("2004-03-10 18:00", periods=60, freq="h")
    frame = pd.DataFrame({"Date": index.normalize() if dates == "timestamps" else index.date,
                          "Time": index.time if times == "times" else index.strftime("%H:%M:%S"),
                          "CO": np.arange(60.0)})
    frame.to_parquet(tmp_path / "pair.parquet")
    panel = read_panel(tmp_path / "pair.parquet")
    assert panel.series[0].index.equals(pd.DatetimeIndex(index, name="Date"))
    assert panel.notes == (f"{tmp_path / 'pair.parquet'}: detected timestamps from columns 'Date' and 'Time' combined",)


def _bike(tmp_path: Path, hours: int = 72) -> tuple[Path, pd.DatetimeIndex]:
    """The UCI bike-sharing file's layout: a row counter, the date (``dteday``) apart from its hour (``hr``), the
    month and the weekday (Sunday 0) between them, then the counts."""
    stamps = pd.date_range("2011-01-01", periods=hours, freq="h")
    csv = tmp_path / "hour.csv"
    pd.DataFrame({"instant": np.arange(1, hours + 1), "dteday": stamps.strftime("%Y-%m-%d"),
                  "mnth": np.asarray(stamps.month), "hr": np.asarray(stamps.hour),
                  "weekday": (np.asarray(stamps.day_of_week) + 1) % 7, "temp": np.linspace(0, 1, hours).round(4),
                  "cnt": np.arange(hours) % 24 * 10.0}).to_csv(csv, index=False)
    return csv, stamps


def test_a_date_column_after_row_numbers_and_its_hour_apart_read_as_one_timestamp(tmp_path: Path) -> None:
    csv, stamps = _bike(tmp_path)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "h" and list(frame.index) == list(stamps)
    assert list(frame.columns) == ["instant", "temp", "cnt"]  # the counter is left out by the data module
    assert frame["cnt"].tolist() == list(np.arange(72) % 24 * 10.0)
    assert panel.notes[0] == (f"{csv}: detected timestamps from columns 'dteday' and 'hr' combined, column(s) "
                              f"repeating the timestamps' parts left out ('mnth', 'weekday')")


def test_a_column_of_hours_apart_from_dates_that_never_repeat_is_a_column(tmp_path: Path) -> None:
    csv = tmp_path / "daily.csv"
    days = pd.date_range("2020-01-01", periods=30, freq="D")
    pd.DataFrame({"n": np.arange(30), "day_date": days.strftime("%Y-%m-%d"), "v": np.arange(30.0),
                  "hr": np.arange(30) % 20}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert panel.freq == "D" and list(panel.series[0].frame.columns) == ["n", "v", "hr"]


def test_two_columns_of_dates_name_no_timestamp_column(tmp_path: Path) -> None:
    csv = tmp_path / "two.csv"
    days = pd.date_range("2020-01-01", periods=30, freq="D").strftime("%Y-%m-%d")
    pd.DataFrame({"n": np.arange(30), "opened": days, "closed": days, "v": np.arange(30.0)}).to_csv(csv, index=False)
    with pytest.raises(DataError, match=r"two.csv: no timestamp column 'date' \(columns: n, opened, closed, v\)"):
        read_panel(csv)


EPOCH = pd.Timestamp("1970-01-01", tz="UTC")


def _settlement(days: pd.DatetimeIndex, per_day: dict[str, int], written: str = "%d-%b-%Y") -> pd.DataFrame:
    """Half-hourly settlement periods as Elexon and National Grid ESO write them: a date, then periods 1 .. 48 (46
    or 50 on the days in ``per_day``), the demand a function of the period's start in real time."""
    rows = []
    for day in days:
        start = day.tz_localize("Europe/London")
        for period in range(1, per_day.get(f"{day:%Y-%m-%d}", 48) + 1):
            instant = start + pd.Timedelta(minutes=30 * (period - 1))
            rows.append((day.strftime(written).upper(), period, float((instant - EPOCH) // pd.Timedelta(minutes=1))))
    return pd.DataFrame(rows, columns=["SETTLEMENT_DATE", "SETTLEMENT_PERIOD", "ND"])


def test_a_days_numbered_half_hours_are_stamped_with_their_starts(tmp_path: Path) -> None:
    csv = tmp_path / "demanddata.csv"
    _settlement(pd.date_range("2021-01-01", periods=5, freq="D"), {}).to_csv(csv, index=False)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert panel.freq == "30min" and frame.index.equals(
        pd.DatetimeIndex(pd.date_range("2021-01-01", periods=240, freq="30min"), name="SETTLEMENT_DATE", freq=None))
    assert panel.notes[0] == (f"{csv}: detected timestamps from columns 'SETTLEMENT_DATE' and 'SETTLEMENT_PERIOD' "
                              f"combined, periods 1 .. 48 of a day in column 'SETTLEMENT_PERIOD' read as half-hours: "
                              f"period 1 is stamped 00:00, its start")


def test_the_days_the_clocks_change_need_the_zone_and_are_placed_in_it(tmp_path: Path) -> None:
    """46 half-hours on the last Sunday of March, 50 on October's: in real time every period 30 minutes on."""
    csv = tmp_path / "demanddata.csv"
    days = pd.date_range("2021-03-26", "2021-11-02", freq="D")
    frame = _settlement(days, {"2021-03-28": 46, "2021-10-31": 50})
    frame.to_csv(csv, index=False)
    line = int(np.flatnonzero(frame["SETTLEMENT_DATE"] == "28-MAR-2021")[-1]) + 2
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line {line}: 28-MAR-2021 has 46 periods in column 'SETTLEMENT_PERIOD', not a "
                              f"day's 48: the clocks changed that day; pass data.tz=ZONE with the zone of the file's "
                              f"clock (such as Europe/London or America/Chicago) to place them")
    got = read_panel(csv, dialect=Dialect(tz="Europe/London")).series[0].frame
    instants = pd.date_range(days[0].tz_localize("Europe/London"), periods=len(frame), freq="30min")
    assert got.index.equals(pd.DatetimeIndex(instants.tz_convert("Europe/London"), name="SETTLEMENT_DATE", freq=None))
    np.testing.assert_array_equal(got["ND"].to_numpy(), ((instants - EPOCH) // pd.Timedelta(minutes=1)).to_numpy(float))
    cut = frame.iloc[: int(np.flatnonzero(frame["SETTLEMENT_DATE"] == "31-OCT-2021")[0]) + 10]  # 10 of its 50
    cut.to_csv(csv, index=False)
    got = read_panel(csv, dialect=Dialect(tz="Europe/London")).series[0].frame
    assert got.index.equals(pd.DatetimeIndex(instants[: len(cut)].tz_convert("Europe/London"), name="SETTLEMENT_DATE",
                                             freq=None))
    _settlement(pd.date_range("2021-01-01", periods=5, freq="D"), {}).iloc[10:-7].to_csv(csv, index=False)
    got = read_panel(csv).series[0].frame  # the first and last days in part, no clock change: no zone needed
    assert got.index.equals(pd.DatetimeIndex(pd.date_range("2021-01-01 05:00", periods=5 * 48 - 17, freq="30min"),
                                             name="SETTLEMENT_DATE", freq=None))


@pytest.mark.parametrize("names, cells", [(("Delivery Date", "Hour Ending"), lambda h: f"{h:02d}:00"),
                                          (("OPR_DT", "OPR_HR"), str)])
def test_a_date_column_named_for_timestamps_joins_its_hours(names: tuple[str, str], cells, tmp_path: Path) -> None:
    """ERCOT's ``Delivery Date,Hour Ending`` (01:00 .. 24:00) and CAISO's ``OPR_DT,OPR_HR`` (1 .. 24): one hourly
    series, not a series for each hour."""
    days = pd.date_range("2021-01-01", periods=4, freq="D")
    csv = tmp_path / "load.csv"
    pd.DataFrame({names[0]: np.repeat(days.strftime("%Y-%m-%d"), 24), names[1]: [cells(h) for h in range(1, 25)] * 4,
                  "load": np.arange(96.0)}).to_csv(csv, index=False)
    panel = read_panel(csv)
    assert len(panel.series) == 1 and panel.freq == "h"
    assert panel.series[0].frame.index.equals(
        pd.DatetimeIndex(pd.date_range("2021-01-01", periods=96, freq="h"), name=names[0], freq=None))
    assert panel.series[0].frame["load"].tolist() == list(np.arange(96.0))
    assert panel.notes[0].startswith(f"{csv}: detected timestamps from columns {names[0]!r} and {names[1]!r} combined")
