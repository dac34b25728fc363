"""Whole-model speed: the training step and inference of the model ``forecast-train`` would build.

The step is timed as the reference's step timer (``../shared/reference/ref_bench.py``) times its own:
``zero_grad`` + forward + MSE + backward + Adam, on training batches already loaded, ``warmup``
steps first and then ``steps`` timed ones. Inference runs the evaluation path of ``forecast-train``
(``eval()`` under ``torch.inference_mode``) over test batches of the training batch size, and over
single windows, under the autocast ``trainer.precision`` asks for (``bf16-mixed``: measure it per
machine; a CPU without native bf16 multiplies runs it far slower than fp32). Peak memory is read as
every run's ``peak_memory_mb`` (:func:`forecast.training.monitor.peak_memory_mb`): the resident-set
high-water mark on CPU (``VmHWM``, data and interpreter included), ``max_memory_allocated`` on CUDA.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterator

import torch
import torch.nn.functional as F
from hydra import compose, initialize_config_dir
from hydra.utils import instantiate
from omegaconf import DictConfig, open_dict
from torch import nn
from torch.utils.data import DataLoader

from forecast.core.parameters import count_parameters
from forecast.runtime import CONF_DIR, register_resolvers
from forecast.core.forecaster import build_forecaster
from forecast.data.batch import Batch
from forecast.training.compile import maybe_compile
from forecast.training.monitor import peak_memory_mb
from forecast.training.precision import resolve_precision


@dataclass
class StepReport:
    """What one benchmark run measured (seconds unless the name says otherwise)."""

    seq_len: int
    label_len: int
    pred_len: int
    batch: int
    threads: int
    device: str
    params: int
    steps_timed: int
    step_s_median: float
    step_s_min: float
    step_s_max: float
    iter_s_median: float
    train_samples_per_s: float
    first_step_s: float
    infer_s_per_batch: float
    infer_s_per_window: float
    infer_samples_per_s: float
    peak_memory_mb: float
    memory_method: str
    precision: str
    compile: bool
    compiled: bool
    torch: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def compose_config(overrides: list[str]) -> DictConfig:
    """The config ``forecast-train <overrides>`` composes (without its Hydra run settings)."""
    register_resolvers()
    with initialize_config_dir(config_dir=str(CONF_DIR), version_base=None):
        return compose(config_name="train", overrides=overrides)


def cycle(loader: Any) -> Iterator[Batch]:
    """Batches of ``loader`` forever, restarting it when it runs out."""
    while True:
        yield from loader


def _sync(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def _to(batch: Batch, device: torch.device) -> Batch:
    return Batch(*(t.to(device, non_blocking=True) for t in batch))


def time_calls(fn: Callable[[], Any], n: int, device: torch.device) -> list[float]:
    """Wall seconds of ``n`` calls of ``fn``, each synchronised."""
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
    return times


def autocast(precision: str, device: torch.device) -> contextlib.AbstractContextManager:
    """The autocast Lightning applies for ``trainer.precision`` (``bf16-mixed``, ``16-mixed``), else nothing."""
    if precision.endswith("-mixed"):
        dtype = torch.bfloat16 if precision.startswith("bf16") else torch.float16
        return torch.autocast(device.type, dtype=dtype)
    return contextlib.nullcontext()


def build(cfg: DictConfig, device: torch.device) -> tuple[nn.Module, Any, torch.optim.Optimizer, bool]:
    """Data module (set up), the model on ``device``, its Adam, and whether it was compiled (``cfg.compile``)."""
    datamodule = instantiate(cfg.data)
    datamodule.setup("fit")
    datamodule.setup("test")
    net = build_forecaster(cfg.model, datamodule.model_dims()).to(device)
    optimizer = instantiate(cfg.task.optimizer)(params=[p for p in net.parameters() if p.requires_grad])
    return net, datamodule, optimizer, maybe_compile(net, bool(cfg.get("compile")))


def measure(cfg: DictConfig, *, steps: int, warmup: int, infer_batches: int = 20,
            device: str = "cpu", profile: Callable[[Callable[[], Any]], None] | None = None) -> StepReport:
    """Time the training step and inference of the model ``cfg`` composes.

    Args:
        cfg: a composed ``forecast-train`` config.
        steps: timed training steps (after ``warmup``).
        warmup: untimed steps first (the first one's time is reported as ``first_step_s``: with
            ``compile=true`` it holds the compilation).
        infer_batches: timed inference batches (after two untimed ones).
        device: ``cpu`` or ``cuda[:i]``.
        profile: called with the training step function after the timing, to profile it.
    """
    dev = torch.device(device)
    torch.manual_seed(int(cfg.seed))
    model, datamodule, optimizer, compiled = build(cfg, dev)
    train_batches = cycle(datamodule.train_dataloader())
    model.train()

    precision = resolve_precision(cfg.trainer.get("precision", "32-true"))

    def step(batch: Batch) -> None:
        optimizer.zero_grad(set_to_none=True)
        with autocast(precision, dev):
            pred = model(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
        loss = F.mse_loss(pred.float(), batch.y)
        loss.backward()
        optimizer.step()

    step_t, iter_t = [], []
    first_step = 0.0
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        batch = _to(next(train_batches), dev)
        t1 = time.perf_counter()
        step(batch)
        _sync(dev)
        t2 = time.perf_counter()
        if i == 0:
            first_step = t2 - t1
        if i >= warmup:
            step_t.append(t2 - t1)
            iter_t.append(t2 - t0)
    if profile is not None:
        batch = _to(next(train_batches), dev)
        profile(lambda: step(batch))

    model.eval()
    # test windows in order, at the training batch size (the reference times its test loader so)
    test = iter(DataLoader(datamodule.datasets["test"], batch_size=int(cfg.data.batch_size), shuffle=False))
    infer_t: list[float] = []
    with torch.inference_mode(), autocast(precision, dev):
        for j, batch in enumerate(test):
            if j >= infer_batches + 2:
                break
            batch = _to(batch, dev)
            t = time_calls(lambda: model(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec), 1, dev)
            if j >= 2:
                infer_t += t
        one = _to(Batch(*(t[:1] for t in batch)), dev)  # the loop may stop before moving its last batch
        single_t = time_calls(lambda: model(one.x_enc, one.x_mark_enc, one.x_mark_dec), 12, dev)[2:]
    peak = peak_memory_mb(dev)
    method = "cuda_max_allocated" if dev.type == "cuda" else "vmhwm"
    med = statistics.median
    b = int(cfg.data.batch_size)
    return StepReport(
        seq_len=int(cfg.data.seq_len), label_len=int(cfg.data.label_len), pred_len=int(cfg.data.pred_len),
        batch=b, threads=torch.get_num_threads(), device=str(dev), params=count_parameters(model),
        steps_timed=len(step_t), step_s_median=med(step_t), step_s_min=min(step_t), step_s_max=max(step_t),
        iter_s_median=med(iter_t), train_samples_per_s=b / med(iter_t), first_step_s=first_step,
        infer_s_per_batch=med(infer_t), infer_s_per_window=med(single_t), infer_samples_per_s=b / med(infer_t),
        peak_memory_mb=peak, memory_method=method, precision=precision, compile=bool(cfg.get("compile")),
        compiled=compiled, torch=str(torch.__version__))


def with_seq_len(cfg: DictConfig, seq_len: int) -> DictConfig:
    """``cfg`` with another input length (and a label length no longer than it)."""
    cfg = cfg.copy()
    with open_dict(cfg):
        cfg.data.seq_len = seq_len
        cfg.data.label_len = min(int(cfg.data.label_len), seq_len)
    return cfg
