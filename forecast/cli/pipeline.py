"""The training pipeline behind ``forecast-train`` and :func:`forecast.api.train`: compose the data,
floors, model and Lightning task from a resolved config; fit, test, calibrate and write the run dir.

``forecast.cli.train`` imports this module only once the command line has composed into a config, so a
configuration error is reported before Lightning is imported.
"""

from __future__ import annotations

import logging
import shlex
import time
from pathlib import Path
from typing import Any

import lightning as L
import torch
from hydra.core.hydra_config import HydraConfig
from hydra.utils import instantiate
from lightning.pytorch.callbacks import LearningRateMonitor
from omegaconf import DictConfig, OmegaConf, open_dict

from forecast.attention.base import AttentionBackend
from forecast.core.parameters import count_parameters
from forecast.core.forecaster import build_forecaster, check_types, describe_composition
from forecast.data.errors import DataError
from forecast.io import atomic_path, write_json
from forecast.training.budget import apply_plan, describe_budget, log_plan, windows_line
from forecast.training.closed_form import ClosedFormStart
from forecast.training.compile import maybe_compile
from forecast.training.conformal import calibrate, store_in_checkpoint, validation_scores
from forecast.training.floors import evaluate_floors, standing
from forecast.training.monitor import RunMonitor
from forecast.training.per_series import panel_metrics
from forecast.training.progress import StepProgressBar
from forecast.training.recipe import RECIPE_KEY
from forecast.training.recipe_checkpoint import RecipeCheckpoint
from forecast.training.resume import (ResumeState, check_resumable, finished_steps, last_checkpoint, merge_log,
                                      set_aside_log)

log = logging.getLogger("forecast")


def describe_backends(cfg: DictConfig, net: torch.nn.Module) -> dict[str, str]:
    """Backend class names of the three attention roles ("none" for a model without attention)."""
    uses_attention = any(isinstance(m, AttentionBackend) for m in net.modules())
    names = {}
    for role in ("encoder_attention", "decoder_attention", "cross_attention"):
        node = cfg.get(role)
        names[role] = str(node["_target_"]).rsplit(".", 1)[-1] if node is not None and uses_attention else "none"
    return names


def resume_command(run_dir: Path) -> str:
    """The command line that continues this run (its overrides, with ``resume=`` pointing at it)."""
    try:
        overrides = [o for o in HydraConfig.get().overrides.task if not o.startswith("resume=")]
    except ValueError:  # composed outside a Hydra app (tests, notebooks)
        overrides = ["<the run's settings>"]
    return shlex.join(["forecast-train", *overrides, f"resume={run_dir}"])


def resume_point(cfg: DictConfig, run_dir: Path, resolved: dict[str, Any]) -> Path | None:
    """``last.ckpt`` of the run ``cfg.resume`` names, checked to continue that run here; None when not resuming."""
    if not cfg.get("resume"):
        return None
    if Path(str(cfg.resume)).resolve() != run_dir.resolve():
        raise DataError(f"resume={cfg.resume}: this run writes to {run_dir} instead; resume one run at a time, "
                        f"without -m or hydra.run.dir")
    return check_resumable(run_dir, resolved)


