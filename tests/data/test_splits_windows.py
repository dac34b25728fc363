"""Borders, window counts and the decoder-mark alignment of the window dataset."""

from __future__ import annotations

import pytest
import torch

from forecast.data.batch import window_count
from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.splits import RowRange, fits_every_split, n_windows, split_ranges, windows_that_fit
from forecast.data.windows import WindowDataset
from tests.conftest import ETTH1


def test_ett_hour_borders_start_val_and_test_seq_len_early() -> None:
    r = split_ranges(17420, seq_len=96, borders=[8640, 11520, 14400])
    assert r == {"train": RowRange(0, 8640), "val": RowRange(8544, 11520), "test": RowRange(11424, 14400)}


@pytest.mark.parametrize("seq_len,pred_len,expected", [(96, 24, (8521, 2857, 2857)), (336, 720, (7585, 2161, 2161))])
def test_window_counts_on_etth1(seq_len: int, pred_len: int, expected: tuple[int, int, int]) -> None:
    dm = ForecastDataModule(path=str(ETTH1), seq_len=seq_len, label_len=48, pred_len=pred_len,
                            borders=[8640, 11520, 14400])
    dm.setup()
    counts = tuple(len(dm.datasets[s]) for s in ("train", "val", "test"))
    assert counts == expected
    for split, count in zip(("train", "val", "test"), counts):
        r = dm.ranges[split]
        assert count == r.end - r.start - seq_len - pred_len + 1


def test_first_val_and_test_targets_sit_on_the_border() -> None:
    dm = ForecastDataModule(path=str(ETTH1), seq_len=96, label_len=48, pred_len=24, borders=[8640, 11520, 14400])
    dm.setup()
    assert dm.datasets["val"].origin(0) + 96 == 8640
    assert dm.datasets["test"].origin(0) + 96 == 11520
    last = dm.datasets["test"]
    assert last.origin(len(last) - 1) + 96 + 24 == 14400


def test_ratio_splits_follow_the_reference() -> None:
    r = split_ranges(1000, seq_len=10, ratios=[0.7, 0.1, 0.2])
    assert r["train"] == RowRange(0, 700)
    assert r["val"] == RowRange(690, 800)
    assert r["test"] == RowRange(790, 1000)


def test_borders_past_the_data_are_refused() -> None:
    with pytest.raises(DataError, match="borders end at row 14400 but the file has only 1000 rows"):
        split_ranges(1000, seq_len=10, borders=[8640, 11520, 14400])


def test_windows_slice_without_future_leakage() -> None:
    n, c = 60, 3
    data = torch.arange(n * c, dtype=torch.float32).view(n, c)  # row r holds r*c .. r*c+2
    marks = torch.arange(n, dtype=torch.float32)[:, None]
    ds = WindowDataset(data, data[:, -1:], marks, start=5, end=50, seq_len=10, label_len=4, pred_len=3)
    assert len(ds) == n_windows(RowRange(5, 50), 10, 3) == 33
    b = ds[2]
    assert b.x_enc.shape == (10, 3) and b.x_mark_enc.shape == (10, 1)
    assert b.x_mark_dec.shape == (7, 1) and b.y.shape == (3, 1)
    enc_rows = b.x_mark_enc[:, 0]
    assert enc_rows.tolist() == list(range(7, 17))
    assert b.x_mark_dec[:, 0].tolist() == list(range(13, 20))  # last label_len known steps + horizon
    assert b.y[:, 0].tolist() == [data[r, -1].item() for r in range(17, 20)]
    assert enc_rows.max() < 17  # every input precedes every target
    with pytest.raises(IndexError):
        ds[33]


def test_too_short_file_names_split_and_sizes(small_csv) -> None:
    dm = ForecastDataModule(path=str(small_csv), seq_len=96, label_len=48, pred_len=101, ratios=[0.7, 0.1, 0.2])
    with pytest.raises(DataError) as caught:
        dm.setup()
    assert str(caught.value) == (f"{small_csv}: the val split has 196 rows, too few for one window of seq_len 96 + "
                                 f"pred_len 101; use data.seq_len=96 data.label_len=48 data.pred_len=100, or a longer "
                                 f"file or other borders/ratios")


