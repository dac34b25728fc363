"""The closed-form fit before training, and the closed-form start as a checkpoint candidate."""

from __future__ import annotations

import copy
import logging
import time
from pathlib import Path
from typing import Any

import lightning as L
from lightning.pytorch.trainer.states import TrainerFn
import torch
import numpy as np
from torch import Tensor

from forecast.baselines.best_floor import by_estimate
from forecast.core.parameters import module_device, trains
from forecast.core.standing import score
from forecast.training.evidence import Verdict, hac_lag, weigh, window_losses

log = logging.getLogger("forecast")


class ClosedFormStart(L.Callback):
    """Fits the model's closed-form parts once, before its first fit, validation or test pass.

    ``net.fit_closed_form`` runs on every training window in order (the data module's
    ``ordered_train_dataloader``), then ``net.select_on_validation`` on every validation window (a
    ``BestFloor`` picks the floor validation gives evidence for); a checkpoint restored afterwards (resume, or
    validate/test with
    ``ckpt_path``) overwrites the result with the same values, since the fit is deterministic.

    With ``keep_start`` and a closed-form part in a model that also trains (a floor residual), the
    model as the fit left it (the start) is validated before training, window by window on the windows every round's validation
    scores, and the
    trained model replaces it only on evidence: at :meth:`on_fit_end` the best epoch (lowest
    ``val/loss``) is weighed against the start on the same validation windows
    (:func:`forecast.training.evidence.weigh`: a Diebold-Mariano test with a Newey-West variance over
    the overlapping windows, and the gain must hold on their later half). Unless it wins, the start is
    written to ``checkpoints/start.ckpt`` and :attr:`best_path` names it. A resumed run fits and
    validates the start again, to the same numbers. Early stopping counts from the start too: its best score
    begins at the start's ``val/loss``, so training ends after ``patience`` rounds that do not beat the start
    (by early stopping's least gain: :class:`~forecast.training.stopping.RelativeEarlyStopping`).
    While no round has beaten the start so, the first round to end after ``start_patience_steps`` optimiser
    steps ends it instead: a residual that starts at zero and is still behind its start after that many steps
    at the full learning rate has been fitting what does not carry over to validation.

    Args:
        keep_start: make the closed-form start a checkpoint candidate.
        checkpoint_dir: where ``start.ckpt`` is written.
        start_patience_steps: steps after which a round end stops training while no round has beaten the
            start; None: early stopping's patience alone.

    Attributes:
        fit_seconds: seconds of the closed-form fit; None when the model has no closed-form part.
        start_loss: the start's ``val/loss`` (MSE over the validation windows every round scores); None when
            not a candidate.
        best_path: ``start.ckpt`` when the start was kept, else None.
        verdict: the start against the best epoch; None when they were not weighed (no epoch beat the
            start on ``val/loss``, or the start is not a candidate).
        floor_choice: the floor chosen on validation by a ``BestFloor`` in the model and its comparisons
            (``{"chosen": name, "by_lowest_mse_on": None, or the span where nothing could be weighed and the lowest
            MSE chose, "comparisons": [Verdict.as_dict(), ...]}``); None without one.
    """

    def __init__(self, *, keep_start: bool, checkpoint_dir: str | Path,
                 start_patience_steps: int | None = None) -> None:
        self.keep_start = keep_start
        self.checkpoint_dir = Path(checkpoint_dir)
        self.start_patience_steps = start_patience_steps
        self.fitted = False
        self.fit_seconds: float | None = None
        self.start_loss: float | None = None
        self.best_path: str | None = None
        self.verdict: Verdict | None = None
        self.floor_choice: dict[str, Any] | None = None
        self._start_state: dict[str, Tensor] | None = None
        self._start_losses: np.ndarray | None = None

    def setup(self, trainer: L.Trainer, pl_module: L.LightningModule, stage: str) -> None:
        if self.fitted:
            return
        self.fitted = True
        datamodule = trainer.datamodule
        started = time.perf_counter()
        rows = pl_module.net.fit_closed_form(datamodule.ordered_train_dataloader())
        if rows is None:
            return
        pl_module.net.select_on_validation(datamodule.ordered_dataloader("val"))
        self.floor_choice = next(({"chosen": m.chosen, "by_lowest_mse_on": by_estimate(m.verdicts),
                                   "comparisons": [v.as_dict() for v in m.verdicts]}
                                  for m in pl_module.net.modules() if getattr(m, "verdicts", None)), None)
        self.fit_seconds = time.perf_counter() - started
        log.info("closed-form fit on %s rows in %.2f s", rows, self.fit_seconds)
        if stage == "fit" and self.keep_start and trains(pl_module):
            self._start_losses = validation_losses(pl_module, datamodule)
            self.start_loss = float(self._start_losses.mean())
            self._start_state = copy.deepcopy(pl_module.state_dict())
            log.info("closed-form start: val/loss %s", score(self.start_loss))

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        stopping = trainer.early_stopping_callback
        fresh = stopping is not None and not torch.isfinite(stopping.best_score) and trainer.global_step == 0
        if self.start_loss is not None and fresh and stopping.monitor == "val/loss" and stopping.mode == "min":
            stopping.best_score = torch.tensor(self.start_loss)  # a resumed run restores its own

    def on_validation_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        """After early stopping has weighed the round (it runs first): stop while no round has beaten the start
        and ``start_patience_steps`` steps have been trained."""
        stopping = trainer.early_stopping_callback
        if (self.start_patience_steps is None or self.start_loss is None or stopping is None
                or trainer.sanity_checking or trainer.should_stop or trainer.state.fn != TrainerFn.FITTING):
            return
        unbeaten = float(stopping.best_score) == float(torch.tensor(self.start_loss))
        if unbeaten and trainer.global_step >= self.start_patience_steps:
            trainer.should_stop = True
            log.info("training stops after round %d: no round beat the closed-form start on val/loss (%s; this "
                     "round %s)", trainer.current_epoch + 1, score(self.start_loss),
                     score(float(trainer.callback_metrics["val/loss"])))

    def on_fit_end(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if self._start_state is None:
            return
        checkpoint = trainer.checkpoint_callback
        trained = checkpoint.best_model_score if checkpoint is not None else trainer.callback_metrics.get("val/loss")
        if trained is not None and self.start_loss > float(trained):
            if checkpoint is not None and checkpoint.best_model_path:  # the best epoch, not the last
                state = torch.load(checkpoint.best_model_path, map_location=pl_module.device, weights_only=False)
                pl_module.load_state_dict(state["state_dict"])
            datamodule = trainer.datamodule
            self.verdict = weigh(self._start_losses, validation_losses(pl_module, datamodule),
                                 lag=hac_lag(int(datamodule.pred_len), int(getattr(datamodule, "eval_stride", 1))),
                                 names=("the start", "the trained model"))
            log.info("%s", self.verdict.line())
            if self.verdict.replace:
                return
        else:
            log.info("no round beat the closed-form start on val/loss (%s); keeping the start",
                     score(self.start_loss))
        pl_module.load_state_dict(self._start_state)
        self.best_path = str(self.checkpoint_dir / "start.ckpt")
        trainer.save_checkpoint(self.best_path)

    def decisions(self) -> dict[str, Any]:
        """What ``metrics.json`` records of the choices made on validation: ``keep`` (the start against
        the best epoch: decision, reason, gain, statistic, p-value ...) and ``floor_choice`` (the floor
        chosen and each comparison); ``{}`` when nothing was chosen."""
        out: dict[str, Any] = {}
        if self._start_state is not None:
            kept = "start" if self.best_path is not None else "trained"
            out["keep"] = {"decision": kept, **(self.verdict.as_dict() if self.verdict is not None else
                                                {"reason": "no epoch beat the start on val/loss"})}
        if self.floor_choice is not None:
            out["floor_choice"] = self.floor_choice
        return out


@torch.no_grad()
def validation_losses(pl_module: L.LightningModule, datamodule: Any) -> np.ndarray:
    """MSE of ``pl_module`` on each validation window every round scores (W,), in window order and eval
    mode; their mean is the task's ``val/loss`` while fitting.

    Every process reads every window (not its shard), so the numbers are the same under DDP.
    """
    was_training = pl_module.training
    pl_module.eval()
    device = module_device(pl_module)
    losses = window_losses({"model": lambda *marks: pl_module.net(*(m.to(device) for m in marks))},
                           datamodule.round_val_dataloader())["model"]
    pl_module.train(was_training)
    return losses
