"""A CSV as people ship it compressed: ``.gz``, ``.bz2``, ``.xz``, or a ``.zip`` or tar archive (``.tar.gz``,
``.tgz``, ``.tar``) holding one file.

Every reader of a CSV's bytes or lines opens it through :func:`open_binary` or :func:`open_text`, which
decompress as they read (the standard library's ``gzip``, ``bz2``, ``lzma``, ``zipfile`` and ``tarfile``): the
layout, the encoding, the line numbers of messages and the parsers all see the file as written before it was
compressed.

Importing this module costs nothing (no pandas), like :mod:`forecast.data.errors`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import tarfile
import zipfile
import zlib
from pathlib import Path
from typing import IO, Callable

from forecast.data.errors import DataError


def _zip_member(path: Path) -> IO[bytes]:
    """The one file of the zip archive ``path``, opened for reading."""
    archive = zipfile.ZipFile(path)
    members = [m for m in archive.infolist() if not m.is_dir()]
    _one_file(archive, path, "zip", [m.filename for m in members], "unzip it")
    return archive.open(members[0])


def _tar_member(path: Path) -> IO[bytes]:
    """The one file of the tar archive ``path`` (compressed or not), opened for reading."""
    archive = tarfile.open(path, "r:*")
    members = [m for m in archive.getmembers() if m.isfile()]
    _one_file(archive, path, "tar", [m.name for m in members], "unpack it")
    member = archive.extractfile(members[0])
    assert member is not None  # a regular file
    return member


def _one_file(archive: zipfile.ZipFile | tarfile.TarFile, path: Path, kind: str, names: list[str], undo: str) -> None:
    """Refuse ``archive``, closed first, unless it holds one file (``names``: its files)."""
    if len(names) == 1:
        return
    archive.close()
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    raise DataError(f"{path}: a {kind} archive of {len(names)} files ({shown}), where one CSV is read; {undo} and "
                    f"pass the file to read")


TARS = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz")
"""The endings of tar archives' names."""

READ_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile, tarfile.TarError)
"""What reading a file may raise: a damaged or cut compressed file, besides the operating system's errors."""

OPENERS: dict[str, Callable[[Path], IO[bytes]]] = {
    ".gz": lambda path: gzip.open(path, "rb"), ".bz2": lambda path: bz2.open(path, "rb"),
    ".xz": lambda path: lzma.open(path, "rb"), ".zip": _zip_member}
"""The suffixes of compressed files, each with how it is opened for reading its decompressed bytes."""


def _opener(path: Path) -> Callable[[Path], IO[bytes]] | None:
    """How ``path`` is opened for its decompressed bytes; None for a file that is not compressed."""
    if path.name.lower().endswith(TARS):
        return _tar_member
    return OPENERS.get(path.suffix.lower())


def inner_name(name: str) -> str:
    """``name`` without its compression suffix (``log.csv.gz`` and ``log.csv.zip`` are ``log.csv``, ``msft.tar.gz``
    is ``msft``); ``name`` itself where it has none, or is nothing but one."""
    lower = name.lower()
    ending = next((e for e in (*TARS, *OPENERS) if lower.endswith(e) and len(name) > len(e)), None)
    return name if ending is None else name[: -len(ending)]


def is_compressed(path: Path) -> bool:
    """``path`` is compressed or archived (:data:`OPENERS`, :data:`TARS`)."""
    return _opener(path) is not None


def open_binary(path: Path, buffering: int = -1) -> IO[bytes]:
    """``path``'s bytes as written before compression (the file itself, opened with ``buffering``, when it is not
    compressed).

    Raises:
        DataError: a zip or tar archive that does not hold exactly one file.
    """
    opener = _opener(path)
    return path.open("rb", buffering=buffering) if opener is None else opener(path)


def open_text(path: Path, encoding: str, errors: str = "replace", newline: str | None = None) -> IO[str]:
    """``path``'s text as written before compression, decoded (``open(..., encoding, errors, newline)``)."""
    if not is_compressed(path):
        return path.open(encoding=encoding, errors=errors, newline=newline)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, errors=errors, newline=newline)
