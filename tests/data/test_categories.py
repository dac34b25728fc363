"""Text columns of a few categories (Rossmann's ``StateHoliday``, a weather word) are no series: left out with a
note where the reader picks the columns; a number column with a stray word is still refused at its line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from forecast.data.surround import category_columns

DAYS = pd.date_range("2014-01-01", periods=60, freq="D")


def _file(tmp_path: Path, **columns: object) -> Path:
    csv = tmp_path / "stores.csv"
    pd.DataFrame({"Date": DAYS.strftime("%Y-%m-%d"), "Sales": np.arange(60) * 10.0, **columns}).to_csv(csv, index=False)
    return csv


def test_a_column_of_a_few_codes_and_words_is_left_out(tmp_path: Path) -> None:
    holiday = np.where(np.arange(60) % 20 == 3, "a", np.where(np.arange(60) % 25 == 7, "b", "0"))
    sky = np.where(np.arange(60) % 3 == 0, "sunny", "rain")
    csv = _file(tmp_path, StateHoliday=holiday, Sky=sky)
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == ["Sales"]
    assert panel.series[0].frame["Sales"].tolist() == (np.arange(60) * 10.0).tolist()
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', column(s) of categories left out "
                           f"('StateHoliday': 0, a, b, 'Sky': rain, sunny)",)


def test_a_category_named_as_the_target_is_refused(tmp_path: Path) -> None:
    sky = np.where(np.arange(60) % 3 == 0, "sunny", "rain")
    with pytest.raises(DataError, match=r"stores.csv: line 2: column 'Sky' has non-numeric value 'sunny'"):
        read_panel(_file(tmp_path, Sky=sky), keep=["Sky"])


def test_a_stray_word_among_numbers_is_refused_at_its_line(tmp_path: Path) -> None:
    load = np.round(np.linspace(1, 9, 60), 3).astype(str)
    load[9] = "error"
    with pytest.raises(DataError, match=r"stores.csv: line 11: column 'load' has non-numeric value 'error'"):
        read_panel(_file(tmp_path, load=load))


@pytest.mark.parametrize("cells", [
    np.where(np.arange(60) % 2 == 0, "20 °C", "21 °C"),   # numbers with a unit: each has a digit
    np.where(np.arange(60) % 2 == 0, "TRUE", "FALSE"),    # booleans are numbers
    np.array([f"station {chr(97 + k % 11)}{k % 2}" for k in range(60)]),  # 22 labels, each with a digit
    np.array([f"comment {chr(65 + k % 26)}{chr(65 + k // 26)}" for k in range(60)]),  # words, none repeated
])
def test_what_is_no_category(cells: np.ndarray) -> None:
    assert category_columns(pd.DataFrame({"c": cells}), ["c"], ()) == {}


def test_words_without_a_digit_are_categories_however_many(tmp_path: Path) -> None:
    """The Metro traffic file's ``weather_description`` (38 phrases)."""
    phrases = ["sky is clear", "few clouds", "scattered clouds", "broken clouds", "overcast clouds", "mist", "haze",
               "fog", "drizzle", "light rain", "moderate rain", "heavy snow"]
    csv = _file(tmp_path, weather_description=[phrases[k % 12] for k in range(60)])
    panel = read_panel(csv)
    assert list(panel.series[0].frame.columns) == ["Sales"]
    assert panel.notes == (f"{csv}: detected timestamps in column 'Date', column(s) of categories left out "
                           f"('weather_description': broken clouds, drizzle, few clouds, fog, ...)",)
