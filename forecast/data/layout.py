"""How a CSV file's text is laid out before its cells are read: its encoding (UTF-8, a byte-order mark allowed;
UTF-16 with its mark; GB18030 where the bytes outside ASCII are pairs of common Chinese characters, as a Chinese
spreadsheet's export on Windows writes them; else Windows-1252: a Western European spreadsheet's export on Windows,
of which Latin-1 is nearly all; or the encoding given), the comment lines above its header (``# Station: De
Bilt``, as NOAA's and KNMI's files begin), a small table of its own above a blank line (``latitude,longitude,...``,
as Open-Meteo's files begin) and lines of another number of fields right above the header (a title; a station's
number and name, as TMY3 and loggers' TOA5 files begin)."""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path

import numpy as np

from forecast.data.compressed import READ_ERRORS, open_binary, open_text
from forecast.data.dialect import whitespace_fields
from forecast.data.errors import DataError
from forecast.data.period_table import period_start

UTF8 = "utf-8-sig"  # UTF-8, with the byte-order mark spreadsheets write left out
LEGACY = "cp1252"
UTF16 = "utf-16"  # with its byte-order mark, which says the byte order
CHINESE = "gb18030"  # GBK's superset: what Excel on a Chinese Windows writes
ENCODING_NOTES = {LEGACY: "Windows-1252 text (not UTF-8; data.encoding names another, such as cp932 or cp1251)",
                  UTF16: "UTF-16 text", CHINESE: "GB18030 text (Chinese, not UTF-8)"}  # what a note says of each
_HIGH_RUNS = re.compile(rb"[\x80-\xff]+")  # the runs of bytes outside ASCII
_HANZI_PAIRS = 2  # pairs of bytes outside ASCII a file needs to be read as Chinese
_CHUNK = 1 << 24  # bytes decoded at a time
_COUNT_BUFFER = 1 << 20  # bytes read at a time to count line ends
_MAX_PREAMBLE = 1000  # lines looked at for comments above the header
_EXCEL_SEP = re.compile(r"^sep=(.)\r?\n?$")  # the line Excel writes above a CSV's header to name its separator


_MAX_TABLE = 8  # lines of a small table of its own above a blank line and the file's table
_MAX_OTHER = 16  # lines above a header of another number of fields (a station line, a title, BLS's series facts)
_BELOW = 20  # lines under a would-be header that must have its number of fields for the lines above it to be left out
_SEPS = (",", ";", "\t", "|")
_RULE = re.compile(r"^\s*([-=_*~+])\1{2,}[-=_*~+\s]*$")  # a line drawn under or over a text table's header: ----
_BLOCK = ("-BEGIN HEADER-", "-END HEADER-")


@dataclass(frozen=True)
class Layout:
    """A CSV file's encoding, the number of lines above its header (Excel's ``sep=;`` line, comments ``#`` and
    blank lines, a small table of its own above a blank line, lines of another number of fields), the separator
    that ``sep=`` line names (None without one), the header line itself ("" when the file has none), the first line
    of that small table ("" without one) and its lines, the first of the lines of another number of fields
    right above the header and their number, the first lines below the header that are neither blank nor a rule, and
    1 when the line right below the header is a rule (``-----``), else 0."""

    encoding: str = UTF8
    skip: int = 0
    sep: str | None = None
    header_line: str = ""
    table_above: str = ""
    table_lines: int = 0
    header_block: int = 0
    other_above: str = ""
    other_lines: int = 0
    below: tuple[str, ...] = ()
    rule_below: int = 0


def _chunks(path: Path) -> Iterator[bytes]:
    """The bytes of ``path``, ``_CHUNK`` at a time."""
    with open_binary(path) as f:
        while chunk := f.read(_CHUNK):
            yield chunk


