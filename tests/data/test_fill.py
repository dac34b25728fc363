"""Filling missing cells on arrays gives what pandas' ``ffill().bfill()`` and linear ``interpolate`` give."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from forecast.data.fill import filled


@pytest.mark.parametrize("seed", range(5))
def test_fills_equal_pandas(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(200):
        rows = int(rng.integers(1, 25))
        values = rng.normal(size=(rows, 3))
        values[rng.random((rows, 3)) < rng.random()] = np.nan  # leading, inner, trailing gaps; empty columns
        frame = pd.DataFrame(values)
        np.testing.assert_array_equal(filled(values, "interpolate"),
                                      frame.interpolate(method="linear", limit_direction="both").to_numpy())
        np.testing.assert_array_equal(filled(values, "ffill"), frame.ffill().bfill().to_numpy())


def test_a_fill_leaves_its_input_as_it_is() -> None:
    values = np.array([[np.nan], [1.0], [np.nan], [3.0], [np.nan]])
    kept = values.copy()
    np.testing.assert_array_equal(filled(values, "interpolate")[:, 0], [1.0, 1.0, 2.0, 3.0, 3.0])
    np.testing.assert_array_equal(filled(values, "ffill")[:, 0], [1.0, 1.0, 1.0, 3.0, 3.0])
    np.testing.assert_array_equal(values, kept)
