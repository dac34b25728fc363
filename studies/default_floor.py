"""The default's floor on one series of ``studies/keep_rule.py``, fitted and chosen as a run does, for the
floors-only studies (``floor_prior.py``)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, Callable, NamedTuple, Sequence

import numpy as np
import pandas as pd
import torch

from keep_rule import ETT, FRESH, GENERATED, ROOT, SERIES, data_overrides, ensure_series

#: overrides after every series' own (``--set``), as ``data.seq_len=96``
OVERRIDES: list[str] = []


class DefaultFloor(NamedTuple):
    """The series' data module (set up for fitting), the default's ``BestFloor`` after its choice on validation,
    and the ordered training and validation windows it was fitted and chosen on."""

    datamodule: Any
    floor: Any
    train: Any
    val: Any


def default_floor(name: str, data_dir: Path) -> DefaultFloor:
    """Fit the default's floors on the series ``name`` and choose on its validation windows."""
    from hydra import compose, initialize_config_dir
    from hydra.utils import instantiate
    from omegaconf import open_dict

    from forecast.runtime import register_resolvers

    register_resolvers()
    with initialize_config_dir(str(ROOT / "forecast" / "conf"), version_base="1.3"):
        cfg = compose("train", overrides=[*data_overrides(name, data_dir), *OVERRIDES,
                                            "paths.output_dir=/tmp/unused"])
    dm = instantiate(cfg.data)
    dm.setup("fit")
    with open_dict(cfg):  # as the pipeline: the inferred frequency derives the season and the profiles
        cfg.data.freq = cfg.data.get("freq") or dm.spec.freq
    floor = instantiate(cfg.model)(dims=dm.model_dims()).floor  # the default's BestFloor
    train, val = dm.ordered_train_dataloader(), dm.ordered_dataloader("val")
    with torch.random.fork_rng(devices=[]):
        floor.fit_closed_form(train)
        floor.select_on_validation(val)
    return DefaultFloor(dm, floor, train, val)


def floor_table(out: Path, series: Sequence[str], row: Callable[[str, Path], dict[str, Any]],
                name: str) -> pd.DataFrame:
    """``row(series, data_dir)`` for each series at one thread (the package series written under ``out/data``
    first), each printed as it comes, a series whose windows do not fit said and left out; the table, also written
    to ``out/name``."""
    from forecast.data.errors import DataError

    torch.set_num_threads(1)
    ensure_series(out / "data")
    rows = []
    for one in series:
        try:
            rows.append(row(one, out / "data"))
        except DataError as error:
            print(f"{one}: left out: {error}", flush=True)
            continue
        print(json.dumps(rows[-1]), flush=True)
    table = pd.DataFrame(rows)
    table.to_csv(out / name, index=False)
    return table


def compare_rules(description: str, row: Callable[[str, Path], dict[str, Any]], name: str,
                  rules: Sequence[str], generated: Sequence[str] = ()) -> pd.DataFrame:
    """A floors-only study's command line (``OUT_DIR [--series ...]``, every series but the generated ones): its
    table (:func:`floor_table`), and the geometric mean of each rule's test MSE (``<rule>_test``) over the best of
    the four older floors (``old_floors_test``) over the package, fresh and all real series, printed;
    ``generated``: more generated series, run only when named."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("out", type=Path)
    made = [*GENERATED, *generated]
    parser.add_argument("--series", nargs="+", default=[s for s in SERIES if s not in made], choices=list(SERIES))
    parser.add_argument("--set", nargs="+", default=[], metavar="OVERRIDE",
                        help="overrides after each series' own, e.g. data.seq_len=96 data.label_len=48 data.pred_len=24")
    args = parser.parse_args()
    OVERRIDES[:] = args.set
    table = floor_table(args.out, args.series, row, name)
    real = ~table.series.isin([*ETT, *made])
    for label, which in (("package", real & ~table.series.isin(FRESH)), ("fresh", table.series.isin(FRESH)),
                         ("all real", real)):
        part = table[which]
        for rule in rules:
            ratio = part[f"{rule}_test"] / part.old_floors_test
            print(f"{label} ({len(part)} series), {rule}: {float(np.exp(np.log(ratio).mean())):.3f}")
    return table