def _undecodable(path: Path, encoding: str) -> tuple[int, int] | None:
    """The line (from 1) and value of the first byte of ``path`` that does not decode in ``encoding``; None when
    every one does."""
    decoder = codecs.getincrementaldecoder(encoding)()
    line = 1
    for chunk in _chunks(path):
        try:
            decoder.decode(chunk)
        except UnicodeDecodeError as exc:
            return line + chunk[: exc.start].count(b"\n"), chunk[exc.start] if exc.start < len(chunk) else 0
        line += chunk.count(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return line, 0
    return None


def _decodes(path: Path, encoding: str) -> bool:
    """Every byte of ``path`` decodes in ``encoding``."""
    return _undecodable(path, encoding) is None


def _utf8_or_legacy(path: Path) -> str:
    """One pass over ``path``: ``UTF8`` when it decodes as UTF-8 or holds a NUL byte anywhere (no text), else
    ``LEGACY``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    decodes = True
    for chunk in _chunks(path):
        if b"\x00" in chunk:
            return UTF8
        if decodes and not (chunk.isascii() and not decoder.getstate()[0]):  # ASCII, no character left open: UTF-8
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError:
                decodes = False
    if decodes:
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            decodes = False
    return UTF8 if decodes else LEGACY


def _lines_of_text(path: Path) -> bool:
    """The first ``_CHUNK`` bytes of a UTF-16 file hold a line break and no NUL character (not noise that
    happens to decode)."""
    head = next(_chunks(path), b"")
    text = head[: len(head) // 2 * 2].decode(UTF16, errors="replace")
    return "\n" in text and "\x00" not in text


def _chinese(path: Path) -> bool:
    """The first ``_CHUNK`` bytes of ``path`` outside ASCII come in pairs of GB2312's zone (each byte 0xA1 .. 0xFE),
    at least ``_HANZI_PAIRS`` of them, nine in ten led by a byte of its common characters (0xB0 .. 0xD7) or its
    punctuation (0xA1 .. 0xA9). A Western European text's accented letters stand alone between ASCII letters (an
    odd run), and a Cyrillic one's lower-case letters (0xE0 .. 0xFF) lead most pairs."""
    runs = _HIGH_RUNS.findall(next(_chunks(path), b""))
    if not runs or any(len(run) % 2 or min(run) < 0xA1 or max(run) > 0xFE for run in runs):
        return False
    leads = np.frombuffer(b"".join(run[::2] for run in runs), dtype=np.uint8)
    common = ((leads >= 0xB0) & (leads <= 0xD7)) | (leads <= 0xA9)
    return len(leads) >= _HANZI_PAIRS and common.mean() >= 0.9


def file_encoding(path: Path) -> str:
    """``UTF8`` when ``path`` decodes as UTF-8; ``UTF16`` when it starts with UTF-16's byte-order mark and decodes
    so (Excel's "Unicode Text"); else ``CHINESE`` where its bytes outside ASCII read as Chinese (:func:`_chinese`)
    and decode so, and ``LEGACY`` where not. ``UTF8`` too for a file that holds NUL bytes outside UTF-16 (no text:
    the reader refuses it) or cannot be opened (the reader names it)."""
    try:
        with open_binary(path) as f:
            start = f.read(2)
        if start in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
            return UTF16 if _decodes(path, UTF16) and _lines_of_text(path) else UTF8
        found = _utf8_or_legacy(path)
        return CHINESE if found == LEGACY and _chinese(path) and _decodes(path, CHINESE) else found
    except READ_ERRORS:
        return UTF8


def _top_lines(path: Path, encoding: str) -> list[str]:
    """The first ``_MAX_PREAMBLE`` lines of ``path`` ([] when it cannot be opened)."""
    try:
        with open_text(path, encoding, newline="") as f:
            return list(islice(f, _MAX_PREAMBLE))
    except READ_ERRORS:
        return []


def comment_lines(lines: list[str], start: int = 0) -> int:
    """The number of ``lines`` from ``start`` on that are blank or start with ``#``, when a line follows them."""
    n = start
    while n < len(lines) and (not lines[n].strip() or lines[n].lstrip().startswith("#")):
        n += 1
    return n - start if n < len(lines) else 0


def header_block(lines: list[str]) -> int:
    """The lines of a block that opens the file, ``-BEGIN HEADER-`` .. ``-END HEADER-`` (NASA POWER's), both
    included; 0 without one."""
    if not lines or lines[0].strip() != _BLOCK[0]:
        return 0
    end = next((i for i, line in enumerate(lines) if line.strip() == _BLOCK[1]), None)
    return 0 if end is None else end + 1


def table_above(lines: list[str], start: int = 0) -> int:
    """The number of ``lines`` from ``start`` on that hold a small table of their own (at most ``_MAX_TABLE``
    lines, then blank ones) above the file's table (Open-Meteo's coordinates above its hourly values): the
    lines below the blank ones have another number of separators than those above, the same in their first
    two; 0 when there is none (a blank line inside one table leaves the shape alone)."""
    end = next((i for i in range(start, min(start + _MAX_TABLE + 1, len(lines))) if not lines[i].strip()), None)
    if end is None or end == start:
        return 0
    header = end
    while header < len(lines) and not lines[header].strip():
        header += 1
    if header + 1 >= len(lines):
        return 0
    sep = max(_SEPS, key=lines[header].count)
    width = lines[header].count(sep)
    if width == 0 or lines[header + 1].count(sep) != width:
        return 0
    if all(lines[i].count(sep) == width for i in range(start, end)):
        return 0
    return header - start


def _cells(line: str, sep: str) -> list[str]:
    """The fields of one line of text, quotes read as CSV reads them (a field longer than the csv module reads, split
    without quotes)."""
    try:
        return next(csv.reader([line], delimiter=sep), [])
    except csv.Error:
        return line.split(sep)


def is_rule(line: str) -> bool:
    """A line drawn with one character (``-----``, ``=====``) under or over a text table's header."""
    return _RULE.match(line) is not None


