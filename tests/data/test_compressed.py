"""A CSV compressed as people ship it (.gz, .bz2, .xz, a .zip or .tar.gz of one file) reads as the file itself: the same
values, notes and line numbers in messages."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.reader import read_panel


def _zip(path: Path, data: bytes, names: tuple[str, ...] = ("export/readings.csv",)) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            archive.writestr(name, data)


def _tar(path: Path, data: bytes, names: tuple[str, ...] = ("readings.csv",)) -> None:
    with tarfile.open(path, "w:gz") as archive:
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


WRITERS: dict[str, Callable[[Path, bytes], None]] = {
    ".gz": lambda path, data: path.write_bytes(gzip.compress(data)),
    ".bz2": lambda path, data: path.write_bytes(bz2.compress(data)),
    ".xz": lambda path, data: path.write_bytes(lzma.compress(data)),
    ".zip": _zip,
    ".tar.gz": _tar,
}

# a European export: comments above the header, semicolons, decimal commas, day-first dates, a blank line
TEXT = ("# station 42\n# exported 2024-02-01\ndate;temp;rain\n"
        + "".join(f"{d.strftime('%d/%m/%Y %H:%M')};{10 + i / 4:.2f};{i % 3},5\n".replace(".", ",")
                  + ("\n" if i == 30 else "")
                  for i, d in enumerate(pd.date_range("2024-01-01", periods=80, freq="h"))))


@pytest.mark.parametrize("suffix", list(WRITERS))
def test_a_compressed_file_reads_as_the_file_itself(suffix: str, tmp_path: Path) -> None:
    plain = tmp_path / "readings.csv"
    plain.write_text(TEXT)
    packed = tmp_path / f"readings.csv{suffix}"
    WRITERS[suffix](packed, TEXT.encode())
    want, got = read_panel(plain), read_panel(packed)
    pd.testing.assert_frame_equal(got.series[0].frame, want.series[0].frame)
    assert got.freq == want.freq == "h" and got.series[0].frame["rain"].iloc[1] == 1.5
    assert [n.replace(str(packed), "F") for n in got.notes] == [n.replace(str(plain), "F") for n in want.notes]
    assert "semicolon-separated columns" in got.notes[0] and "2 comment line(s)" in got.notes[0]
    bad = TEXT.replace("22,50", "n.a.")  # the row 50 of the table, below the blank line
    plain.write_text(bad)
    WRITERS[suffix](packed, bad.encode())
    with pytest.raises(DataError) as err:
        read_panel(packed)
    with pytest.raises(DataError) as plain_err:
        read_panel(plain)
    assert str(err.value).replace(str(packed), "F") == str(plain_err.value).replace(str(plain), "F")
    assert ": line 55: column 'temp' has non-numeric value 'n.a.'" in str(err.value)


def test_an_archive_of_several_files_or_a_damaged_file_is_refused(tmp_path: Path) -> None:
    several = tmp_path / "bulk.zip"
    _zip(several, TEXT.encode(), ("a.csv", "b.csv"))
    with pytest.raises(DataError, match=r"bulk.zip: a zip archive of 2 files \(a.csv, b.csv\), where one CSV is read; "
                                        r"unzip it and pass the file to read$"):
        read_panel(several)
    tar = tmp_path / "bulk.tar.gz"
    _tar(tar, TEXT.encode(), ("a.csv", "b.csv"))
    with pytest.raises(DataError, match=r"bulk.tar.gz: a tar archive of 2 files \(a.csv, b.csv\), where one CSV is "
                                        r"read; unpack it and pass the file to read$"):
        read_panel(tar)
    broken = tmp_path / "cut.csv.gz"
    broken.write_bytes(gzip.compress(TEXT.encode())[:200])
    with pytest.raises(DataError) as err:
        read_panel(broken)
    assert str(err.value) == (f"{broken}: cannot decompress the file (Compressed file ended before the end-of-stream "
                              f"marker was reached); check that it is whole")
    cut = tmp_path / "cut.zip"
    _zip(cut, TEXT.encode())
    cut.write_bytes(cut.read_bytes()[:100])
    with pytest.raises(DataError, match=r"cut.zip: a zip archive that cannot be opened \(File is not a zip file\); "
                                        r"check that the file is whole$"):
        read_panel(cut)


def test_the_data_module_windows_a_gzipped_file(tmp_path: Path) -> None:
    path = tmp_path / "ett.csv.gz"
    frame = pd.read_csv(Path(__file__).parents[2] / "data" / "ETTh1.csv", nrows=500)
    frame.to_csv(path, index=False)
    dm = ForecastDataModule(path=path, target="OT", seq_len=24, label_len=12, pred_len=6)
    dm.setup()
    assert dm.spec.freq == "h" and len(dm.index) == 500
    np.testing.assert_allclose(dm.spec.mean[-1], frame["OT"].iloc[:350].mean())
