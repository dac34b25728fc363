"""Whether a challenger's validation gain over an incumbent is evidence or noise.

Neighbouring validation windows overlap (at stride 1 they share ``pred_len - 1`` target steps and
almost all their inputs), so 1,500 windows are not 1,500 independent looks, and a gain of a few percent
on them can be chance. :func:`weigh` compares two forecasters on the same windows with a one-sided
Diebold-Mariano test: the per-window loss differences ``d`` (incumbent minus challenger), their mean
over the long-run standard error of a Newey-West (Bartlett kernel) variance with lag ``2 * pred_len``
(the dependence of overlapping horizons, plus as much again for overlapping inputs), read against
Student's t with one degree of freedom per block of ``lag + 1`` windows less one; fewer than two blocks
hold no evidence at all (p = 1: one block of overlapping windows is one look, whatever its spread). The
challenger replaces the incumbent only when

- its validation MSE is lower and the one-sided p-value is under ``alpha`` (0.10), and
- it is also better on the later half of the validation windows, the half closest to the test span,
  so a gain earned early and lost by the end of validation is not trusted.

Numpy only; the statistic equals ``statsmodels``' OLS-on-a-constant t statistic with
``cov_type="HAC"`` (``maxlags=lag``, no small-sample correction).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterable

import numpy as np
import torch
from torch import Tensor

#: one-sided significance level under which a challenger may replace an incumbent
ALPHA = 0.10
#: whether the challenger must also be better on the later half of the validation windows
CONFIRM_LATER = True


def _share(fraction: float) -> str:
    """A gain or loss in percent: 0.051 -> ``5.1%``; under a tenth of a percent to its first digit, 0.00023 ->
    ``0.02%`` (not ``0.0%``), 2e-7 -> ``0.00002%``."""
    p = abs(fraction) * 100
    return f"{p:.1f}%" if p >= 0.1 or p == 0 else \
        np.format_float_positional(p, precision=1, unique=False, fractional=False, trim="-") + "%"


def _signed(fraction: float) -> str:
    """:func:`_share` with its sign: ``+1.4%``, ``-0.02%``."""
    return f"{'-' if fraction < 0 else '+'}{_share(fraction)}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one comparison on the validation windows.

    Attributes:
        incumbent: name of what stands (e.g. ``naive``, ``the start``).
        challenger: name of what would replace it (e.g. ``ridge``, ``the trained residual``).
        replace: whether the challenger replaces the incumbent.
        gain: ``1 - mse(challenger) / mse(incumbent)`` over every validation window (0.05: 5% lower).
        later_gain: the same over the later half of the windows.
        statistic: Diebold-Mariano statistic (positive: the challenger's loss is lower).
        p_value: one-sided p-value of ``statistic`` (Student's t, :func:`degrees_of_freedom`).
        lag: Newey-West lag, in windows.
        windows: windows compared.
        alpha: the significance level used.
        span: the windows compared, ``validation`` or ``training and validation`` (a floor that fits nothing).
    """

    incumbent: str
    challenger: str
    replace: bool
    gain: float
    later_gain: float
    statistic: float
    p_value: float
    lag: int
    windows: int
    alpha: float
    span: str = "validation"

    def too_few(self) -> str:
        """Why a gain of these windows cannot be weighed."""
        return (f"cannot be weighed: {self.windows} windows are fewer than two blocks of {self.lag + 1} (lag "
                f"{self.lag}); a longer validation span (data.ratios) can")

    def line(self) -> str:
        """One line that says what was decided and why."""
        gain = f"{self.challenger}'s {_share(self.gain)} {self.span} {'gain' if self.gain >= 0 else 'loss'}"
        if self.replace:
            return (f"{self.challenger} replaces {self.incumbent}: {gain} is significant (p = {self.p_value:.2g}, "
                    f"{self.windows} windows, lag {self.lag}; later half {_signed(self.later_gain)})")
        if self.gain <= 0:
            why = f"{gain}"
        elif self.unweighable:
            why = f"{gain} {self.too_few()}"
        elif self.p_value >= self.alpha:
            why = f"{gain} is not significant (p = {self.p_value:.2g})"
        else:
            why = f"{gain} (p = {self.p_value:.2g}) does not hold on the later half ({_signed(self.later_gain)})"
        return f"kept {self.incumbent} over {self.challenger}: {why}"

    @property
    def unweighable(self) -> bool:
        """A gain kept out because its windows are too few to weigh it at all."""
        return not self.replace and self.gain > 0 and degrees_of_freedom(self.windows, self.lag) < 1

    def as_dict(self) -> dict[str, Any]:
        """The fields and :meth:`line` (``reason``), for ``metrics.json``."""
        return {**asdict(self), "reason": self.line()}


