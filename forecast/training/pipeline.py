"""The training pipeline behind ``forecast-train`` and :func:`forecast.api.train`, in four steps that
:func:`train` calls in order: :func:`compose` the data, floors, model, Lightning task and trainer from a
config; :func:`fit`; :func:`evaluate` (validate, test, calibrate); :func:`write` the run dir and the
closing lines.

``forecast.cli.train`` imports this module only once the command line has composed into a config, so a
configuration error is reported before Lightning is imported.
"""

from __future__ import annotations

import logging
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import lightning as L
import numpy as np
import pandas as pd
import torch
from hydra.core.hydra_config import HydraConfig
from hydra.errors import InstantiationException
from hydra.utils import instantiate
from lightning.pytorch.callbacks import LearningRateMonitor
from omegaconf import DictConfig, OmegaConf, open_dict

from forecast.attention.base import AttentionBackend
from forecast.baselines.best_floor import BestFloor
from forecast.core.errors import ConfigError
from forecast.core.parameters import count_parameters, trains
from forecast.core.forecaster import build_forecaster, check_types, describe_composition
from forecast.core.standing import score
from forecast.data.errors import DataError
from forecast.data.windowed import WindowedData
from forecast.io import atomic_path, write_json
from forecast.runtime import console
from forecast.training.budget import apply_plan, describe_budget, log_plan, windows_line
from forecast.training.closed_form import ClosedFormStart
from forecast.training.compile import maybe_compile
from forecast.training.conformal import calibrate, store_in_checkpoint, validation_scores
from forecast.training.floors import Floors, evaluate_floors, standing
from forecast.training.monitor import RunMonitor
from forecast.training.per_series import panel_metrics
from forecast.training.precision import apply_precision
from forecast.training.trainer_checks import check_trainer
from forecast.training.progress import step_progress
from forecast.training.recipe import RECIPE_KEY
from forecast.training.recipe_checkpoint import RecipeCheckpoint
from forecast.training.resume import (ResumeState, check_resumable, finished_steps, last_checkpoint, merge_log,
                                      resume_target, set_aside_log)

log = logging.getLogger("forecast")


def has_attention(net: torch.nn.Module) -> bool:
    """Whether the model holds an attention layer (an :class:`AttentionBackend` anywhere in it)."""
    return any(isinstance(m, AttentionBackend) for m in net.modules())


def describe_backends(cfg: DictConfig, net: torch.nn.Module) -> dict[str, str]:
    """Backend class names of the three attention roles ("none" for a model without attention)."""
    uses_attention = has_attention(net)
    names = {}
    for role in ("encoder_attention", "decoder_attention", "cross_attention"):
        node = cfg.get(role)
        names[role] = str(node["_target_"]).rsplit(".", 1)[-1] if node is not None and uses_attention else "none"
    return names


ATTENTION_KEYS = ("attention", "encoder_attention", "decoder_attention", "cross_attention")


def unused_attention(net: torch.nn.Module, overrides: list[str], model: str | None) -> str | None:
    """The note for attention settings on the command line (``overrides``) of a model without attention
    layers, which ignores them; None where the model has attention or none was set."""
    keys = [o.split("=", 1)[0].lstrip("+~") for o in overrides]
    named = [o for o, k in zip(overrides, keys) if k.split("@", 1)[0].split(".", 1)[0] in ATTENTION_KEYS]
    if not named or has_attention(net):
        return None
    which = f"model {model}" if model else "this model"
    return (f"{', '.join(named)}: no effect, {which} has no attention layers; model=informer_floor (the default's "
            f"floor and an Informer residual) has them")


def note_unused_attention(net: torch.nn.Module) -> None:
    """Print :func:`unused_attention`'s note for this Hydra run (nothing outside a Hydra app)."""
    if not HydraConfig.initialized():
        return
    hydra = HydraConfig.get()
    note = unused_attention(net, list(hydra.overrides.task), hydra.runtime.choices.get("model"))
    if note:
        print(f"note: {note}", file=sys.stderr)


def resume_command(run_dir: Path) -> str:
    """The command line that continues this run (its overrides, with ``resume=`` pointing at it)."""
    try:
        overrides = [o for o in HydraConfig.get().overrides.task if not o.startswith("resume=")]
    except ValueError:  # composed outside a Hydra app (tests, notebooks)
        overrides = ["<the run's settings>"]
    return shlex.join(["forecast-train", *overrides, f"resume={run_dir}"])


