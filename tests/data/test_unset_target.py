"""``data.target`` unset: the file's one value column, every column with ``M``, else a refusal naming the columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError


def _write(tmp_path: Path, columns: dict[str, np.ndarray]) -> Path:
    n = len(next(iter(columns.values())))
    csv = tmp_path / "series.csv"
    pd.DataFrame({"date": pd.date_range("2020-01-01", periods=n, freq="h"), **columns}).to_csv(csv, index=False)
    return csv


def _module(csv: Path, **kw) -> ForecastDataModule:
    dm = ForecastDataModule(path=str(csv), seq_len=24, label_len=12, pred_len=6, **kw)
    dm.setup("fit")
    return dm


@pytest.mark.parametrize("features", ["M", "S", "MS"])
def test_the_one_value_column_is_the_target(tmp_path: Path, features: str, capsys: pytest.CaptureFixture) -> None:
    csv = _write(tmp_path, {"load": np.sin(np.arange(300.0))})
    dm = _module(csv, features=features)
    assert dm.target == "load"
    assert dm.spec.target_columns == ("load",) and dm.spec.input_columns == ("load",)
    assert f"note: {csv}: forecasting column 'load', the one value column" in capsys.readouterr().err


def test_a_column_counting_the_rows_is_no_candidate(tmp_path: Path) -> None:
    csv = _write(tmp_path, {"row": np.arange(300.0), "load": np.sin(np.arange(300.0))})
    assert _module(csv, features="S").spec.target_columns == ("load",)


def test_m_forecasts_every_column_of_several(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    csv = _write(tmp_path, {"a": np.sin(np.arange(300.0)), "b": np.cos(np.arange(300.0))})
    dm = _module(csv, features="M")
    assert dm.target is None and dm.spec.target_columns == ("a", "b")
    assert "forecasting column" not in capsys.readouterr().err


@pytest.mark.parametrize("features", ["S", "MS"])
def test_one_target_of_several_columns_must_be_named(tmp_path: Path, features: str) -> None:
    columns = {f"c{k}": np.sin(np.arange(300.0) + k) for k in range(14)}
    csv = _write(tmp_path, columns)
    with pytest.raises(DataError) as caught:
        _module(csv, features=features)
    assert str(caught.value) == (
        f"{csv}: data.features={features} forecasts one column, and data.target is not set; add data.target=COLUMN, "
        f"one of c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, … (14 in all)")


def test_a_named_target_is_kept(tmp_path: Path) -> None:
    csv = _write(tmp_path, {"a": np.sin(np.arange(300.0)), "b": np.cos(np.arange(300.0))})
    assert _module(csv, features="MS", target="a").spec.target_columns == ("a",)
