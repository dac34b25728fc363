"""Files from other sources: no header, no timestamps, infinities, gaps, many series in one file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.hints import PREDICT
from forecast.data.reader import read_panel
from tests.conftest import ETTH1
from tests.predict.tiny import panel

SMALL = dict(seq_len=24, label_len=12, pred_len=6)


def etth1(rows: int = 400) -> pd.DataFrame:
    return pd.read_csv(ETTH1, nrows=rows)


def write(frame: pd.DataFrame, path: Path, *, header: bool = True) -> Path:
    frame.to_csv(path, index=False, header=header)
    return path


def module(path: Path, **kwargs) -> ForecastDataModule:
    dm = ForecastDataModule(path=str(path), **{**SMALL, **kwargs})
    dm.setup()
    return dm


# ------------------------------------------------------------------------------- header, timestamps
def test_a_file_without_header_said_to_have_one_is_named_in_the_error(tmp_path: Path) -> None:
    csv = write(etth1().drop(columns=["date"]), tmp_path / "m.csv", header=False)
    first = pd.read_csv(ETTH1, nrows=1).iloc[0, 1:5].astype(str).tolist()
    with pytest.raises(DataError) as err:
        module(csv, target="6", timestamp_col=None, header=True)
    assert str(err.value) == (f"{csv}: the file seems to have no header row (line 1 is {', '.join(first)}, …); add "
                              f"one, or pass data.header=false to name the columns 0 … 6")


def test_a_first_line_of_values_is_no_header(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The LSTNet benchmark files (exchange_rate.txt: numbers alone) and a headerless file of timestamps and values
    read as with data.header=false; the run records the header it read, for predict."""
    frame = etth1().drop(columns=["date"])
    numbers = module(write(frame, tmp_path / "numbers.csv", header=False))
    assert numbers.spec.header is False and numbers.spec.timestamp_col is None
    assert numbers.spec.input_columns == tuple(str(i) for i in range(7))
    np.testing.assert_allclose(numbers.spec.mean, frame.iloc[:280].mean().to_numpy(), rtol=1e-9)
    assert (f"note: {tmp_path / 'numbers.csv'}: detected no header row (line 1 holds values): columns named 0 … 6, "
            f"rows without timestamps") in capsys.readouterr().err
    dated = module(write(etth1(), tmp_path / "dated.csv", header=False))
    assert dated.spec.header is False and dated.spec.timestamp_col == "0" and dated.spec.freq == "h"
    assert dated.spec.input_columns == tuple(str(i) for i in range(1, 8))


def test_header_false_names_columns_and_no_timestamps_means_no_calendar(tmp_path: Path) -> None:
    frame = etth1().drop(columns=["date"])
    csv = write(frame, tmp_path / "m.csv", header=False)
    dm = module(csv, header=False, timestamp_col=None, target=6)  # an int from the command line: data.target=6
    spec = dm.spec
    assert spec.input_columns == tuple(str(i) for i in range(7)) and spec.target_columns == spec.input_columns
    assert spec.freq is None and spec.timestamp_col is None and not spec.header
    assert dm.n_time_features == 0 and dm.model_dims()["n_time_features"] == 0
    batch = dm.datasets["train"][0]
    assert batch.x_mark_enc.shape == (24, 5) and not batch.x_mark_enc.any()
    np.testing.assert_allclose(spec.mean, frame.iloc[:280].mean().to_numpy(), rtol=1e-9)  # 70% of 400 rows
    assert len(dm.datasets["test"]) == 80 - 6 + 1


def test_no_timestamp_column_given_reads_rows_as_steps(tmp_path: Path) -> None:
    csv = write(etth1().drop(columns=["date"]), tmp_path / "m.csv")
    dm = module(csv, timestamp_col=None, target="OT")
    assert dm.spec.freq is None and list(dm.index[:3]) == [0, 1, 2]


# ------------------------------------------------------------------------------------- non-finite
@pytest.mark.parametrize("row,text", [(10, "inf"), (390, "-inf")])  # a training row, a test row
def test_infinite_values_are_refused_with_line_and_column(row: int, text: str, tmp_path: Path) -> None:
    frame = etth1().astype({"HULL": object})
    frame.loc[row, "HULL"] = text
    csv = write(frame, tmp_path / "inf.csv")
    with pytest.raises(DataError) as err:
        module(csv, target="OT")
    assert str(err.value) == (f"{csv}: line {row + 2}: column 'HULL' has the non-finite value {text!r}; replace it, or "
                              f"pass data.fill=ffill|interpolate to treat it as missing")


