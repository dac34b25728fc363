#!/usr/bin/env python
"""Training-step and inference speed, and peak memory, of the whole model ``forecast-train`` builds.

Takes the same Hydra overrides as ``forecast-train`` and times the model that config composes:
the training step (zero_grad + forward + MSE + backward + Adam, as ``../shared/reference/ref_bench.py``
times the reference's), inference per batch and per window, peak memory and the parameter count
(``benchmarks.train_step``). Prints one ``RESULT {json}`` line and writes ``--out``.

    python benchmarks/bench_train.py experiment=bench_default --steps 20 --out r.json
    python benchmarks/bench_train.py experiment=bench_default --profile            # top operators
    python benchmarks/bench_train.py experiment=bench_default --device cuda trainer.precision=bf16-mixed
    python benchmarks/bench_train.py experiment=bench_long attention=prob \\
        --lengths 720 1440 2880 5760 --out prob.json           # one fresh process per length

With ``--lengths`` each length runs in its own process (its own peak memory), under an address-space
limit (``--max-gb``) and a time limit (``--timeout``): a length that runs out of either is recorded
with ``status`` ``oom`` or ``timeout`` and the longer ones are skipped, instead of the run failing.
Set ``--threads`` explicitly: CPU times depend on it. Large allocations stay on glibc's heap, as in
``forecast-train`` (``forecast.runtime.tune_malloc``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

OOM_MARKERS = ("can't allocate memory", "Cannot allocate memory", "out of memory", "MemoryError", "std::bad_alloc",
               "Memory allocation")


def parse_args(argv: list[str] | None = None) -> tuple[argparse.Namespace, list[str]]:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--steps", type=int, default=20, help="timed training steps")
    p.add_argument("--warmup", type=int, default=5, help="untimed training steps first")
    p.add_argument("--infer-batches", type=int, default=20, help="timed inference batches")
    p.add_argument("--threads", type=int, default=2, help="torch intra-op threads")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:i]")
    p.add_argument("--out", type=Path, default=None, help="result JSON")
    p.add_argument("--lengths", type=int, nargs="+", default=None,
                   help="repeat over these data.seq_len values, each in a fresh process")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per length (with --lengths)")
    p.add_argument("--max-gb", type=float, default=16.0, help="address-space limit per length (with --lengths)")
    p.add_argument("--profile", action="store_true",
                   help="print the top operators of 5 training steps (self CPU time; self CUDA time on cuda)")
    p.add_argument("--profile-rows", type=int, default=15, help="operators in the --profile table")
    return p.parse_known_args(argv)


def run_one(args: argparse.Namespace, overrides: list[str]) -> dict[str, Any]:
    import torch

    from benchmarks.train_step import compose_config, measure
    from forecast.runtime import tune_malloc

    tune_malloc()
    torch.set_num_threads(args.threads)
    cfg = compose_config(overrides)
    profile = None
    if args.profile:
        def profile(step: Any) -> None:
            profile_steps(step, device=args.device, top=args.profile_rows)
    report = measure(cfg, steps=args.steps, warmup=args.warmup, infer_batches=args.infer_batches,
                     device=args.device, profile=profile)
    return {"status": "ok", "overrides": overrides, **report.as_dict()}


def profile_steps(step: Any, n: int = 5, top: int = 15, device: str = "cpu") -> None:
    """Print the operators that took the most time over ``n`` training steps: self CPU time, and on a
    CUDA device also self CUDA time (the kernels), each as its own table."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    cuda = device.startswith("cuda")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    with profile(activities=activities) as prof:
        for _ in range(n):
            step()
        if cuda:
            torch.cuda.synchronize()
    averages = prof.key_averages()
    print(f"top operators by self CPU time over {n} steps", flush=True)
    print(averages.table(sort_by="self_cpu_time_total", row_limit=top), flush=True)
    if cuda:
        print(f"top operators by self CUDA time over {n} steps", flush=True)
        print(averages.table(sort_by="self_device_time_total", row_limit=top), flush=True)


def run_length(args: argparse.Namespace, overrides: list[str], seq_len: int) -> dict[str, Any]:
    """One length in a fresh process under the time and memory limits; a failure becomes a status."""
    limit = int(args.max_gb * 2**30)

    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "r.json"
        cmd = [sys.executable, __file__, *overrides, f"data.seq_len={seq_len}", "--steps", str(args.steps),
               "--warmup", str(args.warmup), "--infer-batches", str(args.infer_batches), "--threads",
               str(args.threads), "--device", args.device, "--out", str(out)]
        started = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                  preexec_fn=limit_memory if args.device == "cpu" else None)
        except subprocess.TimeoutExpired:
            return {"status": "timeout", "seq_len": seq_len, "detail": f"over {args.timeout:.0f} s"}
        if proc.returncode == 0:
            return json.loads(out.read_text())
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        oom = proc.returncode == -9 or any(m in proc.stderr for m in OOM_MARKERS)
        return {"status": "oom" if oom else "error", "seq_len": seq_len, "detail": tail[0][:300],
                "seconds": round(time.perf_counter() - started, 1)}


def write(result: dict[str, Any], target: Path | None) -> None:
    print("RESULT " + json.dumps(result), flush=True)
    if target is None:
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    os.replace(tmp, target)


def main(argv: list[str] | None = None) -> int:
    args, overrides = parse_args(argv)
    unknown = [o for o in overrides if o.startswith("-")]
    if unknown:
        print(f"bench_train.py: unknown option {unknown[0]}; see --help", file=sys.stderr)
        return 2
    if args.lengths is None:
        write(run_one(args, overrides), args.out)
        return 0
    runs: list[dict[str, Any]] = []
    for seq_len in args.lengths:
        if runs and runs[-1]["status"] in ("oom", "timeout", "skipped"):
            runs.append({"status": "skipped", "seq_len": seq_len, "detail": f"a shorter length: {runs[-1]['status']}"})
        else:
            runs.append(run_length(args, overrides, seq_len))
        print(json.dumps({k: runs[-1].get(k) for k in ("seq_len", "status", "step_s_median", "infer_s_per_batch",
                                                       "peak_memory_mb", "detail")}), flush=True)
    write({"overrides": overrides, "threads": args.threads, "runs": runs}, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
