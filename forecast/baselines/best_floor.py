"""The closed-form floors of a series, and the one of them that validation gives evidence for."""

from __future__ import annotations

import copy
import logging
from typing import Any, Iterable, Mapping, NamedTuple, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from forecast.baselines.base import Baseline
from forecast.baselines.ridge import RidgeFloor
from forecast.baselines.ridge.cross import CrossRidgeFloor, fits_cross
from forecast.baselines.mean import WindowMean
from forecast.baselines.naive import Naive
from forecast.baselines.seasonal_naive import SeasonalNaive
from forecast.core.errors import ConfigError
from forecast.core.forecaster import DataDims, ForecasterFactory
from forecast.core.standing import score
from forecast.data.batch import WindowRange, window_count
from forecast.data.season import PROFILE_PERIODS
from forecast.training.evidence import Verdict, degrees_of_freedom, hac_lag, lines, weigh, window_losses

log = logging.getLogger("forecast")
RIDGE = "ridge"
CROSS = "cross_ridge"
PROFILE = "_profile"


def candidate_floors(dims: DataDims, period: int | None, ridge: ForecasterFactory = RidgeFloor,
                     profiles: Sequence[str] = (),
                     profile: ForecasterFactory | None = None, cross: bool = False) -> dict[str, nn.Module]:
    """The floors, unfitted: ``naive``, ``mean``, ``seasonal_naive`` (left out when ``period`` is None
    or longer than ``seq_len``), ``ridge`` (``ridge(dims=dims)``, alpha 1 by default), with ``cross``
    ``cross_ridge`` where the data has the channels for it (:class:`~forecast.baselines.ridge.cross.CrossRidgeFloor`,
    :func:`~forecast.baselines.ridge.cross.fits_cross`) and, for each of ``profiles`` (``day``, ``week``, ``year``) where the data has timestamps,
    ``<period>_profile``: the training mean of each calendar slot plus the same ridge on what it leaves
    (``profile(net=ridge, period=..., dims=dims)``).

    Args:
        dims: the data's sizes.
        period: the season length in steps.
        ridge: factory of the ridge floor, with its options.
        profiles: the calendar profiles the frequency holds (:func:`forecast.data.season.profiles_for`).
        profile: factory of a profile around a net
            (:class:`~forecast.wrappers.calendar_residual.CalendarResidual`); None leaves the profiles out.
        cross: try the cross-channel ridge too.

    Raises:
        ConfigError: a profile other than ``day``, ``week`` and ``year``.
    """
    unknown = [name for name in profiles if name not in PROFILE_PERIODS]
    if unknown:
        raise ConfigError(f"floor profiles must be among {', '.join(PROFILE_PERIODS)}, got {list(profiles)} "
                          f"(model.floor.profiles in the default model, model.profiles with model=best_floor; "
                          f"[] for none)")
    floors: dict[str, nn.Module] = {"naive": Naive(dims=dims), "mean": WindowMean(dims=dims)}
    if period is not None and 1 <= period <= int(dims["seq_len"]):
        floors["seasonal_naive"] = SeasonalNaive(dims=dims, period=period)
    floors[RIDGE] = ridge(dims=dims)
    if cross and fits_cross(dims):
        floors[CROSS] = CrossRidgeFloor(dims=dims)
    if profile is not None and int(dims.get("n_time_features", 0)) > 0:
        for name in profiles:
            floors[f"{name}{PROFILE}"] = profile(net=ridge, period=name, dims=dims)
    return floors


def fitted_floors(names: Iterable[str]) -> list[str]:
    """The floors of ``names`` fitted in closed form: the ridges and the profiles on the ridge."""
    return [name for name in names if name in (RIDGE, CROSS) or name.endswith(PROFILE)]


