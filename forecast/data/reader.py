"""Read and validate a CSV of one or many time series: one clear ``DataError`` line per problem.

Rows are reported as *file lines* (with a header row, the header is line 1), so a user can jump
straight to them. A file may have

* a timestamp column, or none (``timestamp_col=None``: rows are consecutive steps 0, 1, ...);
* a header row, or none (``header=False``: columns are named ``0 … n-1``);
* an id column (``id_col``): many series in one file (long/panel format), each one's rows in time
  order, the series possibly interleaved.

Empty, NaN and infinite cells (and the dialect's ``na_values``) are refused unless ``fill`` is given, which
treats them all as missing. Timestamps must be evenly spaced (or ``resample`` aggregates the readings into steps:
:mod:`forecast.data.resample`); rows missing from them (gaps) are refused unless ``fill_missing_dates`` adds them,
filled by ``fill``. At a business-day frequency short gaps are holidays:
kept as they are, and counted in a note.

How the file is written (separator, decimal and thousands marks, missing-value codes, date order, Unix times,
time zone) is its :class:`~forecast.data.dialect.Dialect`; what the reader detects is said in one note.
"""

from __future__ import annotations

import csv
import re
import warnings
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd
from pandas.tseries.frequencies import to_offset

from forecast.data.calendar_columns import calendar_columns, unix_time_columns
from forecast.data.cells import (ARROW_TEXT, as_text, boolean_cells, is_number, missing_cells, numeric_text,
                                 typed_number, typed_time)
from forecast.data.copies import copied_rows, differing_column
from forecast.data.compressed import READ_ERRORS, is_compressed, open_binary, open_text
from forecast.data.date_time import (DATE_NAMES, TIME_NAMES, bare_name, changed_days, check_pair, dates_and_times,
                                     day_periods, find_date_time_pair, hours_ending, join_date_time,
                                     named_date_time_pair)
from forecast.data.dialect import (SEP_NAMES, SPACES, WHITESPACE, Dialect, dot_thousands, number_marks,
                                   sniff_sep)
from forecast.data.layout import ENCODING_NOTES, Layout, file_layout, table_lines
from forecast.data.magnitudes import strip_magnitudes
from forecast.data.bounds import halve_bounds
from forecast.data.errors import DataError, at_lines, by_row, require_file
from forecast.data.fill import FillMethod, filled
from forecast.data.files import FILE_ID, check_names, many_files, read_each, series_name
from forecast.data.hints import TRAIN, Hints
from forecast.data.regular import (HOLIDAY_RUN, Gap, add_missing_rows, describe_gaps, evenly_spaced, find_gaps,
                                   holiday_note, infer_freq, inside_step, is_business, months_of_one_day, off_the_grid,
                                   offset, refuse_gap, refuse_other_step, resolve_frequency, snapped_to_step)
from forecast.data.resample import COUNT, Steps, aggregate
from forecast.data.series_ids import (id_name, id_parts, joined_parts, long_format_id, series_columns,
                                     with_joined_id)
from forecast.data.date_parts import PART_NAMES, DateParts, find_date_parts, leading_date_parts
from forecast.data.surround import (category_columns, column_levels, counting_columns, flag_columns, key_columns,
                                    label_rows, one_label_columns, rows_below, series_labels, timestamp_counters)
from forecast.data.period_table import PeriodTable, find_period_table
from forecast.data.stacked_periods import find_stacked_periods
from forecast.data.tsf import is_tsf, read_tsf
from forecast.data.timed_steps import TIMES, first_time, refuse_times, timed_rows, timed_table
from forecast.data.year_table import VALUE, YearTable, digit_cells, find_year_table, table_cells, text_cells
from forecast.data.timestamps import (TIMESTAMP_NAMES, find_timestamp_column, interval_starts, is_timestamp_name,
                                     interval_columns, iso_weeks, leading_epoch, may_hold_times, named_like_timestamp,
                                     parse_timestamps, quarter_starts, typed_timestamps, zone_offsets)

DATAFRAME = "<DataFrame>"  # how messages (and a run's config.yaml) name data given as a DataFrame
STEP = "step"  # the index name of a series without timestamps
_MARKED = re.compile(r"\d[,.' ]\d")  # a digit, a mark, a digit: a number written with marks
_DATE = re.compile(r"^\d{1,4}[-/.]\d{1,2}[-/.]\d{1,4}([ T]\d{1,2}(:\d{2}){0,2}(\.\d+)?)?$")
_UNITS = ("$", "€", "£", "¥", "%")  # signs a spreadsheet writes beside numbers formatted as money or percent
_SIGN_SAMPLE = 100  # the first cells of a text column looked at for such a sign
_FLOAT = r"^[+-]?((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|(?i:inf|infinity|nan))$"  # what a float cast reads
_UNNAMED = re.compile(r"^(Unnamed: \d+)?$")  # how pandas names a header cell left empty
_DATE_SAMPLE = 50  # the first cells of an unnamed first column that must read as dates to be the timestamps
_FILE_NOTES = 3  # notes of the files after the first that differ from its own, shown where a folder is read


@dataclass(frozen=True)
class Series:
    """One validated series: float64 columns indexed by a sorted, unique DatetimeIndex (named after the
    timestamp column) or, without timestamps, by the steps ``0 … N-1`` (a RangeIndex named ``step``).
    ``added`` marks the rows added to fill gaps in the timestamps, (N,) bool; None where none were."""

    frame: pd.DataFrame
    extra_columns: tuple[str, ...] = field(default=())
    series_id: str | None = None
    added: np.ndarray | None = None

    @property
    def read_rows(self) -> pd.DataFrame:
        """The rows the file held: ``frame`` without the rows added to fill gaps."""
        return self.frame if self.added is None else self.frame[~self.added]

    @property
    def index(self) -> pd.Index:
        return self.frame.index

    @property
    def has_timestamps(self) -> bool:
        return isinstance(self.frame.index, pd.DatetimeIndex)


@dataclass(frozen=True)
class Panel:
    """The series of a file: one without an id column, one per id with it (in order of first appearance).

    Attributes:
        series: the validated series.
        id_col: the id column, or None.
        freq: the frequency every series follows; None without timestamps.
        extra_columns: columns present in the file but not read.
        notes: one-line notes for the user (what was detected, rows added to fill gaps, holidays).
        timestamp_col: the timestamp column read (the one named, or the one detected), or None.
        dialect: the reading options, with the date order and epoch unit settled where they mattered.
        header: whether the file's first line named the columns (given, or detected where not given).
        id_values: for series named by several columns together (``store + item``), each id's values of those
            columns, in their order (empty otherwise).
    """

    series: tuple[Series, ...]
    id_col: str | None
    freq: str | None
    extra_columns: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    timestamp_col: str | None = None
    dialect: Dialect = field(default_factory=Dialect)
    header: bool = True
    id_values: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def ids(self) -> list[str | None]:
        return [s.series_id for s in self.series]

    def id_cells(self, series_id: str | None) -> dict[str, str | None]:
        """A series' id as the file writes it: ``{id_col: id}``, or the values of the columns that name it together
        (``{"store": "1", "item": "7"}``); {} without an id column."""
        if self.id_col is None:
            return {}
        if not self.id_values or series_id is None:
            return {self.id_col: series_id}
        return dict(zip(id_parts(self.id_col), self.id_values[series_id]))


def looks_like_data(cells: Sequence[str]) -> bool:
    """True when a would-be header row holds values: numbers, maybe dates or empty cells (a separator at the line's
    end), at least one number."""
    cells = [str(c).strip() for c in cells]
    numbers = [is_number(c) for c in cells]
    return any(numbers) and all(n or c == "" or bool(_DATE.match(c)) for n, c in zip(numbers, cells))


def _separator(path: Path, dialect: Dialect, layout: Layout = Layout()) -> str:
    """The dialect's separator, else the one Excel's ``sep=`` line names, else the one sniffed from the file's
    header line (``,`` for a Parquet file)."""
    if dialect.sep is not None:
        return dialect.sep
    if layout.sep is not None:
        return layout.sep
    if path.suffix.lower() in PARQUET:
        return ","
    return sniff_sep(layout.header_line, layout.below)


PARQUET = (".parquet", ".pq")  # file suffixes read as Parquet
FOOTER = "footer"  # a table's attrs key: the lines below a blank line after the data, longer than its rows, left out
TRAILING = "trailing_field"  # a table's attrs key: every row ended in an empty field the header lacks, left out
_NO_TIMESTAMPS = "\x01%Y\x01"  # a timestamp format no cell matches: pyarrow leaves dates as text for the reader


def _frame_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """A DataFrame's cells as the reader takes them: number and timestamp columns as they are stored, every
    other column as text (missing cells empty); a named index (a DatetimeIndex ``date``, say) becomes the
    first column."""
    if any(name is not None for name in frame.index.names):
        frame = frame.reset_index()
    frame = frame.reset_index(drop=True)
    cells = pd.concat([col if typed_number(col) or typed_time(col) else as_text(col)
                       for _, col in frame.items()], axis=1, ignore_index=True) if len(frame.columns) else frame
    cells.columns = [str(c) for c in frame.columns]
    return cells


def _time_index_as_column(frame: pd.DataFrame, wanted: object) -> tuple[pd.DataFrame, list[str]]:
    """``frame`` with its unnamed index of timestamps (a DatetimeIndex, or a PeriodIndex at its periods' starts)
    as the timestamp column ``wanted``, where no column has that name; also the note that says so."""
    index = frame.index
    if not isinstance(wanted, str) or wanted in frame.columns or index.name is not None or \
            not isinstance(index, (pd.DatetimeIndex, pd.PeriodIndex)):
        return frame, []
    stamps = index.to_timestamp() if isinstance(index, pd.PeriodIndex) else index
    out = frame.reset_index(drop=True)
    out.insert(0, wanted, stamps.to_numpy() if stamps.tz is None else stamps)
    return out, [f"timestamps in the DataFrame's index, read as {wanted!r}"]


def text_columns(names: Sequence[str], named: Iterable[str | None]) -> list[str]:
    """The columns read as text whatever they hold: those ``named`` (the timestamp, time-of-day and id columns
    asked for) and those named like a timestamp, a date or a time of day (which the reader may detect as one)."""
    like = {*TIMESTAMP_NAMES, *DATE_NAMES, *TIME_NAMES}
    wanted = {str(n) for n in named if n is not None}
    return [n for n in names if n in wanted or n.strip().lower() in like]


def _has_header(path: Path, sep: str, layout: Layout) -> bool:
    """Whether the file's first line below its comments names columns rather than holding values
    (:func:`looks_like_data`: the LSTNet benchmark files of numbers alone have no header row)."""
    try:
        cells = layout.header_line.split() if sep == WHITESPACE else _header(path, sep, layout)
    except csv.Error:  # a line longer than the csv module reads: the table's reading refuses it in one line
        return True
    return not looks_like_data(cells)


def _header(path: Path, sep: str, layout: Layout = Layout()) -> list[str]:
    """The cells of the file's first line below its comments."""
    with open_text(path, layout.encoding, newline="") as f:
        return next(csv.reader(islice(f, layout.skip, None), delimiter=sep), [])


def _typed_csv(path: Path, header: bool, sep: str, text: Iterable[str | None] = (),
               layout: Layout = Layout()) -> pd.DataFrame | None:
    """The CSV parsed by pyarrow (multithreaded): columns whose every cell is a number as numbers, every other
    column as text (timestamps included: the reader parses them with the dialect), and so the columns of
    :func:`text_columns` (ids such as ``007`` stay as written); None where pyarrow refuses the file (ragged
    rows, odd quoting, not UTF-8) or its header repeats a name, which pandas' reader reports and names apart."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if sep == WHITESPACE:  # pyarrow splits on one character
        return None
    first = _header(path, sep, layout)
    if header:
        names = [n if n != "" else f"Unnamed: {i}" for i, n in enumerate(first)]
        keep = {first[names.index(n)]: pa.string() for n in text_columns(names, text)}
    else:
        names = [str(i) for i in range(len(first))]
        keep = {f"f{n}": pa.string() for n in text_columns(names, text)}  # pyarrow's names of unnamed columns
    if len(set(names)) != len(names):
        return None
    try:
        with open_binary(path) if is_compressed(path) else nullcontext(path) as source:
            table = pacsv.read_csv(source, read_options=pacsv.ReadOptions(autogenerate_column_names=not header,
                                                                          encoding=layout.encoding,
                                                                          skip_rows=layout.skip,
                                                                          skip_rows_after_names=layout.rule_below),
                                   parse_options=pacsv.ParseOptions(delimiter=sep),
                                   convert_options=pacsv.ConvertOptions(column_types=keep, null_values=[],
                                                                        strings_can_be_null=False,
                                                                        timestamp_parsers=[_NO_TIMESTAMPS]))
    except (pa.ArrowException, *READ_ERRORS):
        return None
    if table.num_columns != len(names):
        return None
    columns = [col.to_numpy() if pa.types.is_integer(col.type) or pa.types.is_floating(col.type)
               else col.cast(pa.string()).to_pandas() for col in table.columns]
    return pd.DataFrame(dict(zip(range(len(names)), columns))).set_axis(names, axis=1)


def _spaced_table(path: Path, options: dict[str, Any], *, header: bool, typed: bool,
                  text: Iterable[str | None]) -> pd.DataFrame:
    """A table whose columns are separated by runs of spaces (:data:`WHITESPACE`), by pandas' C parser (pyarrow
    splits on one character): a row of one field more than the header names is a timestamp split at the space
    between its date and time (joined back) or R's row names (a column ``Unnamed: 0``); where ``typed``, the
    columns whose every cell is a number as numbers, as pyarrow types a CSV's, but those of ``text``."""
    frame = pd.read_csv(path, **options)
    if header and not isinstance(frame.index, pd.RangeIndex):
        first = frame.columns[0]
        if dates_and_times(frame.index, frame[first]):
            frame = frame.assign(**{first: frame.index.astype(str) + " " + frame[first]}).reset_index(drop=True)
        else:
            frame = frame.rename_axis("Unnamed: 0").reset_index()
    if typed:
        keep = set(text_columns([str(c) for c in frame.columns], text))
        for column in frame.columns:
            numbers = pd.to_numeric(frame[column], errors="coerce")
            if str(column) not in keep and not numbers.isna().any():
                frame[column] = numbers
    return frame


