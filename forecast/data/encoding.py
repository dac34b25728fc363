"""The text encoding of a CSV file: UTF-8 (a byte-order mark allowed), else Windows-1252 (a Western European
spreadsheet's export on Windows, of which Latin-1 is nearly all)."""

from __future__ import annotations

import codecs
from pathlib import Path

UTF8 = "utf-8-sig"  # UTF-8, with the byte-order mark spreadsheets write left out
LEGACY = "cp1252"
_CHUNK = 1 << 24  # bytes decoded at a time


def file_encoding(path: Path) -> str:
    """``UTF8`` when every byte of ``path`` decodes as UTF-8, else ``LEGACY`` (also for a missing file)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as f:
            while chunk := f.read(_CHUNK):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return LEGACY
    except OSError:
        return UTF8  # the reader names the missing or unreadable file
    return UTF8
