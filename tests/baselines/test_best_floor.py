"""The best floor: fitted on training windows, chosen on validation windows, through train and the default."""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import torch

from forecast.baselines.best_floor import (BestFloor, FittedFloor, Span, by_estimate, choose_floor,
                                           fitted_floors, floor_errors)
from forecast.baselines.ridge import RidgeFloor
from forecast.data.batch import WindowRange
from forecast.training.evidence import window_losses
from forecast.training.pipeline import train
from forecast.data.batch import Batch
from tests.conftest import compose_train, tiny_run_overrides

SIZES = dict(enc_in=2, c_out=2, n_time_features=0, n_future=0, seq_len=24, label_len=0, pred_len=6,
             target_index=[0, 1])


def windows(series: torch.Tensor, start: int, end: int) -> list[Batch]:
    """Every window of ``series[start:end]`` (L, C) in one batch."""
    rows = range(start, end - 24 - 6 + 1)
    x = torch.stack([series[r:r + 24] for r in rows])
    y = torch.stack([series[r + 24:r + 30] for r in rows])
    none = torch.zeros(len(x), 0)
    return [Batch(x, none, none, y)]


@pytest.mark.parametrize("kind,expected", [("walk", "naive"), ("seasonal", "ridge")])
def test_the_floor_with_the_lowest_validation_mse_forecasts(kind: str, expected: str) -> None:
    gen = torch.Generator().manual_seed(0)
    t = torch.arange(600, dtype=torch.float64)[:, None]
    if kind == "walk":  # a random walk: a regression on 40 training windows fits noise, the last value does not
        series = torch.cumsum(torch.randn(600, 2, generator=gen, dtype=torch.float64), dim=0)
    else:  # a 12-step cycle with noise: the ridge sees it, the last value does not
        series = torch.sin(2 * torch.pi * t / 12) + 0.05 * torch.randn(600, 2, generator=gen, dtype=torch.float64)
    series = series.float()
    model = BestFloor(dims=SIZES, period=None)
    assert model.names == ["naive", "mean", "ridge"] and model.chosen == "ridge"  # until validation speaks
    model.fit_closed_form(windows(series, 0, 70))
    validation = windows(series, 70, 600)
    errors = floor_errors(model.candidates, validation)
    model.select_on_validation(validation)
    assert model.chosen == min(errors, key=lambda name: errors[name][0]) == expected
    batch = validation[0]
    torch.testing.assert_close(model(batch.x_enc), model.candidates[expected](batch.x_enc))


def test_a_floor_leads_naive_only_with_evidence() -> None:
    # per-window losses of overlapping windows (moving averages over 24 shocks): the ridge 2.4% under
    # naive by noise, the seasonal naive 40% under it throughout, the mean above it
    rng = np.random.default_rng(3)
    naive = 1.0 + np.convolve(rng.normal(size=1524), np.ones(24) / 24, "valid")[:1500] ** 2  # (1500,)
    noise = np.convolve(rng.normal(size=1524), np.ones(24) / 24, "valid")[:1500]
    losses = {"naive": naive, "mean": naive * 1.5, "seasonal_naive": naive * 0.6, "ridge": naive - 0.02 + noise}
    chosen, verdicts = choose_floor({k: losses[k] for k in ("naive", "mean", "ridge")}, lag=48)
    assert losses["ridge"].mean() < naive.mean() and chosen == "naive"
    assert [v.challenger for v in verdicts] == ["mean", "ridge"] and not any(v.replace for v in verdicts)
    chosen, _ = choose_floor(losses, lag=48)
    assert chosen == "seasonal_naive"  # eligible, and lower than the (ineligible) ridge