@torch.no_grad()
def floor_errors(floors: Mapping[str, nn.Module], batches: Iterable[Any]) -> dict[str, tuple[float, float]]:
    """MSE and MAE of each floor over every element of every window of ``batches`` (float64 sums).

    Returns:
        ``{floor: (mse, mae)}``.
    """
    squared = {name: 0.0 for name in floors}
    absolute = {name: 0.0 for name in floors}
    count = 0
    for batch in batches:
        count += batch.y.numel()
        for name, floor in floors.items():
            diff = (floor(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec) - batch.y).double()  # (B, P, C_out)
            squared[name] += float(diff.square().sum())
            absolute[name] += float(diff.abs().sum())
    if count == 0:
        raise ValueError("no windows to score the floors on")
    return {name: (squared[name] / count, absolute[name] / count) for name in floors}


class FittedFloor(NamedTuple):
    """A floor fitted in closed form on the training windows, and the regression rows of its fit.

    Attributes:
        module: the fitted floor (a ridge floor, or a calendar profile around one).
        rows: what its ``fit_closed_form`` returned (regression rows: windows x channels).
    """

    module: nn.Module
    rows: int | None


class Span(NamedTuple):
    """Per-window losses of a floor that stands and of one challenger on more windows than validation's.

    Attributes:
        name: which windows, for the verdict's line (``training and validation``).
        incumbent: the standing floor's per-window MSE (W,), windows in time order.
        challenger: the challenger's per-window MSE on the same windows (W,).
    """

    name: str
    incumbent: np.ndarray
    challenger: np.ndarray


def choose_floor(losses: Mapping[str, np.ndarray], *, lag: int,
                 wider: Mapping[str, Span] | None = None) -> tuple[str, list[Verdict]]:
    """The floor the windows give evidence for, and the comparisons behind it.

    The first floor (in the default, the ridge) needs no evidence; every other one is weighed against it
    (:func:`~forecast.training.evidence.weigh`) on the validation windows, and, where ``wider`` holds more
    windows that no fit of theirs has seen, also on those (in the default, the later training windows, the
    fitted floors scored by copies fitted on the earlier ones, and the validation windows). There are more of
    them than validation's: a few rain spikes that the last value carries forward are rare events in one
    validation span, and a short file's validation span holds one or two independent blocks. Of the first and
    those whose gain over it is evidence on either span, the one with the lowest validation MSE is chosen
    (ties: the earlier one). Where even the widest span holds fewer than two blocks, no floor can be weighed
    against another, the first included, whose claim to need no evidence rests on files long enough to fit it:
    the one with the lowest MSE on that span is chosen (:func:`by_estimate`).

    Args:
        losses: ``{floor: per-window validation MSE (W,)}``, the floor that needs no evidence first, windows in
            time order.
        lag: Newey-West lag (:func:`~forecast.training.evidence.hac_lag`).
        wider: ``{floor: Span}`` against the first floor, more windows for some of the others; None: validation
            alone.
    """
    names = list(losses)
    incumbent = names[0]
    if not len(losses[incumbent]):
        raise ValueError("no windows to choose the floor on")
    verdicts = [weigh(losses[incumbent], losses[name], lag=lag, names=(incumbent, name)) for name in names[1:]]
    verdicts += [weigh(span.incumbent, span.challenger, lag=lag, names=(incumbent, name), span=span.name)
                 for name, span in (wider or {}).items() if name != incumbent]
    if by_estimate(verdicts):
        widest = dict(losses)  # every floor's losses on the widest span
        if wider:
            widest[incumbent] = next(iter(wider.values())).incumbent
            widest.update({name: span.challenger for name, span in wider.items()})
        return min(names, key=lambda name: float(np.mean(widest[name]))), verdicts
    evidenced = {v.challenger for v in verdicts if v.replace}
    eligible = [name for name in names if name == incumbent or name in evidenced]
    return min(eligible, key=lambda name: float(np.mean(losses[name]))), verdicts


def by_estimate(verdicts: Sequence[Verdict]) -> str | None:
    """The widest span of ``verdicts`` where every comparison is too short to weigh (fewer than two blocks of
    windows on every span): the floors are chosen by their MSE there; None where some comparison can be weighed."""
    if not verdicts or any(degrees_of_freedom(v.windows, v.lag) >= 1 for v in verdicts):
        return None
    return max(verdicts, key=lambda v: v.windows).span