def train(cfg: DictConfig) -> dict[str, Any]:
    """Compose, fit, test with the best checkpoint; write ``metrics.json``, ``config.yaml`` and a plot.

    Closed-form parts are fitted by :class:`~forecast.training.closed_form.ClosedFormStart` before the
    first pass (with ``keep_start``, the start competes with every epoch on validation). Models without
    trainable parameters skip ``trainer.fit``: they are validated, tested and saved to
    ``checkpoints/best.ckpt``.

    With ``resume=RUN_DIR`` the fit continues from that run's ``checkpoints/last.ckpt``
    (``forecast.training.resume``), which is removed once ``metrics.json`` is written.

    Returns:
        The metrics dict written to ``metrics.json``.
    """
    started = time.perf_counter()
    if cfg.get("threads"):
        torch.set_num_threads(int(cfg.threads))
    L.seed_everything(cfg.seed, workers=True, verbose=False)
    run_dir = Path(cfg.paths.output_dir)
    check_types(cfg.trainer, "trainer")
    check_types(cfg.train, "train")
    datamodule = instantiate(cfg.data)
    read_started = time.perf_counter()
    datamodule.setup("fit")
    read_seconds = time.perf_counter() - read_started
    log.info("read %s in %.2f s", cfg.data.path, read_seconds)
    trainer_plan = apply_plan(instantiate(cfg.train), datamodule)
    spec = datamodule.spec
    if cfg.data.get("freq") is None and spec.freq is not None:  # record the inferred frequency, so what
        with open_dict(cfg):  # derives from it (a floor's season, ${period_for:${data.freq}}) sees it
            cfg.data.freq = spec.freq
    resolved = OmegaConf.to_container(cfg, resolve=True)
    resume_from = resume_point(cfg, run_dir, resolved)  # before config.yaml is rewritten
    dims = datamodule.model_dims()
    floors = evaluate_floors(datamodule, dims, spec.freq)  # closed-form floors on the model's own windows
    log.info("floors (%s) in %.2f s", ", ".join(floors.metrics), floors.seconds)
    net = build_forecaster(cfg.model, dims)
    maybe_compile(net, bool(cfg.get("compile")))
    task = instantiate(cfg.task, net=net, target_mean=spec.target_mean, target_std=spec.target_scale,
                       pred_len=spec.pred_len)
    run_dir.mkdir(parents=True, exist_ok=True)
    with atomic_path(run_dir / "config.yaml") as tmp:
        tmp.write_text(OmegaConf.to_yaml(OmegaConf.create(resolved)))

    monitor = RunMonitor()
    closed_form = ClosedFormStart(keep_start=bool(cfg.get("keep_start")), checkpoint_dir=run_dir / "checkpoints")
    loggers = [instantiate(c) for c in (cfg.get("logger") or {}).values() if c is not None]
    callbacks = [instantiate(c) for c in (cfg.get("callbacks") or {}).values() if c is not None]
    if not loggers:  # the learning-rate monitor has nowhere to write
        callbacks = [c for c in callbacks if not isinstance(c, LearningRateMonitor)]
    callbacks += [closed_form, monitor, RecipeCheckpoint(config=resolved, spec=spec, model_dims=dims,
                                                         floors=floors.checkpoint_state()),
                  ResumeState(run_dir=run_dir, command=resume_command(run_dir))]
    if cfg.trainer.get("enable_progress_bar", True):
        callbacks.append(StepProgressBar())
    trainer: L.Trainer = instantiate(cfg.trainer, callbacks=callbacks, logger=loggers or False,
                                     default_root_dir=str(run_dir), **trainer_plan)
    if resume_from is not None and trainer.is_global_zero:
        # before the CSV logger starts: it deletes logs/metrics.csv
        set_aside_log(run_dir, finished_steps(resume_from))
    trainable = any(p.requires_grad for p in net.parameters())
    best = None
    if trainable:
        log_plan(trainer, datamodule)
        trainer.fit(task, datamodule=datamodule, ckpt_path=None if resume_from is None else str(resume_from))
        checkpoint = trainer.checkpoint_callback
        best = checkpoint.best_model_path if checkpoint is not None and checkpoint.best_model_path else None
        best = closed_form.best_path or best
    eval_started = time.perf_counter()
    val_metrics = trainer.validate(task, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    if not trainable:  # parameter-free or closed-form: no fit, so no ModelCheckpoint; save one (with recipe)
        best = str(run_dir / "checkpoints" / "best.ckpt")
        trainer.save_checkpoint(best)
    test_metrics = trainer.test(task, datamodule=datamodule, ckpt_path=best, verbose=False)[0]
    eval_seconds = time.perf_counter() - eval_started
    run_stats = monitor.summary(task.device)  # peak memory of fitting, validation and test only
    calibration = None
    if trainer.is_global_zero and best is not None and len(datamodule.datasets["val"]):
        # split conformal intervals (forecast.training.conformal): the selected model's validation errors,
        # stored in the best checkpoint's recipe so forecast-predict --intervals needs nothing else
        calibration = calibrate(validation_scores(task.net, datamodule.ordered_dataloader("val")))
        store_in_checkpoint(best, calibration, recipe_key=RECIPE_KEY)

    metrics: dict[str, Any] = {k: float(v) for k, v in {**val_metrics, **test_metrics}.items()}
    metrics.update({
        "test/mse_per_step": getattr(task, "per_step_mse", []),
        "epochs": monitor.epochs,
        "train_seconds_per_epoch": (sum(monitor.epoch_seconds) / monitor.epochs) if monitor.epochs
        else (closed_form.fit_seconds or 0.0),
        "resumed_after_epochs": monitor.restored_epochs,
        "fit_seconds": closed_form.fit_seconds,
        "read_seconds": read_seconds,
        "eval_seconds": eval_seconds,
        "start/val_loss": closed_form.start_loss,
        "kept_start": closed_form.best_path is not None,
        "n_params": count_parameters(net),
        "n_trainable_params": sum(p.numel() for p in net.parameters() if p.requires_grad),
        "seed": int(cfg.seed),
        "tag": cfg.get("tag"),
        "model": describe_composition(cfg.model),
        "data": Path(str(cfg.data.path)).stem,
        "features": spec.features,
        "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
        "checkpoint": best,
        "run_dir": str(run_dir),
        **datamodule.describe_windows(),
        **describe_budget(trainer, datamodule),
        "floors": floors.metrics,
        "floor_seconds": floors.seconds,
        **describe_backends(cfg, net),
        **run_stats,
    })
    if spec.id_col is not None:  # panel data: per-series test metrics, original units by each series' scaler
        metrics.update(panel_metrics(task.net, datamodule))
    if cfg.get("plot", True) and trainer.is_global_zero:
        from forecast.plotting import plot_test_windows

        plot_test_windows(task.net, datamodule.datasets["test"], spec, datamodule.index, run_dir / "forecast.png",
                          calibration=calibration)
    metrics["wall_seconds"] = time.perf_counter() - started
    if trainer.is_global_zero:
        write_json(run_dir / "metrics.json", metrics)
        merge_log(run_dir)
        last_checkpoint(run_dir).unlink(missing_ok=True)  # finished: nothing left to resume
        vs_floors = standing(metrics["test/mse"], floors.test_mse())
        print(f"test/mse {metrics['test/mse']:.4f} ({vs_floors})  test/mae {metrics['test/mae']:.4f}  "
              f"test/mae_orig {metrics['test/mae_orig']:.4f}  ({windows_line(metrics)}, "
              f"{metrics['epochs']} rounds, {metrics['steps']} steps, {metrics['wall_seconds']:.0f} s)")
        print(f"run dir:    {run_dir}")
        print(f"checkpoint: {best}")
    return metrics