def test_a_floor_that_fits_nothing_may_show_its_evidence_on_the_training_windows_too() -> None:
    # per-window losses of naive and the window mean: level on ordinary windows (the mean 2% behind), and
    # 24 windows in a row where naive carries a spike forward (loss 60 against 3): once in validation, nine
    # times in training; the ridge leads naive on validation by noise
    rng = np.random.default_rng(0)

    def span(windows: int, spikes: list[int]) -> tuple[np.ndarray, np.ndarray]:
        naive = 1.0 + 0.1 * rng.random(windows)  # (W,)
        mean = naive * 1.02
        for start in spikes:
            naive[start:start + 24], mean[start:start + 24] = 60.0, 3.0
        return naive, mean

    val_naive, val_mean = span(800, [400])
    train_naive, train_mean = span(5000, list(range(250, 5000, 550)))
    val = {"naive": val_naive, "mean": val_mean, "ridge": val_naive - 0.05 + 0.5 * rng.standard_normal(800)}
    wider = {"mean": Span("training and validation", np.concatenate([train_naive, val_naive]),
                          np.concatenate([train_mean, val_mean]))}
    assert val["mean"].mean() < val["ridge"].mean() < val["naive"].mean()
    chosen, verdicts = choose_floor(val, lag=48)
    assert chosen == "naive" and not any(v.replace for v in verdicts)  # one spike in validation is no evidence
    chosen, verdicts = choose_floor(val, lag=48, wider=wider)
    assert chosen == "mean"
    assert [(v.challenger, v.span, v.replace) for v in verdicts] == [
        ("mean", "validation", False), ("ridge", "validation", False), ("mean", "training and validation", True)]
    assert verdicts[2].line().startswith(
        "mean replaces naive: mean's 67.0% training and validation gain is significant (p = 0.00022, 5800 windows")
    # evidence on the wider span makes the mean eligible; validation still ranks the eligible
    val["mean"] = val["naive"] * 1.02
    wider["mean"].challenger[-800:] = val["mean"]
    assert choose_floor(val, lag=48, wider=wider)[0] == "naive"


def test_where_no_span_can_be_weighed_the_lowest_mse_on_the_widest_chooses() -> None:
    # a short file: 4 validation windows and 10 held-out training and validation windows at lag 48, fewer than two
    # blocks of 49 on both; the ridge first (the floor that needs evidence only where there can be some)
    val = {"ridge": np.full(4, 0.84), "naive": np.full(4, 0.79), "mean": np.full(4, 0.38), "seasonal": np.full(4, 0.44)}
    wider = {name: Span("held-out training and validation", np.r_[np.full(6, 1.0), val["ridge"]],
                        np.r_[held, val[name]])
             for name, held in (("naive", np.full(6, 1.3)), ("mean", np.full(6, 0.5)), ("seasonal", np.full(6, 0.2)))}
    chosen, verdicts = choose_floor(val, lag=48, wider=wider)
    assert chosen == "seasonal"  # 0.296 on the 10 windows against the mean's 0.452: the widest span ranks them
    assert by_estimate(verdicts) == "held-out training and validation" and not any(v.replace for v in verdicts)
    assert choose_floor(val, lag=48)[0] == "mean" and by_estimate(choose_floor(val, lag=48)[1]) == "validation"
    # two blocks on the widest span: the evidence rule, under which nothing replaces the ridge
    long = {name: Span(span.name, np.r_[np.full(94, 1.0), span.incumbent], np.r_[np.full(94, 1.0), span.challenger])
            for name, span in wider.items()}
    chosen, verdicts = choose_floor(val, lag=48, wider=long)
    assert by_estimate(verdicts) is None and chosen == "ridge"
    assert choose_floor({"ridge": np.full(4, 0.8)}, lag=48) == ("ridge", [])  # nothing to compare


def test_best_floor_weighs_the_floors_against_the_ridge_on_the_later_training_windows_too() -> None:
    # a random walk: the ridge, the floor that needs no evidence, trails the last value by noise on validation;
    # its copy fitted on the earlier training windows trails it on the later ones by a margin that is evidence
    gen = torch.Generator().manual_seed(1)
    series = torch.cumsum(torch.randn(3000, 2, generator=gen), 0)
    model = BestFloor(dims=SIZES, period=None)
    model.fit_closed_form(windows(series, 0, 2000))
    model.select_on_validation(windows(series, 2000, 3000))
    lines = [v.line() for v in model.verdicts]
    assert [(v.incumbent, v.challenger, v.span) for v in model.verdicts] == [
        ("ridge", "naive", "validation"), ("ridge", "mean", "validation"),
        ("ridge", "naive", "held-out training and validation"), ("ridge", "mean", "held-out training and validation")]
    assert lines[0].startswith("kept ridge over naive: naive's 0.2% validation gain is not significant (p = 0.25)")
    # the ridge fitted on the first 985 training windows, both scored on the last 980 (6 = pred_len left out)
    assert lines[2].startswith("naive replaces ridge: naive's 0.7% held-out training and validation gain is "
                               "significant (p = 0.014, 1951 windows")
    assert model.chosen == "naive"