def _read_choice(module: "BestFloor", incompatible_keys: Any) -> None:
    """After a state dict is loaded (a checkpoint, the kept start): the choice it holds."""
    module._chosen = int(module.choice)


class BestFloor(Baseline):
    """Forecasts with the floor that validation gives evidence for: naive, window mean, seasonal naive, ridge,
    the cross-channel ridge, or a calendar profile with the ridge on what it leaves.

    The ridge floors and the profiles are fitted on the training windows (:meth:`fit_closed_form`), and every
    candidate is scored on their later half, the fitted ones as copies fitted on the earlier half; the choice is
    made on the validation windows (:meth:`select_on_validation`), with those training windows as more evidence
    (:func:`choose_floor`), and kept in the checkpoint (``choice``). The ridge floor forecasts until then, and
    is the floor that needs no evidence: another floor (repeating the last value, the window mean, the seasonal
    naive, the cross-channel ridge, a profile) may forecast only when its gain over the ridge is significant
    once the overlap of neighbouring windows is accounted for (:func:`forecast.training.evidence.weigh`), and of
    those the lowest validation MSE wins. On a random walk the ridge's copy fitted on the earlier training
    windows trails the last value on the later ones, which is the last value's evidence; on a series with a
    daily shape a profile wins by far.

    Args:
        dims: the data's sizes.
        ridge: factory of the ridge candidate, with its options (``RidgeFloor`` at alpha 1 when None).
        period: season length of the seasonal-naive candidate in steps; None leaves it out
            (``forecast/conf/model/best_floor.yaml`` derives it from ``data.freq``).
        profiles: the calendar profiles (``day``, ``week``) to try with the ridge; the config derives them
            from ``data.freq`` (:func:`forecast.data.season.profiles_for`).
        profile: factory of a profile around the ridge (``forecast/conf/model/best_floor.yaml``: the calendar
            residual); None leaves the profiles out.
        cross: try the cross-channel ridge (``cross_ridge``) where the data has the channels for it.
    """

    def __init__(self, *, dims: DataDims, ridge: ForecasterFactory | None = None, period: int | None = None,
                 profiles: Sequence[str] = (), profile: ForecasterFactory | None = None,
                 cross: bool = False) -> None:
        super().__init__(dims=dims)
        floors = candidate_floors(dims, period, ridge or RidgeFloor, list(profiles), profile, cross)
        self.candidates = nn.ModuleDict(floors)
        self.names = list(self.candidates)
        self.register_buffer("choice", torch.tensor(self.names.index(RIDGE)))
        self._chosen = self.names.index(RIDGE)  # ``choice`` as a Python int: no tensor read in forward
        self.register_load_state_dict_post_hook(_read_choice)
        self.verdicts: list[Verdict] = []
        self._adopted: dict[str, int | None] = {}  # candidates fitted by :meth:`adopt`, for the next fit only
        #: per-window MSE of every candidate on the later training windows (less the first ``pred_len`` of
        #: them), a fitted one's as its copy fitted on the earlier half scores them, set by
        #: :meth:`fit_closed_form`; None before it, or with too few windows
        self.held_out: dict[str, np.ndarray] | None = None

    @property
    def chosen(self) -> str:
        """The name of the floor that forecasts."""
        return self.names[self._chosen]

    def adopt(self, fitted: Mapping[str, FittedFloor]) -> list[str]:
        """Take the state of each of ``fitted`` that is the same floor as a candidate (the same name, class
        and settings, by their printed form: ``str(module)``), fitted on the same training windows that the
        next :meth:`fit_closed_form` is given, which then does not fit it again; returns the names taken."""
        taken = [name for name in self.fitted
                 if name in fitted and str(fitted[name].module) == str(self.candidates[name])]
        for name in taken:
            self.candidates[name].load_state_dict(fitted[name].module.state_dict())
        self._adopted = {name: fitted[name].rows for name in taken}
        return taken

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the ridge and the profiles on the training windows (in window order; re-iterable), and score every
        candidate on their later half (:attr:`held_out`), a fitted one as its copy fitted on their earlier half
        (:meth:`earlier_half`); returns the ridge's regression rows.
        Candidates taken by :meth:`adopt` keep the state they were given."""
        adopted, self._adopted = self._adopted, {}
        rows = {name: adopted[name] if name in adopted else self.candidates[name].fit_closed_form(batches)
                for name in self.fitted}[RIDGE]
        windows = window_count(batches)
        first_held_out = windows // 2 + self.pred_len  # no row a held-out window forecasts was in the earlier fit
        self.held_out = None
        if windows - first_held_out >= 2:
            scored = {name: self.earlier_half(name, batches, windows) if name in self.fitted else self.candidates[name]
                      for name in self.names}
            self.held_out = window_losses(scored, WindowRange(batches, first_held_out, windows))  # each (W_held,)
        return rows

    def earlier_half(self, name: str, batches: Iterable[Any], windows: int) -> nn.Module:
        """A copy of the fitted candidate ``name`` fitted on the earlier half of the ``windows`` training
        windows."""
        earlier = copy.deepcopy(self.candidates[name])
        earlier.fit_closed_form(WindowRange(batches, 0, windows // 2))
        return earlier

    @property
    def fitted(self) -> list[str]:
        """The candidates fitted in closed form: the ridge and the profiles on it."""
        return fitted_floors(self.names)

    @property
    def fits_nothing(self) -> list[str]:
        """The candidates without fitted parameters, the simplest first."""
        return [name for name in self.names if name not in self.fitted]

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """Choose a floor on the validation windows (in window order) by :func:`choose_floor`, the ridge the floor
        that needs no evidence, with the later training windows scored by :meth:`fit_closed_form` as more
        evidence; :attr:`verdicts` keeps each comparison."""
        scored = window_losses(dict(self.candidates.items()), batches)
        losses = {RIDGE: scored[RIDGE], **{name: loss for name, loss in scored.items() if name != RIDGE}}
        wider: dict[str, Span] = {}
        if self.held_out is not None:
            ridge = np.concatenate([self.held_out[RIDGE], losses[RIDGE]])  # (W_held_out + W_val,)
            wider = {name: Span("held-out training and validation", ridge,
                                np.concatenate([self.held_out[name], losses[name]]))
                     for name in losses if name != RIDGE}
        chosen, self.verdicts = choose_floor(losses, lag=hac_lag(self.pred_len), wider=wider)
        self.choice.fill_(self.names.index(chosen))
        self._chosen = self.names.index(chosen)
        log.info("floor on validation: %s (%s)", chosen,
                 ", ".join(f"{name} {score(float(loss.mean()))}" for name, loss in losses.items()))
        estimated = by_estimate(self.verdicts)
        if estimated is not None:
            most = max(v.windows for v in self.verdicts)
            log.info("  %s: the lowest MSE on the %d %s windows, too few to weigh any floor against another (fewer "
                     "than two blocks of %d)", chosen, most, estimated, self.verdicts[0].lag + 1)
            for verdict in self.verdicts:
                log.debug("  %s", verdict.line())
            return
        chosen_mse = float(losses[chosen].mean())
        lower = [v for v in self.verdicts if float(losses[v.challenger].mean()) < chosen_mse]
        for line in lines(lower):  # at INFO only the floors that scored lower than the chosen one yet lost
            log.info("  %s", line)
        for verdict in self.verdicts:
            if verdict not in lower:
                log.debug("  %s", verdict.line())

    def forward(self, x_enc: Tensor, x_mark_enc: Tensor | None = None, x_mark_dec: Tensor | None = None) -> Tensor:
        """Shapes: x_enc (B, seq_len, C_in), marks (B, seq_len, M), (B, T + P, M) -> (B, pred_len, C_out)."""
        return self.candidates[self.chosen](x_enc, x_mark_enc, x_mark_dec)

    def extra_repr(self) -> str:
        return f"{super().extra_repr()}, candidates={self.names}, chosen={self.chosen}"