def other_lines(lines: list[str], start: int = 0) -> int:
    """The number of ``lines`` from ``start`` on (at most ``_MAX_OTHER``), each with another number of fields than
    the line of names below them (a letter in every field) and the ``_BELOW`` lines under that, which all have its
    number: a station's number, name and place above a TMY3 file's header (``723170,"GREENSBORO PIEDMONT TRIAD
    INT",NC,-5.0,...``), a logger's ``"TOA5","CR1000",...`` above a TOA5 file's, a title (``Monthly sales``), the
    facts of a BLS series (``Series Id:  LNS14000000Q``, blank lines), the World Bank's source and date above a table
    of series by years; in a table separated by spaces, a title and a rule (``=====``) above its header; a line of
    words without a digit may have its number (the EIA's title ``Net generation for all sectors, monthly``); 0 when
    there are none. A line's empty last field (a separator ending the
    header, ``Series id,Year,Period,Value,``) is not counted."""
    for k in range(1, _MAX_OTHER + 1):
        header = start + k
        below = [line for line in lines[header: header + 1 + _BELOW] if line.strip() and not is_rule(line)]
        if len(below) < 3:
            return 0
        sep = max(_SEPS, key=lines[header].count)
        split = (lambda line: _cells(line, sep)) if sep in lines[header] else whitespace_fields  # a text table's
        fields = lambda line: _without_empty_last(split(line))  # noqa: E731
        names = fields(lines[header])
        width = len(names)
        if width < 2 or any(len(fields(line)) != width for line in below):
            continue
        other = [len(fields(lines[i])) != width or not any(ch.isdigit() for ch in lines[i])
                 for i in range(start, header)]  # a title of words may hold the separator: EIA's "..., monthly"
        named = any(ch.isalpha() for ch in names[0]) and all(any(ch.isalpha() for ch in name) or period_start(name)
                                                             for name in names)  # a name or a period in every field
        return k if named and all(other) else 0
    return 0


def _without_empty_last(fields: list[str]) -> list[str]:
    return fields[:-1] if len(fields) > 1 and not fields[-1].strip() else fields


def _line_ends(path: Path) -> int:
    """The number of line ends (``\\n``) in ``path``, read into one reused buffer of ``_COUNT_BUFFER`` bytes."""
    ends, buffer = 0, bytearray(_COUNT_BUFFER)
    with open_binary(path, buffering=0) as f:
        while size := f.readinto(buffer):
            ends += buffer.count(b"\n", 0, size)
    return ends


def table_lines(path: Path, layout: Layout, first: int, rows: int) -> np.ndarray:
    """The file line (1-based) of each of the ``rows`` rows a parser read from line ``first`` on, (rows,): the
    lines in turn, or, where the file has more lines than that (blank lines among the rows, which the parsers pass
    over; a file written with CR line ends), the lines that are not blank."""
    lines = first + np.arange(rows)
    ends = _line_ends(path)
    if ends in (first - 1 + rows, first - 2 + rows):  # the last line with or without its line end
        return lines
    found = []
    with open_text(path, layout.encoding) as f:
        for number, line in enumerate(islice(f, first - 1, None), start=first):
            if line.strip():
                found.append(number)
                if len(found) == rows:
                    return np.asarray(found)
    return lines


def file_layout(path: Path, encoding: str | None = None, remedy: str = "data.encoding=NAME") -> Layout:
    """The layout of the CSV file ``path``, its text in ``encoding`` (None: :func:`file_encoding`); ``remedy``: how
    a refusal of its bytes says to name the encoding."""
    if encoding is None:
        encoding = file_encoding(path)
        wrong = _undecodable(path, encoding) if encoding == LEGACY else None
        if wrong is not None:
            raise DataError(f"{path}: line {wrong[0]}: byte 0x{wrong[1]:02X} is neither UTF-8 nor Windows-1252 text; "
                            f"pass {remedy}, the file's encoding, such as cp932 (Japanese Windows), "
                            f"cp1251 (Cyrillic) or big5")
    else:
        wrong = _undecodable(path, encoding)
        if wrong is not None:
            raise DataError(f"{path}: line {wrong[0]}: byte 0x{wrong[1]:02X} is no {encoding} text; pass "
                            f"{remedy}, the file's encoding, or leave it out to detect UTF-8, UTF-16, "
                            f"GB18030 or Windows-1252")
    lines = _top_lines(path, encoding)
    named = _EXCEL_SEP.match(lines[0]) if lines else None
    start = 1 if named else 0
    block = header_block(lines)
    start += block
    skip = start + comment_lines(lines, start)
    above = table_above(lines, skip)
    first = lines[skip].strip() if above else ""
    skip += above
    other = 0 if above or not lines else other_lines(lines, skip)
    station = lines[skip].strip() if other else ""
    skip += other
    rule = int(skip + 1 < len(lines) and is_rule(lines[skip + 1]))
    below = tuple(islice((line for line in lines[skip + 1 + rule:] if line.strip() and not is_rule(line)), _BELOW))
    return Layout(encoding, skip, named.group(1) if named else None, lines[skip] if skip < len(lines) else "",
                  table_above=first, table_lines=above, header_block=block, other_above=station, other_lines=other,
                  below=below, rule_below=rule)