def test_fill_treats_infinite_values_as_missing(tmp_path: Path) -> None:
    frame = etth1().astype({"HULL": object})
    frame.loc[10, "HULL"] = "inf"
    csv = write(frame, tmp_path / "inf.csv")
    read = read_panel(csv, fill="ffill").series[0].frame
    assert read["HULL"].iloc[10] == float(frame.loc[9, "HULL"])
    read = read_panel(csv, fill="interpolate").series[0].frame
    assert read["HULL"].iloc[10] == pytest.approx((float(frame.loc[9, "HULL"]) + float(frame.loc[11, "HULL"])) / 2)


def test_the_note_counts_every_cell_the_fill_fills(tmp_path: Path) -> None:
    frame = etth1().astype({"OT": object, "HULL": object})
    frame.loc[[5, 6], "OT"] = ["n/a", ""]
    frame.loc[[8, 9], "HULL"] = ["inf", "-999"]
    csv = write(frame, tmp_path / "holes.csv")
    assert read_panel(csv, fill="ffill").notes == (f"{csv}: 3 missing cell(s) filled by ffill",)
    coded = read_panel(csv, fill="interpolate", dialect=Dialect(na_values=("-999",)))
    assert coded.notes == (f"{csv}: 4 missing cell(s) filled by interpolate (1 of them written as a missing-value "
                           f"code (-999))",)
    frame.loc[[0, 1], "OT"] = ["", ""]  # before the column's first value: the fill copies it back
    write(frame, csv)
    assert read_panel(csv, fill="ffill").notes == (
        f"{csv}: 5 missing cell(s) filled by ffill (2 before their column's first value, filled with it)",)
    assert read_panel(csv, fill="ffill").series[0].frame["OT"].iloc[:3].tolist() == [float(frame.loc[2, "OT"])] * 3
    frame.loc[[0, 1], "OT"] = ["2.5", "2.5"]
    frame.loc[8, "HULL"] = "1.5"
    frame.loc[[5, 6], "OT"] = ["2.5", "2.5"]
    write(frame, csv)  # only the code is missing: without data.fill it is interpolated
    assert read_panel(csv, fill=None, dialect=Dialect(na_values=("-999",))).notes == (
        f"{csv}: 1 cell(s) written as a missing-value code (-999) filled by interpolate (data.fill=ffill|interpolate "
        f"chooses)",)


def test_nan_message_names_the_training_setting(tmp_path: Path) -> None:
    frame = etth1()
    frame.loc[5, "OT"] = np.nan
    with pytest.raises(DataError, match=r"line 7: column 'OT' is empty or NaN; fill the gap or pass "
                                        r"data.fill=ffill\|interpolate$"):
        module(write(frame, tmp_path / "nan.csv"), target="OT")
    with pytest.raises(DataError, match=r"pass --fill ffill\|interpolate$"):
        read_panel(tmp_path / "nan.csv", hints=PREDICT)


@pytest.mark.parametrize("european", [False, True])
@pytest.mark.parametrize("word", ["None", "<NA>", "#DIV/0!", "#VALUE!", "#N/A", "-1.#IND"])
def test_words_for_missing_are_missing(word: str, european: bool, tmp_path: Path) -> None:
    """pandas' own missing-value words (``None``, ``<NA>`` as Python and pandas write them) and a spreadsheet's
    errors: refused as missing, by name, or filled; alike where numbers are written with decimal commas."""
    frame = etth1()
    frame["OT"] = frame["OT"].astype(str)
    written = frame.assign(OT=frame["OT"].str.replace(".", ",", regex=False)) if european else frame.copy()
    written.loc[5, "OT"] = word
    csv = tmp_path / "words.csv"
    written.to_csv(csv, index=False, sep=";" if european else ",", decimal="," if european else ".")
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 7: column 'OT' holds {word!r}, a missing value; fill the gap or pass "
                              f"data.fill=ffill|interpolate")
    filled = read_panel(csv, fill="interpolate").series[0].frame["OT"]
    assert filled.iloc[5] == pytest.approx((float(frame.OT[4]) + float(frame.OT[6])) / 2)