@pytest.mark.parametrize("n_rows", [10, 25, 60, 144, 176, 400, 1000])
@pytest.mark.parametrize("borders", [None, "thirds"])
def test_the_windows_suggested_for_a_short_file_fit_every_split(n_rows: int, borders: str | None) -> None:
    cut = None if borders is None else [n_rows // 3, 2 * n_rows // 3, n_rows]
    fit = windows_that_fit(n_rows, seq_len=96, label_len=48, pred_len=24, borders=cut)
    if fit is None:  # not even one step of each
        assert not fits_every_split(n_rows, seq_len=1, pred_len=1, borders=cut)
        return
    seq, label, pred = fit
    assert fits_every_split(n_rows, seq_len=seq, pred_len=pred, borders=cut)
    train = split_ranges(n_rows, seq_len=0, borders=cut)["train"].end
    longest = pred in (24, train // 2) or not fits_every_split(n_rows, seq_len=seq, pred_len=pred + 1, borders=cut)
    assert longest  # the horizon is cut only as far as validation, test or half the training rows need
    assert 1 <= seq <= 96 and label == min(48, seq // 2) and 1 <= pred <= 24


def test_eval_stride_takes_every_kth_validation_and_test_window_and_leaves_training_alone() -> None:
    from forecast.runtime import PROJECT_ROOT
    from forecast.data.datamodule import ForecastDataModule

    def module(eval_stride: int) -> ForecastDataModule:
        dm = ForecastDataModule(path=str(PROJECT_ROOT / "data" / "ETTh1.csv"), seq_len=96, label_len=48, pred_len=24,
                                borders=[8640, 11520, 14400], eval_stride=eval_stride)
        dm.setup("fit")
        return dm

    every, strided = module(1), module(11)
    assert len(strided.ordered_dataloader("val").dataset) == len(strided.datasets["val"])
    assert len(strided.datasets["train"]) == len(every.datasets["train"]) == 8640 - 96 - 24 + 1
    for split in ("val", "test"):
        n = len(every.datasets[split])
        assert len(strided.datasets[split]) == -(-n // 11)
        for i in (0, 1, len(strided.datasets[split]) - 1):
            a, b = strided.datasets[split][i], every.datasets[split][11 * i]
            assert all(torch.equal(x, y) for x, y in zip(a, b))


def test_closed_form_fits_take_every_training_window_whatever_the_training_stride() -> None:
    from forecast.runtime import PROJECT_ROOT
    from forecast.data.datamodule import ForecastDataModule

    dm = ForecastDataModule(path=str(PROJECT_ROOT / "data" / "ETTh1.csv"), seq_len=96, label_len=48, pred_len=24,
                            borders=[8640, 11520, 14400], train_stride=16)
    dm.setup("fit")
    n = 8640 - 96 - 24 + 1
    assert len(dm.datasets["train"]) == -(-n // 16)
    assert len(dm.ordered_dataloader("train").dataset) == n == window_count(dm.ordered_dataloader("train"))
    assert torch.equal(dm.ordered_dataloader("train").dataset[16 * 3].x_enc, dm.datasets["train"][3].x_enc)


def test_a_capped_closed_form_fit_takes_a_fixed_sample_of_every_phase(tmp_path) -> None:
    import numpy as np
    import pandas as pd

    rows, series = 400, 6
    frame = pd.concat([pd.DataFrame({"id": f"s{s}", "date": pd.date_range("2021-01-04", periods=rows, freq="D"),
                                     "OT": np.sin(np.arange(rows) * 2 * np.pi / 7) + s}) for s in range(series)])
    frame.to_csv(tmp_path / "panel.csv", index=False)

    def fit_origins(seed: int) -> np.ndarray:
        dm = ForecastDataModule(path=str(tmp_path / "panel.csv"), target="OT", id_col="id", seq_len=28,
                                label_len=14, pred_len=7, borders=None, fit_max_windows=216, seed=seed)
        dm.setup("fit")
        ids = np.concatenate(list(dm.ordered_dataloader("train").sampler))  # the fit's window ids, in order
        return dm.every_train_window.origins(ids)

    origins = fit_origins(seed=1)
    assert len(origins) == 216 == len(np.unique(origins))
    assert set((origins % rows) % 7) == set(range(7))  # every weekday starts some window (a stride of 7k would not)
    assert np.array_equal(origins, fit_origins(seed=1)) and not np.array_equal(origins, fit_origins(seed=2))


@pytest.mark.parametrize("features,targets,fit_windows", [("M", 7, 1000 // 7), ("S", 1, 1000)])
def test_a_wide_file_fits_its_closed_form_on_at_most_fit_max_rows(features: str, targets: int,
                                                                   fit_windows: int) -> None:
    dm = ForecastDataModule(path=str(ETTH1), target="OT", features=features, seq_len=96, label_len=48, pred_len=24,
                            borders=[8640, 11520, 14400], fit_max_rows=1000, seed=3)
    dm.setup("fit")
    assert len(dm.every_train_window) == 8521
    assert len(dm.fit_ids) == fit_windows == dm.describe_windows()["fit_windows"]
    loader = dm.ordered_dataloader("train")
    assert window_count(loader) == fit_windows == sum(len(batch.y) for batch in loader)
    assert len(dm.ordered_dataloader("train").dataset) == 8521
    assert sum(len(ids) for ids in dm.ordered_dataloader("train").sampler) == fit_windows
    with pytest.raises(DataError, match=r"data.fit_max_rows must be at least 1, got 0"):
        ForecastDataModule(path=str(ETTH1), fit_max_rows=0)


@pytest.mark.parametrize(("seq_len", "label_len", "pred_len", "batch_size", "expected"),
                         [(96, 48, 24, 32, 256), (96, 48, 720, 32, 49), (720, 48, 720, 16, 28),
                          (720, 48, 720, 32, 32), (96, 48, 720, 64, 64)])
def test_the_evaluation_batch_holds_a_fixed_number_of_steps(seq_len: int, label_len: int, pred_len: int,
                                                            batch_size: int, expected: int) -> None:
    """Unset, the validation/test batch is 256 windows at 96 + 48 + 24 steps and shrinks with longer windows
    (memory of a forward pass grows with its steps), never below the training batch; set, it is as given."""
    dm = ForecastDataModule(path=str(ETTH1), seq_len=seq_len, label_len=label_len, pred_len=pred_len,
                            batch_size=batch_size)
    assert dm.eval_batch_size == expected
    assert ForecastDataModule(path=str(ETTH1), seq_len=96, label_len=48, pred_len=720,
                              eval_batch_size=300).eval_batch_size == 300
