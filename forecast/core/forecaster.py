"""The contract every forecaster keeps: models, add-on wrappers and baselines alike.

A forecaster is built from the data's sizes, one argument ``dims`` (:class:`DataDims`, what
``ForecastDataModule.model_dims()`` returns), plus its own options, and maps a window to the horizon:
``forward(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``. A wrapper (``forecast.wrappers``) takes the
factory of another forecaster (``net``) and keeps the same contract, so wrappers nest in any order that
makes sense; a config builds the nest top-down by ``_target_`` with ``_partial_: true`` on every inner
node, and :func:`build_forecaster` completes it with ``dims=``.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Callable, Iterable, Literal, Mapping, NotRequired, Sequence, TypedDict

from hydra.utils import get_object, instantiate
from omegaconf import DictConfig, OmegaConf

from torch import Tensor, nn

from forecast.core.errors import ConfigError


class DataDims(TypedDict):
    """The data's sizes: the ``dims`` argument of every forecaster, documented here once.

    A forecaster reads the keys it needs and ignores the others.

    Keys:
        enc_in: input channels (C_in).
        c_out: predicted channels (C_out).
        n_time_features: continuous calendar-feature columns, the first of the marks.
        n_future: known-future columns of the marks (``data.future_columns``), right after the
            continuous calendar features and before the five integer calendar fields, which stay last
            (``forecast.data.known_future``); M = n_time_features + n_future + 5. A forecaster that
            ignores the marks ignores them too.
        seq_len: input window length.
        label_len: start-token length (T).
        pred_len: horizon (P).
        target_index: positions of the predicted channels among the inputs (all of them for ``M``;
            a forecaster that emits ``c_out`` channels directly, as the Informer, does not read it).
        calendar_step: minutes in one slot of a day or week calendar profile (the data's step where it divides
            a day: :func:`forecast.data.season.calendar_step`); 1 where absent (the dims of a recipe stored
            without it).
    """

    enc_in: int
    c_out: int
    n_time_features: int
    n_future: int
    seq_len: int
    label_len: int
    pred_len: int
    target_index: Sequence[int]
    calendar_step: NotRequired[int]


class Forecaster(nn.Module):
    """Base of every forecaster: ``forward(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.

    Hooks with defaults, overridden where a forecaster has something to say:

    * :meth:`fit_closed_form`: fit closed-form parts (a ridge floor, a calendar profile) on the
      training windows before any gradient step. Wrappers hand it down to what they wrap.
    * :meth:`select_on_validation`: choose among closed-form alternatives on the validation windows
      (``BestFloor`` picks its floor), after :meth:`fit_closed_form` and before training.
    * :meth:`zero_output_`: make the forecast exactly zero until training moves it, so a residual
      added to a floor starts at the floor; :meth:`output_is_zero` says whether it still is.
    * :meth:`takes_prior`: whether ``forward`` also takes ``prior=``, a forecast of the horizon made by
      something else (a floor), to read as an input; a ``FloorResidual`` gives its net the floor's forecast so.
    """

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """Fit the closed-form parts on ``batches`` (the training windows, re-iterable, in order).

        Returns:
            Rows of the last closed-form fit, or None when this forecaster has no closed-form part.
        """
        return None

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """Choose among closed-form alternatives on ``batches`` (the validation windows); nothing by default."""

    def zero_output_(self) -> None:
        """Zero the output layer so that ``forward`` returns zeros until training moves it.

        Raises:
            ConfigError: this forecaster cannot start from a zero forecast.
        """
        raise ConfigError(f"{type(self).__name__} cannot start from a zero forecast, so it cannot be the residual "
                          f"net of a floor; wrap a trained model (e.g. the Informer) instead")

    def output_is_zero(self) -> bool:
        """Whether ``forward`` returns exactly zeros for every finite input, as after :meth:`zero_output_`
        (its output layer is all zeros); False where that is not known."""
        return False

    def takes_prior(self) -> bool:
        """Whether ``forward(x_enc, x_mark_enc, x_mark_dec, prior=...)`` reads ``prior``: a forecast of the
        horizon (B, P, C_out) in the units of ``x_enc``'s target channels; False by default."""
        return False


ForecasterFactory = Callable[..., Forecaster]
"""Builds a forecaster when called with ``dims=`` (:class:`DataDims`): a Hydra ``_partial_`` node, or a class."""


def build_forecaster(config: Any, dims: Mapping[str, Any]) -> nn.Module:
    """Instantiate a forecaster config (``cfg.model``) and complete it with the data's sizes.

    Args:
        config: a Hydra node or plain dict with ``_target_``; nested forecasters carry ``_partial_: true``.
        dims: the data's sizes (:class:`DataDims`).

    Raises:
        ConfigError: a setting of the wrong type (:func:`check_types`).
    """
    check_types(config)
    return instantiate(config, _partial_=True)(dims=DataDims(**dims))


def check_types(config: Any, prefix: str = "model") -> None:
    """Refuse a setting whose value does not fit its constructor's annotation, naming its key.

    Checks the plain annotations (``int``, ``float``, ``bool``, ``str``, ``Literal``, and those or None)
    of every forecaster in the nest; containers and factories are left to the constructors, and so
    are the attention backends.

    Raises:
        ConfigError: e.g. ``model.net.net.d_model must be an int, got 'wide'``.
    """
    node = OmegaConf.to_container(config, resolve=True) if isinstance(config, DictConfig) else config
    try:
        hints = typing.get_type_hints(get_object(node["_target_"]).__init__)
    except (NameError, TypeError):  # an annotation that does not evaluate here: leave it to the constructor
        hints = {}
    for key, value in node.items():
        if key.startswith("_") or key.endswith("_attention"):
            continue
        if isinstance(value, dict) and "_target_" in value:
            check_types(value, f"{prefix}.{key}")
            continue
        allowed = _plain_choices(hints.get(key))
        if allowed is not None and not any(_fits(value, choice) for choice in allowed):
            names = " or ".join(_name(choice) for choice in allowed)
            raise ConfigError(f"{prefix}.{key} must be {names}, got {value!r}")


def _plain_choices(hint: Any) -> list[Any] | None:
    """The types or literal values a plain annotation allows; None for anything else."""
    if hint is None:
        return None
    if typing.get_origin(hint) is Literal:
        return [("literal", v) for v in typing.get_args(hint)]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        parts = [_plain_choices(arg) for arg in typing.get_args(hint)]
        return None if any(p is None for p in parts) else [c for p in parts for c in p]
    return [hint] if hint in (int, float, bool, str, type(None)) else None


def _fits(value: Any, choice: Any) -> bool:
    if isinstance(choice, tuple):
        return value == choice[1]
    if choice is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if choice is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, choice)


def _name(choice: Any) -> str:
    if isinstance(choice, tuple):
        return repr(choice[1])
    return {int: "an int", float: "a number", bool: "true or false", str: "a string", type(None): "null"}[choice]


def describe_composition(config: Any) -> str:
    """The nest of forecasters a model config builds, by class name, e.g.
    ``FloorResidual(RidgeFloor, InstanceNorm(Informer))`` (attention backends are not forecasters)."""
    node = OmegaConf.to_container(config, resolve=False) if isinstance(config, DictConfig) else config
    name = str(node["_target_"]).rsplit(".", 1)[-1]
    inner = [describe_composition(value) for key, value in node.items()
             if isinstance(value, dict) and "_target_" in value and not key.endswith("_attention")]
    return f"{name}({', '.join(inner)})" if inner else name
