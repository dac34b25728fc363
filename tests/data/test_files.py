"""A folder of files (or a pattern), one series a file: read as one panel whose series are named by the files, trained
and forecast like a long file's series."""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.api import load, train
from forecast.data.errors import DataError
from forecast.data import files
from forecast.data.files import FILE_ID, series_name
from forecast.data.reader import read_panel
from tests.test_api import TINY

STATIONS = ("berlin", "hamburg", "munich")


def station(k: int, rows: int = 300, freq: str = "h") -> pd.DataFrame:
    t = np.arange(rows, dtype=np.float64)
    rng = np.random.default_rng(k)
    return pd.DataFrame({"date": pd.date_range("2024-01-01", periods=rows, freq=freq).strftime("%Y-%m-%d %H:%M:%S"),
                         "OT": 10 + k + 5 * np.sin(2 * np.pi * t / 24) + rng.normal(0, 0.5, rows),
                         "wind": rng.gamma(2.0, 2.0, rows)})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "stations"
    root.mkdir()
    for k, name in enumerate(STATIONS):
        station(k).to_csv(root / f"{name}.csv", index=False)
    (root / "README.md").write_text("three stations\n")  # not a table: not read
    (root / ".hidden.csv").write_text("x\n")
    return root


def test_a_folder_is_a_panel_of_its_files(folder: Path) -> None:
    panel = read_panel(folder)
    assert panel.id_col == FILE_ID and panel.ids == list(STATIONS) and panel.freq == "h"
    for k, series in enumerate(panel.series):
        pd.testing.assert_frame_equal(series.frame, read_panel(folder / f"{STATIONS[k]}.csv").series[0].frame)
    assert panel.notes == (f"{folder}: 3 file(s) read, one series each, named by the file ('berlin', 'hamburg', "
                           f"'munich'; column 'file' of the forecasts)",)
    assert read_panel(f"{folder}/*.csv").ids == list(STATIONS)
    assert read_panel(f"{folder}/[bh]*.csv").ids == ["berlin", "hamburg"]
    assert series_name(Path("a/berlin.csv.gz")) == "berlin" and series_name(Path("x.tsv")) == "x"


def test_each_file_is_read_as_it_is_written(folder: Path) -> None:
    """A compressed file and a semicolon-separated one with decimal commas join the others."""
    (folder / "munich.csv").unlink()
    (folder / "munich.csv.gz").write_bytes(gzip.compress(station(2).to_csv(index=False).encode()))
    (folder / "bremen.csv").write_text(station(3).to_csv(index=False, sep=";", decimal=","))
    panel = read_panel(folder)
    assert panel.ids == ["berlin", "bremen", "hamburg", "munich"]
    np.testing.assert_allclose(panel.series[1].frame["OT"], station(3)["OT"])


@pytest.mark.parametrize(("change", "message"), [
    (lambda f: station(1).drop(columns="wind").to_csv(f / "hamburg.csv", index=False),
     "hamburg.csv: missing column(s) wind"),
    (lambda f: station(1, freq="D").to_csv(f / "hamburg.csv", index=False),
     "hamburg.csv: the timestamps step by 'D', but {folder}/berlin.csv's by 'h'; give every file of the series one "
     "frequency"),
    (lambda f: (f / "berlin.csv.gz").write_bytes(gzip.compress(b"date,OT,wind\n")),
     "{folder}: {folder}/berlin.csv and {folder}/berlin.csv.gz both name series 'berlin'; keep one of them"),
    (lambda f: (f / "hamburg.csv").write_text("date,OT,wind\n2024-01-01 00:00:00,x,1\n"),
     "hamburg.csv: line 2: column 'OT' has non-numeric value 'x'"),
])
def test_a_files_problem_names_the_file(folder: Path, change, message: str) -> None:
    change(folder)
    with pytest.raises(DataError) as err:
        read_panel(folder)
    assert message.format(folder=folder) in str(err.value)