# ------------------------------------------------------------------------------------------- gaps
def test_the_shipped_etth1_has_no_gaps_at_its_frequency() -> None:
    dm = ForecastDataModule(path=str(ETTH1), freq="h", borders=[8640, 11520, 14400])
    dm.setup()
    assert len(dm.index) == 17420 and dm.spec.freq == "h"


@pytest.mark.parametrize("freq", ["h", None])
def test_a_gap_is_refused_even_with_data_freq(freq: str | None, tmp_path: Path) -> None:
    csv = write(etth1().drop(index=[50, 51]), tmp_path / "gap.csv")
    whose = "data.freq" if freq else "the inferred frequency"
    with pytest.raises(DataError) as err:
        module(csv, target="OT", freq=freq)
    assert str(err.value) == (f"{csv}: line 52: timestamp 2016-07-03 04:00:00 follows 2016-07-03 01:00:00, but {whose} "
                              f"'h' expects 2016-07-03 02:00:00; 2 row(s) missing: pass data.fill_missing_dates=true "
                              f"with data.fill=ffill|interpolate to add and fill them, or fill the gap in the file")




def test_a_data_freq_finer_than_every_step_names_the_files_own(tmp_path: Path) -> None:
    daily = etth1(24 * 60).iloc[::24]  # midnight of each day: 60 rows a day apart
    csv = write(daily, tmp_path / "daily.csv")
    with pytest.raises(DataError) as err:
        module(csv, target="OT", freq="h")
    assert str(err.value) == (f"{csv}: the timestamps step by 'D', not by data.freq 'h' (no two rows are 'h' apart): "
                              f"leave data.freq out to use the file's frequency, set data.freq=D, or resample the "
                              f"file to 'h'")
    assert module(csv, target="OT", freq="D").spec.freq == "D"
