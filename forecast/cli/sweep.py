"""Sweep jobs that fail on a user error: the sweep goes on, lists them, and exits with status 2.

One job of a grid can fail where the others run: a backend that cannot fill a role (Nyström in the
causal decoder), a look-back longer than a short file allows. Hydra stops a sweep at the first job
that raises, which would leave the rest of a comparison unrun. Instead the job's one-line error is
printed and appended to ``<sweep dir>/failed_jobs.jsonl`` (a JSON object a line: job number, its
overrides, the error), the job leaves no run directory, and the sweep continues. When the sweep
ends, :class:`SweepOutcome` (a Hydra callback, ``forecast/conf/hydra/default.yaml``) names the file and exits
with status 2; ``forecast-compare`` lists the failed jobs under the table. The file is appended
to, one short write per line, so jobs of a parallel launcher (joblib) can record failures side by side.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hydra.core.hydra_config import HydraConfig
from hydra.experimental.callback import Callback
from hydra.types import RunMode
from omegaconf import DictConfig

from forecast.report.failed_jobs import FAILED_JOBS, read_failed_jobs


def in_sweep() -> bool:
    """True inside a job of ``forecast-train -m``."""
    return HydraConfig.initialized() and HydraConfig.get().mode == RunMode.MULTIRUN


def record_failed_job(message: str) -> str:
    """Append this job's error to its sweep's ``failed_jobs.jsonl``; return the line to print."""
    hydra = HydraConfig.get()
    overrides = list(hydra.overrides.task)
    entry = {"job": int(hydra.job.num), "overrides": overrides, "error": message}
    with open(Path(hydra.sweep.dir) / FAILED_JOBS, "a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
    return f"job {hydra.job.num} ({' '.join(overrides)}): {message}"


class SweepOutcome(Callback):
    """At the end of a sweep, exit with status 2 if any job failed, naming the file that lists them."""

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        # a sweep run again into the same directory lists its own failures only
        (Path(str(config.hydra.sweep.dir)) / FAILED_JOBS).unlink(missing_ok=True)

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        sweep_dir = Path(str(config.hydra.sweep.dir))
        failed = read_failed_jobs(sweep_dir)
        if failed:
            print(f"error: {len(failed)} job(s) of the sweep failed (listed in {sweep_dir / FAILED_JOBS}); "
                  f"the other jobs' results are in {sweep_dir}", file=sys.stderr)
            sys.exit(2)
