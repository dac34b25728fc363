"""How a model's error stands against a floor's: the relative change and the tolerance under which the
two are level. Shared by the run's closing line (``forecast.training.floors.standing``) and the
report's look-back table, so both call the same runs level with, better or worse than a floor. And how
the console writes a score (:func:`score`)."""

from __future__ import annotations

#: relative difference under which a model and a floor are level: a run of the floor itself (the default
#: that kept its start) differs from it by float32 rounding, about 1e-7
LEVEL = 1e-5


def relative_change(mse: float, floor: float) -> float:
    """``(mse - floor) / floor``: negative when the model is better; 0 or inf for a zero floor."""
    if floor > 0:
        return (mse - floor) / floor
    return 0.0 if mse == floor else float("inf")


def score(value: float) -> str:
    """A loss or error for the console: four decimals (``0.3045``), or four significant digits under 0.001, where
    four decimals would read ``0.0000`` (``3.215e-05``)."""
    return f"{value:.4g}" if 0 < abs(value) < 1e-3 else f"{value:.4f}"
