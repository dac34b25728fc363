"""Numbers written with a magnitude letter (``34.91M``), as price sites export trading volumes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.dialect import Dialect
from forecast.data.errors import DataError
from forecast.data.reader import read_panel

DATES = pd.bdate_range("2023-01-16", periods=6)


def write(path: Path, volumes: list[str], sep: str = ",") -> Path:
    prices = ["100.5", "101.25", "99.75", "102", "103.5", "104"] if sep == "," else \
        ["100,5", "101,25", "99,75", "102", "103,5", "104"]
    lines = [f'"Date"{sep}"Price"{sep}"Vol."{sep}"Change %"']
    for date, price, volume in zip(DATES.strftime("%m/%d/%Y")[::-1], prices[::-1], volumes[::-1]):
        change = "0.52%" if sep == "," else "0,52%"
        lines.append(f'"{date}"{sep}"{price}"{sep}"{volume}"{sep}"{change}"')
    path.write_text("\n".join(lines) + "\n")
    return path


def test_k_m_and_b_are_read_as_thousands_millions_and_billions(tmp_path: Path) -> None:
    csv = write(tmp_path / "investing.csv", ["456.78K", "34.91M", "1.2B", "950", "1,234.5K", "0.5M"])
    panel = read_panel(csv)
    frame = panel.series[0].frame
    assert frame["Vol."].tolist() == pytest.approx([456_780.0, 34_910_000.0, 1_200_000_000.0, 950.0, 1_234_500.0,
                                                    500_000.0], rel=1e-12)
    assert frame["Price"].tolist() == [100.5, 101.25, 99.75, 102.0, 103.5, 104.0]
    assert "K, M, B read as thousands, millions, billions in column 'Vol.'" in panel.notes[0]


def test_letters_after_decimal_commas(tmp_path: Path) -> None:
    csv = write(tmp_path / "investing_de.csv", ["456,78K", "34,91M", "1,2B", "950", "12,5K", "0,5M"], sep=";")
    frame = read_panel(csv).series[0].frame
    assert frame["Vol."].tolist() == pytest.approx([456_780.0, 34_910_000.0, 1_200_000_000.0, 950.0, 12_500.0,
                                                    500_000.0], rel=1e-12)
    assert frame["Price"].tolist() == [100.5, 101.25, 99.75, 102.0, 103.5, 104.0]


def test_a_missing_volume_and_a_word_with_a_letter(tmp_path: Path) -> None:
    csv = write(tmp_path / "gap.csv", ["456.78K", "", "1.2B", "950", "12.5K", "0.5M"])
    frame = read_panel(csv, fill="ffill").series[0].frame
    assert frame["Vol."].tolist() == pytest.approx([456_780.0, 456_780.0, 1.2e9, 950.0, 12_500.0, 500_000.0])
    csv = write(tmp_path / "word.csv", ["456.78K", "34.91M", "1.2B", "n.a.K", "12.5K", "0.5M"])
    with pytest.raises(DataError) as err:
        read_panel(csv)
    assert str(err.value) == (f"{csv}: line 4: column 'Vol.' has 'n.a.K' where its other cells are numbers with a K, "
                              f"M or B (34.91M); replace it with a number, or pass data.na_values=[n.a.K] to read it "
                              f"as missing, or leave the column out: data.columns=[the columns to use]")
    csv = write(tmp_path / "dash.csv", ["456.78K", "34.91M", "-", "950", "12.5K", "0.5M"])
    with pytest.raises(DataError, match=r"dash.csv: line 5: column 'Vol.' has '-' where its other cells are numbers"):
        read_panel(csv)
    frame = read_panel(csv, dialect=Dialect(na_values=("-",)), fill="ffill").series[0].frame
    assert frame["Vol."].tolist() == pytest.approx([456_780.0, 34_910_000.0, 34_910_000.0, 950.0, 12_500.0, 500_000.0])


def test_a_column_of_plain_numbers_and_a_unit_word_keep_their_values(tmp_path: Path) -> None:
    csv = tmp_path / "plain.csv"
    pd.DataFrame({"date": DATES.strftime("%Y-%m-%d"), "v": np.arange(6.0)}).to_csv(csv, index=False)
    assert read_panel(csv).series[0].frame["v"].tolist() == list(np.arange(6.0))
    csv.write_text("date,v\n" + "".join(f"{d},{i} km\n" for i, d in enumerate(DATES.strftime("%Y-%m-%d"))))
    with pytest.raises(DataError, match=r"column 'v' has non-numeric value '0 km'"):
        read_panel(csv)