def check_resume_target(cfg: DictConfig, run_dir: Path) -> None:
    """With ``cfg.resume``: refuse a run dir other than this run's, or one without a ``last.ckpt`` to continue
    (:func:`~forecast.training.resume.resume_target`), before the data is set up and anything is logged there."""
    if not cfg.get("resume"):
        return
    if Path(str(cfg.resume)).resolve() != run_dir.resolve():
        raise DataError(f"resume={cfg.resume}: this run writes to {run_dir} instead; resume one run at a time, "
                        f"without -m or hydra.run.dir")
    resume_target(run_dir)


def resume_point(cfg: DictConfig, run_dir: Path, resolved: dict[str, Any]) -> Path | None:
    """``last.ckpt`` of the run ``cfg.resume`` names (:func:`check_resume_target` has checked it is this run's),
    its settings checked to continue that run; None when not resuming."""
    if not cfg.get("resume"):
        return None
    return check_resumable(run_dir, resolved)


def _count(least: int, *, null: bool) -> tuple[Callable[[Any], bool], str]:
    """A check that a value is an int of at least ``least`` (or None, with ``null``), and its wording."""
    return ((lambda v: (null and v is None) or (type(v) is int and v >= least)),
            f"an int of {least} or more" + (", or null" if null else ""))


_FLAG = ((lambda v: type(v) is bool), "true or false")
#: the root settings a run reads itself: ``key: (fits, what it must be)``
RUN_SETTINGS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "threads": _count(1, null=True), "round_patience": _count(0, null=False),
    "start_patience_steps": _count(0, null=True),
    "keep_start": _FLAG, "compile": _FLAG, "plot": _FLAG, "verbose": _FLAG}


def check_run_settings(cfg: DictConfig) -> None:
    """Refuse a root setting of :data:`RUN_SETTINGS` that does not fit, e.g. ``threads must be an int of 1 or
    more, or null, got 'abc'`` (a :class:`~forecast.core.errors.ConfigError`)."""
    for key, (fits, what) in RUN_SETTINGS.items():
        if key in cfg and not fits(cfg[key]):
            raise ConfigError(f"{key} must be {what}, got {cfg[key]!r}")


def configured_callbacks(cfg: DictConfig) -> list[Any]:
    """The callbacks of ``cfg.callbacks``, in order, their settings checked: a type that does not fit
    (:func:`~forecast.core.forecaster.check_types`) or a value a constructor refuses with a :class:`~forecast.core.errors.ConfigError` naming its
    argument is a ConfigError naming the key, e.g. ``callbacks.early_stopping.min_gain must be in [0, 1), got 1.5``."""
    callbacks = []
    for name, node in (cfg.get("callbacks") or {}).items():
        if node is None:
            continue
        if "_target_" in node:
            check_types(node, f"callbacks.{name}")
        try:
            callbacks.append(instantiate(node))
        except InstantiationException as exc:
            if isinstance(exc.__cause__, ConfigError):
                raise ConfigError(f"callbacks.{name}.{exc.__cause__}") from exc
            raise
    return callbacks


@dataclass
class ComposedRun:
    """A composed run: its config, data, floors, model, Lightning task and trainer, ready to fit.

    Attributes:
        cfg: the config (``data.freq`` filled in when it was inferred).
        resolved: ``cfg`` resolved to plain containers, as ``config.yaml`` records it.
        run_dir: where the run writes.
        datamodule: the data, set up for fitting.
        floors: the closed-form floors scored on the model's own windows.
        net: the forecaster (``forecast.core.forecaster.Forecaster``).
        task: the Lightning task training ``net``.
        trainer: the Lightning trainer.
        monitor: epoch times and peak memory.
        closed_form: fits the closed-form parts before the first pass and keeps that start if it wins.
        resume_from: ``last.ckpt`` of the run being continued, or None.
        read_seconds: wall time of reading and setting up the data.
    """

    cfg: DictConfig
    resolved: dict[str, Any]
    run_dir: Path
    datamodule: Any
    floors: Floors
    net: torch.nn.Module
    task: L.LightningModule
    trainer: L.Trainer
    monitor: RunMonitor
    closed_form: ClosedFormStart
    resume_from: Path | None
    read_seconds: float = 0.0

    @property
    def trainable(self) -> bool:
        """Whether the model has parameters to fit (else it is validated, tested and saved as it is)."""
        return trains(self.net)


