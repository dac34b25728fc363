"""A panel's timestamps, parsed once per distinct cell, are those of each series read on its own."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel

# day-first hours, midnight written 24:00 as hour-ending files write it
_HOURS = [f"{d:%d/%m/%Y} {h:02d}:00" for d in pd.date_range("2021-01-11", periods=4) for h in range(1, 25)]


def _write(path: Path, rows: list[tuple[str, str, float]]) -> Path:
    path.write_text("site,time,load\n" + "".join(f"{s},{t},{v}\n" for s, t, v in rows))
    return path


@pytest.mark.parametrize("by_time", [False, True])
def test_a_panels_stamps_are_each_series_own(tmp_path: Path, by_time: bool) -> None:
    """Three sites sharing day-first hours with 24:00, one starting a day late: the panel's stamps, notes and
    values equal each site's file read alone, whether the rows are sorted by site or by time."""
    sites = {"a": _HOURS, "b": _HOURS, "c": _HOURS[24:]}
    rows = [(s, t, float(k % 24 + i)) for i, (s, hours) in enumerate(sites.items()) for k, t in enumerate(hours)]
    if by_time:
        rows.sort(key=lambda r: (pd.to_datetime(r[1].replace("24:00", "00:00"), dayfirst=True)
                                 + pd.Timedelta(days=int(r[1].endswith("24:00"))), r[0]))
    panel = read_panel(_write(tmp_path / "panel.csv", rows), timestamp_col="time", id_col="site")
    assert panel.ids == ["a", "b", "c"] and panel.freq == "h"
    for series in panel.series:
        alone = read_panel(_write(tmp_path / f"{series.series_id}.csv", [r for r in rows if r[0] == series.series_id]),
                           timestamp_col="time").series[0].frame.drop(columns="site", errors="ignore")
        pd.testing.assert_frame_equal(series.frame, alone)
    first = panel.series[0].frame.index
    assert first[0] == pd.Timestamp("2021-01-11 01:00") and first[23] == pd.Timestamp("2021-01-12 00:00")
    assert any("day-first dates" in n for n in panel.notes) and any("24:00" in n for n in panel.notes)


def test_a_panels_unreadable_stamp_is_refused_on_its_line(tmp_path: Path) -> None:
    """A date that neither order reads is named, or the one date the order of the others cannot read: not the first
    day-first date (13/01) that month-first cannot read."""
    rows = [(s, t, 1.0) for s in ("a", "b") for t in _HOURS]
    rows[24 * 4 + 30] = ("b", "31/02/2021 07:00", 1.0)  # the 31st of February, on line 2 + 126
    with pytest.raises(DataError, match=r"panel.csv: line 128: cannot parse timestamp '31/02/2021 07:00' in column "
                                        r"'time'"):
        read_panel(_write(tmp_path / "panel.csv", rows), timestamp_col="time", id_col="site")
    rows[24 * 4 + 30] = ("b", "13/13/2021 07:00", 1.0)  # read by neither order, on the same line
    with pytest.raises(DataError, match=r"line 128: cannot parse timestamp '13/13/2021 07:00'"):
        read_panel(_write(tmp_path / "panel.csv", rows), timestamp_col="time", id_col="site")
    rows[24 * 4 + 30] = ("b", "02/13/2021 07:00", 1.0)  # month-first alone: day-first reads every other cell
    with pytest.raises(DataError, match=r"line 128: cannot parse timestamp '02/13/2021 07:00' in column 'time' read "
                                        r"day-first as the other rows; use ISO format"):
        read_panel(_write(tmp_path / "panel.csv", rows), timestamp_col="time", id_col="site")
