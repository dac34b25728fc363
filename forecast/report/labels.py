"""Display names for report rows: a YAML file mapping row labels to the names a document uses.

    "FloorResidual(BestFloor(RidgeFloor), InstanceNorm(Informer))[ProbSparseAttention] (default)": default
    "InstanceNorm(Informer)[FullAttention]": Full (SDPA)

A label the file does not name keeps its own; a name the runs do not have is ignored, so one file serves
a study at every stage. Two labels may not share a name: their rows would merge.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Sequence

from omegaconf import OmegaConf

from forecast.report.collect import ReportError, Run, unique


def read_labels(path: str | Path) -> dict[str, str]:
    """The mapping in ``path``: every key and value a non-empty string.

    Raises:
        ReportError: a missing or unreadable file, or one that is not such a mapping.
    """
    path = Path(path)
    if not path.is_file():
        raise ReportError(f"labels file {path} does not exist; pass a YAML file of 'row label: name' lines")
    try:
        data = OmegaConf.to_container(OmegaConf.load(path))
    except Exception as err:  # noqa: BLE001 - any YAML or encoding error: one line naming the file
        raise ReportError(f"labels file {path} is not readable YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(data, dict) or not data:
        raise ReportError(f"labels file {path} holds no mapping; write one 'row label: name' line per row")
    for key, value in data.items():
        if not isinstance(key, str) or not isinstance(value, str) or not key or not value.strip():
            raise ReportError(f"labels file {path}: entry {key!r}: {value!r} is not 'row label: name' "
                              "with a non-empty name (quote a label that YAML would read otherwise)")
    return {key: value.strip() for key, value in data.items()}


def relabel(runs: Sequence[Run], labels: dict[str, str], source: str | Path = "labels file") -> list[Run]:
    """``runs`` with each label that ``labels`` names replaced by its name.

    Raises:
        ReportError: two labels of ``runs`` would share a name.
    """
    owner: dict[str, str] = {}
    for label in unique(run.label for run in runs):
        name = labels.get(label, label)
        if name in owner:
            raise ReportError(f"{source}: rows '{owner[name]}' and '{label}' would both be named '{name}'; "
                              "give each its own name")
        owner[name] = label
    return [dataclasses.replace(run, label=labels[run.label]) if run.label in labels else run for run in runs]