def newey_west_variance(d: np.ndarray, lag: int) -> float:
    """Long-run variance of ``d`` (W,): autocovariances up to ``lag`` with Bartlett weights ``1 - k / (lag + 1)``."""
    d = np.asarray(d, dtype=np.float64)
    centred = d - d.mean()
    n = len(centred)
    variance = float(centred @ centred) / n
    for k in range(1, min(lag, n - 1) + 1):
        variance += 2.0 * (1.0 - k / (lag + 1)) * float(centred[k:] @ centred[:-k]) / n
    return variance


def diebold_mariano(incumbent: np.ndarray, challenger: np.ndarray, lag: int) -> tuple[float, float]:
    """One-sided Diebold-Mariano test that ``challenger``'s per-window losses are lower than ``incumbent``'s.

    Args:
        incumbent: per-window losses (W,).
        challenger: per-window losses on the same windows (W,).
        lag: Newey-West lag.

    Returns:
        ``(statistic, p_value)``: mean of ``incumbent - challenger`` over its Newey-West standard error,
        and ``P(T >= statistic)`` for Student's t with :func:`degrees_of_freedom` (``W // (lag + 1) - 1``,
        the independent blocks less one), so a few long windows are not taken for many looks; p 1 with
        fewer than two blocks (statistic 0 for one window). A difference with no spread gives p 0 when the
        challenger is better everywhere by the same amount, 1 when the two are equal.
    """
    d = np.asarray(incumbent, dtype=np.float64) - np.asarray(challenger, dtype=np.float64)  # (W,)
    if d.ndim != 1 or len(d) < 1:
        raise ValueError(f"need per-window losses of shape (W,) with W >= 1; got {d.shape}")
    if len(d) < 2:  # one window: no spread to weigh the difference by
        return 0.0, 1.0
    mean = float(d.mean())
    variance = newey_west_variance(d, lag)
    if variance <= 1e-24 * max(mean * mean, 1e-300):
        statistic = math.copysign(math.inf, mean) if mean != 0 else 0.0
    else:
        statistic = mean / math.sqrt(variance / len(d))
    df = degrees_of_freedom(len(d), lag)
    if statistic == 0 or df < 1:
        return statistic, 1.0
    return statistic, student_t_sf(statistic, df)


def degrees_of_freedom(windows: int, lag: int) -> int:
    """Blocks of ``lag + 1`` windows less one (below 1: too few windows to weigh anything)."""
    return windows // (lag + 1) - 1


def student_t_sf(t: float, df: float) -> float:
    """``P(T >= t)`` for Student's t with ``df`` degrees of freedom (regularized incomplete beta)."""
    if math.isinf(t):
        return 0.0 if t > 0 else 1.0
    tail = 0.5 * _incomplete_beta(df / 2.0, 0.5, df / (df + t * t))
    return tail if t > 0 else 1.0 - tail


