"""Values written as an upper bound (Google Trends' ``<1``, a laboratory's ``<0.02``) are read as half of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel


def trends(path: Path) -> Path:
    """A Google Trends export: a category line, a blank line, then weeks and two search shares, one under 1."""
    weeks = pd.date_range("2020-01-05", periods=30, freq="W-SUN").strftime("%Y-%m-%d")
    low = np.where(np.arange(30) % 4 == 0, "<1", (np.arange(30) % 3 + 1).astype(str))
    rows = [f"{w},{50 + k},{v}" for k, (w, v) in enumerate(zip(weeks, low))]
    head = "Category: All categories\n\nWeek,python: (Worldwide),cobol: (Worldwide)\n"
    path.write_text(head + "\n".join(rows) + "\n")
    return path


def test_a_share_under_one_is_read_as_half_of_it_and_said(tmp_path: Path) -> None:
    csv = trends(tmp_path / "multiTimeline.csv")
    panel = read_panel(csv)
    frame = panel.series[0].frame
    expected = np.where(np.arange(30) % 4 == 0, 0.5, np.arange(30) % 3 + 1.0)
    assert frame["cobol: (Worldwide)"].tolist() == expected.tolist()
    assert frame["python: (Worldwide)"].tolist() == list(np.arange(50.0, 80.0))
    assert panel.notes[0].endswith("8 cell(s) of column 'cobol: (Worldwide)' written as a bound (<1) read as half "
                                   "of it (\"data.na_values=['<1']\" reads such cells as missing)")


def test_a_detection_limit_with_a_decimal_comma_and_a_lower_bound(tmp_path: Path) -> None:
    csv = tmp_path / "lab.csv"
    csv.write_text("Datum;Nitrat\n01.03.2024;1,5\n02.03.2024;<0,2\n03.03.2024;< 0,4\n04.03.2024;2,0\n")
    frame = read_panel(csv).series[0].frame
    assert frame["Nitrat"].tolist() == [1.5, 0.1, 0.2, 2.0]
    over = tmp_path / "over.csv"
    over.write_text("date,v\n2024-03-01,1\n2024-03-02,>100\n2024-03-03,3\n")
    with pytest.raises(DataError) as err:
        read_panel(over)
    assert str(err.value) == (f"{over}: line 3: column 'v' has non-numeric value '>100'; every data column must be "
                              f"numeric; replace it with a number, or pass \"data.na_values=['>100']\" to read it "
                              f"as missing")
