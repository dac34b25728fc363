"""Calendar profile (model=linear_profile, informer_plus): slots from the marks, a training-only fit, removal
and restoration around any forecaster (CalendarResidual)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch
from torch.utils.data import DataLoader

from forecast.attention.full import FullAttention
from forecast.attention.prob import ProbSparseAttention
from forecast.baselines.ridge import RidgeFloor
from forecast.training.pipeline import train
from forecast.data.datamodule import ForecastDataModule
from forecast.data.time_features import time_marks
from forecast.data.windows import WindowDataset, as_tensor
from forecast.core.parameters import count_parameters
from forecast.core.errors import ConfigError
import functools

from forecast.models.informer import Informer
from forecast.wrappers.calendar import CalendarProfile
from forecast.wrappers.calendar_residual import CalendarResidual
from forecast.wrappers.floor_residual import FloorResidual
from forecast.wrappers.instance_norm import InstanceNorm
from forecast.training.recipe import load_checkpoint, load_model
from tests.conftest import compose_train, etth1_slice


def marks(start: str, periods: int, freq: str) -> torch.Tensor:
    """Time marks of a regular index. Shape (periods, M)."""
    return as_tensor(time_marks(pd.date_range(start, periods=periods, freq=freq), freq))


@pytest.mark.parametrize("freq", ["h", "15min"])
def test_slots_are_the_minute_of_the_day_and_of_the_week(freq: str) -> None:
    index = pd.date_range("2016-07-01 00:00", periods=24 * 9, freq=freq)  # starts on a Friday
    m = as_tensor(time_marks(index, freq))
    minute_of_day = torch.as_tensor(index.hour * 60 + index.minute)
    assert torch.equal(CalendarProfile(2, "day").slots(m), minute_of_day)
    assert torch.equal(CalendarProfile(2, "week").slots(m), torch.as_tensor(index.dayofweek * 1440) + minute_of_day)


@pytest.mark.parametrize(("freq", "step"), [("h", 60), ("15min", 15), ("2h", 120)])
def test_slots_at_the_data_step_are_its_steps_of_the_day_and_of_the_week(freq: str, step: int) -> None:
    index = pd.date_range("2016-07-01 00:00", periods=24 * 9, freq=freq)
    m = as_tensor(time_marks(index, freq))
    of_day = torch.as_tensor((index.hour * 60 + index.minute) // step)
    per_day = 1440 // step
    day, week = CalendarProfile(2, "day", step), CalendarProfile(2, "week", step)
    assert torch.equal(day.slots(m), of_day)
    assert torch.equal(week.slots(m), torch.as_tensor(index.dayofweek * per_day) + of_day)
    assert (day.profile.shape, week.profile.shape) == ((per_day, 2), (7 * per_day, 2))


@pytest.mark.parametrize("step", [0, 7, 2000, 60.0])
def test_a_step_that_does_not_divide_a_day_is_refused(step: object) -> None:
    with pytest.raises(ConfigError) as info:
        CalendarProfile(2, "day", step)  # type: ignore[arg-type]
    assert str(info.value) == ("a calendar profile's step must be a whole number of minutes that divides a day "
                               f"(1, 15, 60, ...), got {step!r}")


def test_a_profile_at_the_data_step_forecasts_as_one_by_the_minute() -> None:
    """Hourly data fills 24 of 1,440 minute slots; at its own step the profile holds those 24 and nothing else."""
    values, index = seasonal_series(24 * 30)
    data = loader(values, index, start=0, end=24 * 30, seq_len=24, pred_len=8)
    sizes = dict(enc_in=2, c_out=2, n_time_features=4, n_future=0, seq_len=24, label_len=0, pred_len=8,
                 target_index=[0, 1])
    by_minute = CalendarResidual(net=RidgeFloor, period="week", dims=sizes)  # no calendar_step: minutes
    by_hour = CalendarResidual(net=RidgeFloor, period="week", dims={**sizes, "calendar_step": 60})
    assert by_minute.fit_closed_form(data) == by_hour.fit_closed_form(data)
    assert (by_minute.profile.profile.shape, by_hour.profile.profile.shape) == ((7 * 1440, 2), (168, 2))
    assert torch.equal(by_hour.profile.profile, by_minute.profile.profile[torch.arange(168) * 60])
    assert torch.equal(by_hour.profile.seen, by_minute.profile.seen[torch.arange(168) * 60])
    assert int(by_hour.profile.seen.sum()) == 168 and by_hour.profile.unused_parameters() == 0
    batch = next(iter(data))
    torch.testing.assert_close(by_hour(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec),
                               by_minute(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec), rtol=0, atol=0)


@pytest.mark.parametrize("freq", ["MS", "ME", "QS", "QE"])
def test_year_slots_are_the_month(freq: str) -> None:
    index = pd.date_range("2015-01-01", periods=30, freq=freq)
    assert torch.equal(CalendarProfile(1, "year").slots(as_tensor(time_marks(index, freq))),
                       torch.as_tensor(index.month))


def seasonal_series(n: int, *, noise: float = 0.1, seed: int = 0) -> tuple[np.ndarray, pd.DatetimeIndex]:
    """Two channels: a strong daily shape (not a sinusoid) plus noise, hourly. Shapes: (n, 2)."""
    rng = np.random.default_rng(seed)
    index = pd.date_range("2020-01-01", periods=n, freq="h")
    shape = np.array([0, 0, 0, 0, 1, 3, 4, 2, 1, 1, 1, 1, 2, 2, 1, 1, 1, 3, 5, 4, 2, 1, 0, 0], dtype=np.float64)
    values = np.stack([shape[index.hour], -2 * shape[index.hour]], axis=1) + noise * rng.standard_normal((n, 2))
    return values, index


def loader(values: np.ndarray, index: pd.DatetimeIndex, *, start: int, end: int, seq_len: int, pred_len: int,
           stride: int = 1, targets: list[int] | None = None, label_len: int = 0) -> DataLoader:
    x = as_tensor(values)
    y = x if targets is None else x[:, targets].contiguous()
    data = WindowDataset(x, y, as_tensor(time_marks(index, "h")), start=start, end=end, seq_len=seq_len,
                         label_len=label_len, pred_len=pred_len, stride=stride)
    return DataLoader(data, batch_size=64, shuffle=False)


def test_fit_is_the_mean_of_each_slot_over_the_input_steps() -> None:
    values, index = seasonal_series(24 * 20 + 5)
    profile = CalendarProfile(2, "day")
    # windows that do not overlap: every one of the first 20 * 24 rows is an input step exactly once
    assert profile.fit(loader(values, index, start=0, end=24 * 20 + 5, seq_len=24, pred_len=5, stride=24)) == 24
    expected = pd.DataFrame(values[:24 * 20]).groupby(index.hour[:24 * 20]).mean().to_numpy().copy()  # (24, 2)
    torch.testing.assert_close(profile.profile[torch.arange(24) * 60].double(), torch.as_tensor(expected),
                               rtol=0, atol=1e-6)
    assert profile.profile.abs().sum() == profile.profile[torch.arange(24) * 60].abs().sum()  # unseen slots 0
    assert not profile.profile.requires_grad
    assert torch.equal(profile.seen.nonzero().reshape(-1), torch.arange(24) * 60)
    assert profile.n_fitted() == 24 * 2


def test_count_parameters_counts_only_the_profile_slots_training_saw() -> None:
    values, index = seasonal_series(24 * 20 + 5)
    floor = CalendarResidual(net=RidgeFloor, period="week", dims=dict(enc_in=2, c_out=2, n_time_features=4,
                             n_future=0, seq_len=24, label_len=0, pred_len=5, target_index=[0, 1]))
    ridge_only = 24 * 5 + 5  # W and b
    assert count_parameters(floor) == ridge_only  # nothing fitted yet
    floor.fit_closed_form(loader(values, index, start=0, end=24 * 20 + 5, seq_len=24, pred_len=5))
    assert count_parameters(floor) == ridge_only + 168 * 2  # hourly: 168 slots of the week, 2 channels
    assert sum(p.numel() for p in floor.parameters()) == ridge_only + 7 * 1440 * 2


def test_a_short_window_forecasts_the_daily_shape_only_with_the_cycle() -> None:
    """Eight input steps cannot show a 24-step shape; the profile fitted on training can."""
    values, index = seasonal_series(24 * 60)
    train_end = 24 * 40
    errors = {}
    for cycle in (None, "day"):
        sizes = dict(enc_in=2, c_out=2, n_time_features=4, n_future=0, seq_len=8, label_len=0, pred_len=16,
                     target_index=[0, 1])
        floor = RidgeFloor(dims=sizes) if cycle is None else CalendarResidual(net=RidgeFloor, period=cycle, dims=sizes)
        floor.fit_closed_form(loader(values, index, start=0, end=train_end, seq_len=8, pred_len=16))
        total, count = 0.0, 0
        for batch in loader(values, index, start=train_end - 8, end=len(values), seq_len=8, pred_len=16):
            err = floor(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec) - batch.y
            total, count = total + float(err.pow(2).sum()), count + err.numel()
        errors[cycle] = total / count
    assert errors["day"] < 0.05 < 0.5 < errors[None]  # noise variance 0.01 against the unexplained shape


def test_the_profile_sees_training_rows_only(tmp_path: Path) -> None:
    frame = pd.read_csv(etth1_slice(tmp_path / "a.csv", 1200))
    fitted = []
    for name, rows in (("a", []), ("test_changed", slice(1000, 1200)), ("train_changed", slice(100, 110))):
        changed = frame.copy()
        if name != "a":
            changed.loc[rows, "OT"] += 50.0
        path = tmp_path / f"{name}.csv"
        changed.to_csv(path, index=False)
        dm = ForecastDataModule(path=str(path), seq_len=48, label_len=24, pred_len=24, ratios=(0.7, 0.1, 0.2))
        dm.setup("fit")
        profile = CalendarProfile(7, "day")
        profile.fit(dm.ordered_train_dataloader())
        fitted.append(profile.profile.clone())
    assert torch.equal(fitted[0], fitted[1])  # the test rows changed: the profile did not
    assert not torch.equal(fitted[0], fitted[2])  # a training row changed: it did


SIZES = dict(enc_in=3, c_out=2, n_time_features=4, n_future=0, seq_len=24, label_len=12, pred_len=8,
             target_index=[0, 2])
INFORMER = functools.partial(Informer, encoder_attention=ProbSparseAttention, decoder_attention=FullAttention,
                             cross_attention=FullAttention, d_model=16, n_heads=2, d_ff=32, dropout=0.0)


def informer_plus(period: str | None = "day") -> CalendarResidual:
    """informer_plus's composition at a tiny width."""
    torch.manual_seed(0)
    residual = functools.partial(FloorResidual, floor=RidgeFloor,
                                 net=functools.partial(InstanceNorm, net=INFORMER, restore_mean=False))
    return CalendarResidual(net=residual, period=period, dims=SIZES).eval()