_MORE_FIELDS = re.compile(r"Expected \d+ fields in line (\d+), saw \d+")  # the C parser's report of a longer row
_FOOTER_LINES = 5  # lines below the data, after a blank line, left out where they have more fields than its rows


def _footer(path: Path, layout: Layout, error: str) -> tuple[tuple[str, ...], int] | None:
    """The lines but blank ones from the one the C parser found longer than the header (``error``) to the file's
    end, where they are at most :data:`_FOOTER_LINES` lines after a blank one (a title repeated below the data,
    ``Daily minimum temperatures in Melbourne, Australia, 1981-1990``), and how many lines, blank ones too, they
    end the file with; None otherwise."""
    found = _MORE_FIELDS.search(error)
    if found is None:
        return None
    with open_text(path, layout.encoding) as f:
        lines = f.read().splitlines()
    start = int(found.group(1)) - 1  # the longer line's index
    tail = [line for line in lines[start:] if line.strip()]
    if not 0 < len(tail) <= _FOOTER_LINES or start < 1 or lines[start - 1].strip():
        return None
    return tuple(tail), len(lines) - start


def read_table(path: Path, header: bool, sep: str = ",", *, typed: bool = True,
               text: Iterable[str | None] = (), layout: Layout = Layout()) -> pd.DataFrame:
    """The cells of a CSV or Parquet file (Parquet by its ``.parquet``/``.pq`` suffix).

    Columns stored as numbers (Parquet) or written only as numbers (CSV) are read as numbers when ``typed``;
    Parquet timestamp columns as timestamps; every other column as text (strings, missing cells empty). CSV is
    parsed by pyarrow's multithreaded reader, and what pyarrow refuses by pandas' C parser; ``typed=False`` reads
    every CSV cell as text, and ``text`` names columns kept as text (:func:`text_columns`); ``layout`` is the
    CSV's encoding and comment lines (:func:`~forecast.data.layout.file_layout`).
    """
    if path.suffix.lower() in PARQUET:
        try:
            frame = pd.read_parquet(path)
        except (OSError, ValueError) as exc:
            raise DataError(f"{path}: cannot read as Parquet ({str(exc).splitlines()[0]})") from exc
        return _frame_cells(frame)
    frame = _typed_csv(path, header, sep, text, layout) if typed else None
    if frame is not None:
        return frame
    options = dict(dtype=str, keep_default_na=False, header=0 if header else None, sep=sep, encoding=layout.encoding,
                   encoding_errors="replace",
                   skiprows=[*range(layout.skip), layout.skip + 1] if layout.rule_below else layout.skip)
    if sep == WHITESPACE:
        return _spaced_table(path, options, header=header, typed=typed, text=text)
    try:
        return pd.read_csv(path, engine="pyarrow", **options)
    except (ValueError, pd.errors.ParserError):
        pass  # what pyarrow refuses (ragged rows, odd quoting), the C parser reports in its own words
    try:
        frame = pd.read_csv(path, **options)
    except pd.errors.ParserError as exc:
        footer = _footer(path, layout, str(exc))
        if footer is None:
            raise
        frame = pd.read_csv(path, engine="python", skipfooter=footer[1], **options)
        frame.attrs[FOOTER] = footer[0]
    if header and not isinstance(frame.index, pd.RangeIndex) and len(frame.columns) \
            and (frame.iloc[:, -1].str.strip() == "").all():  # every row ends in a field the header lacks, empty
        # pandas read the first fields as the index and shifted the names: the fields in order, as many as named
        frame = frame.reset_index().iloc[:, :len(frame.columns)].set_axis(list(frame.columns), axis=1)
        frame.attrs[TRAILING] = True
    elif header and not isinstance(frame.index, pd.RangeIndex):  # R's row names, unless some rows lack them
        _refuse_ragged(path, sep, layout)
    return frame


def _refuse_ragged(path: Path, sep: str, layout: Layout) -> None:
    """Refuse a file whose first row below the header has a field more than the header names and another row has
    not (an unquoted separator in a cell, ``sensor check, ok``), naming both lines: pandas would read the first
    fields as row names and shift every column's name onto its neighbour's cells. A field more on every row is R's
    row names, read as such."""
    with open_text(path, layout.encoding, newline="") as f:
        rows = csv.reader(islice(f, layout.skip, None), delimiter=sep)
        named = len(next(rows, []))
        first = None
        for number, row in enumerate(rows, start=layout.skip + 2):
            if not row:
                continue
            if first is None:
                first = (number, len(row))
            elif len(row) != first[1]:
                raise DataError(f"{path}: line {first[0]} has {first[1]} fields where the header names {named}, "
                                f"line {number} has {len(row)}; quote the cells that hold the separator ({sep!r}), "
                                f"or name every column in the header")