def test_the_held_out_ridge_is_fitted_on_the_earlier_training_windows_and_scored_on_the_later() -> None:
    gen = torch.Generator().manual_seed(1)
    t = torch.arange(700, dtype=torch.float64)[:, None]
    series = (torch.sin(2 * torch.pi * t / 12) + 0.3 * torch.randn(700, 2, generator=gen, dtype=torch.float64)).float()
    whole = windows(series, 0, 700)[0]  # 671 windows
    batches = [type(whole)(*(f[i:i + 50] for f in whole)) for i in range(0, 671, 50)]  # batches of 50, last 21
    model = BestFloor(dims=SIZES, period=None)
    model.fit_closed_form(batches)
    held_out = model.held_out
    earlier = RidgeFloor(dims=SIZES)
    earlier.fit_closed_form([type(whole)(*(f[:335] for f in whole))])
    later = [type(whole)(*(f[341:] for f in whole))]  # no row that a held-out window forecasts is in the fit
    expected = window_losses({"naive": model.candidates["naive"], "ridge": earlier}, later)
    assert held_out["ridge"].shape == (330,)
    for name in ("naive", "ridge"):
        np.testing.assert_allclose(held_out[name], expected[name], rtol=1e-6)
    model.fit_closed_form(windows(series, 0, 39))  # 10 windows: 5 fitted, none left after the 6 left out
    assert model.held_out is None


def test_an_adopted_fit_is_the_fit_and_is_not_made_again(monkeypatch: pytest.MonkeyPatch) -> None:
    gen = torch.Generator().manual_seed(2)
    t = torch.arange(900, dtype=torch.float64)[:, None]
    noise = 0.3 * torch.randn(900, 2, generator=gen, dtype=torch.float64)
    series = (torch.sin(2 * torch.pi * t / 12) + noise).float()
    training, validation = windows(series, 0, 600), windows(series, 600, 900)
    report = RidgeFloor(dims=SIZES, alpha=1.0)
    fitted = {"ridge": FittedFloor(report, report.fit_closed_form(training))}
    fresh, adopting = BestFloor(dims=SIZES, period=12), BestFloor(dims=SIZES, period=12)
    other = BestFloor(dims=SIZES, period=12, ridge=functools.partial(RidgeFloor, alpha=10.0))
    rows = fresh.fit_closed_form(training)
    assert adopting.adopt(fitted) == ["ridge"] and other.adopt(fitted) == []  # alpha 10 is another floor
    fits = []  # the alpha of each ridge fitted from here on
    original = RidgeFloor.fit_closed_form
    monkeypatch.setattr(RidgeFloor, "fit_closed_form",
                        lambda self, batches: fits.append(self.alpha) or original(self, batches))
    assert adopting.fit_closed_form(training) == rows == 571 * 2
    assert fits == [1.0]  # only the copy on the earlier half of the training windows
    for name, state in fresh.state_dict().items():
        assert torch.equal(adopting.state_dict()[name], state), name
    for name in fresh.held_out:
        np.testing.assert_array_equal(adopting.held_out[name], fresh.held_out[name])
    fresh.select_on_validation(validation)
    adopting.select_on_validation(validation)
    assert adopting.chosen == fresh.chosen == "ridge"
    assert [v.line() for v in adopting.verdicts] == [v.line() for v in fresh.verdicts]
    other.fit_closed_form(training)
    assert fits[1:] == [10.0, 10.0] and not torch.equal(other.candidates["ridge"].weight, report.weight)
    fits.clear()
    adopting.fit_closed_form(training[:1])  # the next fit is its own
    assert fits == [1.0, 1.0]


def test_window_range_takes_windows_across_batch_boundaries() -> None:
    x = torch.arange(23.0)[:, None, None]  # window i holds i
    batches = [Batch(x[i:i + 5], x[i:i + 5], x[i:i + 5], x[i:i + 5]) for i in range(0, 23, 5)]
    taken = list(WindowRange(batches, 3, 17))
    assert [b.x_enc.flatten().tolist() for b in taken] == [[3, 4], [5, 6, 7, 8, 9], [10, 11, 12, 13, 14], [15, 16]]
    assert list(WindowRange(batches, 3, 17)) and len(list(WindowRange(batches, 30, 40))) == 0  # re-iterable


def test_the_choice_is_kept_in_the_state(tmp_path: Path) -> None:
    model = BestFloor(dims=SIZES, period=12)
    model.choice.fill_(model.names.index("seasonal_naive"))
    restored = BestFloor(dims=SIZES, period=12)
    restored.load_state_dict(model.state_dict())
    assert restored.chosen == "seasonal_naive"
    inside = torch.nn.ModuleDict({"floor": BestFloor(dims=SIZES, period=12)})  # loaded through a parent
    inside.load_state_dict({f"floor.{k}": v for k, v in model.state_dict().items()})
    assert inside["floor"].chosen == "seasonal_naive"


