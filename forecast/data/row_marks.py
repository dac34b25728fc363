"""Time marks stored once per distinct timestamp: the series of a panel mostly share their dates, so 145,000 daily
series of 550 days need 550 rows of calendar marks and an index into them, not 80 million rows."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import torch
from torch import Tensor

from forecast.data.time_features import time_marks
from forecast.data.windows import as_tensor

SHARED_AT_MOST = 0.5  # distinct timestamps, as a share of the rows, below which the marks are stored once each


@dataclass(frozen=True)
class RowMarks:
    """The marks of N rows as a table of distinct marks and each row's place in it.

    Attributes:
        table: the marks of each distinct timestamp, (U, M) float32.
        rows: each row's row of ``table``, (N,) int32.
    """

    table: Tensor
    rows: Tensor

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def shape(self) -> tuple[int, int]:
        """(N, M), as the marks of every row would have."""
        return len(self.rows), int(self.table.shape[1])

    def __getitem__(self, rows: slice) -> Tensor:
        """The marks of ``rows``, (n, M)."""
        return self.table[self.rows[rows]]


def calendar_marks(index: pd.Index, freq: str | None) -> Tensor | RowMarks:
    """:func:`~forecast.data.time_features.time_marks` of ``index`` (N,): as a :class:`RowMarks` where its distinct
    timestamps are at most :data:`SHARED_AT_MOST` of its rows (a panel of aligned series), else (N, M) float32."""
    codes, distinct = pd.factorize(index)  # (N,), (U,)
    if len(distinct) > SHARED_AT_MOST * len(index):
        return as_tensor(time_marks(index, freq))
    return RowMarks(table=as_tensor(time_marks(distinct, freq)), rows=torch.from_numpy(codes.astype(np.int32)))