@dataclass
class Evaluation:
    """The selected model's scores.

    Attributes:
        metrics: ``val/*`` and ``test/*`` metrics.
        best: the selected checkpoint.
        calibration: the conformal calibration stored in ``best`` (None without validation windows).
        run_stats: peak memory of fitting, validation and test.
        seconds: wall time of the final validation and test.
        errors: every scored window's error (forecast - target, scaled), ``{split: (W, P, C_out)}``, kept by the
            task during the final validation and test on one process; empty under several processes.
    """

    metrics: dict[str, float]
    best: str | None
    calibration: dict[str, Any] | None
    run_stats: dict[str, Any]
    seconds: float = 0.0
    errors: dict[str, np.ndarray] = field(default_factory=dict)


def compose(cfg: DictConfig, *, frame: pd.DataFrame | None = None,
            prepared: WindowedData | None = None) -> ComposedRun:
    """Build the data (read, split, scaled), the model, score the floors, build its task and the trainer,
    and write ``config.yaml``.

    Args:
        cfg: the composed ``train.yaml``.
        frame: the data as a DataFrame instead of the file ``data.path`` names (the API's ``train(data=frame)``).
        prepared: ``cfg.data`` already read and set up (:func:`~forecast.training.read_first.read_first`),
            taken instead of reading the file again.
    """
    check_run_settings(cfg)
    run_dir = Path(cfg.paths.output_dir)
    check_resume_target(cfg, run_dir)
    console(bool(cfg.get("verbose")))
    if cfg.get("threads"):
        torch.set_num_threads(int(cfg.threads))
    L.seed_everything(cfg.seed, workers=True, verbose=False)
    apply_precision(cfg)  # trainer.precision=auto -> 32-true, once, before config.yaml
    check_types(cfg.trainer, "trainer")
    check_trainer(cfg.trainer)
    check_types(cfg.train, "train")
    configured = configured_callbacks(cfg)  # a setting they refuse is one line before anything is read or written
    datamodule = instantiate(cfg.data, **({} if frame is None else {"path": frame}))
    if prepared is not None:
        datamodule.take_setup(prepared)
    datamodule.setup("fit")
    read_seconds = datamodule.read_seconds
    log.info("read %s in %.2f s", datamodule.path, read_seconds)
    plan = instantiate(cfg.train)
    rounds = cfg.trainer.get("max_epochs")
    trainer_plan = apply_plan(plan, datamodule, rounds)  # rounds of at most train.round_cap steps
    spec = datamodule.spec
    if cfg.data.get("freq") is None and spec.freq is not None:  # record the inferred frequency, so what
        with open_dict(cfg):  # derives from it (a floor's season, ${period_for:${data.freq}}) sees it
            cfg.data.freq = spec.freq
    dims = datamodule.model_dims()
    net = build_forecaster(cfg.model, dims)  # before the floors: a setting it refuses costs no fit
    note_unused_attention(net)
    resolved = OmegaConf.to_container(cfg, resolve=True)
    resume_from = resume_point(cfg, run_dir, resolved)  # before config.yaml is rewritten
    maybe_compile(net, bool(cfg.get("compile")))
    task = instantiate(cfg.task, net=net, target_mean=spec.target_mean, target_std=spec.target_scale,
                       pred_len=spec.pred_len)  # its optimiser's settings too
    floors = evaluate_floors(datamodule, dims, spec.freq)  # closed-form floors on the model's own windows
    log.info("floors (%s) in %.2f s", ", ".join(floors.metrics), floors.seconds)
    for module in net.modules():  # the model's own floors, where they are these, are not fitted twice
        if isinstance(module, BestFloor):
            module.adopt(floors.fitted)
    run_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(run_dir / "config.yaml") as tmp:
        tmp.write_text(OmegaConf.to_yaml(OmegaConf.create(resolved)))

    monitor = RunMonitor()
    closed_form = ClosedFormStart(keep_start=bool(cfg.get("keep_start")), checkpoint_dir=run_dir / "checkpoints",
                                  start_patience_steps=cfg.get("start_patience_steps"))
    loggers = [instantiate(c) for c in (cfg.get("logger") or {}).values() if c is not None]
    # the monitor first: a round's val/loss line comes before the line of a stop early stopping or the start
    # decides on it
    callbacks = [monitor, *configured]
    if not loggers:  # the learning-rate monitor has nowhere to write
        callbacks = [c for c in callbacks if not isinstance(c, LearningRateMonitor)]
    callbacks += [closed_form, RecipeCheckpoint(config=resolved, spec=spec, model_dims=dims,
                                                floors=floors.checkpoint_state()),
                  ResumeState(run_dir=run_dir, command=resume_command(run_dir))]
    extension = plan.extension(rounds)  # rounds after trainer.max_epochs while a round gains train.extra_gain
    if extension is not None:
        callbacks.append(extension)
    if cfg.trainer.get("enable_progress_bar", True):
        callbacks.append(step_progress())  # progress over the whole budget of steps
    trainer: L.Trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=loggers or False,
                                     default_root_dir=str(run_dir), **trainer_plan)
    return ComposedRun(cfg=cfg, resolved=resolved, run_dir=run_dir, datamodule=datamodule, floors=floors, net=net,
                       task=task, trainer=trainer, monitor=monitor, closed_form=closed_form, resume_from=resume_from,
                       read_seconds=read_seconds)


