#!/usr/bin/env python
"""Where one ``forecast-predict`` call spends its wall time: imports, checkpoint, CSV, model, output.

Runs the command's own steps in a fresh process, timing each (``phases``), and the command itself
``--repeats`` times end to end (``cli_wall_s``, median). Prints one ``RESULT {json}`` line.

    python benchmarks/bench_predict.py outputs/<run> history.csv --threads 2 --out predict.json
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PHASES = r"""
import json, sys, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
from forecast.predict.trained_model import TrainedModel
from forecast.predict.output import write_csv
t2 = time.perf_counter()
torch.set_num_threads(int(sys.argv[3]))
fc = TrainedModel.load(sys.argv[1])
t3 = time.perf_counter()
panel = fc.read(sys.argv[2])
t4 = time.perf_counter()
frame = fc.forecast(panel)
t5 = time.perf_counter()
write_csv(frame, sys.argv[4], overwrite=True)
t6 = time.perf_counter()
print(json.dumps({"import_torch_s": t1 - t0, "import_forecast_s": t2 - t1, "load_checkpoint_s": t3 - t2,
                  "read_csv_s": t4 - t3, "forecast_s": t5 - t4, "write_csv_s": t6 - t5}))
"""


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("checkpoint", help="run dir or .ckpt")
    p.add_argument("history", help="the CSV to forecast from")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    cli = shutil.which("forecast-predict")
    if cli is None:
        print("bench_predict.py: forecast-predict is not on PATH; pip install -e . first", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "f.csv")
        phases = [json.loads(subprocess.run([sys.executable, "-c", PHASES, args.checkpoint, args.history,
                                             str(args.threads), out], env=env, check=True, capture_output=True,
                                            text=True).stdout.strip().splitlines()[-1])
                  for _ in range(args.repeats)]
        walls = []
        for _ in range(args.repeats):
            t = time.perf_counter()
            subprocess.run([cli, args.checkpoint, args.history, "-o", out, "--overwrite", "--quiet"], env=env,
                           check=True)
            walls.append(time.perf_counter() - t)
    med = {k: statistics.median(ph[k] for ph in phases) for k in phases[0]}
    result = {"cli_wall_s": statistics.median(walls), "phases_median_s": med,
              "model_share_of_wall": med["forecast_s"] / statistics.median(walls), "threads": args.threads}
    print("RESULT " + json.dumps(result), flush=True)
    if args.out is not None:
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
