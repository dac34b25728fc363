#!/usr/bin/env python
"""Time and peak memory of every attention backend against sequence length (CPU or CUDA).

Every backend in ``forecast/conf/attention/*.yaml`` plus two baselines (``sdpa``: SDPA as shipped;
``dense``: explicit einsum softmax, O(L^2) memory) runs over the requested lengths in two modes,
``fwd`` (under ``no_grad``) and ``fwdbwd`` (backward of ``out.sum()``), each (backend, length, mode)
in its own process (tensor storage is invisible to ``tracemalloc``). Writes a CSV with columns
``backend, length, mode, device, time_ms, peak_mb`` (+ ``status`` and the settings), a PNG with
two log-log panels next to it, and optionally a markdown summary.

Example (the full CPU sweep)::

    python benchmarks/bench_attention.py --backends all \\
        --lengths 256 512 1024 2048 4096 8192 16384 --out results/attention_cpu.csv --summary

Each measurement runs in two fresh processes: one for the peak memory (RSS high-water mark with
glibc's mmap threshold fixed at 64 KiB, so freed tensors leave RSS and the peak is exact; CUDA:
``max_memory_allocated``), one for the time (median of ``--repeats`` blocks, ``--threads`` threads,
default 1, under ``--allocator tuned``: ``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` =
16 GiB for stable step times). Why two: ``benchmarks/attention/worker.py``; failures, timeouts and the
memory guard: ``benchmarks/attention/runner.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.attention import report  # noqa: E402
from benchmarks.attention.backends import CONF_DIR, select  # noqa: E402
from benchmarks.attention.runner import configure_environment, default_max_mb, run_all  # noqa: E402
from benchmarks.attention.spec import MODES, Measurement, Result  # noqa: E402

DEFAULT_LENGTHS = [256, 512, 1024, 2048, 4096, 8192, 16384]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--backends", nargs="+", default=["all"],
                   help="'all' (every forecast/conf/attention/*.yaml + sdpa + dense) or names")
    p.add_argument("--lengths", nargs="+", type=int, default=DEFAULT_LENGTHS)
    p.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    p.add_argument("--batch", type=int, default=1)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--dtype", choices=("float32", "float16", "bfloat16"), default="float32")
    p.add_argument("--device", default="cpu", help="cpu or cuda[:i]")
    p.add_argument("--causal", action="store_true", help="causal self-attention")
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads in every worker")
    p.add_argument("--repeats", type=int, default=5, help="timed blocks; the median is reported")
    p.add_argument("--min-block-s", type=float, default=0.05,
                   help="a timed block repeats the call until it lasts this long")
    p.add_argument("--timeout", type=float, default=600.0, help="seconds per measurement")
    p.add_argument("--max-mb", type=float, default=None,
                   help="memory budget per measurement above the worker's baseline (CPU: RLIMIT_AS; "
                        "CUDA: memory fraction); default 80%% of MemAvailable on CPU, none on CUDA")
    p.add_argument("--allocator", choices=("tuned", "default"), default="tuned",
                   help="glibc malloc thresholds of the time processes (memory always uses a 64 KiB mmap threshold)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--conf-dir", type=Path, default=CONF_DIR, help="the backend registry")
    p.add_argument("--out", type=Path, required=True, help="CSV path")
    p.add_argument("--plot", type=Path, default=None, help="PNG path (default: <out stem>.png)")
    p.add_argument("--summary", nargs="?", const="-", default=None, metavar="PATH",
                   help="print a markdown table (backend x length); with PATH also write it there")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    entries = select(args.backends, args.conf_dir)
    max_mb = args.max_mb
    if max_mb is None and not args.device.startswith("cuda"):
        max_mb = default_max_mb()
    allocator = configure_environment(allocator=args.allocator, threads=args.threads)
    template = Measurement(backend="", conf_path=None, length=0, mode="fwd", device=args.device,
                           batch=args.batch, heads=args.heads, head_dim=args.head_dim, dtype=args.dtype,
                           causal=args.causal, threads=args.threads, repeats=args.repeats,
                           min_block_s=args.min_block_s, max_mb=max_mb, seed=args.seed)
    print(f"bench_attention: {len(entries)} backends {[e.name for e in entries]}, lengths {args.lengths}, "
          f"modes {args.modes}, device {args.device}, threads {args.threads}, allocator {allocator}, "
          f"max_mb {max_mb if max_mb is None else round(max_mb)}", flush=True)
    rows: list[Result] = []
    start = time.perf_counter()

    def progress(r: Result) -> None:
        rows.append(r)
        numbers = f"{r.time_ms:10.3f} ms {r.peak_mb:9.1f} MB" if r.status == "ok" else f"{'':27}"
        print(f"{r.backend:>12} {r.mode:>6} L={r.length:<6} {r.status:<11} {numbers} {r.detail}", flush=True)
        report.write_csv(rows, args.out)  # rewritten atomically after every row: a killed run keeps its rows

    run_all(entries, args.lengths, args.modes, template, timeout_s=args.timeout, on_result=progress)
    report.write_csv(rows, args.out)
    plot_path = args.plot or args.out.with_suffix(".png")
    report.plot(rows, plot_path)
    print(f"wrote {args.out} and {plot_path} ({time.perf_counter() - start:.1f} s)")
    if args.summary is not None:
        text = report.summary_markdown(rows)
        print(text)
        if args.summary != "-":
            report.write_text(text, Path(args.summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
