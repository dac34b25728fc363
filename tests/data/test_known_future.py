"""data.future_columns: where the known-future columns go in a window, how they are scaled, what is refused."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from forecast.data.datamodule import ForecastDataModule
from forecast.data.errors import DataError
from forecast.data.known_future import with_known
from forecast.data.spec import DataSpec
from forecast.data.time_features import time_marks
from tests.conftest import etth1_slice

SEQ, LABEL, PRED = 24, 12, 6
TRAIN_END = 700  # data.borders' first: the training rows are [0, 700)
N_CAL = 4  # hourly data: hour, day-of-week, day-of-month, day-of-year


def module(csv: Path, **kwargs: object) -> ForecastDataModule:
    settings = dict(path=str(csv), target="OT", features="M", seq_len=SEQ, label_len=LABEL, pred_len=PRED,
                    borders=[TRAIN_END, 850, 1000], freq="h")
    dm = ForecastDataModule(**{**settings, **kwargs})
    dm.setup()
    return dm


@pytest.fixture
def csv(tmp_path: Path) -> Path:
    return etth1_slice(tmp_path / "etth1.csv", 1000)


def test_future_columns_fill_the_decoder_marks_and_are_never_targets(csv: Path) -> None:
    dm = module(csv, future_columns=["HUFL", "LUFL"])
    spec = dm.spec
    assert spec.future_columns == ("HUFL", "LUFL")
    assert spec.input_columns == ("HULL", "MUFL", "MULL", "LULL", "OT") == spec.target_columns
    assert dm.model_dims()["n_future"] == 2 and dm.model_dims()["enc_in"] == 5
    frame = pd.read_csv(csv, parse_dates=["date"])
    train = frame[["HUFL", "LUFL"]].iloc[:TRAIN_END]
    scaled = ((frame[["HUFL", "LUFL"]] - train.mean()) / train.std(ddof=0)).to_numpy()  # (N, 2)
    calendar = time_marks(pd.DatetimeIndex(frame["date"]), "h")  # (N, 4 + 5)
    for split in ("train", "val", "test"):
        data = dm.datasets[split]
        for i in (0, len(data) - 1):
            batch, o = data[i], data.origin(i)
            e = o + SEQ
            assert batch.x_enc.shape == (SEQ, 5) and batch.y.shape == (PRED, 5)
            assert batch.x_mark_enc.shape == (SEQ, N_CAL + 2 + 5)
            assert batch.x_mark_dec.shape == (LABEL + PRED, N_CAL + 2 + 5)  # start token and horizon
            np.testing.assert_allclose(batch.x_mark_dec[:, N_CAL:N_CAL + 2], scaled[e - LABEL:e + PRED], rtol=1e-5,
                                       atol=1e-5)
            np.testing.assert_allclose(batch.x_mark_enc[:, N_CAL:N_CAL + 2], scaled[o:e], rtol=1e-5, atol=1e-5)
            # the calendar keeps its place: continuous features first, the five fields last
            np.testing.assert_array_equal(batch.x_mark_dec[:, :N_CAL], calendar[e - LABEL:e + PRED, :N_CAL])
            np.testing.assert_array_equal(batch.x_mark_dec[:, -5:], calendar[e - LABEL:e + PRED, -5:])


def test_future_scaler_sees_training_rows_only(csv: Path, tmp_path: Path) -> None:
    before = module(csv, future_columns=["HUFL"]).spec
    frame = pd.read_csv(csv)
    frame.loc[TRAIN_END:, "HUFL"] *= 100  # validation and test rows change, training rows do not
    changed = tmp_path / "changed.csv"
    frame.to_csv(changed, index=False)
    after = module(changed, future_columns=["HUFL"]).spec
    assert after.future_mean == before.future_mean and after.future_scale == before.future_scale
    train = pd.read_csv(csv)["HUFL"].iloc[:TRAIN_END]
    assert after.future_mean == pytest.approx((train.mean(),))
    assert after.future_scale == pytest.approx((train.std(ddof=0),))
    assert after.mean == before.mean  # the inputs' scaler does not see the future column either


def test_univariate_with_a_future_column(csv: Path) -> None:
    dm = module(csv, features="S", future_columns="HUFL")  # one name counts as a list of one
    assert dm.spec.input_columns == ("OT",) and dm.spec.future_columns == ("HUFL",)
    assert dm.datasets["train"][0].x_mark_dec.shape == (LABEL + PRED, N_CAL + 1 + 5)


def test_without_future_columns_the_marks_are_the_calendar(csv: Path) -> None:
    dm = module(csv)
    assert dm.spec.future_columns == () and dm.model_dims()["n_future"] == 0
    assert dm.datasets["train"][0].x_mark_dec.shape == (LABEL + PRED, N_CAL + 5)


def test_with_known_inserts_before_the_calendar_fields() -> None:
    marks = np.arange(2 * 9, dtype=np.float32).reshape(2, 9)  # 4 continuous + 5 fields
    out = with_known(marks, np.array([[-1.0], [-2.0]]))
    np.testing.assert_array_equal(out, np.concatenate([marks[:, :4], [[-1.0], [-2.0]], marks[:, 4:]], axis=1))
    assert with_known(marks, np.zeros((2, 0))) is marks


@pytest.mark.parametrize("kwargs, message", [
    ({"future_columns": ["OT"]}, "data.future_columns: 'OT' is data.target; a known-future column is an input, never "
                                 "a target: drop it from data.future_columns or choose another data.target"),
    ({"future_columns": ["HUFL", "HUFL"]}, "data.future_columns names HUFL more than once; list each column once"),
    ({"future_columns": ["HUFL"], "id_col": "store"},
     "data.future_columns works on a file of one series, not with data.id_col='store'; drop one of the two"),
    ({"future_columns": 3}, "data.future_columns must be a list of column names or null, got 3; "
                            "set data.future_columns=<a list of column names>"),
])
def test_bad_future_columns_refused(csv: Path, kwargs: dict, message: str) -> None:
    with pytest.raises(DataError) as err:
        module(csv, **kwargs)
    assert str(err.value) == message


def test_a_missing_future_column_is_refused(csv: Path) -> None:
    with pytest.raises(DataError) as err:
        module(csv, future_columns=["plan"])
    assert str(err.value) == (f"{csv}: no column 'plan' for data.future_columns (columns: HUFL, HULL, MUFL, MULL, "
                              f"LUFL, LULL, OT); set data.future_columns")


def test_spec_round_trip_keeps_the_future_columns(csv: Path) -> None:
    spec = module(csv, future_columns=["HUFL"]).spec
    assert DataSpec.from_dict(spec.to_dict()) == spec
    old = {k: v for k, v in spec.to_dict().items() if not k.startswith("future_")}  # a checkpoint from before
    assert DataSpec.from_dict(old).future_columns == ()