def test_the_wrapped_net_forecasts_the_windows_without_the_profile_and_it_is_added_back() -> None:
    torch.manual_seed(0)
    with_profile = CalendarResidual(net=functools.partial(InstanceNorm, net=INFORMER), dims=SIZES).eval()
    with_profile.profile.profile.normal_()
    m = marks("2021-03-05 07:00", 24 + 8, "h")[None].repeat(2, 1, 1)  # (B, S + P, M)
    x = torch.randn(2, 24, 3)
    x_mark_enc, x_mark_dec = m[:, :24], m[:, 12:]
    profile = with_profile.profile.profile  # (1440, 3): hourly data uses slots 0, 60, ..., 1380
    hours = torch.arange(7, 7 + 32) % 24
    inner = with_profile.net(x - profile[hours[:24] * 60], x_mark_enc, x_mark_dec)
    expected = inner + profile[hours[24:] * 60][:, [0, 2]]
    torch.testing.assert_close(with_profile(x, x_mark_enc, x_mark_dec), expected)


def test_the_profile_is_fitted_first_then_the_floor_on_the_windows_without_it() -> None:
    values, index = seasonal_series(24 * 30)
    values = np.concatenate([values, values[:, :1]], axis=1)  # three channels, targets 0 and 2
    data = loader(values, index, start=0, end=24 * 30, seq_len=24, pred_len=8, targets=[0, 2],
                  label_len=12)
    model = informer_plus()
    rows = model.fit_closed_form(data)
    floor = CalendarResidual(net=RidgeFloor, period="day", dims=SIZES)
    assert rows == floor.fit_closed_form(data) == len(data.dataset) * 2
    torch.testing.assert_close(model.profile.profile, floor.profile.profile)
    torch.testing.assert_close(model.net.floor.weight, floor.net.weight)
    batch = next(iter(data))
    # the Informer's projection starts at zero: the untrained model is exactly the floor with the profile
    torch.testing.assert_close(model(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec),
                               floor(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec), rtol=0, atol=1e-5)