@pytest.mark.parametrize("features", ["M", "MS"])
def test_columns_of_one_value_in_the_training_rows_are_left_out(features: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    """A station's latitude and id on every row: nothing to learn as inputs, and as targets their easy forecasts
    would lower test/mse; left out where the reader chose the columns, named where data.columns did."""
    frame = etth1()
    frame["lat"], frame["station"] = 52.52, 10384.0
    frame.loc[390, "lat"] = 52.6  # a test row: one value in every training row
    csv = write(frame, tmp_path / "const.csv")
    dm = module(csv, target="OT", features=features)
    assert "lat" not in dm.spec.input_columns and "station" not in dm.spec.input_columns
    assert dm.spec.input_columns == tuple(etth1().columns[1:])
    assert dm.spec.target_columns == (dm.spec.input_columns if features == "M" else ("OT",))
    assert capsys.readouterr().err == (f"note: {csv}: 2 column(s) holding one value in every training row left out "
                                       f"('lat', 'station'); data.columns=[...] keeps them\n")
    named = module(csv, target="OT", features=features, columns=["HUFL", "lat", "OT"])
    assert named.spec.input_columns == ("HUFL", "lat", "OT")
    scored = "; 1 of them forecast and scored, lowering test/mse" if features == "M" else ""
    assert capsys.readouterr().err == (f"note: {csv}: 1 column(s) hold one value in every training row "
                                       f"('lat'){scored}; data.columns=[...] leaves them out\n")
    module(write(etth1(), tmp_path / "plain.csv"), target="OT", features=features)
    assert capsys.readouterr().err == ""


def test_a_column_counting_the_rows_is_left_out(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A logger's ``RECORD`` (0, 1, 2 ...) or a table's ``Obs``: the row's position, not a measurement; kept where
    it is the target, where data.columns names it, and under features S."""
    frame = etth1()
    frame.insert(1, "RECORD", np.arange(len(frame)) + 1000)
    csv = write(frame, tmp_path / "logger.csv")
    dm = module(csv, target="OT")
    assert "RECORD" not in dm.spec.input_columns and len(dm.spec.input_columns) == 7
    assert capsys.readouterr().err == (f"note: {csv}: column(s) counting the rows left out ('RECORD': each row 1 more "
                                       f"than the last, the row's position); data.columns=[...] keeps them\n")
    assert "RECORD" in module(csv, target="RECORD").spec.input_columns
    assert module(csv, target="OT", columns=["RECORD", "HUFL"]).spec.input_columns == ("RECORD", "HUFL", "OT")
    capsys.readouterr()
    frame.loc[10, "RECORD"] = 2000  # a reset: not a counter
    assert "RECORD" in module(write(frame, tmp_path / "reset.csv"), target="OT").spec.input_columns
    assert "counting the rows" not in capsys.readouterr().err


def test_a_frequency_for_a_file_of_steps_is_refused_not_ignored(tmp_path: Path) -> None:
    csv = write(etth1().drop(columns=["date"]), tmp_path / "steps.csv", header=False)
    with pytest.raises(DataError) as err:
        module(csv, timestamp_col=None, target=6, freq="h", header=False)
    assert str(err.value) == (f"{csv}: data.freq=h is the step of timestamps, and the file has none (its values are "
                              f"steps without a calendar): leave it out, or give the file timestamps")
    assert module(csv, timestamp_col=None, target=6, header=False).spec.freq is None


@pytest.mark.parametrize("fill", ["interpolate", "ffill"])
def test_a_counter_of_the_rows_held_is_left_out_once_gaps_are_filled(fill: str, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    """UCI bike sharing's ``instant`` counts the rows the file holds; the rows added to fill missing hours are not
    among them, so the counter is judged on the rows read."""
    frame = etth1().drop(index=[50, 51, 120]).reset_index(drop=True)  # three hours missing
    frame.insert(0, "instant", np.arange(len(frame)) + 1)
    csv = write(frame, tmp_path / "hour.csv")
    dm = module(csv, target="OT", fill=fill, fill_missing_dates=True)
    assert dm.spec.input_columns == ("HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT")
    assert "column(s) counting the rows left out ('instant'" in capsys.readouterr().err
    panel = read_panel(csv, fill=fill, fill_missing_dates=True)
    assert panel.series[0].added.tolist() == [i in (50, 51, 120) for i in range(400)]
    assert len(panel.series[0].read_rows) == 397


def test_a_minimum_written_as_a_missing_value_code_is_named(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """SILSO writes -1 for a day without a sunspot count: the column's minimum, far below its other values (0 and
    more), named with the setting that declares it; not where na_values declares it, nor for a -1 among values
    near it."""
    frame = etth1()
    frame["count"] = np.arange(len(frame)) % 50.0
    frame.loc[[3, 90, 200], "count"] = -1.0
    csv = write(frame, tmp_path / "counts.csv")
    module(csv, target="OT")
    assert capsys.readouterr().err == (f"note: {csv}: column 'count': -1 in 3 rows, far below its other values (from "
                                       f"0); if -1 means missing, set data.na_values=[-1] (and data.fill)\n")
    module(csv, target="OT", na_values=[-1], fill="interpolate")
    assert "far below" not in capsys.readouterr().err
    frame["count"] = np.where(frame["count"] < 0, -1.0, frame["count"] - 0.7)  # other values from -0.7
    module(write(frame, tmp_path / "near.csv"), target="OT")
    assert "far below" not in capsys.readouterr().err


def test_fill_missing_dates_adds_the_rows_with_one_note(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = etth1()
    csv = write(frame.drop(index=[50, 51, 200]), tmp_path / "gap.csv")
    dm = module(csv, target="OT", freq="h", fill="interpolate", fill_missing_dates=True)
    assert len(dm.index) == 400 and (dm.index == pd.DatetimeIndex(pd.to_datetime(frame["date"]))).all()
    err = capsys.readouterr().err
    assert err == (f"note: {csv}: added 3 missing row(s) at frequency 'h' in 2 gap(s) (2 rows before line 52 (after "
                   f"2016-07-03 01:00:00); 1 row before line 200 (after 2016-07-09 07:00:00)), filled by interpolate\n")


def test_fill_missing_dates_needs_a_fill(tmp_path: Path) -> None:
    csv = write(etth1().drop(index=[50]), tmp_path / "gap.csv")
    with pytest.raises(DataError, match="data.fill_missing_dates=true adds empty rows: also pass "
                                        r"data.fill=ffill\|interpolate to fill them"):
        module(csv, target="OT", fill_missing_dates=True)


def test_off_grid_timestamps_stay_refused(tmp_path: Path) -> None:
    frame = etth1()
    frame.loc[50, "date"] = "2016-07-03 02:30:00"
    with pytest.raises(DataError, match="line 52: timestamp 2016-07-03 02:30:00 follows .* timestamps must be evenly"):
        module(write(frame, tmp_path / "odd.csv"), target="OT", fill="ffill", fill_missing_dates=True)


# ------------------------------------------------------------------------------------------ panels
def test_panel_windows_stay_inside_their_series(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    frame = panel(n_series=6, rows=100, short=(4,))
    csv = write(frame, tmp_path / "panel.csv")
    dm = module(csv, target="sales", id_col="store")
    assert capsys.readouterr().err == (f"note: {csv}: skipping 1 of 6 series too short for a window of seq_len 24 + "
                                       f"pred_len 6 in every split (data.ratios [0.7, 0.1, 0.2]): s04\n")
    assert dm.spec.series_ids == ("s00", "s01", "s02", "s03", "s05")
    for split, n in (("train", 70 - 30 + 1), ("val", 24 + 10 - 30 + 1), ("test", 24 + 20 - 30 + 1)):
        data = dm.datasets[split]
        assert len(data) == 5 * n  # every series split by time on its own
        for i in range(len(data)):
            first, last = data.origin(i), data.origin(i) + 30 - 1
            owners = {sl.series_id for sl in dm.slices if sl.offset <= first and last < sl.offset + sl.rows}
            assert len(owners) == 1  # no window crosses two series


@pytest.mark.parametrize("scaler", ["series", "global"])
def test_panel_scaler_per_series_or_global(scaler: str, tmp_path: Path) -> None:
    frame = panel(n_series=4, rows=100)
    dm = module(write(frame, tmp_path / "panel.csv"), target="sales", id_col="store", scaler=scaler)
    train = [frame[frame.store == s][["sales", "temp"]].iloc[:70].to_numpy() for s in ("s00", "s01", "s02", "s03")]
    pooled = np.concatenate(train)
    np.testing.assert_allclose(dm.spec.mean, pooled.mean(axis=0), rtol=1e-9)
    if scaler == "series":
        np.testing.assert_allclose(dm.spec.series_mean, [t.mean(axis=0) for t in train], rtol=1e-9)
        np.testing.assert_allclose(dm.spec.series_scale, [t.std(axis=0) for t in train], rtol=1e-9)
        first = dm.datasets["train"].parts[1][0].x_enc.numpy()  # series s01, rows 0..23, scaled with its own stats
        np.testing.assert_allclose(first, (train[1][:24] - train[1].mean(axis=0)) / train[1].std(axis=0), rtol=1e-5)
    else:
        assert dm.spec.series_mean == () and dm.spec.scaler == "global"


def test_panel_with_no_series_long_enough_is_refused(tmp_path: Path) -> None:
    csv = write(panel(n_series=3, short=(0, 1, 2)), tmp_path / "panel.csv")
    with pytest.raises(DataError) as err:
        module(csv, target="sales", id_col="store")
    assert str(err.value) == (f"{csv}: no series is long enough for a window of seq_len 24 + pred_len 6 in every split "
                              f"(data.ratios [0.7, 0.1, 0.2]); the longest, s00, has 30 rows; use data.seq_len=9 "
                              f"data.label_len=4 data.pred_len=3, or longer series")


def test_panel_errors_name_the_series(tmp_path: Path) -> None:
    frame = panel(n_series=3, rows=60)
    rows = frame.index[frame.store == "s01"]
    frame = frame.drop(index=rows[20])
    csv = write(frame, tmp_path / "panel.csv")
    with pytest.raises(DataError, match=r"line \d+: timestamp .* 1 row\(s\) missing \(in series s01\): pass "
                                        r"data.fill_missing_dates=true"):
        module(csv, target="sales", id_col="store")
    dup = panel(n_series=3, rows=60)
    dup.loc[dup.index[(dup.store == "s02")][5], "date"] = dup.loc[dup.index[(dup.store == "s02")][4], "date"]
    with pytest.raises(DataError, match="duplicate timestamp 2021-03-01 04:00:00 of series s02"):
        module(write(dup, tmp_path / "dup.csv"), target="sales", id_col="store")


def test_a_first_line_of_values_ending_in_separators_is_no_header(tmp_path: Path) -> None:
    """``1.5;2.0;;``: the empty fields at the line's end do not make the first line a header (it was read as the
    columns' names, and its values lost)."""
    csv = tmp_path / "trailing.csv"
    rows = np.arange(60.0).reshape(30, 2) / 4
    csv.write_text("".join(f"{a};{b};;\n" for a, b in rows))
    panel = read_panel(csv, header=None, timestamp_col=None)
    frame = panel.series[0].frame
    assert panel.header is False and list(frame.columns) == ["0", "1"]
    np.testing.assert_array_equal(frame.to_numpy(), rows)
