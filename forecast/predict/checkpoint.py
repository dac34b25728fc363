"""Find the checkpoint to load: a ``.ckpt`` file, or a run directory's best checkpoint."""

from __future__ import annotations

import json
from pathlib import Path

import torch

from forecast.data.errors import DataError
from forecast.spelling import CLI, Spelling


def _from_metrics(run_dir: Path) -> Path | None:
    """The best checkpoint named in ``metrics.json`` (looked up in the run dir if the run moved)."""
    metrics = run_dir / "metrics.json"
    if not metrics.is_file():
        return None
    try:
        named = json.loads(metrics.read_text()).get("checkpoint")
    except (OSError, ValueError, AttributeError):
        return None
    if not named:
        return None
    moved = run_dir / "checkpoints" / Path(named).name
    if moved.is_file():
        return moved
    return Path(named) if Path(named).is_file() else None


def resolve_checkpoint(path: str | Path) -> Path:
    """The ``.ckpt`` file for ``path``.

    A run directory resolves to the checkpoint its ``metrics.json`` names, else the newest
    ``checkpoints/best*.ckpt``, else the newest ``checkpoints/*.ckpt``.

    Raises:
        DataError: nothing at ``path``, or a directory without checkpoints.
    """
    path = Path(path)
    if path.is_dir():
        found = _from_metrics(path)
        if found is not None:
            return found
        candidates = sorted((path / "checkpoints").glob("*.ckpt"))
        best = [c for c in candidates if c.name.startswith("best")] or candidates
        if not best:
            raise DataError(f"{path}: no checkpoint in this directory (looked for metrics.json and "
                            f"checkpoints/*.ckpt); pass a .ckpt file or a forecast-train run directory")
        return max(best, key=lambda c: c.stat().st_mtime)
    if not path.exists():
        raise DataError(f"{path}: checkpoint not found; pass a .ckpt file or a forecast-train run directory")
    return path


def resolve_device(name: str, *, spelling: Spelling = CLI) -> torch.device:
    """``cpu``, ``cuda`` or ``cuda:N``; ``spelling`` names the argument in messages (``--device``, ``device=``).

    Raises:
        DataError: an unknown device, or CUDA asked for but not available.
    """
    try:
        device = torch.device(name)
    except RuntimeError as exc:
        raise DataError(f"{spelling.given('device', name, quote=True)}: unknown device; use cpu or cuda") from exc
    if device.type == "cuda" and not torch.cuda.is_available():
        raise DataError(f"{spelling.given('device', name)}: no CUDA device is available here; use "
                        f"{spelling.given('device', 'cpu')}")
    if device.type not in ("cpu", "cuda"):
        raise DataError(f"{spelling.given('device', name, quote=True)}: unsupported device; use cpu or cuda")
    return device