def test_the_chosen_floor_forecasts_in_one_compiled_graph() -> None:
    """The choice is read as a Python int, not from its buffer: no graph break under torch.compile where the
    floor is a part of the model (as in ``FloorResidual``)."""

    class Parent(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.floor, self.net = BestFloor(dims=SIZES, period=12), torch.nn.Linear(2, 2)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            """Shapes: x (B, 24, 2) -> (B, 6, 2)."""
            return self.floor(x) + self.net(x)[:, -6:]

    explained = torch._dynamo.explain(Parent())(torch.randn(3, 24, 2))
    assert explained.graph_break_count == 0, [b.reason.splitlines()[0] for b in explained.break_reasons]


def test_the_default_starts_at_the_best_floor_on_validation(small_csv: Path, tmp_path: Path) -> None:
    ruined = train(compose_train(tiny_run_overrides(small_csv, "task.optimizer.lr=50.0"), tmp_path / "ruined"))
    best = ruined["floor_choice"]["chosen"]
    comparisons = ruined["floor_choice"]["comparisons"]
    weighed = [(c["incumbent"], c["challenger"], c["span"]) for c in comparisons]
    others = [name for name in ruined["floors"] if name != "ridge"]  # every floor but the one needing no evidence
    assert weighed == [("ridge", name, "validation") for name in others] + [
        ("ridge", name, "held-out training and validation") for name in others]
    assert fitted_floors(others) == ["cross_ridge", "day_profile", "week_profile"]  # hourly: both profiles
    assert ruined["kept_start"]
    assert ruined["start/val_loss"] == pytest.approx(ruined["floors"][best]["val/mse"], rel=1e-5)
    assert ruined["test/mse"] == pytest.approx(ruined["floors"][best]["test/mse"], rel=1e-5)
    alone = train(compose_train(tiny_run_overrides(small_csv, model="best_floor"), tmp_path / "alone"))
    assert alone["test/mse"] == pytest.approx(ruined["test/mse"], rel=1e-5)


def test_a_weekly_shape_the_look_back_cannot_see_takes_the_week_profile(tmp_path: Path) -> None:
    """Hourly values low on weekends and with a daily cycle, a 24-hour look-back: the ridge sees the day but
    not the weekday; the week's profile holds both, and the run starts from it."""
    index = pd.date_range("2024-01-01", periods=24 * 7 * 16, freq="h")
    rng = np.random.default_rng(0)
    values = (2.0 * (index.dayofweek >= 5) + np.sin(2 * np.pi * index.hour / 24)
              + 0.1 * rng.standard_normal(len(index)))
    csv = tmp_path / "weekly.csv"
    pd.DataFrame({"date": index, "OT": values}).to_csv(csv, index=False)
    overrides = tiny_run_overrides(csv, "data.pred_len=12", model="best_floor")
    metrics = train(compose_train(overrides, tmp_path / "run"))
    floors = metrics["floors"]
    assert metrics["floor_choice"]["chosen"] == "week_profile"
    assert metrics["test/mse"] == pytest.approx(floors["week_profile"]["test/mse"], rel=1e-5)
    assert floors["week_profile"]["test/mse"] < 0.2 * floors["ridge"]["test/mse"]
    assert floors["day_profile"]["test/mse"] > 0.5 * floors["ridge"]["test/mse"]  # the day's misses it too


def test_a_yearly_shape_the_look_back_cannot_see_takes_the_year_profile(tmp_path: Path) -> None:
    """Monthly values with a yearly shape (not a sinusoid) on a slow trend, a 6-month look-back: the ridge
    cannot see last year's same month; the year's profile holds it, and the run starts from it."""
    index = pd.date_range("1960-01-01", periods=12 * 40, freq="MS")
    rng = np.random.default_rng(0)
    shape = np.array([0.0, -1.0, 0.5, 2.0, 1.0, 0.0, -2.0, -1.0, 3.0, 0.0, 1.0, -0.5])
    values = shape[index.month - 1] + 0.01 * np.arange(len(index)) + 0.2 * rng.standard_normal(len(index))
    csv = tmp_path / "monthly.csv"
    pd.DataFrame({"date": index, "OT": values}).to_csv(csv, index=False)
    overrides = tiny_run_overrides(csv, "data.seq_len=6", "data.label_len=3", "data.pred_len=6",
                                   model="best_floor")
    metrics = train(compose_train(overrides, tmp_path / "run"))
    floors = metrics["floors"]
    assert "seasonal_naive" not in floors  # the look-back is shorter than the season
    assert metrics["floor_choice"]["chosen"] == "year_profile"
    assert metrics["test/mse"] == pytest.approx(floors["year_profile"]["test/mse"], rel=1e-5)
    assert floors["year_profile"]["test/mse"] < 0.2 * floors["ridge"]["test/mse"]