def _read_raw(path: Path | pd.DataFrame, header: bool, hints: Hints, sep: str = ",", *,
              typed: bool = True, text: Iterable[str | None] = (), layout: Layout = Layout()
              ) -> tuple[pd.DataFrame, int]:
    """The cells (:func:`read_table`: numbers as numbers where ``typed``, else text), columns named from the
    header (or ``0 … n-1``); also the first data line. A DataFrame is not read: its column names are its header."""
    if isinstance(path, pd.DataFrame):
        return _frame_cells(path), 2
    require_file(path)
    try:
        raw = read_table(path, header, sep, typed=typed, text=text, layout=layout)
    except (*READ_ERRORS, UnicodeDecodeError, csv.Error, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        said = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if is_compressed(path) and isinstance(exc, READ_ERRORS):
            raise DataError(f"{path}: cannot decompress the file ({said}); check that it is whole") from exc
        other = "" if sep != "," else f"; {hints.set('sep', 'semicolon')} (or tab, pipe) reads another separator"
        raise DataError(f"{path}: cannot read as CSV ({said}); expected a {SEP_NAMES.get(sep, repr(sep))}-separated "
                        f"file{' with a header row' if header else ''}{other}") from exc
    names = [str(c) for c in raw.columns]
    stripped = [c.strip() for c in names]  # "date, load, temp": the names without the spaces after the commas
    raw.columns = stripped if len(set(stripped)) == len(stripped) else names
    if header and looks_like_data(raw.columns):
        first = ", ".join(list(raw.columns)[:4]) + (", …" if len(raw.columns) > 4 else "")
        raise DataError(f"{path}: the file seems to have no header row (line 1 is {first}); add one, or pass "
                        f"{hints.header} to name the columns 0 … {len(raw.columns) - 1}")
    return raw, (2 if header else 1) + layout.skip + layout.rule_below


def _timestamp_column(names: Sequence[str], wanted: str, path: Path, hints: Hints) -> str:
    """``wanted`` if the file has it, else (when ``wanted`` is itself such a name) the one column named like a
    timestamp in any case: ``date`` finds ``Date``."""
    if wanted in names:
        return wanted
    found = find_timestamp_column(names) if is_timestamp_name(wanted) else None
    if found is None:
        raise DataError(f"{path}: no timestamp column {wanted!r} (columns: {', '.join(names)}); "
                        f"{_sep_hint(names, hints) or hints.timestamp}")
    return found


def _numbers_only(raw: pd.DataFrame, id_col: str | None) -> bool:
    """Every column but the series id holds numbers, none is named like a time or a part of a date and the first
    holds no Unix times: no column can hold the rows' times."""
    parts = {n for spelled in PART_NAMES.values() for n in spelled}
    values = raw.drop(columns=[id_col] if id_col in raw.columns else [])
    return not leading_epoch(values) and all(typed_number(values[c]) and not may_hold_times(str(c))
                                             and bare_name(c) not in parts for c in values.columns)


def _settle_timestamp(raw: pd.DataFrame, wanted: str | None, dialect: Dialect, path: Path,
                      hints: Hints, *, steps: bool = False, id_col: str | None = None
                      ) -> tuple[str | None, Dialect, list[str]]:
    """The timestamp column and the dialect's time-of-day column (:mod:`forecast.data.date_time`), and what
    was detected: ``wanted`` and the dialect's ``time_col`` when given; else a date column followed by a time
    column (starting at ``wanted`` when the file has it); else ``wanted`` or the column named like it; else, with
    ``steps`` and ``wanted`` a timestamp name (``date``), no timestamps where no column could hold them
    (:func:`_numbers_only`)."""
    names = list(raw.columns)
    if wanted is None:
        return None, replace(dialect, time_col=None), []
    if dialect.time_col is not None:
        missing = [c for c in (wanted, dialect.time_col) if c not in names]
        if missing:
            raise DataError(f"{path}: no column {missing[0]!r} for the timestamps' dates and times in columns "
                            f"{wanted!r} and {dialect.time_col!r} (columns: {', '.join(names)}); {hints.timestamp}")
        return wanted, dialect, []
    pair = None
    if wanted in names:
        pair = find_date_time_pair(raw, wanted)
    elif is_timestamp_name(wanted):
        pair = find_date_time_pair(raw)
    if pair is not None:
        combined = f"timestamps from columns {pair[0]!r} and {pair[1]!r} combined"
        return pair[0], replace(dialect, time_col=pair[1]), [combined, *_ending_note(raw[pair[1]], dialect)]
    if wanted in names:
        return wanted, dialect, []
    named = named_date_time_pair(names)
    if named is not None and find_timestamp_column(names) is None:
        raise DataError(f"{path}: no timestamp column {wanted!r}, and columns {named[0]!r} and {named[1]!r} do not "
                        f"hold only dates and times of day; to read them as one timestamp pass "
                        f"{hints.set('timestamp_col', f'[{named[0]},{named[1]}]')}, else {hints.timestamp}")
    if steps and is_timestamp_name(wanted) and find_timestamp_column(names) is None and _numbers_only(raw, id_col):
        return None, dialect, [f"rows without timestamps (no column {wanted!r} nor any of times), read as "
                               f"consecutive steps without calendar features ({hints.set('timestamp_col', 'NAME')} "
                               f"names a column of times)"]
    found = _timestamp_column(names, wanted, path, hints)
    pair = find_date_time_pair(raw, found)
    if pair is not None:
        combined = f"timestamps from columns {pair[0]!r} and {pair[1]!r} combined"
        return pair[0], replace(dialect, time_col=pair[1]), [combined, *_ending_note(raw[pair[1]], dialect)]
    return found, dialect, [f"timestamps in column {found!r}"]


def _ending_note(times: pd.Series, dialect: Dialect) -> list[str]:
    """The note for a day's numbered periods (:func:`~forecast.data.date_time.day_periods`) or hours ending
    (:func:`~forecast.data.date_time.hours_ending`) in a time column, read so unless ``data.date_format`` reads the
    text as it is."""
    if dialect.date_format is not None:
        return []
    per_day = day_periods(times)
    if per_day is not None:
        return [f"periods 1 .. {per_day} of a day in column {times.name!r} read as {_PERIOD_WORDS[per_day]}: period 1 "
                f"is stamped 00:00, its start"]
    if not hours_ending(times):
        return []
    return [f"hours 1 .. 24 in column {times.name!r} read as hours ending: hour 1 is stamped 00:00, "
            f"its start"]


_PERIOD_WORDS = {24: "hours", 48: "half-hours", 96: "quarter-hours"}


def _refuse_changed_days(dates: pd.Series, periods: pd.Series, per_day: int, path: Path, line: np.ndarray,
                         hints: Hints) -> None:
    """Refuse a day of more or fewer numbered periods than ``per_day`` (the clocks changed:
    :func:`~forecast.data.date_time.changed_days`) where no time zone places them, naming its last line."""
    days = as_text(dates).str.strip()
    changed = changed_days(days, periods, per_day)
    if changed.empty:
        return
    day, top = str(changed.index[0]), int(changed.iloc[0])
    r = int(np.flatnonzero((days == day).to_numpy())[-1])
    raise DataError(f"{path}: line {line[r]}: {day} has {top} periods in column {periods.name!r}, not a day's "
                    f"{per_day}: the clocks changed that day; pass {hints.set('tz', 'ZONE')} with the zone of the "
                    f"file's clock (such as Europe/London or America/Chicago) to place them")


def _header_repeats(raw: pd.DataFrame) -> np.ndarray:
    """The rows whose every cell is its column's name (a header again where files were joined end to end)."""
    if not len(raw) or not len(raw.columns) or any(typed_number(raw[c]) or typed_time(raw[c]) for c in raw.columns):
        return np.zeros(0, dtype=np.int64)
    rows = np.arange(len(raw))
    for col in raw.columns:
        cells = as_text(raw[col].iloc[rows]).str.strip()
        rows = rows[(cells == str(col).strip()).to_numpy(dtype=bool)]
        if not rows.size:
            break
    return rows


def _no_value(col: pd.Series) -> bool:
    """Every cell of a text column is empty."""
    return not typed_number(col) and bool((as_text(col).str.strip() == "").all())


def _empty_unnamed(raw: pd.DataFrame) -> list[str]:
    """The columns with an empty header cell and no value (a separator at every line's end: ``AH;;``)."""
    return [c for c in raw.columns if _UNNAMED.match(c) and _no_value(raw[c])]


def _row_numbers(raw: pd.DataFrame) -> str | None:
    """The first column when its header cell is empty and it counts the rows 0, 1, 2 ... (or from 1): the
    index pandas writes with ``to_csv()``; None otherwise."""
    first = str(raw.columns[0])
    if len(raw.columns) < 2 or not _UNNAMED.match(first) or not len(raw):
        return None
    numbers = pd.to_numeric(raw[first], errors="coerce").to_numpy(dtype=np.float64)
    start = numbers[0]
    if start not in (0.0, 1.0) or not np.array_equal(numbers, start + np.arange(len(numbers))):
        return None
    return first


_THREE_GROUPS = r"\d+\D+\d+\D+\d+"  # a date's day, month and year


def _dated_column(raw: pd.DataFrame, wanted: object) -> str | None:
    """The column of the rows' dates where ``wanted`` is a timestamp name (``date``) no column has and no column is
    named like one: the first column when its first cells read as dates (or intervals of them: ENTSO-E's ``MTU``;
    Google Trends' ``Week``, or, with an empty header cell, the index pandas writes with ``to_csv()`` of a frame
    indexed by time), else the one other column of text whose first cells do with three groups of digits each (the
    UCI bike-sharing file's ``dteday`` after its row numbers). None otherwise."""
    names = [str(c) for c in raw.columns]
    if not isinstance(wanted, str) or wanted in names or not is_timestamp_name(wanted):
        return None
    if len(names) < 2 or any(named_like_timestamp(n) for n in names) or named_date_time_pair(names) is not None \
            or not len(raw):
        return None
    if typed_time(raw[names[0]]) or _reads_as_dates(raw[names[0]]):
        return names[0]
    dated = [n for n in names[1:] if not typed_number(raw[n]) and _whole_dates(raw[n]) and _reads_as_dates(raw[n])]
    return dated[0] if len(dated) == 1 else None


def _whole_dates(col: pd.Series) -> bool:
    """The column's first cells each hold three groups of digits, as a date does (``2011-01-01``, ``1/2/2011``),
    not a period code (``Q01``) or a month (``Jan 2020``)."""
    return bool(as_text(col.head(_DATE_SAMPLE)).str.contains(_THREE_GROUPS, regex=True).all())


def _reads_as_dates(col: pd.Series) -> bool:
    """The column's first cells are text that reads as dates, or intervals, ISO weeks or quarters of them, or
    times followed by a zone's abbreviation."""
    if typed_number(col):
        return False
    sample = as_text(col.head(_DATE_SAMPLE)).str.strip()
    if (sample == "").any() or not sample.str.contains(r"\d", regex=True).all():
        return False
    starts = interval_starts(sample)
    sample = sample if starts is None else starts
    weeks = iso_weeks(sample)
    sample = sample if weeks is None else weeks
    quarters = quarter_starts(sample)
    sample = sample if quarters is None else quarters
    zoned = zone_offsets(sample)
    sample = sample if zoned is None else zoned[0]
    with warnings.catch_warnings():  # pandas warns that it guesses each cell's format: only a yes or no is asked
        warnings.simplefilter("ignore")
        try:
            parsed = pd.to_datetime(sample, errors="coerce", format="mixed", utc=zoned is not None)
        except ValueError:  # offsets on some cells only: no column of dates to take on trust
            return False
    return bool(parsed.notna().all())


def _empty_last_columns(raw: pd.DataFrame) -> list[str]:
    """Without a header: the last columns with no value on any line (a separator at every line's end:
    ``1.5;2.0;;``); the columns before them keep their numbers."""
    empty = [_no_value(raw[c]) for c in raw.columns]
    n = len(empty)
    while n > 1 and empty[n - 1]:
        n -= 1
    return list(raw.columns[n:])


def _empty_tail(raw: pd.DataFrame) -> int:
    """The number of rows at the end whose every cell is empty (``;;;;``)."""
    n = len(raw)
    while n > 0 and all(str(v).strip() == "" for v in raw.iloc[n - 1]):
        n -= 1
    return len(raw) - n


def _sep_hint(names: Sequence[str], hints: Hints) -> str:
    """The separator setting, when the header was read as one column whose name holds another separator, or spaces
    between words one of which names a timestamp ("" otherwise: a separator inside names that were split is part of
    them)."""
    held = [s for s in SEP_NAMES if s != "," and len(names) == 1 and s in names[0]]
    words = names[0].split() if len(names) == 1 else []
    if not held and len(words) > 1 and any(is_timestamp_name(word) for word in words):
        held = [WHITESPACE]  # "date value": names separated by spaces, the rows not as many fields as detection needs
    if not held:
        return ""
    marks = "spaces" if held[0] == WHITESPACE else f"{SEP_NAMES[held[0]]}s"
    return f"the header line holds {marks}: pass {hints.set('sep', SEP_NAMES[held[0]])}"


DST_MONTHS = (3, 4, 9, 10, 11)  # the months in which clocks go back, north and south of the equator


def _could_be_dst_repeat(stamps: pd.DatetimeIndex, r: int) -> bool:
    """Whether the repeated naive timestamp ``stamps[r]`` falls where clocks go back: a night hour of a DST month,
    in timestamps that hold times of day (dates alone repeat no hour)."""
    stamp = stamps[r]
    return stamp.month in DST_MONTHS and stamp.hour <= 3 and bool((stamps != stamps.normalize()).any())


def _order(stamps: pd.DatetimeIndex, path: Path, line: np.ndarray, col: str, who: str, *, order_hint: str = "",
           hints: Hints = TRAIN, labels: Callable[[], list[str] | None] = lambda: None, repeats: bool = False,
           differing: Callable[[int, int], str | None] = lambda later, earlier: None) -> None:
    """Refuse duplicate (unless ``repeats``) or decreasing timestamps of one series (``line`` maps its rows to file
    lines).

    ``order_hint`` (the date order read) ends an "unsorted" refusal; a duplicate naive timestamp at a night
    hour of a month in which clocks go back names the time zone setting, which places the repeated hour, unless
    most rows share their timestamp: then the ``labels`` that would name each row's series are named, else the
    aggregation of readings into steps. ``differing`` names a column whose values two of the rows (their positions)
    hold apart.
    """
    dup = np.flatnonzero(np.asarray(stamps.duplicated())) if not repeats else np.empty(0, dtype=np.int64)
    if dup.size:
        r = int(dup[0])
        first = int(np.flatnonzero(stamps == stamps[r])[0])
        panel = float(np.asarray(stamps.duplicated(keep=False)).mean()) >= 0.5  # most rows share their timestamp
        local = "" if stamps.tz is not None or panel or not _could_be_dst_repeat(stamps, r) else (
            f"; if the file is in local time with daylight saving, pass {hints.set('tz', 'Europe/Berlin')} (its zone)")
        named = labels() if panel else None
        series = "" if named is None else (
            f"; if column {named[0]!r} names each row's series (long format), pass {hints.set('id_col', named[0])}"
            if len(named) == 1 else
            f"; if columns {' and '.join(repr(c) for c in named)} together name each row's series (long format), "
            f"pass {hints.set('id_col', '[' + ','.join(named) + ']')}")
        other = differing(r, first)
        apart = "" if other is None else f", with another {other!r}"
        raise DataError(f"{path}: line {line[r]}: duplicate timestamp {stamps[r]}{who} (also on line {line[first]}"
                        f"{apart}); "
                        f"remove or aggregate duplicates{series}{local}{'' if series or local else hints.resample}")
    back = np.flatnonzero(np.diff(stamps.asi8) < 0)
    if back.size:
        r = int(back[0]) + 1
        remedy = (f"it goes on from that day in another year ({stamps[r].year}): a typical-year file (TMY) joins "
                  f"months of different years; give every row one year to read it as one year"
                  if _year_jump(stamps[r - 1], stamps[r]) else f"sort the file by {col!r}{order_hint}")
        raise DataError(f"{path}: line {line[r]}: timestamp {stamps[r]}{who} comes before the previous row's "
                        f"{stamps[r - 1]}; {remedy}")


def _year_jump(before: pd.Timestamp, after: pd.Timestamp) -> bool:
    """Whether ``after``, in another year, follows ``before`` by at most two days once given ``before``'s year (a
    typical-year file's 1996-02-28 23:00 followed by 1990-03-01 00:00: the year's February 29 is not in it)."""
    if after.year == before.year:
        return False
    try:
        moved = after.replace(year=before.year)
    except ValueError:  # February 29 in a year without one
        return False
    return pd.Timedelta(0) < moved - before <= pd.Timedelta(days=2)


def _newest_first(stamps: pd.DatetimeIndex, groups: Sequence[np.ndarray]) -> bool:
    """Every series' timestamps strictly decrease in row order (a file exported newest first), and some series
    has two rows."""
    values = stamps.asi8
    return any(len(rows) > 1 for rows in groups) and not stamps.isna().any() and \
        all(bool(np.all(np.diff(values[rows]) < 0)) for rows in groups)


def _first_step_back(stamps: pd.DatetimeIndex, groups: Sequence[np.ndarray]) -> tuple[int, int] | None:
    """The rows (before, after) of the first place in the file where a series' timestamp goes back; None where
    none does."""
    values = stamps.asi8
    found = []
    for rows in groups:
        back = np.flatnonzero(np.diff(values[rows]) < 0)
        if back.size:
            found.append((int(rows[back[0]]), int(rows[back[0] + 1])))
    return min(found, key=lambda pair: pair[1]) if found else None


def _missing(text: pd.Series, dialect: Dialect) -> pd.Series:
    """Which stripped cells mean "missing": empty, a word such as ``NaN`` or ``n/a``, or one of the dialect's
    ``na_values``, (N,) bool."""
    return missing_cells(text, dialect.na_values)


def _leave_out(available: list[str], found: Sequence[str], what: str, detected: list[str], *,
               shown: Sequence[str] | None = None, limit: int = 3) -> list[str]:
    """``available`` without the columns ``found``, with a note in ``detected`` (``what`` they are, the first
    ``limit`` of ``shown``, by default their names), unless they are all of it (then the reader says what is
    wrong with the file instead)."""
    if not found or len(found) >= len(available):
        return available
    named = [repr(c) for c in found] if shown is None else list(shown)
    detected.append(f"column(s) {what} left out ({', '.join(named[:limit])}{', ...' if len(named) > limit else ''})")
    return [c for c in available if c not in found]


def _booleans_read(raw: pd.DataFrame, columns: Sequence[str]) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with those of its ``columns`` that hold booleans as 1.0 and 0.0
    (:func:`~forecast.data.cells.boolean_cells`), and their names; ``raw`` itself where none do."""
    read = {col: cells for col in columns if (cells := boolean_cells(raw[col])) is not None}
    if not read:
        return raw, []
    out = raw.copy()
    for col, cells in read.items():
        out[col] = cells
    return out, list(read)


def _no_values(col: pd.Series, dialect: Dialect) -> bool:
    """Every cell of ``col`` is missing: NaN, empty, a missing-value word or one of the dialect's codes."""
    if typed_number(col):
        return bool(col.isna().all())
    return bool(_missing(as_text(col).str.strip(), dialect).all())


def _strip_units(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with the currency or percent sign left out of every text column among ``columns`` whose every
    non-missing cell is a number written with that one sign before or after it (``$-0.70``, ``-$0.70``,
    ``12.5 %``, ``1.234,50 €``); also the notes naming them."""
    stripped, notes = {}, []
    for col in columns:
        if typed_number(raw[col]):
            continue
        head = raw[col].head(_SIGN_SAMPLE)
        sign = next((u for u in _UNITS if head.str.contains(u, regex=False).any()), None)
        if sign is None:
            continue
        text = raw[col].str.strip()
        present = text[~_missing(text, dialect)]
        u = re.escape(sign)
        written = re.compile(rf"^[-+]?\s*{u}\s*[-+]?[\d.,' ]*\d$|^[-+]?[\d.,' ]*\d\s*{u}$")
        if not present.str.match(written).all():
            continue
        stripped[col] = text.str.replace(sign, "", regex=False).str.replace(r"^([-+])\s+", r"\1", regex=True) \
            .str.strip()
        notes.append(f"{sign!r} signs left out of column {col!r}")
    return (raw.assign(**stripped) if stripped else raw), notes


# Eurostat's flags after a value or its missing mark ``:`` (provisional ``p``, estimated ``e``, break ``b``, ...)
_FLAG_LETTERS = "bcdefinprsuz"
_FLAGGED = re.compile(rf"^(?P<cell>:|[-+]?[\d.,' ]*\d)\s+(?P<flags>[{_FLAG_LETTERS}]{{1,3}})$")


def _strip_flags(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with Eurostat's flags left out of every text column among ``columns`` whose non-missing cells are
    each a number, or a number or ``:`` (not available: missing) followed by a space and flags, some so
    (``1061.3 p``, ``: c``); also the notes naming them."""
    stripped, notes = {}, []
    for col in columns:
        if typed_number(raw[col]):
            continue
        text = raw[col].str.strip()
        lettered = text.str[-1:].isin(list(_FLAG_LETTERS))  # a cheap look before the regular expression
        if not lettered.any():
            continue
        parts = text[lettered].str.extract(_FLAGGED).reindex(text.index)
        flagged = parts["cell"].notna()
        if not flagged.any():
            continue
        rest = text[~flagged & ~_missing(text, dialect)]
        if not rest.str.fullmatch(r"[-+]?[\d.,' ]*\d(?:[eE][-+]?\d+)?").all():
            continue
        stripped[col] = parts["cell"].where(flagged, text)
        shown = ", ".join(repr(f) for f in sorted(set("".join(parts["flags"].dropna()))))
        notes.append(f"Eurostat's flags after the values left out of column {col!r} ({shown})")
    return (raw.assign(**stripped) if stripped else raw), notes


def _rewritten(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect, *, start: str, marked: str, others: str,
               rewrite: Callable[[pd.Series], pd.Series]) -> tuple[pd.DataFrame, dict[str, tuple[int, str]]]:
    """``raw`` with the cells that begin with ``start`` and match ``marked`` rewritten (``rewrite`` of them) in the
    text columns among ``columns`` whose every other cell is missing or matches ``others``; also, for each column
    rewritten, how many cells were and the first of them as written."""
    stripped, found = {}, {}
    for col in columns:
        if typed_number(raw[col]):
            continue
        text = raw[col].str.strip()
        hits = text.str.startswith(start).fillna(False).astype(bool)  # a cheap look before the regular expression
        if not hits.any():
            continue
        hits[hits] = text[hits].str.match(marked).to_numpy(dtype=bool)
        if not hits.any() or not text[~hits & ~_missing(text, dialect)].str.match(others).all():
            continue
        stripped[col] = text.where(~hits, rewrite(text[hits]).reindex(text.index))
        found[col] = (int(hits.sum()), str(text[hits].iloc[0]))
    return (raw.assign(**stripped) if stripped else raw), found


# a number marked doubtful by a question mark before it, as DataMarket's exports write some readings (``?0.2``)
_NUMBER = r"^[-+]?[\d.,' ]*\d(?:[eE][-+]?\d+)?$"
_DOUBTED = r"^\?[-+]?[\d.,' ]*\d(?:[eE][-+]?\d+)?$"
# a number as an accountant writes it, its sign or currency beside it; and one in parentheses, a negative number
_BOOKED = r"^[-+]?[$€£¥]?\s*[-+]?[\d.,' ]*\d\s*[$€£¥%]?$"
_BRACKETED = r"^\((?P<inner>[$€£¥]?\s*[\d.,' ]*\d\s*[$€£¥%]?)\)$"


def _strip_doubts(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with the question mark left out of the cells of the text columns among ``columns`` whose non-missing
    cells are each a number, some written after a ``?`` (a doubtful reading, ``?0.2``); also the notes naming
    them."""
    raw, found = _rewritten(raw, columns, dialect, start="?", marked=_DOUBTED, others=_NUMBER,
                            rewrite=lambda cells: cells.str[1:])
    return raw, [f"{n} reading(s) marked doubtful by a '?' before them ({first}) read as their numbers in column "
                 f"{col!r}" for col, (n, first) in found.items()]


def _strip_parentheses(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect
                       ) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with the negative numbers written in parentheses (``(1,234.50)``, an accounting format) written
    with a minus sign in the text columns among ``columns`` whose other non-missing cells are each a number (a
    currency or percent sign beside it allowed); also the notes naming them."""
    raw, found = _rewritten(raw, columns, dialect, start="(", marked=_BRACKETED, others=_BOOKED,
                            rewrite=lambda cells: "-" + cells.str.extract(_BRACKETED)["inner"])
    return raw, [f"{n} negative number(s) in parentheses ({first}) read with a minus sign in column {col!r}"
                 for col, (n, first) in found.items()]


def _signs_left_out(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect) -> tuple[pd.DataFrame, list[str]]:
    """``raw`` with negative numbers in parentheses written with a minus (:func:`_strip_parentheses`), and the
    currency and percent signs (:func:`_strip_units`), Eurostat's flags (:func:`_strip_flags`) and the question
    marks of doubtful readings (:func:`_strip_doubts`) left out of ``columns``, and the notes naming them."""
    raw, negatives = _strip_parentheses(raw, columns, dialect)
    raw, signs = _strip_units(raw, columns, dialect)
    raw, flags = _strip_flags(raw, columns, dialect)
    raw, doubts = _strip_doubts(raw, columns, dialect)
    return raw, negatives + signs + flags + doubts


def _not_numbers(raw: pd.DataFrame, columns: Sequence[str], dialect: Dialect
                 ) -> tuple[dict[str, pd.Series], dict[str, np.ndarray]]:
    """The stripped, non-missing cells of every column with a cell that is no plain number; and every other
    column's numbers, (N,) float64, NaN where a cell is missing."""
    out, numbers = {}, {}
    for col in columns:
        text = raw[col].str.strip()
        missing = _missing(text, dialect).to_numpy()
        text = text[~missing]
        try:
            read = pd.to_numeric(text)  # stops at the first cell that is no number (decimal commas: at once)
        except (ValueError, TypeError):
            out[col] = text
            continue
        numbers[col] = np.full(len(missing), np.nan)
        numbers[col][~missing] = np.asarray(read, dtype=np.float64)
    return out, numbers


def _marked_column(cells: pd.Series, dialect: Dialect) -> tuple[np.ndarray, int | None]:
    """A value column read with the dialect's marks and missing-value codes as ``pd.read_csv`` reads it (the cells
    of any source: a CSV, a Parquet file or a DataFrame): the numbers, (N,) float64, NaN for a missing word or code
    (a cell equal to a numeric code too); and the first row whose cell reads as no number (None when none).

    The marks are taken out and the cells cast to float64 by Arrow's kernels; only where a cell does not cast are
    the cells matched one by one against what a float cast reads.
    """
    import pyarrow as pa

    cells = cells.str.strip()
    text = _without_marks(pd.Series(cells, dtype=ARROW_TEXT), dialect)
    missing = _missing(cells, dialect).to_numpy()
    values = np.full(len(cells), np.nan)
    try:  # every cell a number; a cell Arrow reads as NaN is one only where a float cast reads it (not nan(1))
        values[~missing] = pa.array(text[~missing]).cast(pa.float64()).to_numpy(zero_copy_only=False)
        readable = ~missing
        nans = np.flatnonzero(np.isnan(values) & readable)
        readable[nans] = text.iloc[nans].str.match(_FLOAT).to_numpy(dtype=bool)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        readable = text.str.match(_FLOAT).to_numpy(dtype=bool) & ~missing
        values[readable] = pa.array(text[readable]).cast(pa.float64()).to_numpy(zero_copy_only=False)
    values[np.isin(values, _code_numbers(dialect.na_values))] = np.nan
    unread = np.flatnonzero(~readable & ~missing)
    return values, (int(unread[0]) if unread.size else None)


def _without_marks(text: pd.Series, marks: Dialect) -> pd.Series:
    """The cells with the thousands separator left out and the decimal mark a dot, as ``pd.to_numeric`` reads."""
    if marks.thousands == " ":  # any of the spaces that group thousands
        text = text.str.replace(f"[{SPACES}]", "", regex=True)
    elif marks.thousands:
        text = text.str.replace(marks.thousands, "", regex=False)
    if marks.decimal and marks.decimal != ".":
        text = text.str.replace(marks.decimal, ".", regex=False)
    return text


def _values(raw: pd.DataFrame, columns: Sequence[str], path: Path, line: np.ndarray, hints: Hints, *,
            sep: str = ",", dialect: Dialect = Dialect(), as_written: Callable[[], pd.DataFrame] | None = None,
            column_of: Callable[[str, int], str] = lambda col, row: col, numeric: Collection[str] = ()
            ) -> tuple[np.ndarray, str, np.ndarray]:
    """The numeric cells, (N, C) float64, missing ones NaN, infinite ones as they are (:func:`_refuse_missing`
    refuses them where nothing fills them, except the cells written as one of the dialect's ``na_values``, which the
    user declared missing). A refusal names the file's column of a cell as ``column_of(column, row)`` gives it.

    Text cells are read by pandas with the dialect's decimal and thousands marks (detected where the cells make
    them clear: :func:`~forecast.data.dialect.number_marks`) and its ``na_values``; columns stored as numbers
    are taken as they are (a value equal to a numeric ``na_values`` code is missing). ``as_written`` gives the
    file's cells as text: a CSV's columns that parsed as plain numbers are read again from it when the marks
    are not plain or there are codes, since ``1.234`` means 1234 with a thousands dot. Also returns what was
    detected ("" when nothing) and which cells, (N, C) bool, are written as a missing-value code. The ``numeric``
    text columns (:func:`~forecast.data.cells.numeric_text`) are not searched for signs, flags, magnitudes or bounds.
    """
    typed = [c for c in columns if typed_number(raw[c])]
    marked = [c for c in columns if c not in numeric]  # the columns that may hold more than numbers and marks
    raw, signs = _signs_left_out(raw, marked, dialect)
    raw, factors, lettered, odd = strip_magnitudes(raw, marked, lambda text: _missing(text, dialect))
    if odd is not None:
        col, r = odd
        cell = raw[col].iloc[r]
        raise DataError(f"{path}: line {line[r]}: column {column_of(col, r)!r} has {cell!r} where its other cells are "
                        f"numbers with a K, M or B (34.91M); replace it with a number, or pass "
                        f"{hints.set_list('na_values', str(cell).strip())} to read it as missing"
                        f"{', ' + hints.columns if hints.columns else ''}")
    raw, halves, bounded, bound = halve_bounds(raw, marked, lambda text: _missing(text, dialect))
    factors = {**factors, **{c: f * factors[c] if c in factors else f for c, f in halves.items()}}
    if bound is not None:
        bounded[-1] += f" ({hints.set_list('na_values', bound)} reads such cells as missing)"
    failing, plain_read = _not_numbers(raw, [c for c in columns if c not in typed], dialect)
    decimal, thousands, detected = number_marks(list(failing.values()), sep=sep, decimal=dialect.decimal,
                                                thousands=dialect.thousands)
    detected = ", ".join(filter(None, [*signs, *lettered, *bounded, detected]))
    marks = replace(dialect, decimal=decimal, thousands=thousands)
    plain = decimal in (None, ".") and thousands is None and not dialect.na_values
    if typed and as_written is not None and not plain:
        raw = _signs_left_out(as_written(), marked, dialect)[0]
        raw = strip_magnitudes(raw, marked, lambda text: _missing(text, dialect)).raw
        raw = halve_bounds(raw, marked, lambda text: _missing(text, dialect)).raw
        typed = [c for c in columns if typed_number(raw[c])]  # columns read as numbers before: booleans
    if decimal == "," and thousands is None:  # a dot can only group thousands
        text_columns = [c for c in columns if c not in typed]
        cells = [raw[c].str.strip() for c in text_columns]
        dotted, odd = dot_thousands([c[~_missing(c, dialect)] for c in cells])
        if odd is not None:
            col, r = next((c, int(np.flatnonzero((cells[k] == odd).to_numpy())[0]))
                          for k, c in enumerate(text_columns) if (cells[k] == odd).any())
            raise DataError(f"{path}: line {line[r]}: column {column_of(col, r)!r} has {odd!r} where the numbers have "
                            f"decimal commas, and that dot groups no thousands; write every number with one "
                            f"decimal mark, or pass {hints.set('decimal', 'dot')} if the dots are the decimals")
        if dotted:
            marks = replace(marks, thousands=".")
            detected = ", ".join(filter(None, [detected, "thousands separated by dots"]))
    out = np.empty((len(raw), len(columns)), dtype=np.float64)
    for c, col in enumerate(columns):
        if col in typed:
            out[:, c] = raw[col].to_numpy(dtype=np.float64)
            continue
        if plain and col in plain_read:  # raw is as _not_numbers read it
            values, r = plain_read[col], None
        elif plain:
            text = raw[col].str.strip()
            values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
            nonnum = np.flatnonzero(np.isnan(values) & ~_missing(text, dialect).to_numpy())
            r = int(nonnum[0]) if nonnum.size else None
        else:
            values, r = _marked_column(raw[col], marks)
        if r is not None:
            raise DataError(f"{path}: line {line[r]}: column {column_of(col, r)!r} has non-numeric value {raw[col].iloc[r]!r}; "
                            f"every data column must be numeric{_marks_hint(raw[col].iloc[r], marks, hints)}"
                            f"{_text_hint(raw[col].iloc[r], hints)}")
        out[:, c] = values * factors[col] if col in factors else values
    coded = np.zeros(out.shape, dtype=bool)
    if dialect.na_values:
        numbers = _code_numbers(dialect.na_values)
        for c, col in enumerate(columns):
            if col in typed:
                coded[:, c] = np.isin(out[:, c], numbers)
                out[coded[:, c], c] = np.nan
                continue
            missing = np.flatnonzero(~np.isfinite(out[:, c]))
            coded[missing, c] = _coded(raw[col].iloc[missing].str.strip(), dialect.na_values, marks)
    return out, detected, coded


def _refuse_missing(values: np.ndarray, coded: np.ndarray, raw: pd.DataFrame, columns: Sequence[str], path: Path,
                    line: np.ndarray, hints: Hints, column_of: Callable[[str, int], str]) -> None:
    """Refuse the first missing or infinite cell of ``values`` (N, C) that is no missing-value code (``coded``,
    (N, C) bool), naming its line and the file's column of it (``column_of``): nothing fills it."""
    bad = ~np.isfinite(values) & ~coded
    if not bad.any():
        return
    r, c = (int(x[0]) for x in np.nonzero(bad))
    col = column_of(columns[c], r)
    cell = str(raw[columns[c]].iloc[r]).strip()
    if not np.isfinite(values[:, c]).any():  # nothing to fill from
        remedy = f"; {hints.leave_out}" if hints.leave_out else "; the model needs its values"
        raise DataError(f"{path}: column {columns[c]!r} is empty or NaN on every row{remedy}")
    start = int(np.argmax(np.isfinite(values[:, c])))  # the column's first value
    if r < start and start > max(1, len(values) // 10) and hints.leave_out:  # a column beginning later: a new stock
        raise DataError(f"{path}: column {col!r} has no value before line {line[start]}, its first; "
                        f"{hints.leave_out}, or pass {hints.fill} (which fills backwards with its first value)")
    if np.isnan(values[r, c]) and cell.lower() not in ("", "nan"):  # a word for "missing": #N/A, #DIV/0!
        raise DataError(f"{path}: line {line[r]}: column {col!r} holds {cell!r}, a missing value; fill the gap or "
                        f"pass {hints.fill}")
    if np.isnan(values[r, c]):
        raise DataError(f"{path}: line {line[r]}: column {col!r} is empty or NaN; fill the gap or pass {hints.fill}")
    raise DataError(f"{path}: line {line[r]}: column {col!r} has the non-finite value {cell!r}; replace it, or pass "
                    f"{hints.fill} to treat it as missing")


def _unreported_rows(values: np.ndarray, groups: Sequence[tuple[str | None, np.ndarray]]) -> np.ndarray:
    """(N,) bool: the rows at the end of each series from which on some column is missing in every row (values
    not yet reported: ENTSO-E's actual load, ``N/A`` to the end of the year it was asked for), where every column
    has a value before them; none where a column has no value in the series."""
    out = np.zeros(len(values), dtype=bool)
    for _, rows in groups:
        present = ~np.isnan(values[rows])  # (R, C), rows in time order
        if not len(rows) or not present.any(axis=0).all():
            continue
        last = len(rows) - 1 - np.argmax(present[::-1], axis=0)  # (C,) each column's last row with a value
        out[rows[int(last.min()) + 1:]] = True
    return out


def _unreported_note(values: np.ndarray, unreported: np.ndarray, groups: Sequence[tuple[str | None, np.ndarray]],
                     columns: Sequence[str], line: np.ndarray) -> str:
    """What :func:`_unreported_rows` left out: how many rows of how many series, from which line, and the columns
    missing there."""
    first = int(np.flatnonzero(unreported)[0])
    missing = [repr(c) for c, gone in zip(columns, np.isnan(values[unreported]).all(axis=0)) if gone]
    series = sum(bool(unreported[rows].any()) for _, rows in groups)
    where = f" of {series} series" if len(groups) > 1 else ""
    return (f"{int(unreported.sum())} row(s) at the end{where} without values in {', '.join(missing[:3])}"
            f"{', ...' if len(missing) > 3 else ''} (not yet reported) left out (from line {line[first]})")


def _code_numbers(codes: Sequence[str]) -> list[float]:
    """The missing-value codes that are numbers (``-200``), as numbers."""
    return [float(c) for c in codes if is_number(c) and not np.isnan(float(c))]


def _coded(cells: pd.Series, codes: Sequence[str], marks: Dialect) -> np.ndarray:
    """Which (stripped) cells are one of the missing-value codes, (N,) bool: written as the code, or the same
    number (``-200.0``, and ``-200,0`` with decimal commas, is ``-200``)."""
    numbers = _code_numbers(codes)
    values = pd.to_numeric(_without_marks(cells, marks), errors="coerce")
    return (cells.isin(codes) | values.isin(numbers)).to_numpy(dtype=bool)


def _text_hint(cell: str, hints: Hints) -> str:
    """For a cell without digits (``?``, ``on``) in a file read for training: how to declare it missing, or to
    leave its column out; for a label of letters and digits (a station's id): how to leave its column out; for
    digits with signs (``<1``): to write a number or declare it missing."""
    cell = str(cell).strip()
    if not hints.columns or _MARKED.search(cell):
        return ""
    if re.search(r"\d", cell) and re.search(r"[^\W\d_]", cell):
        return f"; {hints.leave_out}"
    if re.search(r"\d", cell):  # a lower bound or a flag (>100)
        return f"; replace it with a number, or pass {hints.set_list('na_values', cell)} to read it as missing"
    return f"; if {cell!r} marks a missing value, pass {hints.set_list('na_values', cell)}, {hints.columns}"


def _marks_hint(cell: str, dialect: Dialect, hints: Hints) -> str:
    """How to name the number marks, for a cell written like a number with marks (``1.234,5``) when none are set."""
    if dialect.decimal is None and dialect.thousands is None and _MARKED.search(cell):
        return (f" (numbers written 1,5 need {hints.set('decimal', 'comma')}, 30,531.0 "
                f"{hints.set('thousands', 'comma')}, 9'919.7 {hints.set('thousands', 'apostrophe')})")
    return ""


def _snap(stamps: pd.DatetimeIndex, groups: Sequence[tuple[str | None, np.ndarray]], detected: list[str], *,
          path: Path, line: np.ndarray) -> pd.DatetimeIndex:
    """``stamps`` with each series a logger wrote a few seconds off its step moved onto that step's grid
    (:func:`~forecast.data.regular.snapped_to_step`); what it did appended to ``detected``.

    Raises:
        DataError: a timestamp farther off the grid than a tenth of the step, naming its line.
    """
    column = None  # the snapped timestamps, copied from ``stamps`` at the first series that moves
    steps, farthest = set(), pd.Timedelta(0)
    for _, rows in groups:
        if evenly_spaced(stamps.asi8[rows]):  # the usual file, passed over without building its index
            continue
        snapped = snapped_to_step(stamps[rows])
        if snapped is None:
            continue
        grid, step, off = snapped
        alias = to_offset(step).freqstr
        far = off * 10 > step
        if far.any():
            r = int(np.flatnonzero(far)[0])
            within = pd.Timedelta(off[~far].max()).total_seconds()
            raise DataError(f"{path}: line {line[rows][r]}: timestamp {stamps[rows][r]} is "
                            f"{pd.Timedelta(off[r]).total_seconds():g} s off the steps of {alias} the other "
                            f"timestamps keep to within {within:g} s; correct its time or remove the row")
        column = pd.Series(stamps) if column is None else column
        column.iloc[rows] = grid
        steps.add(alias)
        farthest = max(farthest, pd.Timedelta(off.max()))
    if column is None:
        return stamps
    detected.append(f"timestamps up to {farthest.total_seconds():g} s off a step of {', '.join(sorted(steps))}, "
                    f"each read as the step it is nearest")
    return pd.DatetimeIndex(column, name=stamps.name)


def _rows_without_values(raw: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """(N,) bool: the rows whose every cell of ``columns`` is empty or a missing-value word (``nan``, ``NA``).
    Columns stored as numbers are looked at first, a text column only on the rows still without a value."""
    rows = np.arange(len(raw))
    for col in sorted(columns, key=lambda c: not typed_number(raw[c])):
        cells = raw[col].iloc[rows]
        empty = cells.isna() if typed_number(cells) else _missing(as_text(cells).str.strip(), Dialect())
        rows = rows[empty.to_numpy()]
        if not len(rows):
            break
    without = np.zeros(len(raw), dtype=bool)
    without[rows] = True
    return without


def _empty_off_the_grid(raw: pd.DataFrame, columns: Sequence[str], stamps: pd.DatetimeIndex,
                        groups: Sequence[tuple[str | None, np.ndarray]], freq: str | None, *, path: Path,
                        line: np.ndarray, hints: Hints) -> tuple[np.ndarray, str] | None:
    """The rows to keep, (N,) bool, and the note, where rows with no values lie off the grid the other rows keep
    (:func:`~forecast.data.regular.off_the_grid`); None where there are none."""
    empty = _rows_without_values(raw, columns)
    if not empty.any() or empty.all():
        return None
    found = off_the_grid([stamps[rows] for _, rows in groups], [empty[rows] for _, rows in groups], freq,
                         source=str(path), hints=hints)
    if found is None:
        return None
    drops, grid = found
    drop = np.zeros(len(raw), dtype=bool)
    for (_, rows), series_drop in zip(groups, drops):
        drop[rows[series_drop]] = True
    first = int(np.flatnonzero(drop)[0])
    note = (f"{int(drop.sum())} row(s) with no values off the steps of {grid!r} the other rows keep, left out "
            f"(the first: line {line[first]}, {stamps[first]})")
    return ~drop, note


def _partial_last_rows(stamps: pd.DatetimeIndex, groups: Sequence[tuple[str | None, np.ndarray]], freq: str,
                       line: np.ndarray) -> tuple[np.ndarray, str] | None:
    """The rows to keep, (N,) bool, and the note, where a series' last row lies inside the step of ``freq`` that the
    row before it starts (a download's last row dated the day it was made: a part of a step); None where none does.
    Series of fewer than 3 rows are left as they are."""
    ends = np.array([rows[-2:] for _, rows in groups if len(rows) >= 3], dtype=np.int64).reshape(-1, 2)  # (S', 2)
    partial = inside_step(stamps[ends[:, 0]], stamps[ends[:, 1]], freq)  # (S',)
    if not partial.any():
        return None
    last_rows = ends[partial, 1]
    keep = np.ones(len(stamps), dtype=bool)
    keep[last_rows] = False
    first = int(last_rows[0])
    which = f"{len(last_rows)} series' last rows" if len(last_rows) > 1 else "the last row"
    return keep, (f"{which} inside the step of {freq!r} that the row before starts, a part of a step, left out "
                  f"(line {line[first]}, {stamps[first]})")


def _kept_groups(groups: Sequence[tuple[str | None, np.ndarray]], keep: np.ndarray
                 ) -> list[tuple[str | None, np.ndarray]]:
    """Each series' rows after the rows not in ``keep`` (N,) bool are dropped, at their new positions."""
    position = np.cumsum(keep) - 1  # (N,) each kept row's position after the drop
    return [(name, position[rows[keep[rows]]]) for name, rows in groups]


def _arrow_pages_back() -> None:
    """Hand back to the system the pages Arrow's memory pool keeps from freed buffers (a parsed table's): numpy's
    arrays do not reuse them, and the pool's allocator returns them only on its own later use."""
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _span(rows: np.ndarray) -> slice | np.ndarray:
    """``rows`` (N_s,) int as a slice where they are one ascending run (a series written in one block, as most files
    and every melted table are): indexing by it gives a view, not a copy."""
    if len(rows) and int(rows[-1]) - int(rows[0]) == len(rows) - 1 and bool((np.diff(rows) == 1).all()):
        return slice(int(rows[0]), int(rows[-1]) + 1)
    return rows


def _fill(block: np.ndarray, columns: Sequence[str], fill: FillMethod, path: Path, who: str,
          hints: Hints) -> np.ndarray:
    """A series' ``block`` of ``columns``, (N_s, C) float64, with its missing cells filled by ``fill``
    (:func:`~forecast.data.fill.filled`).

    Raises:
        DataError: an unknown fill, or a column of the series with no value to fill from.
    """
    if fill not in ("ffill", "interpolate"):
        raise DataError(f"unknown fill method {fill!r}: use ffill or interpolate")
    values = filled(block, fill)  # (N_s, C)
    empty = np.flatnonzero(np.isnan(values).any(axis=0))
    if empty.size:
        raise DataError(f"{path}: column {columns[int(empty[0])]!r}{who} has no values at all to fill from"
                        f"{'; ' + hints.leave_out if hints.leave_out else ''}")
    return values


def _join_date_parts(raw: pd.DataFrame, parts: DateParts, timestamp_col: str, path: Path, lines: np.ndarray
                     ) -> pd.DataFrame:
    """``raw`` with the date parts' columns replaced by one timestamp column, first (:mod:`forecast.data.date_parts`).

    Raises:
        DataError: parts that make no date (31 February), naming the first such line.
    """
    stamps = parts.timestamps(raw)
    bad = np.flatnonzero(stamps.isna().to_numpy())
    if bad.size:
        r = int(bad[0])
        cells = "-".join(str(raw[c].iloc[r]) for c in parts.columns.values())
        raise DataError(f"{path}: line {lines[r]}: columns {', '.join(repr(c) for c in parts.columns.values())} "
                        f"make no date ({cells}); correct the row")
    joined = raw.drop(columns=list(parts.columns.values()))
    joined.insert(0, timestamp_col, stamps.to_numpy())
    return joined


def _joined(raw: pd.DataFrame, as_written: Callable[[], pd.DataFrame] | None, parts: Sequence[str], name: str
            ) -> tuple[pd.DataFrame, Callable[[], pd.DataFrame] | None, dict[str, tuple[str, ...]]]:
    """``raw`` and its cells as written with the columns ``parts`` joined into the id column ``name``
    (:func:`~forecast.data.series_ids.with_joined_id`), and each joined id's values of ``parts``."""
    text = as_written
    return (with_joined_id(raw, parts, name), None if text is None else lambda: with_joined_id(text(), parts, name),
            joined_parts(raw, parts))


def _table_cells(raw: pd.DataFrame, table: YearTable | PeriodTable, id_col: str | None, path: Path
                 ) -> tuple[np.ndarray, np.ndarray]:
    """The cells of a table's periods, (rows, periods) (:func:`~forecast.data.year_table.table_cells`), and which of
    them are its series, (rows, periods) bool; a table with no value is refused."""
    groups = [np.arange(len(raw))] if id_col is None else \
        list(pd.Series(np.arange(len(raw))).groupby(as_text(raw[id_col]).to_numpy(), sort=False).indices.values())
    cells = table_cells(raw, table.periods)  # (rows, periods)
    kept = table.kept(digit_cells(raw, table.periods, cells), groups)
    if not kept.any():
        raise DataError(f"{path}: {table.describe()} with no value in any {table.unit}; fill in the values")
    return cells, kept


def _melt_table(raw: pd.DataFrame, table: YearTable | PeriodTable, cells: np.ndarray, kept: np.ndarray,
                timestamp_col: str, id_col: str | None, as_written: Callable[[], pd.DataFrame] | None
                ) -> tuple[pd.DataFrame, np.ndarray, Callable[[], pd.DataFrame] | None, str, Callable[[int], str]]:
    """A table of years by months or quarters as one series (:mod:`forecast.data.year_table`), or of series by
    periods as a series a row (:mod:`forecast.data.period_table`), from its ``cells`` and those ``kept``
    (:func:`_table_cells`; ``raw`` needs only its other columns): the rows, the table row each comes from, the
    cells as written reshaped alike, the note, and the table's column of a row's value (a function of the row)."""
    name = str(timestamp_col)
    melted, rows, at = table.melt(raw, cells, kept, timestamp_col=name, id_col=id_col)

    def period(row: int) -> str:
        return table.periods[int(at[row])]

    written, rows_read = None, len(raw)
    if as_written is not None:
        text = as_written

        def written() -> pd.DataFrame:
            cells_as_written = text().iloc[:rows_read]
            return table.melt(cells_as_written, text_cells(cells_as_written, table.periods), kept,
                              timestamp_col=name, id_col=id_col)[0]
    dropped = int(kept.size - kept.sum())
    return melted, rows, written, table.note(melted, name, dropped, id_col), period


def _in_order(codes: np.ndarray, count: int) -> bool:
    """Whether ``codes`` (N,) run through ``0 .. count - 1`` in order, each at least once: numbered in order of first
    appearance, and each series' rows one run."""
    return len(codes) > 0 and int(codes[0]) == 0 and bool((codes[1:] >= codes[:-1]).all()) \
        and bool((np.bincount(codes, minlength=count)[:count] > 0).all()) and int(codes[-1]) == count - 1


def _series_codes(ids: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Each row's series, (N,) int, numbered in order of first appearance, and the series' names, stripped text,
    (S,); categories (a table's rows, each name in many cells) by their codes."""
    if isinstance(ids.dtype, pd.CategoricalDtype):
        labels = np.append(as_text(pd.Series(ids.cat.categories)).str.strip().to_numpy(dtype=object), "")  # (K + 1,)
        merged, names = pd.factorize(labels)  # labels equal once stripped name one series; code -1 (missing): ""
        cat = ids.cat.codes.to_numpy()  # (N,)
        if _in_order(cat, len(labels) - 1) and bool((merged[:-1] == np.arange(len(labels) - 1)).all()):
            return cat, np.asarray(names, dtype=object)[: len(labels) - 1]  # a table's rows: already so numbered
        codes, first = pd.factorize(merged[cat])
        return codes, np.asarray(names, dtype=object)[first]
    codes, names = pd.factorize(as_text(ids).str.strip())
    return codes, np.asarray(names, dtype=object)


def _read_files(files: list[Path], source: str, id_col: str | None, options: dict[str, Any]) -> Panel:
    """One panel of the series of ``files`` (:mod:`forecast.data.files`): each read by :func:`read_panel` with
    ``options``, the files after the first with its columns, frequency and dialect; a file's series named after
    it unless ``id_col`` names the series within the files.

    Raises:
        DataError: a file's problem (naming the file), two files of one series name, or one series in two files.
    """
    check_names(files, source)
    within = None if id_col in (None, FILE_ID) else id_col
    first = read_panel(files[0], id_col=within, **options)
    same = dict(options, columns=list(first.series[0].frame.columns), dialect=first.dialect, header=first.header)
    panels = [first, *read_each(partial(read_panel, id_col=within, **same), files[1:])]
    other = next((k for k, p in enumerate(panels) if p.freq != first.freq), None)
    if other is not None:
        raise DataError(f"{files[other]}: the timestamps step by {panels[other].freq!r}, but {files[0]}'s by "
                        f"{first.freq!r}; give every file of the series one frequency (data.resample aggregates "
                        f"readings into steps)")
    series, owner, others = [], {}, []
    said = {note.replace(str(files[0]), "") for note in first.notes}  # the first file's notes, without its name
    for path, panel in zip(files, panels):
        for one in panel.series:
            named = one if within is not None else replace(one, series_id=series_name(path))
            if named.series_id in owner:
                raise DataError(f"{path}: series {named.series_id!r} is also in {owner[named.series_id]}; give each "
                                f"series one file")
            owner[named.series_id] = path
            series.append(named)
        others += [n for n in panel.notes if panel is not first and n.replace(str(path), "") not in said]
    shown = ", ".join(repr(series_name(f)) for f in files[:3]) + (", ..." if len(files) > 3 else "")
    read = (f"{source}: {len(files)} file(s) read, one series each, named by the file ({shown}; column "
            f"{FILE_ID!r} of the forecasts)" if within is None else
            f"{source}: {len(files)} file(s) read, the series of column {within!r} in each")
    more = [f"{source}: {len(others) - _FILE_NOTES} more note(s) on the other files"] if len(others) > _FILE_NOTES \
        else []
    return Panel(series=tuple(series), id_col=id_col or FILE_ID, freq=first.freq, extra_columns=first.extra_columns,
                 notes=(read, *first.notes, *others[:_FILE_NOTES], *more), timestamp_col=first.timestamp_col,
                 dialect=first.dialect, header=first.header)


def read_panel(path: str | Path | pd.DataFrame | pd.Series, *, timestamp_col: str | Sequence[str] | None = "date",
               columns: Sequence[str] | None = None, id_col: str | Sequence[str] | None = None,
               header: bool | None = True,
               fill: FillMethod | None = None, freq: str | None = None, model_freq: bool = False,
               fill_missing_dates: bool = False, keep: Sequence[str] = (),
               resample: str | None = None, agg: str | Mapping[str, str] | None = None,
               hints: Hints = TRAIN, dialect: Dialect = Dialect(), steps_without_timestamps: bool = False,
               start: str | None = None) -> Panel:
    """Read ``path`` and validate it.

    Args:
        path: CSV file, a Parquet file, a ``.tsf`` file of the Monash forecasting archive (:mod:`forecast.data.tsf`),
            a folder or pattern of files of one series each (:mod:`forecast.data.files`), or a
            DataFrame of the same columns (named ``<DataFrame>`` in messages; a named index is a
            column, an unnamed one of timestamps the timestamp column), or a Series (a DataFrame of one column).
        timestamp_col: the timestamp column; None reads rows as consecutive steps (no calendar). A file
            without it but with one column named date, timestamp, time, ds or datetime (any case) uses that;
            a date column followed by a time-of-day column (``Date;Time``) is read as one timestamp, and
            ``[date, time]`` names such a pair (:mod:`forecast.data.date_time`).
        columns: the numeric columns required, in this order; ``None`` takes every other column (but those
            holding labels, flags or no value at all, each said in a note). Columns present in the file but not
            required are listed in ``extra_columns``.
        id_col: the series id column (many series in one file), or None for one series; a list of columns names
            the series together (:mod:`forecast.data.series_ids`: one id column ``store + item``).
        header: the first line names the columns; ``False`` names them ``0 … n-1``; None: a first line of values
            (numbers, dates) is no header (said in a note).
        fill: fill empty, NaN and infinite cells (``ffill`` then back-fill the head, or linear
            ``interpolate``), within each series; ``None`` refuses them.
        freq: the frequency the timestamps must follow; ``None`` infers it.
        model_freq: ``freq`` is a trained model's: a file at another frequency is refused as such.
        fill_missing_dates: add the rows missing from the timestamps (filled by ``fill``).
        keep: columns taken even with no value (the target: refused as empty rather than left out).
        resample: aggregate the readings into steps of this frequency (:mod:`forecast.data.resample`): timestamps
            may then repeat and be irregular; None reads each row as one step.
        agg: how the readings of a step are aggregated: one of ``resample.HOWS``, or a mapping of some columns
            to theirs (the others ``mean``).
        hints: the remedies messages name (``forecast-train`` keys or ``forecast-predict`` options).
        dialect: how the file is written (``None`` fields are detected where the file makes them clear).
        steps_without_timestamps: where ``timestamp_col`` is a timestamp name (``date``) that the file lacks and
            no column could hold times (every one numbers, none named like a time or a date's part), read the rows
            as consecutive steps (said in a note) rather than refuse the file.
        start: the time of the first step of a file without timestamps (each series' first row, or a table of
            series by steps' first step column): its steps are timed from it at ``freq`` (which it needs), in a
            column named ``timestamp_col`` (``date`` where that is None), and get a calendar
            (:mod:`forecast.data.timed_steps`).

    Raises:
        DataError: missing/unreadable file, missing columns, unparsable, duplicate, unsorted or
            unevenly spaced timestamps, gaps, non-numeric, missing or infinite values. Its message (and a note)
            names a text file's line, the header's line 1, and a Parquet file's or DataFrame's row, from 0 as
            pandas numbers them.
    """
    options = dict(timestamp_col=timestamp_col, columns=columns, header=header, fill=fill, freq=freq,
                   model_freq=model_freq, fill_missing_dates=fill_missing_dates, keep=keep, resample=resample, agg=agg,
                   hints=hints, dialect=dialect, steps_without_timestamps=steps_without_timestamps, start=start)
    files = None if isinstance(path, (pd.DataFrame, pd.Series)) else many_files(path)
    if files is not None:
        return _read_files(files, str(path), id_col, options)
    if is_tsf(path):
        return _read_tsf(Path(path), id_col, options)
    if not lineless(path):
        return _read_one(path, id_col=id_col, options=options, **options)
    return _placed(lambda: _read_one(path, id_col=id_col, options=options, **options), by_row)


def _placed(read: Callable[[], Panel], place: Callable[[str], str]) -> Panel:
    """The panel ``read`` returns, its notes and any refusal's message with their places renamed by ``place``."""
    try:
        panel = read()
    except DataError as exc:
        raise DataError(place(str(exc))) from exc
    return replace(panel, notes=tuple(place(note) for note in panel.notes))


def _read_tsf(path: Path, id_col: str | Sequence[str] | None, options: dict[str, Any]) -> Panel:
    """A ``.tsf`` file read as its long table (:mod:`forecast.data.tsf`): its series named by its first string
    attribute unless ``id_col`` names another, its steps timed by its date attribute (none without one);
    messages and notes name the file and the line of the series."""
    table = read_tsf(path, options["dialect"].encoding or "utf-8")
    settings = {**options, "timestamp_col": table.timestamp_col}
    return _placed(lambda: _read_one(table.cells, id_col=id_col or table.id_col, options=settings, **settings),
                   lambda message: at_lines(message, DATAFRAME, str(path), table.lines))


def lineless(path: str | Path | pd.DataFrame | pd.Series) -> bool:
    """Whether ``path`` is a table without lines (a DataFrame or a Parquet file): messages name its rows."""
    return isinstance(path, (pd.DataFrame, pd.Series)) or Path(path).suffix.lower() in PARQUET


def _read_one(path: str | Path | pd.DataFrame | pd.Series, *, timestamp_col: str | Sequence[str] | None,
              columns: Sequence[str] | None, id_col: str | Sequence[str] | None, header: bool | None,
              fill: FillMethod | None, freq: str | None, model_freq: bool, fill_missing_dates: bool,
              keep: Sequence[str], resample: str | None, agg: str | Mapping[str, str] | None, hints: Hints,
              dialect: Dialect, steps_without_timestamps: bool, start: str | None,
              options: dict[str, Any]) -> Panel:
    """:func:`read_panel` of one file or DataFrame, its places named by line; ``options`` are the settings but
    ``id_col`` as one mapping (a file read as a folder of one)."""
    layout, indexed, headerless = Layout(), [], False
    if isinstance(path, pd.Series):
        path = path.to_frame()
    if isinstance(path, pd.DataFrame):  # cells as Python writes them: only the time options apply
        sep, dialect = ",", dialect.for_frame()
        path, indexed = _time_index_as_column(path, timestamp_col)
    else:
        path = Path(path)
        layout = Layout() if path.suffix.lower() in PARQUET else file_layout(path, dialect.encoding, hints.encoding)
        sep = _separator(path, dialect, layout)
        if header is None and path.suffix.lower() not in PARQUET:
            require_file(path)
            headerless = not _has_header(path, sep, layout)
    header = not headerless if header is None else header
    id_columns = id_parts(id_col)  # columns that name the series together
    id_col = id_name(id_col)
    named = [*([timestamp_col] if isinstance(timestamp_col, str) or timestamp_col is None else timestamp_col),
             dialect.time_col, id_col, *id_columns]
    raw, first_line = _read_raw(path, header, hints, sep, text=named, layout=layout)
    trailing, footer = bool(raw.attrs.get(TRAILING)), tuple(raw.attrs.get(FOOTER, ()))
    csv_file = not isinstance(path, pd.DataFrame) and path.suffix.lower() not in PARQUET
    # the file line of each row of raw
    lines_of = table_lines(path, layout, first_line, len(raw)) if csv_file else first_line + np.arange(len(raw))
    stacked = find_stacked_periods(raw) if header and isinstance(timestamp_col, str) and \
        timestamp_col not in raw.columns else None
    kept_rows = np.arange(len(raw)) if stacked is None else stacked.rows  # the rows of the table as written
    if stacked is not None:
        first = str(raw.columns[0])
        raw = raw.iloc[kept_rows].reset_index(drop=True).rename(columns={first: timestamp_col})
        lines_of = lines_of[kept_rows]
    top, labelled = label_rows(raw) if header else (0, [])
    levels = column_levels(raw, top) if top else None
    renamed = {first: timestamp_col} if stacked is not None else levels or {}
    if top:
        raw = raw.iloc[top:].reset_index(drop=True)
        lines_of = lines_of[top:]
    if levels is not None:
        raw = raw.rename(columns=levels)
    below = rows_below(raw)
    if below:
        raw = raw.iloc[: len(raw) - len(below)]
    # a CSV's cells as written (all text), for number marks; the rows of raw (``written``: label rows at the top,
    # an empty tail and rows with no values off the grid dropped)
    as_written = (lambda: _read_raw(path, header, hints, sep, typed=False, layout=layout)[0].iloc[kept_rows]
                  .iloc[top:].iloc[written].reset_index(drop=True).rename(columns=renamed)) if csv_file else None
    path = Path(DATAFRAME) if isinstance(path, pd.DataFrame) else path
    detected = [f"{SEP_NAMES[sep]}-separated columns"] if dialect.sep is None and layout.sep is None and sep != "," \
        else []
    detected += [ENCODING_NOTES[layout.encoding]] if layout.encoding in ENCODING_NOTES else []
    detected += [f"no header row (line {first_line} holds values): columns named 0 … {len(raw.columns) - 1}"] \
        if headerless else []
    detected += [f"Excel's separator line sep={layout.sep} ({SEP_NAMES.get(layout.sep, repr(layout.sep))}-separated "
                 f"columns)"] if layout.sep is not None else []
    comments = layout.skip - (layout.sep is not None) - layout.table_lines - layout.header_block - layout.other_lines
    detected += [f"a header block of {layout.header_block} lines left out (-BEGIN HEADER- .. -END HEADER-)"] \
        if layout.header_block else []
    detected += [f"{comments} comment line(s) above the header left out"] if comments else []
    detected += ["an empty field at the end of every row, which the header does not name, left out"] if trailing else []
    above = layout.table_above[:60] + ("..." if len(layout.table_above) > 60 else "")
    detected += [f"a table of its own above a blank line left out ({above})"] if layout.table_lines else []
    other = layout.other_above[:60] + ("..." if len(layout.other_above) > 60 else "")
    detected += [f"{layout.other_lines} line(s) of another number of fields above the header left out ({other})"] \
        if layout.other_lines else []
    detected += [f"{len(footer)} line(s) of more fields below the data left out ({footer[0][:60]!r})"] if footer else []
    detected += indexed
    detected += [stacked.note(first)] if stacked is not None else []
    if levels is not None:
        shown = ", ".join(list(levels.values())[1:4]) + (", ..." if len(levels) > 4 else "")
        detected.append(f"{top} row(s) under the header of pandas' levels of columns ({labelled[0]!r} ..), joined "
                        f"into the columns' names ({shown})")
    elif top:
        detected.append(f"{top} row(s) of labels under the header left out ({', '.join(repr(c) for c in labelled[:4])}"
                        f"{', ...' if len(labelled) > 4 else ''})")
    detected += [f"{len(below)} row(s) below the data left out ({', '.join(repr(c[:40]) for c in below[:3])}"
                 f"{', ...' if len(below) > 3 else ''})"] if below else []
    blank = _empty_unnamed(raw) if header else _empty_last_columns(raw)
    if blank:
        raw = raw.drop(columns=blank)
        kind = "unnamed" if header else "last"
        detected.append(f"{len(blank)} empty {kind} column(s) left out ({', '.join(repr(c) for c in blank)})")
    tail = _empty_tail(raw)
    if tail and tail < len(raw):
        raw = raw.iloc[: len(raw) - tail]
        detected.append(f"{tail} empty row(s) at the end left out")
    written = np.arange(len(raw))  # the rows of the table as written that raw keeps
    repeats = _header_repeats(raw) if header else np.zeros(0, dtype=np.int64)
    if repeats.size:
        keep = np.ones(len(raw), dtype=bool)
        keep[repeats] = False
        detected.append(f"{repeats.size} row(s) repeating the header left out (line {lines_of[repeats[0]]}: files "
                        f"joined end to end)")
        raw, lines_of, written = raw[keep].reset_index(drop=True), lines_of[: len(raw)][keep], written[keep]
    counter = _row_numbers(raw) if header else None
    if counter is not None and counter not in (timestamp_col, id_col) and counter not in (columns or ()):
        raw = raw.drop(columns=[counter])
        detected.append(f"an unnamed column of row numbers left out ({counter!r}, the index pandas writes)")
    id_values: dict[str, tuple[str, ...]] = {}  # a joined id's values of the columns it joins
    if id_columns and id_col not in raw.columns and all(c in raw.columns for c in id_columns):
        raw, as_written, id_values = _joined(raw, as_written, id_columns, id_col)
        detected.append(f"series named by columns {' and '.join(repr(c) for c in id_columns)} together ({id_col!r})")
    table: YearTable | PeriodTable | None = None
    if header:
        table = find_year_table(raw, timestamp_col=timestamp_col, id_col=id_col) or \
            find_period_table(raw, timestamp_col=timestamp_col, id_col=id_col)
    if isinstance(table, PeriodTable):
        if table.id_col is None and len(raw) > 1:
            raise DataError(f"{path}: {table.describe()} of {len(raw)} rows, and no column or two name each row's "
                            f"series once (columns: {', '.join(table.left_out)}); {hints.id_col} to the column that "
                            f"names the series, or give each series one row")
        id_col = table.id_col
        if id_parts(id_col) and id_col not in raw.columns:
            raw, as_written, id_values = _joined(raw, as_written, id_parts(id_col), id_col)
    if start is not None:  # steps timed from data.start
        first = first_time(start, freq, path=path, hints=hints)
        refuse_times(table, [str(c) for c in raw.columns], timestamp_col, path=path, hints=hints)
        timestamp_col = timestamp_col if isinstance(timestamp_col, str) else TIMES
        if isinstance(table, PeriodTable):
            table = timed_table(table, first, str(freq))
        else:
            has_ids = id_col is not None and id_col in raw.columns
            raw = timed_rows(raw, timestamp_col, _series_codes(raw[id_col])[0] if has_ids else None, first, str(freq))
        detected.append(f"steps timed from {start} at {freq!r} (data.start)")
    listed = [str(c) for c in raw.columns]
    bounds = interval_columns(raw) if header and table is None and isinstance(timestamp_col, str) \
        and timestamp_col not in listed and find_timestamp_column(listed) is None \
        and named_date_time_pair(listed) is None else None
    if bounds is not None:  # each row an interval: its start is its timestamp
        raw, timestamp_col = raw.drop(columns=[bounds[1]]), bounds[0]
        detected.append(f"intervals from column {bounds[0]!r} to {bounds[1]!r}, each read as its start")
    dated = _dated_column(raw, timestamp_col) if table is None else None
    if dated is not None and _UNNAMED.match(dated):
        raw = raw.rename(columns={dated: timestamp_col})
        detected.append(f"timestamps in the unnamed first column, read as {timestamp_col!r} (the index pandas "
                        f"writes)")
    elif dated is not None:
        where = "the first column" if dated == str(raw.columns[0]) else "the one column of dates"
        timestamp_col = dated
        detected.append(f"timestamps in {where}, {dated!r}")
    source_rows = None  # the row of the file's table each row of raw comes from, where it was reshaped
    column_of: Callable[[str, int], str] = lambda col, row: col  # the file's column of a cell
    if table is not None:
        cells, kept_cells = _table_cells(raw, table, id_col, path)  # (rows, periods) each
        raw = raw.drop(columns=list(table.periods))  # the periods are in cells: their columns go before the melt
        raw, source_rows, as_written, note, period = _melt_table(raw, table, cells, kept_cells, timestamp_col, id_col,
                                                                 as_written)
        del cells, kept_cells
        _arrow_pages_back()  # the table as parsed
        column_of = lambda col, row: period(row) if col == VALUE else col  # noqa: E731
        detected.append(note)
        timestamp_col = None if isinstance(table, PeriodTable) and table.steps else timestamp_col
    stamp_like = [] if table is not None or not isinstance(timestamp_col, str) or timestamp_col in raw.columns \
        else [n for n in raw.columns if named_like_timestamp(str(n))]
    if stamp_like and id_col is None:
        stamp_like = [n for n in stamp_like if n not in timestamp_counters(raw[stamp_like])]
    if table is None and isinstance(timestamp_col, str) and timestamp_col not in raw.columns and not stamp_like:
        parts = find_date_parts(raw, (id_col,)) if header else leading_date_parts(raw)
        if parts is not None and header and list(parts.columns) == ["year"]:  # years alone: read and written so
            timestamp_col, parts = parts.columns["year"], None
            detected.append(f"timestamps from column {timestamp_col!r}")
        if parts is not None:
            summary = parts.summaries(raw)
            if summary.any():  # a year's average among its months: no step of the series
                lines_of, written = lines_of[: len(raw)][~summary], written[~summary]
                raw = raw[~summary].reset_index(drop=True)
                detected.append(f"{int(summary.sum())} row(s) of a year's average (period M13) left out")
            raw = _join_date_parts(raw, parts, timestamp_col, path, lines_of)
            detected.append(parts.note())
        elif not header and leading_epoch(raw):
            detected.append(f"timestamps in the first column, {raw.columns[0]!r}")
            raw = raw.rename(columns={raw.columns[0]: timestamp_col})
    names = list(raw.columns)
    if timestamp_col is not None and not isinstance(timestamp_col, str):
        timestamp_col, time_col = check_pair(timestamp_col)
        dialect = replace(dialect, time_col=time_col)
    timestamp_col, dialect, found_ts = _settle_timestamp(raw, timestamp_col, dialect, path, hints,
                                                         steps=steps_without_timestamps, id_col=id_col)
    if dated is not None and dialect.time_col is not None:  # the dates joined to their times: said so instead
        detected = [d for d in detected if not (d.startswith("timestamps in ") and d.endswith(f", {dated!r}"))]
    detected += found_ts
    if timestamp_col is None and freq is not None and not model_freq:
        raise DataError(f"{path}: {hints.set('freq', freq)} is the step of timestamps, and the file has none (its "
                        f"values are steps without a calendar): leave it out, or give the file timestamps")
    time_col = dialect.time_col
    if id_col is None and table is None and header and timestamp_col is not None and time_col is None:
        found_id = long_format_id(raw, timestamp_col, readings=resample is not None)
        if found_id is not None:
            id_col = found_id[0]
            detected.append(f"series named by column {id_col!r} ({found_id[1]})")
    if id_col is not None and id_col not in names:
        if id_col == FILE_ID and csv_file:  # one file for a model of one series a file
            return _read_files([path], str(path), id_col, options)
        missing = next((c for c in id_columns if c not in names), id_col)  # of the columns that name it together
        of = f" of the series id {id_col!r}" if missing != id_col else ""
        raise DataError(f"{path}: no id column {missing!r}{of} (columns: {', '.join(names)}); {hints.id_col}")
    steps = Steps.of(resample, agg, source=str(path))
    if steps is not None and timestamp_col is None:
        raise DataError(f"{path}: data.resample aggregates readings by their timestamps: name the timestamp column")
    if steps is not None and freq is not None and offset(freq, source=str(path)) != offset(steps.freq):
        raise DataError(f"{path}: data.freq {freq!r} and data.resample {steps.freq!r} differ: leave data.freq out "
                        f"(the steps are data.resample's)")
    if fill_missing_dates and timestamp_col is None:
        raise DataError(f"{path}: filling missing dates needs timestamps; leave out {hints.fill_missing_dates} or "
                        f"name the timestamp column")
    if fill_missing_dates and fill is None:
        raise DataError(f"{path}: {hints.fill_missing_dates} adds empty rows: also pass {hints.fill} to fill them")
    available = [c for c in names if c not in (timestamp_col, time_col, id_col)]
    if steps is not None and steps.counts:  # a log of events: each step's readings counted, the other columns not
        if COUNT in names:
            raise DataError(f"{path}: data.agg=count counts the readings into a column {COUNT!r}, and the file has "
                            f"one; rename it, or aggregate it: data.agg=sum")
        raw, names = raw.assign(**{COUNT: 1.0}), [*names, COUNT]
        columns = [COUNT]
    picked = columns is None  # the reader chooses the columns
    if columns is None:
        labels = one_label_columns(raw, available)
        available = _leave_out(available, list(labels), "holding one label in every row", detected,
                               shown=[f"{c!r}: {v!r}" for c, v in labels.items()])
        if timestamp_col is not None:  # Open Power System Data's local cet_cest_timestamp beside utc_timestamp
            stamped = [c for c in available if c not in keep and (typed_time(raw[c]) or (
                _whole_dates(raw[c]) and _reads_as_dates(raw[c])))]
            available = _leave_out(available, stamped, "of other timestamps", detected)
        available = _leave_out(available, flag_columns(raw, available, dialect.na_values),
                               "of flags or remarks on the values", detected)
        empty = [c for c in available if c not in keep and _no_values(raw[c], dialect)] if header else []
        available = _leave_out(available, empty, "with no value in any row", detected, limit=4)
        columns = available
        extra: tuple[str, ...] = ()
    else:
        missing = [c for c in columns if c not in names]
        if missing:
            raise DataError(f"{path}: missing column(s) {', '.join(missing)} that the model needs "
                            f"(file has: {', '.join(available)})")
        extra = tuple(c for c in available if c not in columns)
    if not columns:
        besides = " and ".join(repr(c) for c in (timestamp_col, time_col, id_col) if c is not None)
        hint = _sep_hint([str(c) for c in raw.columns], hints)
        if not hint and timestamp_col is not None and hints.resample:  # times alone: a log of events
            hint = "a log of events (a row each) is counted into steps by data.resample=FREQ (e.g. h) data.agg=count"
        raise DataError(f"{path}: no numeric columns{' besides ' + besides if besides else ''}"
                        f"{'; ' + hint if hint else ''}")
    if len(raw) == 0:
        raise DataError(f"{path}: the file has {'a header but ' if header else ''}no data rows")

    lines_of = lines_of.astype(np.int32) if len(lines_of) and lines_of.max() < 2**31 else lines_of
    line = lines_of[: len(raw)] if source_rows is None else lines_of[source_rows]  # file line of every row
    del lines_of, source_rows
    if id_col is None:
        groups: list[tuple[str | None, np.ndarray]] = [(None, np.arange(len(raw)))]
    else:
        codes, uniques = _series_codes(raw[id_col])
        empty = np.flatnonzero((uniques == "")[codes])
        if empty.size:
            raise DataError(f"{path}: line {line[int(empty[0])]}: empty series id in column {id_col!r}; "
                            f"give every row its series")
        wide = np.int32 if len(codes) < 2**31 else np.int64
        order = np.arange(len(codes), dtype=wide) if _in_order(codes, len(uniques)) else \
            np.argsort(codes, kind="stable").astype(wide)  # (N,) rows by series
        bounds = np.cumsum(np.bincount(codes, minlength=len(uniques)))[:-1]
        del codes
        groups = list(zip((str(u) for u in uniques), np.split(order, bounds)))
    stamps, order_hint = None, ""
    if timestamp_col is not None:
        rows_of = [rows for _, rows in groups]
        if time_col is None and typed_time(raw[timestamp_col]):
            parsed = typed_timestamps(raw[timestamp_col], rows_of, col=timestamp_col, dialect=dialect,
                                      source=str(path), line=line)
        else:
            per_day = day_periods(raw[time_col]) if time_col is not None and dialect.tz is None \
                and dialect.date_format is None else None
            if per_day is not None:
                _refuse_changed_days(raw[timestamp_col], raw[time_col], per_day, path, line, hints)
            text = as_text(raw[timestamp_col]).str.strip() if time_col is None else join_date_time(
                raw[timestamp_col], raw[time_col], keep_text=dialect.date_format is not None, tz=dialect.tz)
            parsed = parse_timestamps(text, rows_of, col=timestamp_col, dialect=dialect, source=str(path),
                                      line=line, hints=hints)
        stamps, dialect, order_hint = parsed.stamps, parsed.dialect, parsed.order_hint
        detected += parsed.detected
        if _newest_first(stamps, [rows for _, rows in groups]):
            groups = [(name, rows[::-1]) for name, rows in groups]
            detected.append("rows newest first, read oldest first")
        # rows out of order are sorted unless the dates' day-first or month-first reading was a guess (order_hint:
        # then the disorder may be the wrong reading's) or a typical-year file's months of other years
        back = None if order_hint else _first_step_back(stamps, [rows for _, rows in groups])
        if back is not None and not _year_jump(stamps[back[0]], stamps[back[1]]):
            groups = [(name, rows[np.argsort(stamps.asi8[rows], kind="stable")]) for name, rows in groups]
            detected.append(f"rows out of time order read in time order (line {line[back[1]]}: {stamps[back[1]]} "
                            f"after {stamps[back[0]]})")
        copies = copied_rows(raw, stamps, groups, (timestamp_col, time_col)) if table is None and steps is None \
            else None
        if copies is not None and copies.any():
            first = int(np.flatnonzero(copies)[0])
            detected.append(f"{int(copies.sum())} row(s) repeating the row before them, timestamp and every value, "
                            f"left out (the first: line {line[first]}, {stamps[first]})")
            kept = ~copies
            raw, line, stamps, written = raw[kept].reset_index(drop=True), line[kept], stamps[kept], written[kept]
            groups = _kept_groups(groups, kept)
        for name, rows in groups:
            _order(stamps[rows], path, line[rows], timestamp_col, "" if name is None else f" of series {name}",
                   order_hint=order_hint, hints=hints, repeats=steps is not None,
                   labels=lambda: series_columns(raw, stamps, (timestamp_col, time_col), given=id_col),
                   differing=lambda a, b, rows=rows: differing_column(raw, rows[a], rows[b], (timestamp_col, time_col)))
        off_grid = _empty_off_the_grid(raw, columns, stamps, groups, freq, path=path, line=line, hints=hints) \
            if table is None and steps is None else None
        if off_grid is not None:
            on_grid, note = off_grid
            detected.append(note)
            raw, line, stamps = raw[on_grid].reset_index(drop=True), line[on_grid], stamps[on_grid]
            written = written[on_grid]
            groups = _kept_groups(groups, on_grid)
        months = months_of_one_day(stamps) if steps is None else None
        if months is not None:
            stamps = months[0]
            detected.append(f"timestamps all on day {months[1]} of their month, read as their months (MS)")
        stamps = _snap(stamps, groups, detected, path=path, line=line) if steps is None else stamps
        repeated = calendar_columns(raw, [c for c in columns if c not in keep], stamps) if picked else []
        columns = _leave_out(list(columns), repeated, "repeating the timestamps' parts", detected, limit=len(repeated))
        unix = unix_time_columns(raw, [c for c in columns if c not in keep], stamps) if picked else []
        columns = _leave_out(list(columns), unix, "of the timestamps as Unix times", detected)
    if picked and id_col is not None:  # a long file's row numbers: of the file's rows, or of each series' rows
        counters = [c for c in columns if typed_number(raw[c]) and c not in keep]
        numbers = raw[counters].to_numpy(dtype=np.float64)  # (N, len(counters))
        numbered = counting_columns([numbers], counters) or counting_columns([numbers[rows] for _, rows in groups],
                                                                             counters)
        del numbers
        columns = _leave_out(list(columns), numbered, "numbering the file's rows", detected)
        labels_of = series_labels(raw, [c for c in columns if c not in keep], [rows for _, rows in groups],
                                  dialect.na_values)
        shown = [f"{c!r}: {', '.join(v[:3])}{', ...' if len(v) > 3 else ''}" for c, v in labels_of.items()]
        columns = _leave_out(list(columns), list(labels_of), "labelling each series", detected, shown=shown)
    if picked:
        keys = [c for c in key_columns(raw, columns) if c not in keep]
        columns = _leave_out(list(columns), keys, "keying each row (a different value on every row)", detected)
    numeric = numeric_text(raw, columns)  # no words, signs or flags to look for in them
    worded = [c for c in columns if c not in numeric]
    if picked:
        categories = category_columns(raw, worded, dialect.na_values)
        columns = _leave_out(list(columns), [c for c in categories if c not in keep], "of categories", detected,
                             shown=[f"{c!r}: {', '.join(v[:4])}{', ...' if len(v) > 4 else ''}"
                                    for c, v in categories.items() if c not in keep])
    raw, booleans = _booleans_read(raw, worded)
    if booleans:
        written_text = as_written
        as_written = None if written_text is None else (lambda: _booleans_read(written_text(), booleans)[0])
        detected.append(f"column(s) of booleans read as 1 (true) and 0 (false) ({', '.join(map(repr, booleans))})")
    values, marks, coded_cells = _values(raw, columns, path, line, hints, sep=sep, dialect=dialect,
                                         as_written=as_written, column_of=column_of, numeric=numeric)
    detected += [marks] if marks else []
    if fill is None and steps is None:  # nothing fills a missing cell: refused, unless not yet reported
        unreported = _unreported_rows(values, groups)
        _refuse_missing(values, coded_cells | unreported[:, None], raw, columns, path, line, hints, column_of)
        if unreported.any():
            detected.append(_unreported_note(values, unreported, groups, columns, line))
            reported = ~unreported
            values, coded_cells, line = values[reported], coded_cells[reported], line[reported]
            stamps = None if stamps is None else stamps[reported]
            groups = _kept_groups(groups, reported)
    del raw  # the values are read: from here a panel's memory is its values, stamps and lines
    _arrow_pages_back()
    values[~np.isfinite(values)] = np.nan
    coded = int(coded_cells.sum())
    if steps is not None:  # a reading's empty cells are left out of its step's value
        steps_of = aggregate(values, stamps, groups, line, steps, columns, source=str(path), fill=fill, hints=hints)
        values, stamps, groups, line = steps_of.values, steps_of.stamps, steps_of.groups, steps_of.line
        freq, coded = steps.freq, 0
        detected.append(steps_of.note)
    frame_fill: FillMethod | None = fill if fill is not None or not coded else "interpolate"
    missing = int((~np.isfinite(values)).sum()) if frame_fill is not None else 0  # the cells the fill fills

    found: list[tuple[str | None, Gap]] = []  # the gaps of every series
    holidays: list[tuple[str | None, Gap]] = []  # at business days without fill_missing_dates: kept as they are
    spans = [_span(rows) for _, rows in groups]  # each series' rows, a slice where they are one run
    indexes: list[pd.DatetimeIndex | None] = [None] * len(groups)  # each series' timestamps
    if stamps is not None:
        indexes = [stamps[span] for span in spans]
        if freq is None:
            freq = resolve_frequency(indexes, source=str(path), hints=hints)
            whose = "the inferred frequency"
            detected += [f"business days ({freq})"] if is_business(freq) else []
        else:
            offset(freq, source=str(path))
            whose = "the model's frequency" if model_freq else "data.resample" if steps is not None else "data.freq"
        partial = _partial_last_rows(stamps, groups, freq, line) if steps is None else None  # steps lie on their grid
        if partial is not None:
            whole, note = partial
            detected.append(note)
            values, stamps, line = values[whole], stamps[whole], line[whole]
            groups = _kept_groups(groups, whole)
            spans = [_span(rows) for _, rows in groups]
            indexes = [stamps[span] for span in spans]
        for (name, rows), index in (zip(groups, indexes) if steps is None else ()):  # steps lie on their grid
            if model_freq:
                own = infer_freq(index)
                if own is not None and offset(own) != offset(freq):
                    raise DataError(f"{path}: the timestamps{'' if name is None else ' of series ' + name} are at "
                                    f"frequency {own!r} but the model was trained on {freq!r}; resample the file to "
                                    f"{freq!r} or use a model trained at {own!r}")
            gaps = find_gaps(index, freq, source=str(path), lines=line[rows], whose=whose, hints=hints)
            if is_business(freq) and not fill_missing_dates:  # short gaps are holidays: the rows are the steps
                holidays += [(name, g) for g in gaps if g.missing <= HOLIDAY_RUN]
                gaps = [g for g in gaps if g.missing > HOLIDAY_RUN]
            if gaps and not fill_missing_dates:
                refuse_other_step(gaps, index, freq, source=str(path), whose=whose,
                                  series="" if name is None else f" of series {name}",
                                  hints=hints if len(groups) > 1 and whose == "the inferred frequency" else None)
                refuse_gap(gaps, index, freq, source=str(path), whose=whose, hints=hints,
                           series="" if name is None else f" in series {name}")
            found += [(name, g) for g in gaps]
    series = []
    leading = 0  # cells before their column's first value: a fill copies that value back into them
    gapped = {n for n, _ in found}
    names = pd.Index(list(columns))  # one Index for every series' frame
    for (name, _), span, stamped in zip(groups, spans, indexes):
        block = values[span]  # (N_s, C): a view of values where the series' rows are one run
        known = np.isfinite(block)
        leading += int((~np.logical_or.accumulate(known, axis=0)).sum())
        index = pd.RangeIndex(len(block), name=STEP) if stamped is None else stamped.rename(timestamp_col)
        new_rows = None
        if name in gapped:
            added = add_missing_rows(pd.DataFrame(block, index=index, columns=names), freq)
            new_rows = ~added.index.isin(index)  # (N_s filled,)
            block, index = added.to_numpy(dtype=np.float64), added.index
        if frame_fill is not None and (name in gapped or not known.all()):  # nothing missing: as read
            filled_block = _fill(block, columns, frame_fill, path, "" if name is None else f" of series {name}", hints)
            if isinstance(span, slice) and name not in gapped:  # a view of values: filled where it lies
                block[:] = filled_block
            else:
                block = filled_block
        series.append(Series(frame=pd.DataFrame(block, index=index, columns=names, copy=False), extra_columns=extra,
                             series_id=name, added=new_rows))
    notes = [f"{path}: detected {', '.join(detected)}"] if detected else []
    codes = f"written as a missing-value code ({', '.join(dialect.na_values)})"
    if coded and missing == coded:
        notes.append(f"{path}: {coded} cell(s) {codes} filled by {frame_fill}" + ("" if fill else f" ({hints.fill} "
                                                                                                   f"chooses)"))
    elif missing:
        parts = [f"{coded} of them {codes}"] if coded else []
        if leading:
            parts.append(f"{leading} before their column's first value, filled with it")
        notes.append(f"{path}: {missing} missing cell(s) filled by {frame_fill}"
                     + (f" ({'; '.join(parts)})" if parts else ""))
    if found:
        added = sum(g.missing for _, g in found)
        notes.append(f"{path}: added {added} missing row(s) at frequency {freq!r} in {len(found)} gap(s) "
                     f"({describe_gaps(found)}), filled by {fill}")
    if holidays:
        notes.append(holiday_note(holidays, freq, source=str(path), hints=hints))
    return Panel(series=tuple(series), id_col=id_col, freq=freq if stamps is not None else None,
                 extra_columns=extra, notes=tuple(notes), timestamp_col=timestamp_col, dialect=dialect, header=header,
                 id_values=id_values)
