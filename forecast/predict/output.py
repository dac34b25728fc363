"""Where forecasts go: default paths beside the input, refused when they exist, written atomically."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

import pandas as pd

from forecast.data.errors import DataError
from forecast.io import atomic_path


def default_output(input_path: str | Path, kind: str, suffix: str = ".csv") -> Path:
    """``<input stem>.<kind><suffix>`` next to the input (``ETTh2.forecast.csv``)."""
    path = Path(input_path)
    return path.with_name(f"{path.stem}.{kind}{suffix}")


def check_targets(targets: Iterable[Path], *, inputs: Iterable[Path], overwrite: bool) -> None:
    """Refuse output paths that exist (unless ``overwrite``) or that are an input file.

    Raises:
        FileExistsError: an output exists and ``overwrite`` is False.
        DataError: an output is an input, or two outputs are the same file.
    """
    ins = {Path(p).resolve() for p in inputs}
    seen: set[Path] = set()
    for target in targets:
        resolved = Path(target).resolve()
        if resolved in ins:
            raise DataError(f"{target}: is an input file; choose another output path")
        if resolved in seen:
            raise DataError(f"{target}: given for two outputs; choose distinct paths")
        seen.add(resolved)
        if Path(target).exists() and not overwrite:
            raise FileExistsError(f"{target}: already exists; pass --overwrite or another --output")
        if Path(target).is_dir():
            raise DataError(f"{target}: is a directory; give a file path")


def write_csv(frame: pd.DataFrame, target: Path, *, overwrite: bool) -> Path:
    """Atomically write ``frame`` (no index) to ``target``."""
    with atomic_path(target, overwrite=overwrite) as tmp:
        frame.to_csv(tmp, index=False)
    return target
