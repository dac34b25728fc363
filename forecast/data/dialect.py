"""How a CSV is written: its separator, number marks, missing-value codes, date order and format, epoch unit and
time zone, as one typed object.

Every field is one of pandas' own reading options: ``read_csv``'s ``sep``, ``decimal``, ``thousands`` and
``na_values``, ``to_datetime``'s ``dayfirst``, ``format`` and ``unit``, ``tz_localize``/``tz_convert``'s zone.
``None`` means "detect it where the file makes the answer clear" (:func:`sniff_sep`, :func:`number_marks`,
``forecast.data.timestamps``). The reader returns the dialect with the time options it settled filled in
(a short file may not settle the date order again); the separator and number marks are detected afresh in
each file, so a CSV written by pandas reads too.

Configured as ``data.sep``, ``data.decimal``, ``data.thousands``, ``data.na_values``, ``data.dayfirst``,
``data.date_format``, ``data.epoch_unit`` and ``data.tz`` (and a time-of-day column by
``data.timestamp_col=[Date,Time]``); the settled dialect is stored in the checkpoint's
data spec, so ``forecast-predict`` reads the same kind of file without repeating them.
"""

from __future__ import annotations

import csv
import re
from collections import Counter
from dataclasses import asdict, dataclass, replace
from typing import Any, Iterable, Sequence

import pandas as pd

from forecast.data.cells import ARROW_TEXT
from forecast.data.errors import DataError

# words for characters awkward on a command line (``data.decimal=comma``); the characters themselves work too
MARK_WORDS = {"comma": ",", "semicolon": ";", "tab": "\t", "pipe": "|", "dot": ".", "period": ".", "space": " ",
              "apostrophe": "'"}
SNIFFED = (";", "\t", "|")  # separators recognised from the header line besides ","
WHITESPACE = r"\s+"  # runs of spaces or tabs between fields (``read_csv(sep=r"\s+")``): aligned text tables
SEP_NAMES = {",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe", WHITESPACE: "whitespace"}
EPOCH_UNITS = ("s", "ms", "us", "ns")
_COMMA_DECIMAL = re.compile(r"^[+-]?\d*,\d+([eE][+-]?\d+)?$")
_INTEGER = re.compile(r"^[+-]?\d+([eE][+-]?\d+)?$")  # a whole number, or one with no decimals to mark: 1E-05
_DOTTED = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
_COMMA_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(,\d{3})+(\.\d+)?$")  # a leading group of 0 is no thousands
SPACES = " \u00a0\u202f"  # a space, a no-break space and a narrow one: how French and SI numbers group thousands
_SPACE_COMMA = re.compile(rf"^[+-]?[1-9]\d{{0,2}}([{SPACES}]\d{{3}})+(,\d+)?$")  # 1 234,56
_SPACE_DOT = re.compile(rf"^[+-]?[1-9]\d{{0,2}}([{SPACES}]\d{{3}})+(\.\d+)?$")  # 1 234.56
_DOT_THOUSANDS = re.compile(r"^[+-]?[1-9]\d{0,2}(\.\d{3})+(,\d+)?$")  # 10.204,09 and 1.037
_DATE_TIME = re.compile(r"^\s*\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}\s+\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?\s*$")  # one timestamp
_NOT_THOUSANDS = re.compile(r"^[+-]?(0,|\d*,(\d{1,2}|\d{4,})$)")  # 0,951 and 1,5: a comma that groups no thousands


