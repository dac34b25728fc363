"""Train / validation / test row ranges from explicit borders or from ratios."""

from __future__ import annotations

from typing import NamedTuple, Sequence

from forecast.data.errors import DataError

SPLITS = ("train", "val", "test")


class RowRange(NamedTuple):
    """Rows ``[start, end)`` a split's windows are cut from (``start`` includes the look-back)."""

    start: int
    end: int


def split_ranges(n_rows: int, *, seq_len: int, borders: Sequence[int] | None = None,
                 ratios: Sequence[float] = (0.7, 0.1, 0.2)) -> dict[str, RowRange]:
    """Row ranges per split.

    Train covers ``[0, b1)``, validation ``[b1, b2)`` and test ``[b2, b3)`` as *targets*; the
    validation and test ranges start ``seq_len`` rows before their border so their first target sits on it.

    Args:
        n_rows: rows in the series.
        seq_len: encoder window length.
        borders: ``[train_end, val_end, test_end]`` (ETT-hour: 8640, 11520, 14400); rows after
            ``test_end`` are unused.
        ratios: used when ``borders`` is None: train, val, test fractions as in the reference
            (``num_train = int(0.7 n)``, ``num_test = int(0.2 n)``, validation the rest).

    Raises:
        DataError: borders out of order or past the data.
    """
    if borders is None:
        if len(ratios) != 3 or any(r <= 0 for r in ratios) or sum(ratios) > 1.0 + 1e-9:
            raise DataError(f"data.ratios must be three positive fractions summing to at most 1, got {list(ratios)}")
        n_train = int(n_rows * ratios[0])
        n_test = int(n_rows * ratios[2])
        whole = abs(sum(ratios) - 1.0) < 1e-9
        n_val = n_rows - n_train - n_test if whole else int(n_rows * ratios[1])
        b1, b2, b3 = n_train, n_train + n_val, n_train + n_val + n_test
    else:
        if len(borders) != 3:
            raise DataError(f"data.borders must be [train_end, val_end, test_end], got {list(borders)}")
        b1, b2, b3 = (int(b) for b in borders)
        if not 0 < b1 < b2 < b3:
            raise DataError(f"data.borders must increase: got {[b1, b2, b3]}")
        if b3 > n_rows:
            raise DataError(f"data.borders end at row {b3} but the file has only {n_rows} rows; "
                            f"use data.ratios or smaller borders")
    return {
        "train": RowRange(0, b1),
        "val": RowRange(max(0, b1 - seq_len), b2),
        "test": RowRange(max(0, b2 - seq_len), b3),
    }


def n_windows(rows: RowRange, seq_len: int, pred_len: int) -> int:
    """Windows in a range: ``len - seq_len - pred_len + 1`` (may be <= 0)."""
    return rows.end - rows.start - seq_len - pred_len + 1


def fits_every_split(n_rows: int, *, seq_len: int, pred_len: int, borders: Sequence[int] | None = None,
                     ratios: Sequence[float] = (0.7, 0.1, 0.2)) -> bool:
    """Whether a series of ``n_rows`` gives at least one window in each split (and holds the borders)."""
    try:
        ranges = split_ranges(n_rows, seq_len=seq_len, borders=borders, ratios=ratios)
    except DataError:
        if borders is None:
            raise  # bad ratios: a setting, not a short series
        b1, b2, b3 = (int(b) for b in borders)
        if not 0 < b1 < b2 < b3:
            raise
        return False
    return all(n_windows(ranges[s], seq_len, pred_len) >= 1 for s in SPLITS)


def windows_that_fit(n_rows: int, *, seq_len: int, label_len: int, pred_len: int,
                     borders: Sequence[int] | None = None, ratios: Sequence[float] = (0.7, 0.1, 0.2)
                     ) -> tuple[int, int, int] | None:
    """The windows ``(seq_len, label_len, pred_len)`` to suggest for a series of ``n_rows`` too short for the given
    ones: the horizon cut to the validation and test spans and to half the training rows, the look-back to half
    the training rows the horizon leaves (as many training windows as steps it looks back), the start token to half
    the look-back; None where even one step each does not fit."""
    ranges = split_ranges(n_rows, seq_len=0, borders=borders, ratios=ratios)
    train = ranges["train"].end
    pred = min(pred_len, ranges["val"].end - ranges["val"].start, ranges["test"].end - ranges["test"].start,
               train // 2)
    seq = min(seq_len, (train - pred) // 2) if pred >= 1 else 0
    if seq < 1:
        return None
    return seq, min(label_len, seq // 2), pred
