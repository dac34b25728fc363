"""Whatever a small CSV holds, reading it gives data or one DataError, never another exception."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import pytest

from forecast.data.errors import DataError
from forecast.data.reader import read_panel

CELLS = ["", "x", "1", "2.5", "1,5", "2020-01-01", "Total", "<1", "***", "Jan", "1990", "degC", "%", "NaN", "-",
         "01.01.2023 00:00 - 01.01.2023 01:00", "2020-01-01T00:00:00Z", "02-Jan-2024", "Q1 2020", "Source: x",
         "USW1", "1e5"]
HEADERS = ["date", "Date", "Year", "Jan", "Feb", "value", "v", "observation_date", "Week", "MTU", "Q1", "", "id",
           "time", "Datum", "STATION", "YEAR", "MO", "DY", "HR"]


def random_csv(rng: random.Random) -> str:
    """A header of names the reader looks for, rows of cells it treats specially, now and then a row of units
    under the header or a small table above a blank line."""
    names = [rng.choice(HEADERS) for _ in range(rng.randint(1, 5))]
    lines = [",".join(names)]
    lines += [",".join(rng.choice(CELLS) if rng.random() < 0.5 else str(r + 1) for _ in names)
              for r in range(rng.randint(0, 12))]
    if rng.random() < 0.3:
        lines.insert(1, ",".join(rng.choice(["degC", "%", "", "Avg"]) for _ in names))
    if rng.random() < 0.2:
        lines = ["lat,lon,elev", "1,2,3", "", *lines]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(3))
def test_a_random_small_file_is_read_or_refused_in_one_line(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    csv = tmp_path / "random.csv"
    for _ in range(100):
        csv.write_text(random_csv(rng))
        for options in ({}, {"fill": "interpolate"}, {"id_col": "id"}):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    read_panel(csv, **options)
                except DataError as err:
                    assert "\n" not in str(err), csv.read_text()