def test_without_a_period_the_wrapper_passes_everything_through() -> None:
    values, index = seasonal_series(24 * 30)
    values = np.concatenate([values, values[:, :1]], axis=1)
    data = loader(values, index, start=0, end=24 * 30, seq_len=24, pred_len=8, targets=[0, 2], label_len=12)
    model = informer_plus(None)
    torch.manual_seed(0)
    inner = FloorResidual(floor=RidgeFloor, net=functools.partial(InstanceNorm, net=INFORMER, restore_mean=False),
                          dims=SIZES).eval()
    assert model.fit_closed_form(data) == inner.fit_closed_form(data)
    assert sorted(model.state_dict()) == sorted(f"net.{k}" for k in inner.state_dict())
    batch = next(iter(data))
    torch.testing.assert_close(model(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec),
                               inner(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec), rtol=0, atol=0)


def test_unknown_period_names_the_choices() -> None:
    with pytest.raises(ConfigError, match=r"^period must be day, week or year, got 'month'$"):
        informer_plus("month")


def test_the_profile_refuses_data_without_timestamps() -> None:
    with pytest.raises(ConfigError, match=r"^the calendar profile reads each step's time of day from its timestamp, "
                                          r"and this data has none \(data.timestamp_col=null\); drop the profile"):
        CalendarResidual(net=RidgeFloor, period="day", dims={**SIZES, "n_time_features": 0})
    assert CalendarResidual(net=RidgeFloor, period=None, dims={**SIZES, "n_time_features": 0}).profile is None