def fit(run: ComposedRun) -> str | None:
    """Fit the model (continuing ``run.resume_from``); the selected checkpoint, None for a model without
    trainable parameters (nothing to fit)."""
    trainer = run.trainer
    if run.resume_from is not None and trainer.is_global_zero:
        # before the CSV logger starts: it deletes logs/metrics.csv
        set_aside_log(run.run_dir, finished_steps(run.resume_from))
    if not run.trainable:
        return None
    log_plan(trainer, run.datamodule)
    trainer.fit(run.task, datamodule=run.datamodule,
                ckpt_path=None if run.resume_from is None else str(run.resume_from))
    checkpoint = trainer.checkpoint_callback
    best = checkpoint.best_model_path if checkpoint is not None and checkpoint.best_model_path else None
    return run.closed_form.best_path or best


def evaluate(run: ComposedRun, best: str | None) -> Evaluation:
    """Validate and test the ``best`` checkpoint and calibrate its intervals on validation.

    A model without trainable parameters (``best`` None) is validated as it is, then saved to
    ``checkpoints/best.ckpt`` (with its recipe) and tested from there.
    """
    trainer, task, datamodule = run.trainer, run.task, run.datamodule
    started = time.perf_counter()
    one_process = trainer.world_size == 1  # it scores every window: keep the errors instead of a second pass
    task.keep_errors = one_process  # validation: the interval calibration
    val_metrics = trainer.validate(task, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    if not run.trainable:  # parameter-free or closed-form: no fit, so no ModelCheckpoint; save one (with recipe)
        best = str(run.run_dir / "checkpoints" / "best.ckpt")
        trainer.save_checkpoint(best)
    task.keep_errors = one_process and datamodule.spec.id_col is not None  # test: a panel's per-series metrics
    test_metrics = trainer.test(task, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    task.keep_errors = False
    errors = {split: e for split, e in task.take_errors().items()  # every window (no limit_*_batches)
              if len(e) == len(datamodule.datasets[split])}
    seconds = time.perf_counter() - started
    run_stats = run.monitor.summary(task.device)  # peak memory of fitting, validation and test only
    calibration = None
    if trainer.is_global_zero and best is not None and len(datamodule.datasets["val"]):
        # split conformal intervals (forecast.training.conformal): the selected model's validation errors,
        # stored in the best checkpoint's recipe so forecast-predict --intervals needs nothing else
        scores = (np.abs(errors["val"]) if "val" in errors
                  else validation_scores(task.net, datamodule.ordered_dataloader("val")))
        calibration = calibrate(scores)
        store_in_checkpoint(best, calibration, recipe_key=RECIPE_KEY)
    metrics = {k: float(v) for k, v in {**val_metrics, **test_metrics}.items()}
    return Evaluation(metrics=metrics, best=best, calibration=calibration, run_stats=run_stats, seconds=seconds,
                      errors=errors)


def run_metrics(run: ComposedRun, evaluation: Evaluation) -> dict[str, Any]:
    """What ``metrics.json`` records: the scores, the floors, the training's cost and the run's settings."""
    cfg, spec, net, monitor, closed_form = run.cfg, run.datamodule.spec, run.net, run.monitor, run.closed_form
    metrics: dict[str, Any] = dict(evaluation.metrics)
    metrics.update({
        "test/mse_per_step": getattr(run.task, "per_step_mse", []),
        "epochs": monitor.epochs,
        "train_seconds_per_epoch": (sum(monitor.epoch_seconds) / monitor.epochs) if monitor.epochs
        else (closed_form.fit_seconds or 0.0),
        "resumed_after_epochs": monitor.restored_epochs,
        "fit_seconds": closed_form.fit_seconds,
        "read_seconds": run.read_seconds,
        "eval_seconds": evaluation.seconds,
        "start/val_loss": closed_form.start_loss,
        "val/loss_per_round": monitor.round_losses,
        "kept_start": closed_form.best_path is not None,
        **closed_form.decisions(),  # keep: the start against the best epoch; floor_choice: the floors weighed
        "n_params": count_parameters(net),
        "n_trainable_params": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "seed": int(cfg.seed),
        "precision": str(OmegaConf.select(cfg, "trainer.precision", default="32-true")),
        "tag": cfg.get("tag"),
        "model": describe_composition(cfg.model),
        "data": Path(str(cfg.data.path)).stem,
        "features": spec.features,
        "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
        "checkpoint": evaluation.best,
        "run_dir": str(run.run_dir),
        **run.datamodule.describe_windows(),
        **describe_budget(run.trainer, run.datamodule),
        "floors": run.floors.metrics,
        "floor_seconds": run.floors.seconds,
        **describe_backends(cfg, net),
        **evaluation.run_stats,
    })
    if spec.id_col is not None:  # panel data: per-series test metrics, original units by each series' scaler
        metrics.update(panel_metrics(run.task.net, run.datamodule, errors=evaluation.errors))
    return metrics


def write(run: ComposedRun, evaluation: Evaluation, metrics: dict[str, Any], started: float) -> None:
    """Write the plot and ``metrics.json`` (with ``wall_seconds`` since ``started``), drop ``last.ckpt``
    (nothing is left to resume) and print the closing lines: the scores against the floors, the run dir,
    the checkpoint."""
    trainer, run_dir, spec = run.trainer, run.run_dir, run.datamodule.spec
    if run.cfg.get("plot", True) and trainer.is_global_zero:
        from forecast.plotting import plot_test_windows

        plot_test_windows(run.task.net, run.datamodule.datasets["test"], spec, run.datamodule.index,
                          run_dir / "forecast.png", calibration=evaluation.calibration)
    metrics["wall_seconds"] = time.perf_counter() - started
    if not trainer.is_global_zero:
        return
    write_json(run_dir / "metrics.json", metrics)
    merge_log(run_dir)
    last_checkpoint(run_dir).unlink(missing_ok=True)  # finished: nothing left to resume
    vs_floors = standing(metrics["test/mse"], run.floors.test_mse())
    print(f"test/mse {score(metrics['test/mse'])} ({vs_floors})  test/mae {score(metrics['test/mae'])}  "
          f"test/mae_orig {score(metrics['test/mae_orig'])}  ({windows_line(metrics)}, "
          f"{metrics['epochs']} round{'' if metrics['epochs'] == 1 else 's'}, {metrics['steps']} steps, "
          f"{metrics['wall_seconds']:.0f} s, {metrics['precision']})")
    print(f"run dir:    {run_dir}")
    print(f"checkpoint: {evaluation.best}")


def train(cfg: DictConfig, *, frame: pd.DataFrame | None = None,
          prepared: WindowedData | None = None) -> dict[str, Any]:
    """Compose, fit, test with the best checkpoint; write ``metrics.json``, ``config.yaml`` and a plot.

    Closed-form parts are fitted by :class:`~forecast.training.closed_form.ClosedFormStart` before the
    first pass (with ``keep_start``, the start competes with every epoch on validation). Models without
    trainable parameters skip ``trainer.fit``: they are validated, tested and saved to
    ``checkpoints/best.ckpt``.

    With ``resume=RUN_DIR`` the fit continues from that run's ``checkpoints/last.ckpt``
    (``forecast.training.resume``), which is removed once ``metrics.json`` is written.

    Args:
        cfg: the composed ``train.yaml``.
        frame: the data as a DataFrame instead of the file ``data.path`` names; ``config.yaml`` records
            ``data.path`` as the caller set it (:func:`forecast.api.train` sets ``<DataFrame>``).
        prepared: ``cfg.data`` already read and set up, as :func:`compose` takes it.

    Returns:
        The metrics dict written to ``metrics.json``.
    """
    started = time.perf_counter() - (prepared.read_seconds if prepared is not None else 0.0)
    run = compose(cfg, frame=frame, prepared=prepared)
    evaluation = evaluate(run, fit(run))
    metrics = run_metrics(run, evaluation)
    write(run, evaluation, metrics, started)
    return metrics
