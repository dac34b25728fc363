#!/usr/bin/env python
"""Cost per element of a dropout mask on this CPU, beside a multiply, at 1 and 2 threads.

On CPUs other than Intel's, ATen draws ``bernoulli_`` (and so ``F.dropout``) with its serial default
generator; this prints what that costs against the model's lane-mask dropout
(``forecast.models.dropout``) and an elementwise multiply (docs/performance.md §3).

    python benchmarks/bench_rng.py --shape 32 96 2048 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout's root, for ``benchmarks``

from benchmarks.train_step import time_calls  # noqa: E402
from forecast.models.dropout import dropout, keep_mask  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", type=int, nargs="+", default=[32, 96, 2048], help="tensor shape (B, L, d_ff)")
    parser.add_argument("--p", type=float, default=0.05, help="dropout probability")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    x = torch.randn(*args.shape)
    ops = {"F.dropout": lambda: torch.nn.functional.dropout(x, args.p, True),
           "forecast Dropout (16-bit lanes)": lambda: dropout(x, args.p, True),
           "lane mask alone": lambda: keep_mask(x.shape, args.p, x.device),
           "bernoulli_": lambda: torch.empty_like(x).bernoulli_(1 - args.p),
           "uniform_": lambda: torch.empty_like(x).uniform_(),
           "mul": lambda: x * x}
    print(f"{x.numel() / 1e6:.1f}M float32 elements, median of {args.repeats}; ns per element")
    print("| op | " + " | ".join(f"{t} thread{'s' * (t > 1)}" for t in args.threads) + " |")
    print("|---|" + "---:|" * len(args.threads))
    for name, fn in ops.items():
        cells = []
        for threads in args.threads:
            torch.set_num_threads(threads)
            fn()  # warm-up
            seconds = statistics.median(time_calls(fn, args.repeats, x.device))
            cells.append(f"{seconds / x.numel() * 1e9:.2f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