def test_linear_profile_through_train_keeps_its_profile_in_the_checkpoint(tmp_path: Path) -> None:
    csv = etth1_slice(tmp_path / "etth1.csv", 1500)
    runs = {}
    for name in ("linear", "linear_profile"):
        out = tmp_path / name
        runs[name] = train(compose_train(["data=csv", f"data.path={csv}", "data.target=OT", "data.seq_len=24",
                                          "data.label_len=0", "data.pred_len=24", f"model={name}", "logger=none",
                                          "plot=false", "trainer.enable_progress_bar=false"], out))
    assert runs["linear_profile"]["n_params"] == runs["linear"]["n_params"] + 24 * 7  # hourly: 24 slots a day
    assert runs["linear_profile"]["test/mse"] != runs["linear"]["test/mse"]
    checkpoint = load_checkpoint(tmp_path / "linear_profile" / "checkpoints" / "best.ckpt")
    assert checkpoint["forecast_recipe"]["model_dims"]["calendar_step"] == 60
    model, _ = load_model(checkpoint)
    assert model.profile.period == "day" and model.profile.profile.shape == (24, 7)  # hourly: at its step
    assert bool(model.profile.seen.all()) and model.profile.profile.abs().sum() > 0


def test_a_checkpoint_with_a_profile_by_the_minute_still_loads_and_forecasts_the_same(tmp_path: Path) -> None:
    """A recipe stored without ``calendar_step`` (profiles of 1,440 minute slots) builds its profile by the minute."""
    csv = etth1_slice(tmp_path / "etth1.csv", 1500)
    train(compose_train(["data=csv", f"data.path={csv}", "data.target=OT", "data.seq_len=24", "data.label_len=0",
                         "data.pred_len=24", "model=linear_profile", "logger=none", "plot=false",
                         "trainer.enable_progress_bar=false"], tmp_path / "run"))
    path = tmp_path / "run" / "checkpoints" / "best.ckpt"
    checkpoint = load_checkpoint(path)
    model, _ = load_model(checkpoint)
    old = torch.load(path, map_location="cpu", weights_only=False)
    del old["forecast_recipe"]["model_dims"]["calendar_step"]
    hours = torch.arange(24) * 60
    for key, fill in (("net.profile.profile", 0.0), ("net.profile.seen", False)):
        table = torch.full((1440, *old["state_dict"][key].shape[1:]), fill, dtype=old["state_dict"][key].dtype)
        table[hours] = old["state_dict"][key]
        old["state_dict"][key] = table
    torch.save(old, tmp_path / "old.ckpt")
    by_minute, _ = load_model(load_checkpoint(tmp_path / "old.ckpt"))
    assert by_minute.profile.profile.shape == (1440, 7)
    x = torch.randn(4, 24, 7)
    m = marks("2021-03-05 07:00", 48, "h")[None].repeat(4, 1, 1)
    torch.testing.assert_close(by_minute(x, m[:, :24], m[:, 24:]), model(x, m[:, :24], m[:, 24:]), rtol=0, atol=0)
