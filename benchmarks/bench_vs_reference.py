#!/usr/bin/env python
"""Our training step and inference beside the reference Informer's, alternately, in one run.

For each configuration (the paper default and the small one), ``--rounds`` times: the reference's
own step timer (``ref_bench.py``, from the shared reference folder) and then ``bench_train.py``,
each a fresh process on the same thread count and allocator setting; with ``--precisions fp32 bf16`` ours
runs once in each precision after the reference in every round. Prints a Markdown table of the medians over
rounds, their ratios and the ratio in each round, and writes every reading to ``--out``.

    MALLOC_MMAP_THRESHOLD_=17179869184 MALLOC_TRIM_THRESHOLD_=17179869184 \\
    INFORMER_REPO=/tmp/Informer2020 python benchmarks/bench_vs_reference.py \\
        --ref-bench ../shared/reference/ref_bench.py --rounds 3 --threads 2 --out vs_reference.json
    ... --precisions fp32 bf16      # ours in both precisions (default: trainer.precision=auto alone, fp32)

``INFORMER_REPO`` is a writable copy of ``../shared/reference/Informer2020`` with ``data/ETT/ETTh1.csv``
in it (the reference's README: ``../shared/reference/README.md``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

#: name -> (reference flags, our overrides)
CONFIGS: dict[str, tuple[list[str], list[str]]] = {
    "paper default (d_model 512, 8 heads, d_ff 2048)": ([], ["experiment=bench_default"]),
    "small (d_model 128, 4 heads, d_ff 512)": (["--d_model", "128", "--n_heads", "4", "--d_ff", "512"],
                                               ["experiment=bench_default", "model.d_model=128", "model.n_heads=4",
                                                "model.d_ff=512"]),
}


def result_line(stdout: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith("RESULT ")]
    if not lines:
        raise RuntimeError(f"no RESULT line in:\n{stdout[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def run_reference(ref_bench: Path, flags: list[str], args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(ref_bench), "--attn", "prob", "--seq_len", "96", "--warmup", str(args.warmup),
           "--steps", str(args.steps), "--threads", str(args.threads), *flags]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    r = result_line(done.stdout)
    return {"step_s": r["step_s_median"], "infer_s": r["infer_s_per_batch_nograd"], "params": r["params"],
            "peak_mb": r["peak_rss_mb"]}


def run_ours(overrides: list[str], args: argparse.Namespace) -> dict[str, Any]:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "bench_train.py"), *overrides, "--warmup", str(args.warmup),
           "--steps", str(args.steps), "--threads", str(args.threads)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    r = result_line(done.stdout)
    return {"step_s": r["step_s_median"], "infer_s": r["infer_s_per_batch"], "params": r["params"],
            "peak_mb": r["peak_memory_mb"]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ref-bench", type=Path, default=ROOT.parent / "shared" / "reference" / "ref_bench.py")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=list(CONFIGS))
    p.add_argument("--precisions", nargs="+", default=None, choices=["fp32", "bf16"],
                   help="run ours in each of these trainer.precision values every round (default: auto alone, fp32)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if "INFORMER_REPO" not in os.environ:
        print("bench_vs_reference.py: set INFORMER_REPO to a writable copy of the reference (see --help)",
              file=sys.stderr)
        return 2
    sides = {"ours": []} if args.precisions is None else {
        f"ours {precision}": [f"trainer.precision={precision}"] for precision in args.precisions}
    readings: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for name in args.configs:
        ref_flags, ours = CONFIGS[name]
        readings[name] = {"reference": [], **{side: [] for side in sides}}
        for i in range(args.rounds):
            readings[name]["reference"].append(run_reference(args.ref_bench, ref_flags, args))
            for side, extra in sides.items():
                readings[name][side].append(run_ours([*ours, *extra], args))
            print(f"{name} round {i + 1}: " + ", ".join(f"{who} {r[-1]}" for who, r in readings[name].items()),
                  file=sys.stderr, flush=True)
    print("| config | side | step, median (min-max) | step / reference, of the medians (per round) | "
          "inference per batch, median | / reference |")
    print("|---|---|---|---|---|---|")
    for name, r in readings.items():
        ref = {k: statistics.median(x[k] for x in r["reference"]) for k in ("step_s", "infer_s")}
        for who, runs in r.items():
            steps = [x["step_s"] for x in runs]
            med = {k: statistics.median(x[k] for x in runs) for k in ("step_s", "infer_s")}
            per_round = ", ".join(f"{x['step_s'] / y['step_s']:.2f}" for x, y in zip(runs, r["reference"]))
            print(f"| {name} | {who} | {med['step_s']:.3f} s ({min(steps):.3f}-{max(steps):.3f}) | "
                  f"{med['step_s'] / ref['step_s']:.2f} ({per_round}) | {med['infer_s']:.3f} s | "
                  f"{med['infer_s'] / ref['infer_s']:.2f} |")
    if args.out is not None:
        args.out.write_text(json.dumps({"threads": args.threads, "rounds": args.rounds, "steps": args.steps,
                                        "readings": readings}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
