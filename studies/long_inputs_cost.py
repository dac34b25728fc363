#!/usr/bin/env python
"""The cost of each model at each look-back in a long-input sweep, as the fastest of its runs.

ETTh1 and ETTh2 have the same shapes, so a model's runs at one look-back (2 datasets x 2 seeds) do the
same work; on a shared CPU their times differ by what else ran beside them, and the fastest run is the
least disturbed estimate. Prints one Markdown table: train s/epoch and inference ms per test batch.

    python studies/long_inputs_cost.py outputs/long [outputs/long96]
"""

from __future__ import annotations

import argparse
import math
from collections import defaultdict

from forecast.report.collect import load_runs, unique
from forecast.report.plots import short_label


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", help="sweep directories")
    args = parser.parse_args()
    runs = load_runs(args.dirs)
    fastest: dict[tuple[str, int, str], float] = defaultdict(lambda: math.inf)
    for run in runs:
        for key in ("train_seconds_per_epoch", "inference_ms_per_batch"):
            value = run.value(key)
            if not math.isnan(value):
                cell = (short_label(run.label), run.seq_len, key)
                fastest[cell] = min(fastest[cell], value)
    lengths = sorted({r.seq_len for r in runs})
    labels = sorted(unique(short_label(r.label) for r in runs),
                    key=lambda lb: fastest[(lb, lengths[-1], "train_seconds_per_epoch")])
    head = [f"s/epoch @ {n}" for n in lengths] + [f"ms/batch @ {n}" for n in lengths]
    print("| model / backend | " + " | ".join(head) + " |")
    print("|---|" + "---:|" * len(head))
    for label in labels:
        cells = [f"{fastest[(label, n, 'train_seconds_per_epoch')]:.1f}" for n in lengths]
        cells += [f"{fastest[(label, n, 'inference_ms_per_batch')]:,.0f}" for n in lengths]
        print(f"| {label} | " + " | ".join(c.replace("inf", "–") for c in cells) + " |")


if __name__ == "__main__":
    main()
