"""Atomic file output: write a temp file beside the target, then rename (no partial output)."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator


@contextmanager
def atomic_path(target: str | Path, *, overwrite: bool = True) -> Iterator[Path]:
    """Yield a temporary path; on success rename it to ``target``, on error delete it.

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
        os.replace(tmp_path, target)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def write_json(target: str | Path, payload: Any) -> None:
    """Atomically write ``payload`` as indented JSON."""
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(payload, indent=2, sort_keys=True) + "\n")
