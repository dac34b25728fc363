"""Columns of booleans (Walmart's ``IsHoliday`` written ``TRUE``/``FALSE``, a frame's bool column) read as 1 and 0."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel

WEEKS = pd.date_range("2010-02-05", periods=20, freq="W-FRI")
HOLIDAY = np.arange(20) % 7 == 0


def test_a_column_of_true_and_false_reads_as_ones_and_zeros(tmp_path: Path) -> None:
    csv = tmp_path / "walmart.csv"
    pd.DataFrame({"Date": WEEKS.strftime("%Y-%m-%d"), "Weekly_Sales": np.arange(20) * 100.5,
                  "IsHoliday": np.where(HOLIDAY, "TRUE", "FALSE")}).to_csv(csv, index=False)
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert frame["IsHoliday"].tolist() == HOLIDAY.astype(float).tolist()
    assert frame["Weekly_Sales"].tolist() == (np.arange(20) * 100.5).tolist()
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', column(s) of booleans read as 1 (true) and "
                           f"0 (false) ('IsHoliday')",)


def test_booleans_beside_decimal_commas_and_in_a_frame(tmp_path: Path) -> None:
    csv = tmp_path / "euro.csv"
    sales = [f"{v:.2f}".replace(".", ",") for v in np.arange(20) / 3]
    pd.DataFrame({"date": WEEKS.strftime("%Y-%m-%d"), "sales": sales,
                  "holiday": np.where(HOLIDAY, "True", "false")}).to_csv(csv, index=False, sep=";")
    frame = read_panel(csv).series[0].frame
    assert frame["holiday"].tolist() == HOLIDAY.astype(float).tolist()
    np.testing.assert_allclose(frame["sales"].to_numpy(), np.round(np.arange(20) / 3, 2))
    typed = read_panel(pd.DataFrame({"date": WEEKS, "sales": np.arange(20.0), "holiday": HOLIDAY}))
    assert typed.series[0].frame["holiday"].tolist() == HOLIDAY.astype(float).tolist()


def test_a_column_of_more_than_booleans_is_no_number(tmp_path: Path) -> None:
    csv = tmp_path / "flags.csv"
    flags = np.where(HOLIDAY, "TRUE", "FALSE")
    flags[4] = "maybe"
    pd.DataFrame({"date": WEEKS.strftime("%Y-%m-%d"), "sales": np.arange(20.0), "flag": flags}).to_csv(csv, index=False)
    assert list(read_panel(csv).series[0].frame.columns) == ["sales"]  # three words: categories
    with pytest.raises(DataError, match=r"flags.csv: line 2: column 'flag' has non-numeric value 'TRUE'"):
        read_panel(csv, columns=["sales", "flag"])
