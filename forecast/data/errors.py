"""The one error type for bad user input: its message is a single line that says what to do.

Importing this module costs nothing (no pandas, no torch), so the CLI can check input before it loads them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence


class DataError(ValueError):
    """A user-supplied file, column, row or setting is unusable. ``str(err)`` is one line."""


# a cell's place in a message: "line N" of a text file (its header on line 1), which a table without lines (a Parquet
# file, a DataFrame) numbers as its "row N - 2", the position pandas gives it (from 0)
_LINE = re.compile(r"\bline (\d+)\b")
FIRST_ROW_LINE = 2


def by_row(message: str) -> str:
    """``message`` with its places ("line 52") as the rows of a table without lines ("row 50")."""
    return _LINE.sub(lambda m: f"row {int(m.group(1)) - FIRST_ROW_LINE}", message)


def at_lines(message: str, frame: str, source: str, lines: Sequence[int]) -> str:
    """``message`` about a DataFrame named ``frame`` in messages, read from the file ``source``: the file named, and
    its places as the file's ``lines`` of the frame's rows."""
    def line(found: re.Match[str]) -> str:
        row = int(found.group(1)) - FIRST_ROW_LINE
        return f"line {lines[row]}" if 0 <= row < len(lines) else found.group(0)

    return _LINE.sub(line, message.replace(frame, source))


# the first bytes of a spreadsheet workbook: .xlsx (a zip archive) and .xls (an OLE2 compound file)
_ZIP, _OLE2 = b"PK\x03\x04", b"\xd0\xcf\x11\xe0"
# the start of JSON records or arrays (``[{``, ``[[``, ``{"``), which no table of columns begins with
_JSON = re.compile(rb'^(?:\xef\xbb\xbf)?\s*(?:\[\s*[\[{]|\{\s*")')


def require_file(path: Path) -> None:
    """Raise DataError unless ``path`` is a file, or when it is a spreadsheet workbook rather than text."""
    if not path.is_file():
        raise DataError(f"{path}: file not found; check the path")
    with path.open("rb") as f:
        start = f.read(64)
    if start[:4] == _OLE2 or (start[:4] == _ZIP and not _zipped_file(path)):
        raise DataError(f"{path}: a spreadsheet workbook (Excel), not a CSV file; save the sheet as CSV, or read "
                        f"it with pandas.read_excel and pass the DataFrame to the Python API (forecast.api)")
    if _JSON.match(start):
        raise DataError(f"{path}: JSON, not a table of columns; write it as CSV, or read it with pandas.read_json "
                        f"and pass the DataFrame to the Python API (forecast.api)")


def _zipped_file(path: Path) -> bool:
    """``path`` is a zip archive of files, not a spreadsheet workbook (an .xlsx is a zip of ``xl/`` parts).

    Raises:
        DataError: a damaged archive.
    """
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return not any(name.startswith(("xl/", "[Content_Types]")) for name in archive.namelist())
    except (zipfile.BadZipFile, OSError) as exc:
        raise DataError(f"{path}: a zip archive that cannot be opened ({exc}); check that the file is whole") from exc
