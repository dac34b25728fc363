"""``compile=true``: ``torch.compile`` the forecaster where a compiler toolchain is present, else run eager."""

from __future__ import annotations

import logging
import os
import shutil

import torch
from torch import nn

from forecast.core.parameters import module_device

log = logging.getLogger("forecast")


def compiler_missing(device: torch.device) -> str | None:
    """Why Inductor cannot compile for ``device`` here, or None when it can."""
    if not hasattr(torch, "compile"):
        return f"torch {torch.__version__} has no torch.compile"
    if device.type == "cuda":
        from torch.utils._triton import has_triton

        return None if has_triton() else "triton is not installed"
    cxx = os.environ.get("CXX", "g++")
    return None if shutil.which(cxx) or shutil.which("clang++") else f"no C++ compiler ({cxx}) on PATH"


def maybe_compile(net: nn.Module, enabled: bool) -> bool:
    """Compile ``net`` in place (``nn.Module.compile``) when ``enabled`` and the toolchain exists.

    In place, so parameter names and checkpoints stay those of the eager module. The compilation
    happens on the first call (its time falls in the first training step); a later shape (the last
    smaller batch, inference on one window) compiles once more. Returns whether it was compiled.
    """
    if not enabled:
        return False
    device = module_device(net)
    missing = compiler_missing(device)
    if missing is not None:
        log.warning("compile=true: %s, so the model runs eagerly", missing)
        return False
    # a layer type's forward is one code object shared by every layer, and each length (distilling
    # halves it; the decoder has its own) is one more compiled version of it
    torch._dynamo.config.recompile_limit = max(torch._dynamo.config.recompile_limit, 64)
    net.compile(dynamic=False)
    return True
