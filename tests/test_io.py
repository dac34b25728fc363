"""Atomic output: a temp file renamed into place, with the permissions a plain write would give."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterator

import pytest

from forecast.io import atomic_path, write_json


@pytest.fixture
def umask_027() -> Iterator[None]:
    old = os.umask(0o027)
    yield
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_new_file_gets_the_mode_open_would_give_not_the_temp_files(tmp_path: Path, umask_027: None) -> None:
    write_json(tmp_path / "metrics.json", {"mse": 0.5})
    assert mode(tmp_path / "metrics.json") == 0o640  # 0666 less the umask 027; the temp file was 0600
    assert os.umask(0o027) == 0o027  # reading the umask left it as it was


def test_a_replaced_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "forecast.csv"
    target.write_text("old\n")
    target.chmod(0o604)
    with atomic_path(target) as tmp:
        tmp.write_text("new\n")
    assert target.read_text() == "new\n"
    assert mode(target) == 0o604


def test_a_failed_write_leaves_the_target_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "forecast.csv"
    target.write_text("the user's file\n")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("interrupted")
    assert target.read_text() == "the user's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["forecast.csv"]


def test_without_overwrite_an_existing_target_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "forecast.csv"
    target.write_text("keep\n")
    with pytest.raises(FileExistsError) as error, atomic_path(target, overwrite=False):
        pass
    assert str(error.value) == f"{target}: already exists; pass --overwrite or another --output"
    assert target.read_text() == "keep\n"