def test_an_empty_folder_or_pattern_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"empty: a folder without a table \(.csv, .tsv, .txt, .dat, .parquet, .pq, "
                                        r"maybe compressed\); pass a file, or a folder of one file per series$"):
        (tmp_path / "empty").mkdir()
        read_panel(tmp_path / "empty")
    with pytest.raises(DataError, match=r"/\*.csv: no file matches the pattern; check the path$"):
        read_panel(f"{tmp_path}/*.csv")


def test_files_of_many_series_each_keep_their_ids(tmp_path: Path) -> None:
    """With data.id_col the files are parts of one long file: each series lives in one of them."""
    for part, names in (("north", ("berlin", "hamburg")), ("south", ("munich",))):
        frames = [station(STATIONS.index(n)).assign(station=n) for n in names]
        pd.concat(frames).to_csv(tmp_path / f"{part}.csv", index=False)
    panel = read_panel(tmp_path, id_col="station")
    assert panel.id_col == "station" and panel.ids == ["berlin", "hamburg", "munich"]
    station(0).assign(station="berlin").to_csv(tmp_path / "west.csv", index=False)
    with pytest.raises(DataError, match=r"west.csv: series 'berlin' is also in .*north.csv; give each series one file"):
        read_panel(tmp_path, id_col="station")


def test_a_folder_trains_and_forecasts_each_file(folder: Path, tmp_path: Path) -> None:
    run = train(data=folder, overrides=TINY, run_dir=tmp_path / "run", threads=1)
    model = load(run.run_dir)
    assert model.spec.id_col == FILE_ID and model.spec.series_ids == STATIONS
    forecast = model.predict(folder)
    assert list(forecast.columns[:2]) == [FILE_ID, "date"] and list(forecast[FILE_ID].unique()) == list(STATIONS)
    one = model.predict(folder / "hamburg.csv")  # one file of a series the model knows
    pd.testing.assert_frame_equal(one.reset_index(drop=True),
                                  forecast[forecast[FILE_ID] == "hamburg"].reset_index(drop=True))


def test_the_other_files_notes_are_few(folder: Path) -> None:
    """Notes that differ from the first file's are shown for three files, the rest counted in one line."""
    for k in range(6):
        frame = station(k)
        frame.loc[5 + k, "OT"] = np.nan
        frame.to_csv(folder / f"s{k}.csv", index=False)
    notes = read_panel(folder, fill="interpolate").notes
    assert len(notes) == 5  # the folder, three files' fills, the count of the other three
    assert notes[0].startswith(f"{folder}: 9 file(s) read")
    assert notes[-1] == f"{folder}: 3 more note(s) on the other files"
    assert [n.split(": ")[0] for n in notes[1:-1]] == [f"{folder}/s{k}.csv" for k in range(3)]


def test_many_files_read_by_several_processes_as_by_one(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two forked processes read the six files after the first: the same panel, notes and refusal (the first
    bad file in order) as one process reading them in turn."""
    for k in range(4):
        frame = station(k)
        frame.loc[5 + k, "OT"] = np.nan
        frame.to_csv(folder / f"s{k}.csv", index=False)
    alone = read_panel(folder, fill="interpolate")
    forked = []
    pool = files.ProcessPoolExecutor
    monkeypatch.setattr(files, "ProcessPoolExecutor", lambda *a, **k: forked.append(a) or pool(*a, **k))
    monkeypatch.setattr(files, "POOLED", 2)
    monkeypatch.setattr(files, "usable_cpus", lambda: 2)
    together = read_panel(folder, fill="interpolate")
    assert forked == [(2,)]
    assert together.ids == alone.ids and together.notes == alone.notes and len(together.notes) == 5
    for one, other in zip(together.series, alone.series):
        pd.testing.assert_frame_equal(one.frame, other.frame)
        np.testing.assert_array_equal(one.added, other.added)
    for name, cell in (("s3", "y"), ("s1", "x")):
        (folder / f"{name}.csv").write_text(f"date,OT,wind\n2024-01-01 00:00:00,{cell},1\n")
    with pytest.raises(DataError, match=r"/s1.csv: line 2: column 'OT' has non-numeric value 'x'"):
        read_panel(folder, fill="interpolate")
    assert len(forked) == 2
