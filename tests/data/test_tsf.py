"""The Monash forecasting archive's .tsf files, read as the long tables they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.reader import read_panel

HEADER = ("# Dataset Information\n# half-hourly demand of three states\n@relation demand\n"
          "@attribute series_name string\n@attribute state string\n@attribute start_timestamp date\n"
          "@frequency {freq}\n@horizon 48\n@missing true\n@equallength false\n\n@data\n")


def write(path: Path, series: list[tuple[str, str, str, list[str]]], freq: str = "half_hourly") -> Path:
    body = "".join(f"{name}:{state}:{start}:{','.join(values)}\n" for name, state, start, values in series)
    path.write_text(HEADER.format(freq=freq) + body)
    return path


def values(n: int, shift: float = 0.0) -> list[str]:
    return [f"{100.0 + shift + k:.1f}" for k in range(n)]


def test_each_line_is_a_series_timed_from_its_start(tmp_path: Path) -> None:
    tsf = write(tmp_path / "demand.tsf", [("T1", "NSW", "2015-01-01 00-00-00", values(120)),
                                         ("T2", "VIC", "2015-01-01 12-30-00", values(100, 1000.0))])
    panel = read_panel(tsf)
    assert panel.id_col == "series_name" and panel.ids == ["T1", "T2"] and panel.freq == "30min"
    first, second = (s.frame for s in panel.series)
    assert first.index.equals(pd.DatetimeIndex(pd.date_range("2015-01-01", periods=120, freq="30min"), name="date",
                                               freq=None))
    assert second.index[0] == pd.Timestamp("2015-01-01 12:30") and len(second) == 100
    assert list(first.columns) == ["value"] and second["value"].tolist() == [1100.0 + k for k in range(100)]
    assert panel.notes == (f"{tsf}: detected column(s) labelling each series left out ('state': NSW, VIC)",)


def test_a_missing_value_is_named_by_the_line_of_its_series(tmp_path: Path) -> None:
    gapped = values(100)
    gapped[40] = "?"
    tsf = write(tmp_path / "demand.tsf", [("T1", "NSW", "2015-01-01 00-00-00", values(100)),
                                         ("T2", "VIC", "2015-01-01 00-00-00", gapped)])
    with pytest.raises(DataError) as err:
        read_panel(tsf)
    assert str(err.value) == (f"{tsf}: line 14: column 'value' holds '?', a missing value; fill the gap or pass "
                              f"data.fill=ffill|interpolate")
    filled = read_panel(tsf, fill="interpolate")
    assert filled.series[1].frame["value"].iloc[40] == 140.0
    assert filled.notes[-1] == f"{tsf}: 1 missing cell(s) filled by interpolate"


def test_months_are_counted_from_each_start() -> None:
    from forecast.data.tsf import STEPS
    start = pd.Timestamp("1979-01-31")
    assert [start + k * STEPS["monthly"] for k in range(3)] == [pd.Timestamp("1979-01-31"),
                                                               pd.Timestamp("1979-02-28"), pd.Timestamp("1979-03-31")]


def test_series_without_dates_are_steps(tmp_path: Path) -> None:
    """The M4 files name their series only: rows of consecutive steps, without a calendar."""
    tsf = tmp_path / "m4_yearly.tsf"
    tsf.write_text("@relation m4\n@attribute series_name string\n@frequency yearly\n@horizon 6\n@data\n"
                   f"Y1:{','.join(values(40))}\nY2:{','.join(values(45, 5.0))}\n")
    panel = read_panel(tsf)
    assert panel.freq is None and panel.timestamp_col is None and panel.ids == ["Y1", "Y2"]
    assert [len(s.frame) for s in panel.series] == [40, 45] and panel.series[1].frame["value"].iloc[0] == 105.0
    dm = ForecastDataModule(path=str(tsf), seq_len=8, label_len=4, pred_len=2)
    dm.setup("fit")
    assert dm.spec.series_ids == ("Y1", "Y2") and dm.spec.freq is None


@pytest.mark.parametrize("text, message", [
    ("@relation x\n@attribute series_name string\n", "no @data line: not a .tsf file of the Monash forecasting "
                                                      "archive"),
    ("@attribute series_name string\n@attribute start_timestamp date\n@frequency daily\n@data\nT1:1,2,3\n",
     "line 5: 1 attribute(s) before the values, but the file declares 2 (series_name, start_timestamp); write one "
     "field for each"),
    ("@attribute series_name string\n@attribute start_timestamp date\n@frequency fortnightly\n@data\n"
     "T1:2015-01-01 00-00-00:1,2,3\n", "@frequency 'fortnightly' is none the archive names (yearly, quarterly, "
                                       "monthly, weekly, daily, hourly, half_hourly, 10_minutes, minutely, 4_seconds), "
                                       "so the dates of the series cannot be counted from their starts"),
    ("@attribute series_name string\n@attribute start_timestamp date\n@frequency daily\n@data\n"
     "T1:01/02/2015:1,2,3\n", "line 5: '01/02/2015' in attribute 'start_timestamp' is no date written Y-m-d H-M-S"),
    ("@attribute size numeric\n@data\n3:1,2,3\n", "no string attribute names the series; declare one (@attribute "
                                                  "series_name string) first"),
])
def test_a_file_that_is_no_archive_file_is_refused_in_one_line(text: str, message: str, tmp_path: Path) -> None:
    tsf = tmp_path / "bad.tsf"
    tsf.write_text(text)
    with pytest.raises(DataError) as err:
        read_panel(tsf)
    assert str(err.value) == f"{tsf}: {message}"
