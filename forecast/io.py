"""Atomic file output: write a temp file beside the target, then rename (no partial output)."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


def _umask() -> int:
    """The process's file-creation mask (reading it means setting it; it is set straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextmanager
def atomic_path(target: str | Path, *, overwrite: bool = True) -> Iterator[Path]:
    """Yield a temporary path; on success rename it to ``target``, on error delete it.

    The file gets the permissions of the one it replaces, else those ``open`` would give a new file
    (0666 less the umask): the temp file is created private (0600), which would otherwise stay.

    Raises:
        FileExistsError: ``target`` exists and ``overwrite`` is False.
    """
    target = Path(target)
    if target.exists() and not overwrite:
        raise FileExistsError(f"{target}: already exists; pass --overwrite or another --output")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
        os.chmod(tmp_path, mode)
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_json(target: str | Path, payload: Any) -> None:
    """Atomically write ``payload`` as indented JSON."""
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")


#: what a refused run may have written into its run dir: Hydra's record of the settings and the run's log
UNFINISHED = frozenset({".hydra", "train.log"})


def remove_unfinished_run(run_dir: str | Path) -> None:
    """Delete a run dir that holds nothing but :data:`UNFINISHED` (bad input leaves no output), and, where it
    is the default layout's ``outputs/<date>/<time>`` under the working directory, the date folder and
    ``outputs/`` above it when nothing else is left in them."""
    run_dir = Path(run_dir).resolve()
    if not run_dir.is_dir() or any(p.name not in UNFINISHED for p in run_dir.iterdir()):
        return
    shutil.rmtree(run_dir, ignore_errors=True)
    day, root = run_dir.parent, run_dir.parent.parent
    if root != Path.cwd().resolve() / "outputs":
        return
    for folder in (day, root):
        try:
            folder.rmdir()  # only an empty folder
        except OSError:
            return
