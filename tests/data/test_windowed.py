"""The data read without Lightning, and the datamodule that takes it instead of reading again."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import torch

from forecast.data.datamodule import ForecastDataModule
from forecast.data.windowed import SET_UP, WindowedData

SETTINGS = dict(seq_len=24, label_len=12, pred_len=6, val_max_windows=50, eval_max_windows=80,
                fit_max_windows=200)


@pytest.fixture
def csv(tmp_path):
    t = np.arange(1200)
    frame = pd.DataFrame({"date": pd.date_range("2020-01-01", periods=len(t), freq="h"),
                          "a": np.sin(t / 7.0), "b": np.cos(t / 11.0) + 0.01 * t})
    path = tmp_path / "x.csv"
    frame.to_csv(path, index=False)
    return path


def test_a_datamodule_that_takes_the_setup_serves_what_its_own_setup_would(csv) -> None:
    read = WindowedData(path=csv, target="a", **SETTINGS)
    read.setup("fit")
    taken = ForecastDataModule(path=csv, target="a", **SETTINGS)
    taken.take_setup(read)
    own = ForecastDataModule(path=csv, target="a", **SETTINGS)
    own.setup("fit")
    assert set(vars(taken)) == set(vars(own))
    assert all(getattr(taken, name) is getattr(read, name) for name in SET_UP)
    assert taken.spec == own.spec and taken.eval_strides == own.eval_strides
    assert np.array_equal(taken.fit_ids, own.fit_ids) and np.array_equal(taken.round_val_ids, own.round_val_ids)
    for split in ("train", "val", "test"):
        for mine, theirs in zip(taken.ordered_dataloader(split), own.ordered_dataloader(split)):
            assert torch.equal(mine.x_enc, theirs.x_enc) and torch.equal(mine.y, theirs.y)
            assert torch.equal(mine.x_mark_dec, theirs.x_mark_dec)


def test_take_setup_refuses_data_that_is_not_set_up(csv) -> None:
    with pytest.raises(ValueError, match="set up"):
        ForecastDataModule(path=csv, target="a", **SETTINGS).take_setup(WindowedData(path=csv, target="a"))


def test_bad_data_is_refused_before_lightning_is_imported(tmp_path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("date,v\n2020-01-01,1\n2020-01-02,x\n2020-01-03,3\n")
    code = ("import sys; from forecast.cli.train import main\n"
            "try:\n    main()\nexcept SystemExit as e:\n"
            "    print('exit', e.code, 'lightning' in sys.modules, 'sklearn' in sys.modules)\n")
    proc = subprocess.run([sys.executable, "-c", code, "data=csv", f"data.path={bad}", "data.target=v",
                           f"hydra.run.dir={tmp_path / 'run'}"], capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "exit 2 False False", proc.stderr
    assert proc.stderr.strip() == (f"error: {bad}: line 3: column 'v' has non-numeric value 'x'; every data column "
                                   "must be numeric; if 'x' marks a missing value, pass data.na_values=[x], or leave "
                                   "the column out: data.columns=[the columns to use]")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("n_series, cap, scored", [(24, 30, 24), (24, 10, 10)])
def test_a_panel_thinned_to_one_window_a_series_scores_drawn_origins(n_series: int, cap: int, scored: int,
                                                                      tmp_path) -> None:
    """Every series' first window of a panel of aligned series is one date: where the cap leaves one window a
    series, each scored series (all of them, or ``cap`` drawn from a panel of more) gets a drawn origin."""
    from forecast.training.budget import windows_line
    from tests.predict.tiny import panel
    path = tmp_path / "panel.csv"
    panel(n_series, rows=400).to_csv(path, index=False)
    settings = {**SETTINGS, "eval_max_windows": cap}

    def data(seed: int) -> WindowedData:
        made = WindowedData(path=path, id_col="store", target="sales", features="S", seed=seed, **settings)
        made.setup("fit")
        return made

    dm, again, other = data(1), data(1), data(2)
    described = dm.describe_windows()
    assert described["series_read"] == n_series and described["test_drawn"] and described["val_drawn"]
    assert (described["test_windows"], described["test_series"], described["val_series"]) == (scored,) * 3
    for split in ("val", "test"):
        index = dm.datasets[split]
        first = index.starts[index.ends > index.starts]  # (scored,) each drawn window's origin
        splits = [sl.offset + sl.ranges[split].start for sl in dm.slices]  # (S,) each series' first origin
        assert len(set((first - np.asarray(splits)[index.ends > index.starts]).tolist())) > 1
        assert np.array_equal(index.starts, again.datasets[split].starts)
        assert not np.array_equal(index.starts, other.datasets[split].starts)
    assert windows_line(described) == (f"10 test windows, one of each of 10 series drawn from 24" if scored < n_series
                                       else "24 test windows, one of each series at a drawn origin")
