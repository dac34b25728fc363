"""A note for values after the training rows far from anything the training rows held."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule


def write(path: Path, columns: dict[str, np.ndarray]) -> Path:
    rows = len(next(iter(columns.values())))
    pd.DataFrame({"date": pd.date_range("2020-01-01", periods=rows, freq="h"), **columns}).to_csv(path, index=False)
    return path


def setup(path: Path, **kwargs: object) -> None:
    ForecastDataModule(path=str(path), target="y", seq_len=24, label_len=12, pred_len=6, **kwargs).setup()


def test_a_code_that_appears_only_after_the_training_rows_is_named(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture) -> None:
    rng = np.random.default_rng(0)
    visibility = 10 + rng.random(1000)
    visibility[800:] = 9999.0  # a code for "not measured" from the test span on
    csv = write(tmp_path / "codes.csv", {"y": rng.normal(size=1000), "visibility": visibility})
    setup(csv)
    assert capsys.readouterr().err == (
        f"note: {csv}: column 'visibility': 200 values after the training rows lie more than 10 training standard "
        f"deviations from its training mean, 200 of them 9999; if 9999 means missing, set data.na_values=[9999] "
        f"(and data.fill)\n")
    setup(csv, features="S")  # the column is not read: nothing to say
    assert capsys.readouterr().err == ""


def test_a_level_the_training_rows_never_reached_is_said_in_one_line(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture) -> None:
    rng = np.random.default_rng(0)
    trend = np.linspace(0, 1, 1000) ** 4 * 100 + rng.normal(scale=0.1, size=1000)  # (1000,)
    csv = write(tmp_path / "trend.csv", {"y": trend, "a": trend + 1, "b": trend + 2, "c": trend + 3,
                                         "calm": rng.normal(size=1000)})
    setup(csv)
    err = capsys.readouterr().err
    assert err.startswith(f"note: {csv}: columns 'y', 'a', 'b' and 1 more: values after the training rows more than "
                          f"10 training standard deviations from the training mean (")
    assert err.endswith("): the training rows held nothing like them\n") and err.count("\n") == 1
    setup(csv, scale=False)  # unscaled values have no training standard deviations to count in
    assert capsys.readouterr().err == ""


def test_a_panel_gets_the_general_line_only(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # series whose training rows are zeros and whose later rows hold a count of 12: far from each series' own
    # training mean, and common to all of them, yet no missing-value code
    sales = np.zeros((4, 300))
    sales[:, 250:] = 12.0
    frame = pd.DataFrame({"store": np.repeat(["a", "b", "c", "d"], 300),
                          "date": np.tile(pd.date_range("2020-01-01", periods=300, freq="D"), 4),
                          "y": sales.reshape(-1)})
    csv = tmp_path / "panel.csv"
    frame.to_csv(csv, index=False)
    setup(csv, id_col="store")
    assert capsys.readouterr().err == (
        f"note: {csv}: column 'y': values after the training rows more than 10 training standard deviations from "
        f"the training mean (200 in 'y', up to 12): the training rows held nothing like them\n")


def test_an_ordinary_series_gets_no_note(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    rng = np.random.default_rng(0)
    t = np.arange(2000)
    csv = write(tmp_path / "calm.csv", {"y": np.sin(2 * np.pi * t / 24) + 0.3 * rng.standard_t(3, size=2000)})
    setup(csv)
    assert capsys.readouterr().err == ""
