#!/usr/bin/env python
"""One sitting on a CUDA GPU: fp32 against bf16-mixed, for speed and for accuracy.

1. Speed: the training step and inference of the paper-default Informer (``experiment=bench_default``)
   and of the small width (d_model 128, 4 heads, d_ff 512), ``trainer.precision`` 32-true and
   bf16-mixed, in ``--rounds`` rounds that alternate the two (the order flips every round), in this
   one process; median and spread (max - min) over the rounds. -> ``bench.csv``
2. Accuracy: ``forecast-train`` (``python -m forecast.cli.train``) of the default model and of
   ``model=informer`` on ETTh1 and ETTh2, seeds 1..``--seeds``, both precisions, ``--jobs`` runs at a
   time on the one GPU, epochs as the configs say; each run's test MSE beside its best floor's. Runs
   start seed by seed, so a time budget (``--budget-s``) that stops early leaves whole seeds. ->
   ``accuracy.csv`` (a run not started or failed has its ``status``)

    python benchmarks/gpu_check.py --out gpu_out            # on the GPU (benchmarks/gpu_check.sh)
    python benchmarks/gpu_check.py --tiny --device cpu      # the logic in a minute, on a CPU

``--tiny`` shrinks everything (a few steps, a small width, one epoch of a few batches, one seed) so
the script's logic can be checked on a CPU. Prints one summary table at the end.
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PRECISIONS = ("32-true", "bf16-mixed")
BENCH_CONFIGS = {
    "paper_default": ["experiment=bench_default"],
    "small": ["experiment=bench_default", "model.d_model=128", "model.n_heads=4", "model.d_ff=512"],
}
TINY_BENCH = ["model.d_model=16", "model.n_heads=2", "model.d_ff=32"]
MODELS = {"default": [], "informer": ["model=informer"]}
TINY_TRAIN = ["trainer.max_epochs=1", "trainer.limit_train_batches=3", "trainer.limit_val_batches=2",
              "trainer.limit_test_batches=2", "model.net.net.d_model=16", "model.net.net.n_heads=2",
              "model.net.net.d_ff=32"]
TINY_TRAIN_INFORMER = ["trainer.max_epochs=1", "trainer.limit_train_batches=3", "trainer.limit_val_batches=2",
                       "trainer.limit_test_batches=2", "model.d_model=16", "model.n_heads=2", "model.d_ff=32"]


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def bench_script() -> Path:
    """``bench_train.py``, wherever this checkout keeps it."""
    for candidate in (ROOT / "benchmarks" / "bench_train.py", ROOT / "scripts" / "bench_train.py"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError("bench_train.py is in neither benchmarks/ nor scripts/")


def load_bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_train", bench_script())
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def etth2_path() -> Path | None:
    """ETTh2.csv: $ETTH2, else ../shared/data, shared/data or data/ beside this checkout."""
    candidates = [Path(os.environ["ETTH2"])] if os.environ.get("ETTH2") else []
    candidates += [ROOT.parent / "shared" / "data" / "ETTh2.csv", ROOT / "shared" / "data" / "ETTh2.csv",
                   ROOT / "data" / "ETTh2.csv"]
    return next((c for c in candidates if c.exists()), None)


def run_bench(args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    """Every config x precision once per round, alternating the precision order; one row per reading."""
    bench = load_bench()
    rows: list[dict[str, Any]] = []
    steps = ["--steps", str(args.steps), "--warmup", str(args.warmup), "--infer-batches", str(args.infer_batches),
             "--threads", str(args.threads), "--device", args.device]
    for r in range(args.rounds):
        order = PRECISIONS if r % 2 == 0 else PRECISIONS[::-1]
        for config, overrides in BENCH_CONFIGS.items():
            for precision in order:
                full = [*overrides, *(TINY_BENCH if args.tiny else []), f"trainer.precision={precision}"]
                bench_args, extra = bench.parse_args([*steps, *full])
                if args.device.startswith("cuda"):
                    import torch

                    torch.cuda.reset_peak_memory_stats()  # each reading its own peak
                try:
                    result = bench.run_one(bench_args, extra)
                    status = "ok"
                except Exception as exc:  # noqa: BLE001 - one failed reading is a row, not the end
                    result, status = {}, f"error: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                row = {"round": r + 1, "config": config, "precision": precision, "status": status,
                       **{k: result.get(k) for k in ("step_s_median", "step_s_min", "step_s_max",
                                                    "infer_s_per_batch", "infer_s_per_window", "peak_memory_mb",
                                                    "params", "device")}}
                rows.append(row)
                log(f"bench round {r + 1} {config} {precision}: step {row['step_s_median']} s, "
                    f"infer/batch {row['infer_s_per_batch']} s, {status}")
    write_csv(out / "bench.csv", rows)
    return rows


def bench_summary(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| config | precision | step median (s) | spread (max-min) | infer/batch median (s) | rounds |",
             "|---|---|---:|---:|---:|---:|"]
    medians: dict[tuple[str, str], float] = {}
    for config in BENCH_CONFIGS:
        for precision in PRECISIONS:
            ok = [r for r in rows if r["config"] == config and r["precision"] == precision and r["status"] == "ok"]
            if not ok:
                lines.append(f"| {config} | {precision} | failed | | | 0 |")
                continue
            steps = [r["step_s_median"] for r in ok]
            infer = [r["infer_s_per_batch"] for r in ok]
            medians[config, precision] = statistics.median(steps)
            lines.append(f"| {config} | {precision} | {statistics.median(steps):.4f} | {max(steps) - min(steps):.4f} "
                         f"| {statistics.median(infer):.4f} | {len(ok)} |")
    for config in BENCH_CONFIGS:
        if (config, "32-true") in medians and (config, "bf16-mixed") in medians:
            ratio = medians[config, "bf16-mixed"] / medians[config, "32-true"]
            lines.append(f"{config}: bf16-mixed step / fp32 step = {ratio:.2f}")
    return lines


def train_jobs(args: argparse.Namespace, out: Path) -> list[dict[str, Any]]:
    etth2 = etth2_path()
    datasets = {"ETTh1": ["data=etth1"]}
    if etth2 is not None:
        datasets["ETTh2"] = ["data=etth2", f"data.path={etth2}"]
    else:
        log("ETTh2.csv not found ($ETTH2, ../shared/data, shared/data, data/): ETTh2 runs are skipped; "
            "copy it to data/ETTh2.csv to include them")
    jobs = []
    for seed in range(1, args.seeds + 1):
        for data, data_overrides in datasets.items():
            for model, model_overrides in MODELS.items():
                tiny = (TINY_TRAIN_INFORMER if model == "informer" else TINY_TRAIN) if args.tiny else []
                for precision in PRECISIONS:
                    name = f"{data}_{model}_s{seed}_{precision}"
                    overrides = [*data_overrides, *model_overrides, f"seed={seed}", f"trainer.precision={precision}",
                                 f"threads={args.threads}", "plot=false", "trainer.enable_progress_bar=false",
                                 "trainer.enable_model_summary=false", f"hydra.run.dir={out / 'runs' / name}",
                                 *(["trainer.accelerator=gpu"] if args.device.startswith("cuda") else
                                   ["trainer.accelerator=cpu"]), *tiny]
                    jobs.append({"name": name, "data": data, "model": model, "seed": seed, "precision": precision,
                                 "overrides": overrides})
    return jobs


def run_accuracy(args: argparse.Namespace, out: Path, deadline: float) -> list[dict[str, Any]]:
    """The training runs, ``--jobs`` at a time, started in order until ``deadline``; one row per run."""
    jobs = train_jobs(args, out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}
    pending, running, rows = list(jobs), [], []
    while pending or running:
        while pending and len(running) < args.jobs:
            if time.time() > deadline - args.min_run_s:
                for job in pending:
                    rows.append(result_row(job, "not run: time budget", None))
                pending = []
                break
            job = pending.pop(0)
            logf = open(out / "runs" / f"{job['name']}.log", "w")
            proc = subprocess.Popen([sys.executable, "-m", "forecast.cli.train", *job["overrides"]], cwd=ROOT,
                                    stdout=logf, stderr=subprocess.STDOUT, env=env)
            running.append((job, proc, logf, time.time()))
            log(f"start {job['name']}")
        time.sleep(1.0)
        for item in list(running):
            job, proc, logf, started = item
            over = time.time() > deadline
            if proc.poll() is None and not over:
                continue
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            logf.close()
            running.remove(item)
            metrics_path = out / "runs" / job["name"] / "metrics.json"
            if proc.returncode == 0 and metrics_path.exists():
                row = result_row(job, "ok", json.loads(metrics_path.read_text()), time.time() - started)
            else:
                tail = (out / "runs" / f"{job['name']}.log").read_text().strip().splitlines()[-1:] or [""]
                status = "killed: time budget" if over else f"failed (exit {proc.returncode}): {tail[0][:200]}"
                row = result_row(job, status, None, time.time() - started)
            rows.append(row)
            log(f"done {job['name']}: {row['status']} test/mse {row['test_mse']}")
    rows.sort(key=lambda r: (r["data"], r["model"], r["seed"], r["precision"]))
    write_csv(out / "accuracy.csv", rows)
    return rows


def result_row(job: dict[str, Any], status: str, metrics: dict[str, Any] | None,
               seconds: float | None = None) -> dict[str, Any]:
    floors = (metrics or {}).get("floors") or {}
    floor_mse = {name: m.get("test/mse") for name, m in floors.items()}
    best_floor = min(floor_mse, key=lambda k: floor_mse[k]) if floor_mse else None
    return {"data": job["data"], "model": job["model"], "seed": job["seed"], "precision": job["precision"],
            "status": status, "test_mse": (metrics or {}).get("test/mse"), "test_mae": (metrics or {}).get("test/mae"),
            "val_mse": (metrics or {}).get("val/mse"), "epochs": (metrics or {}).get("epochs"),
            "recorded_precision": (metrics or {}).get("precision"),
            "best_floor": best_floor, "best_floor_test_mse": floor_mse.get(best_floor) if best_floor else None,
            "train_s_per_epoch": (metrics or {}).get("train_seconds_per_epoch"),
            "wall_s": None if seconds is None else round(seconds, 1)}


def accuracy_summary(rows: list[dict[str, Any]]) -> list[str]:
    lines = ["| data | model | fp32 test MSE (mean ± sd, n) | bf16 test MSE (mean ± sd, n) | bf16 - fp32 | best floor |",
             "|---|---|---|---|---:|---|"]
    for data in sorted({r["data"] for r in rows}):
        for model in MODELS:
            cells, means = [], {}
            floor = next((f"{r['best_floor']} {r['best_floor_test_mse']:.4f}" for r in rows
                          if r["data"] == data and r["best_floor"]), "-")
            for precision in PRECISIONS:
                vals = [r["test_mse"] for r in rows if r["data"] == data and r["model"] == model
                        and r["precision"] == precision and r["status"] == "ok"]
                if vals:
                    means[precision] = statistics.mean(vals)
                    sd = statistics.stdev(vals) if len(vals) > 1 else 0.0
                    cells.append(f"{means[precision]:.4f} ± {sd:.4f} (n={len(vals)})")
                else:
                    cells.append("none")
            diff = (f"{means['bf16-mixed'] - means['32-true']:+.4f}" if len(means) == 2 else "-")
            lines.append(f"| {data} | {model} | {cells[0]} | {cells[1]} | {diff} | {floor} |")
    return lines


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def device_info(device: str) -> dict[str, Any]:
    import torch

    info: dict[str, Any] = {"torch": torch.__version__, "device": device, "cuda": torch.version.cuda}
    if device.startswith("cuda"):
        info.update(gpu=torch.cuda.get_device_name(0), bf16_supported=torch.cuda.is_bf16_supported(),
                    gpu_memory_gb=round(torch.cuda.get_device_properties(0).total_memory / 2**30, 1))
    from forecast.training.precision import resolve_precision

    info["auto_precision"] = resolve_precision("auto")
    return info


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "gpu_out")))
    p.add_argument("--device", default="cuda")
    p.add_argument("--tiny", action="store_true", help="shrink everything to check the logic (CPU, a minute)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--infer-batches", type=int, default=10)
    p.add_argument("--threads", type=int, default=2, help="torch CPU threads per process")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--jobs", type=int, default=8, help="training runs at a time on the GPU")
    p.add_argument("--budget-s", type=float, default=390.0, help="wall seconds for the whole check")
    p.add_argument("--min-run-s", type=float, default=60.0, help="no run starts with less time than this left")
    p.add_argument("--skip-bench", action="store_true")
    p.add_argument("--skip-accuracy", action="store_true")
    args = p.parse_args(argv)
    if args.tiny:
        args.steps, args.warmup, args.infer_batches, args.seeds = 2, 1, 2, 1
        args.rounds = min(args.rounds, 2)
        args.min_run_s = 0.0
    deadline = time.time() + args.budget_s
    args.out.mkdir(parents=True, exist_ok=True)
    sys.path.insert(0, str(ROOT))
    info = device_info(args.device)
    log("device: " + json.dumps(info))
    (args.out / "device.json").write_text(json.dumps(info, indent=2) + "\n")
    summary: list[str] = [f"device: {json.dumps(info)}"]
    if not args.skip_bench:
        rows = run_bench(args, args.out)
        summary += ["", f"## speed ({args.rounds} alternating rounds, {args.steps} timed steps each)",
                    *bench_summary(rows)]
    if not args.skip_accuracy:
        rows = run_accuracy(args, args.out, deadline)
        summary += ["", f"## accuracy (test MSE over seeds 1..{args.seeds})", *accuracy_summary(rows)]
    text = "\n".join(summary)
    (args.out / "summary.md").write_text(text + "\n")
    print("\n" + text, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
