"""Test helper: constructor keywords with the data's sizes gathered into one ``dims`` (DataDims)."""

from __future__ import annotations

from typing import Any

from forecast.core.forecaster import DataDims

DIM_KEYS = frozenset(DataDims.__annotations__)


def with_dims(**kwargs: Any) -> dict[str, Any]:
    """``kwargs`` with the DataDims keys among them moved into ``dims`` (``n_future`` 0 unless given)."""
    dims = {"n_future": 0, **{k: v for k, v in kwargs.items() if k in DIM_KEYS}}
    return {"dims": dims, **{k: v for k, v in kwargs.items() if k not in DIM_KEYS}}