@dataclass(frozen=True)
class Dialect:
    """The reading options of a CSV (``None``: detect, or pandas' default where nothing is detected).

    Attributes:
        sep: the field separator (``read_csv(sep=...)``); None sniffs ``,`` ``;`` tab or ``|`` from the header.
        decimal: the decimal mark (``read_csv(decimal=...)``); None is ``.``, or ``,`` when a file that is not
            comma-separated writes every number that way.
        thousands: the thousands separator (``read_csv(thousands=...)``); None is none, or ``,`` when every
            number that does not parse is written ``30,531.0``.
        na_values: cells that mean "missing" besides the empty cell and NaN (``-200``).
        dayfirst: dates such as ``31/12/2016`` are day-first (``to_datetime(dayfirst=...)``); None takes the
            order that gives increasing timestamps when only one does.
        date_format: an explicit ``strftime`` format of the timestamps (``to_datetime(format=...)``).
        epoch_unit: the timestamps are numbers since 1970-01-01 UTC in this unit (``s``, ``ms``, ``us``, ``ns``;
            ``to_datetime(unit=...)``); None detects seconds .. nanoseconds from their size.
        tz: the time zone: naive timestamps are local time there (``tz_localize``: the repeated autumn hour
            resolved by order); timestamps with UTC offsets and epoch numbers are converted to it
            (``tz_convert``; UTC when None).
        time_col: the column of the times of day whose cells are joined to the timestamp column's dates
            (``Date;Time`` / ``10/03/2004;18.00.00``: :mod:`forecast.data.date_time`); set by
            ``data.timestamp_col=[Date,Time]`` or detected, None when the timestamp is one column.
        encoding: the text's encoding, a Python codec name (``cp932``, ``cp1251``, ``big5``); None detects UTF-8,
            UTF-16, GB18030 and Windows-1252 (:func:`~forecast.data.layout.file_encoding`).
    """

    sep: str | None = None
    decimal: str | None = None
    thousands: str | None = None
    na_values: tuple[str, ...] = ()
    dayfirst: bool | None = None
    date_format: str | None = None
    epoch_unit: str | None = None
    tz: str | None = None
    time_col: str | None = None
    encoding: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain Python containers (``na_values`` a list)."""
        d = asdict(self)
        d["na_values"] = list(self.na_values)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> "Dialect":
        """Inverse of :meth:`to_dict`; None or ``{}`` is the default dialect."""
        fields = dict(d or {})
        fields["na_values"] = tuple(fields.get("na_values") or ())
        return cls(**fields)

    def written(self, stamps: pd.Index) -> pd.Index:
        """Timestamps as an output file writes them: years alone (``2012``) where the training file's
        timestamps were years (``date_format`` ``%Y``), anything else unchanged (ISO when written)."""
        if self.date_format == "%Y" and isinstance(stamps, pd.DatetimeIndex):
            return stamps.strftime("%Y")
        return stamps

    def for_frame(self) -> "Dialect":
        """This dialect for a DataFrame's cells (numbers as Python writes them): the time options only."""
        return replace(self, sep=None, decimal=None, thousands=None)


