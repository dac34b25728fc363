"""How long training runs: a budget of optimiser steps in rounds, or the reference's whole epochs.

A round is one Lightning epoch: validation, early stopping, the per-epoch learning-rate schedule and
``last.ckpt`` all happen at its end. Under ``budget`` a round is ``min(round_cap, max(pass, min(round_min,
round_passes x pass)))`` steps, ``pass`` the steps of one pass over the training windows: a large file's round
ends inside a pass (a panel of a million windows trains ``max_epochs x round_cap`` steps, not ``max_epochs``
passes), a small file's repeats its pass up to ``round_passes`` times to reach ``round_min`` (a file of 84 steps a
pass trains 200 a round, one of 4 steps a pass 16), and a file in between (ETTh1: 266) trains exactly as epochs
would. A step's cost grows with the file's channels (the input embedding reads every one), so for a file of more
than ``round_channels`` input channels ``round_cap`` is scaled by ``round_channels / channels``, down to
``round_min``: a round of 862 channels is 200 steps, not one pass of 380. ``trainer.max_epochs`` counts the
rounds, so the budget is ``max_epochs x round steps`` whatever the size of the data (``train.max_steps`` sets it
in steps instead, met in whole rounds of equal length, so every step of the budget is validated:
``ceil(max_steps / rounds)`` steps in each of the fewest rounds that fit it, at most ``rounds - 1`` steps above
it). ``schedule: epochs`` makes every round a whole pass (the papers' protocol).
Under ``budget`` with rounds, ``extra_rounds`` more rounds may follow the last one, one at a time, while each
round still lowers the validation loss by ``extra_gain`` of the best round before it
(:class:`~forecast.training.extra_rounds.ExtraRounds`).
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Literal

import lightning as L

from forecast.data.errors import DataError
from forecast.training.extra_rounds import ExtraRounds

log = logging.getLogger("forecast")


@dataclass(frozen=True)
class TrainPlan:
    """The ``train`` settings.

    Attributes:
        schedule: ``budget`` (rounds of ``round_min`` to ``round_cap`` steps) or ``epochs`` (whole passes).
        round_cap: most optimiser steps in a round under ``budget``.
        round_min: fewest optimiser steps in a round under ``budget``, reached by repeating a shorter pass ...
        round_passes: ... at most this many times a round.
        round_channels: the input channels a ``round_cap`` step is counted at: a wider file's round is at most
            ``round_cap x round_channels / channels`` steps, and at least ``round_min``; None: not scaled.
        max_steps: the budget in optimiser steps (overrides ``trainer.max_epochs`` rounds); None: rounds.
        ckpt_every_steps: steps between the ``last.ckpt`` written inside a round (None: only after each
            round's validation and on SIGTERM/Ctrl-C).
        extra_rounds: rounds that may follow ``trainer.max_epochs`` rounds under ``budget`` (without
            ``max_steps``) while training still learns fast; 0: none.
        extra_gain: the share of the best earlier round's validation loss that a round must gain for one more.
    """

    schedule: Literal["budget", "epochs"] = "budget"
    round_cap: int = 500
    round_min: int = 200
    round_passes: int = 4
    round_channels: int | None = 64
    max_steps: int | None = None
    ckpt_every_steps: int | None = 500
    extra_rounds: int = 0
    extra_gain: float = 0.05

    def __post_init__(self) -> None:
        for key in ("round_cap", "round_min", "round_passes", "round_channels", "max_steps", "ckpt_every_steps"):
            value = getattr(self, key)
            if value is not None and value < 1:
                raise DataError(f"train.{key} must be at least 1, got {value}; set train.{key}=<a positive integer>")
        if self.extra_rounds < 0:
            raise DataError(f"train.extra_rounds must be 0 or more, got {self.extra_rounds}; set train.extra_rounds=0 "
                            "for none")
        if not 0.0 <= self.extra_gain < 1.0:
            raise DataError(f"train.extra_gain must be in [0, 1), got {self.extra_gain}; set train.extra_gain=0.05")

    def cap_for(self, channels: int) -> int:
        """Most steps in a round of a file of ``channels`` input channels: ``round_cap``, scaled by
        ``round_channels / channels`` where the file is wider, but not under ``round_min`` (nor over ``round_cap``)."""
        if self.round_channels is None or channels <= self.round_channels:
            return self.round_cap
        return min(self.round_cap, max(self.round_min, math.ceil(self.round_cap * self.round_channels / channels)))

    def extends(self, rounds: int | None) -> bool:
        """Whether rounds may follow ``rounds`` (``trainer.max_epochs``): not under ``epochs``, a budget in
        ``max_steps``, no ``extra_rounds`` or unbounded rounds."""
        return (self.schedule == "budget" and self.max_steps is None and self.extra_rounds > 0
                and rounds is not None and rounds >= 1)

    def extension(self, rounds: int | None) -> ExtraRounds | None:
        """The callback that may add rounds after ``rounds``, or None where the plan adds none (:meth:`extends`)."""
        return ExtraRounds(rounds=rounds, min_gain=self.extra_gain) if self.extends(rounds) else None


def apply_plan(plan: TrainPlan, datamodule: Any, rounds: int | None = None) -> dict[str, Any]:
    """Give the data module its round length; the trainer settings the plan overrides (``max_epochs`` for
    ``train.max_steps``, or ``rounds`` plus ``extra_rounds`` where the plan may extend them). Needs the data
    set up (the length of a pass)."""
    if plan.schedule != "budget":
        datamodule.set_round(None)
    else:
        channels = datamodule.n_inputs
        cap = plan.cap_for(channels)
        if cap < plan.round_cap:
            log.info("%d input channels: rounds of at most %d steps (train.round_cap %d x train.round_channels %d / "
                     "%d, at least train.round_min)", channels, cap, plan.round_cap, plan.round_channels, channels)
        datamodule.set_round(cap, plan.round_min, plan.round_passes)
    if plan.max_steps is None:
        return {"max_epochs": int(rounds) + plan.extra_rounds} if plan.extends(rounds) else {}
    per_round = len(datamodule.train_stream(1))  # the round's steps at one process
    rounds = math.ceil(plan.max_steps / per_round)
    if plan.schedule == "budget":
        datamodule.set_round(math.ceil(plan.max_steps / rounds), plan.round_min, plan.round_passes)
        return {"max_epochs": rounds, "max_steps": -1}
    return {"max_epochs": rounds, "max_steps": plan.max_steps}  # whole passes; the last one cut at max_steps


def planned_rounds(trainer: L.Trainer) -> int | None:
    """The rounds the fit plans now: those :class:`ExtraRounds` allows where the plan may extend them, else
    ``max_epochs`` (None or below 1: unbounded)."""
    extension = next((c for c in getattr(trainer, "callbacks", ()) if isinstance(c, ExtraRounds)), None)
    return extension.allowed if extension is not None else trainer.max_epochs


def planned_steps(trainer: L.Trainer, round_steps: float) -> int | None:
    """Optimiser steps a fit takes at most: ``max_steps``, or rounds x ``round_steps``; 0 when either is 0 (no
    training); None if unbounded."""
    rounds = planned_rounds(trainer)
    if trainer.max_steps == 0 or rounds == 0:
        return 0
    bounds = []
    if trainer.max_steps is not None and trainer.max_steps > 0:
        bounds.append(trainer.max_steps)
    if rounds is not None and rounds > 0 and math.isfinite(round_steps):
        bounds.append(rounds * int(round_steps))
    return min(bounds) if bounds else None


def round_name(trainer: L.Trainer, number: int) -> str:
    """``round 2/6``, or ``round 2`` when the rounds are unbounded."""
    rounds = planned_rounds(trainer)
    bounded = rounds is not None and rounds > 0
    return f"round {number}" + (f"/{rounds}" if bounded else "")


def describe_budget(trainer: L.Trainer, datamodule: Any) -> dict[str, Any]:
    """The budget as run, for ``metrics.json``: steps, round length, windows drawn and their coverage."""
    stream = datamodule.train_stream(trainer.world_size)
    windows = len(datamodule.datasets["train"])
    seen = trainer.global_step * trainer.accumulate_grad_batches * stream.global_batch
    return {"steps": int(trainer.global_step), "round_steps": len(stream), "global_batch": stream.global_batch,
            "windows_seen": int(seen),
            "coverage": min(1.0, seen / windows) if windows else 0.0}


def windows_line(metrics: dict[str, Any]) -> str:
    """``2857 test windows``; when a cap thinned them ``10000 test windows at stride 7``, or where that would leave
    one window a series ``10000 test windows, one of each of 10000 series drawn from 145063``."""
    how = _thinned(metrics, "test")
    return f"{metrics['test_windows']} test windows" + ("" if how == "stride 1" else
                                                        f" at {how}" if how.startswith("stride") else f", {how}")


def _thinned(windows: dict[str, Any], split: str) -> str:
    """How the final windows of ``split`` were taken: ``stride 7``, ``one of each series at a drawn origin`` or
    ``one of each of 10000 series drawn from 145063``."""
    if windows.get(f"{split}_drawn"):
        scored, read = windows[f"{split}_series"], windows["series_read"]
        return f"one of each of {scored} series drawn from {read}" if scored < read \
            else "one of each series at a drawn origin"
    return f"stride {windows.get(f'{split}_stride', 1)}"


def log_plan(trainer: L.Trainer, datamodule: Any) -> None:
    """One line saying the budget, and what validation and test score."""
    stream = datamodule.train_stream(trainer.world_size)
    planned = planned_steps(trainer, len(stream))
    windows = datamodule.describe_windows()
    passes = (planned or 0) * stream.global_batch / max(1, windows["train_windows"])
    final = {split: _thinned(windows, split) for split in ("val", "test")}
    log.info("budget: %s steps in rounds of %d (batch %d x %d processes; %.2f passes over %d training windows); "
             "validation every round on %d windows; final validation on %d (%s), test on %d (%s)",
             planned if planned is not None else "unbounded", len(stream), stream.batch_size, trainer.world_size,
             passes, windows["train_windows"], windows["round_val_windows"], windows["val_windows"], final["val"],
             windows["test_windows"], final["test"])