def _incomplete_beta(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta ``I_x(a, b)`` by its continued fraction (Lentz), to about 1e-12."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1.0) / (a + b + 2.0):  # the fraction converges fast only below the mean; use symmetry
        return 1.0 - _incomplete_beta(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < 1e-14:
            break
    return math.exp(log_front) * value / a


def hac_lag(pred_len: int, stride: int = 1) -> int:
    """Newey-West lag for windows whose origins are ``stride`` steps apart: ``2 * ceil(pred_len / stride)``."""
    return 2 * math.ceil(pred_len / max(stride, 1))


def weigh(incumbent: np.ndarray, challenger: np.ndarray, *, lag: int,
          names: tuple[str, str] = ("the start", "the model"), alpha: float | None = None, confirm_later: bool | None = None,
          span: str = "validation") -> Verdict:
    """Whether ``challenger`` replaces ``incumbent``, from their per-window validation losses (module docstring).

    Args:
        incumbent: per-window MSE (W,) of what stands, windows in time order.
        challenger: per-window MSE (W,) on the same windows.
        lag: Newey-West lag (:func:`hac_lag`).
        names: ``(incumbent, challenger)`` for the verdict's line.
        alpha: one-sided significance level (None: :data:`ALPHA`).
        confirm_later: require a gain on the later half of the windows too (None: :data:`CONFIRM_LATER`).
        span: which windows the losses are of, for the verdict's line.
    """
    alpha = ALPHA if alpha is None else alpha
    confirm_later = CONFIRM_LATER if confirm_later is None else confirm_later
    incumbent = np.asarray(incumbent, dtype=np.float64)
    challenger = np.asarray(challenger, dtype=np.float64)
    if incumbent.shape != challenger.shape:
        raise ValueError(f"per-window losses differ in shape: {incumbent.shape} and {challenger.shape}")
    statistic, p_value = diebold_mariano(incumbent, challenger, lag)
    half = len(incumbent) // 2
    gain, later_gain = _gain(incumbent, challenger), _gain(incumbent[half:], challenger[half:])
    replace = gain > 0 and p_value < alpha and (later_gain > 0 or not confirm_later)
    return Verdict(incumbent=names[0], challenger=names[1], replace=bool(replace), gain=gain, later_gain=later_gain,
                   statistic=statistic, p_value=p_value, lag=lag, windows=len(incumbent), alpha=alpha, span=span)


def _gain(incumbent: np.ndarray, challenger: np.ndarray) -> float:
    """``1 - mean(challenger) / mean(incumbent)``; 0 when the incumbent's loss is 0."""
    base = float(incumbent.mean())
    return 1.0 - float(challenger.mean()) / base if base > 0 else 0.0


@torch.no_grad()
def window_losses(forecasters: dict[str, Callable[..., Tensor]], batches: Iterable[Any]) -> dict[str, np.ndarray]:
    """MSE of each window (mean over its ``pred_len x C_out`` values), for each forecaster, in window order.

    Args:
        forecasters: ``{name: f}`` with ``f(x_enc, x_mark_enc, x_mark_dec) -> (B, P, C_out)``.
        batches: ``Batch``es in window order (an ordered data loader).

    Returns:
        ``{name: (W,) float64}``.
    """
    losses: dict[str, list[np.ndarray]] = {name: [] for name in forecasters}
    for batch in batches:
        for name, forecast in forecasters.items():
            out = forecast(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)  # (B, P, C_out)
            err = (out.double() - batch.y.to(out.device).double()).square()
            losses[name].append(err.reshape(len(err), -1).mean(dim=1).cpu().numpy())  # (B,)
    return {name: np.concatenate(parts) if parts else np.zeros(0) for name, parts in losses.items()}


def lines(verdicts: Iterable[Verdict]) -> list[str]:
    """One line per verdict (:meth:`Verdict.line`), but one for all the gains of a span that cannot be weighed
    against the same incumbent: ``kept ridge over mean and naive: their validation gains (55.1%, 6.7%) cannot be
    weighed: ...``."""
    items: list[Verdict | list[Verdict]] = []  # verdicts, and groups of unweighable ones where the first stood
    groups: dict[tuple[str, str], list[Verdict]] = {}
    for verdict in verdicts:
        if not verdict.unweighable:
            items.append(verdict)
            continue
        key = (verdict.incumbent, verdict.span)
        if key not in groups:
            groups[key] = []
            items.append(groups[key])
        groups[key].append(verdict)
    return [item.line() if isinstance(item, Verdict) else _group_line(item) for item in items]


def _group_line(group: list[Verdict]) -> str:
    """The line of unweighable gains of one span against one incumbent, the largest gain first."""
    group = sorted(group, key=lambda v: -v.gain)
    if len(group) == 1:
        return group[0].line()
    names = ", ".join(v.challenger for v in group[:-1]) + f" and {group[-1].challenger}"
    gains = ", ".join(_share(v.gain) for v in group)
    return f"kept {group[0].incumbent} over {names}: their {group[0].span} gains ({gains}) {group[0].too_few()}"