def _mark(key: str, value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return MARK_WORDS.get(text.strip().lower(), text)


def dialect_from_settings(*, sep: Any = None, decimal: Any = None, thousands: Any = None, na_values: Any = None,
                          dayfirst: Any = None, date_format: Any = None, epoch_unit: Any = None,
                          tz: Any = None, encoding: Any = None) -> Dialect:
    """The dialect of the ``data.*`` settings, checked: one DataError line naming the bad key.

    ``sep``, ``decimal`` and ``thousands`` take the character or a word (``comma``, ``semicolon``, ``tab``,
    ``pipe``, ``dot``, ``space``, ``apostrophe``); ``na_values`` a value or a list of values.
    """
    sep, decimal, thousands = _mark("sep", sep), _mark("decimal", decimal), _mark("thousands", thousands)
    if sep == " " or (sep is not None and sep.strip().lower() in ("whitespace", "spaces")):
        sep = WHITESPACE
    if sep is not None and len(sep) != 1 and sep != WHITESPACE:
        raise DataError(f"data.sep must be one character (or comma, semicolon, tab, pipe, whitespace), got {sep!r}")
    for key, value in (("decimal", decimal), ("thousands", thousands)):
        if value is not None and len(value) != 1:
            raise DataError(f"data.{key} must be one character (or comma, dot, space, apostrophe), got {value!r}")
    if decimal is not None and decimal in (sep, thousands):
        raise DataError(f"data.decimal {decimal!r} is also the {'separator' if decimal == sep else 'thousands mark'}; "
                        f"give them different characters")
    if na_values is None:
        codes: tuple[str, ...] = ()
    elif isinstance(na_values, (str, int, float)) and not isinstance(na_values, bool):
        codes = (str(na_values),)
    elif isinstance(na_values, Iterable):
        codes = tuple(str(v) for v in na_values)
    else:
        raise DataError(f"data.na_values must be a value or a list of values such as [-200], got {na_values!r}")
    if dayfirst is not None and not isinstance(dayfirst, bool):
        raise DataError(f"data.dayfirst must be true, false or null (detect), got {dayfirst!r}")
    if epoch_unit is not None and str(epoch_unit) not in EPOCH_UNITS:
        raise DataError(f"data.epoch_unit must be one of {', '.join(EPOCH_UNITS)} or null, got {epoch_unit!r}")
    if tz is not None:
        check_zone(str(tz))
    if encoding is not None:
        check_encoding(str(encoding))
    return Dialect(sep=sep, decimal=decimal, thousands=thousands, na_values=codes, dayfirst=dayfirst,
                   date_format=None if date_format is None else str(date_format),
                   epoch_unit=None if epoch_unit is None else str(epoch_unit), tz=None if tz is None else str(tz),
                   encoding=None if encoding is None else str(encoding))


def check_zone(tz: str) -> None:
    """Refuse an unknown time zone name with one line."""
    import pandas as pd

    try:
        pd.Timestamp("2000-01-01").tz_localize(tz)
    except Exception as exc:  # noqa: BLE001 - pandas raises several kinds for an unknown zone
        raise DataError(f"data.tz: unknown time zone {tz!r}; use an IANA name such as Europe/Berlin, "
                        f"America/New_York or UTC") from exc


def check_encoding(encoding: str, key: str = "data.encoding") -> None:
    """Refuse an encoding Python has no codec of, or one that is no text encoding, with one line naming ``key``."""
    try:
        "".encode(encoding)  # a LookupError for an unknown codec and for one of bytes to bytes (base64)
    except LookupError:
        raise DataError(f"{key}: unknown text encoding {encoding!r}; use a Python codec name such as cp932 "
                        f"(Japanese Windows), cp1251 (Cyrillic), big5 or latin-1") from None


def whitespace_fields(line: str) -> list[str]:
    """The fields of a line of a table separated by runs of spaces or tabs, quotes read as CSV reads them (a field
    longer than the csv module reads, split without quotes)."""
    try:
        return next(csv.reader([line.strip().replace("\t", " ")], delimiter=" ", skipinitialspace=True), [])
    except csv.Error:
        return line.split()


def sniff_sep(first_line: str, below: Sequence[str] = ()) -> str:
    """The separator of a header line: ``;``, tab or ``|`` when the line has more of it than commas (tabs: as many
    on every line); runs of spaces (:data:`WHITESPACE`) when it has none of these, or tabs that vary from line to line
    (a table aligned with tabs and spaces), three in four of the lines ``below`` it split into one number of
    fields, at least two (the others: a last row partly written, notes), and it into as many or one fewer (R's
    ``write.table`` names no column of its row names), not every line below a number with its thousands separated by
    spaces (none, where the header is one fewer: a column of such numbers), and not one name above dates with their
    times (``2024-01-01 00:08:12``: one column of timestamps); else ``,``."""
    counts = {s: first_line.count(s) for s in SNIFFED}
    best = max(counts, key=lambda s: counts[s])
    named = counts[best] > first_line.count(",")
    if named and (best != "\t" or len({line.count("\t") for line in [first_line, *below]}) == 1):
        return best
    widths = Counter(len(whitespace_fields(line)) for line in below)
    width, lines = widths.most_common(1)[0] if widths else (0, 0)
    grouped = [bool(_SPACE_DOT.match(line.strip()) or _SPACE_COMMA.match(line.strip())) for line in below]
    more = width - len(whitespace_fields(first_line))  # fields a row has beyond the header's names
    stamps = len(whitespace_fields(first_line)) == 1 and bool(below) and all(_DATE_TIME.match(line) for line in below)
    if first_line.count(",") == 0 and width >= 2 and 4 * lines >= 3 * len(below) and not stamps \
            and (more == 0 and not all(grouped) or more == 1 and not any(grouped)):
        return WHITESPACE
    return best if named else ","


def _cells(columns: Sequence[Sequence[str]]) -> pd.Series:
    """The cells of ``columns`` written with a digit, one after another (a word such as ``k.A.`` or ``?`` says
    nothing of the marks: the reader names it as no number), as Arrow strings (whose regular expressions run in
    Arrow's C++ kernels)."""
    parts = [pd.Series(col, dtype=ARROW_TEXT) for col in columns]
    cells = pd.concat(parts, ignore_index=True) if parts else pd.Series([], dtype=ARROW_TEXT)
    return cells[cells.str.contains(r"\d")]


def _every(cells: pd.Series, *patterns: re.Pattern[str]) -> bool:
    """Every cell matches one of ``patterns``."""
    return bool(cells.str.match("|".join(f"(?:{p.pattern})" for p in patterns)).all())


def _some(cells: pd.Series, pattern: re.Pattern[str]) -> bool:
    """Some cell matches ``pattern``."""
    return bool(cells.str.match(pattern.pattern).any())


def number_marks(columns: Sequence[Sequence[str]], *, sep: str, decimal: str | None,
                 thousands: str | None) -> tuple[str | None, str | None, str]:
    """The decimal and thousands marks the value cells make clear, and what was detected ("" when nothing).

    Decimal commas: no mark is given, every cell is a whole number (``1E-05`` too) or one written ``1,5`` (or
    ``10.204,09``, with thousands dots), and the file is not comma-separated, or it is and some cell's comma groups no
    thousands (``"0,951"``, ``"1,5"``, quoted). Thousands commas: no thousands mark is given, the decimal mark
    is ``.`` and every cell is a plain number or one written ``30,531.0``. Thousands dots where the decimal
    mark is a comma: :func:`dot_thousands`.

    Args:
        columns: the stripped text cells of each value column that did not read as numbers.
    """
    cells = _cells(columns)
    if not len(cells):
        return decimal, thousands, ""

    spaced = ", thousands separated by spaces"
    if decimal is None and thousands is None:
        if _every(cells, _COMMA_DECIMAL, _DOT_THOUSANDS, _INTEGER) and (sep != "," or _some(cells, _NOT_THOUSANDS)):
            return ",", thousands, "decimal commas"
        if _every(cells, _COMMA_DECIMAL, _SPACE_COMMA, _INTEGER) and _some(cells, _SPACE_COMMA) \
                and (sep != "," or _some(cells, _NOT_THOUSANDS)):
            return ",", " ", "decimal commas" + spaced
    if thousands is None and decimal in (None, "."):
        if _every(cells, _COMMA_THOUSANDS, _DOTTED):
            return decimal, ",", "thousands separated by commas"
        if _every(cells, _SPACE_DOT, _DOTTED):
            return decimal, " ", spaced.removeprefix(", ")
    return decimal, thousands, ""


def dot_thousands(columns: Sequence[Sequence[str]]) -> tuple[bool, str | None]:
    """Where the decimal mark is a comma, a dot in a number can only group thousands (``1.037``,
    ``10.204,09``): whether some cell of ``columns`` (stripped text cells) has a dot, and the first one with a
    dot that groups no thousands (``1.5``), None when every dotted cell does."""
    cells = _cells(columns)
    dotted = cells[cells.str.contains(".", regex=False)]
    odd = dotted[~dotted.str.match(_DOT_THOUSANDS.pattern)]
    return bool(len(dotted)), (str(odd.iloc[0]) if len(odd) else None)
