"""The closed-form start's patience asks a round to beat the start on the later half of the windows too.

For each (series, seed) of ``studies/keep_rule.py`` the default runs with the current rule; a run whose log says a
round led its start only on the earlier windows ("... but not on the later half ...") is the one the rule can
change, and it runs again with the previous rule (a round ahead on ``val/loss`` alone holds training on), so the
two can be set side by side. Every other run trains the same rounds under both rules. Each run also lists every
round's gain over the start, overall and on the later half of the windows (``round_gains``), so other rules can
be replayed on the previous rule's rounds.

    python studies/start_later_half.py OUT --series taylor weather_greensboro particulates --seeds 2021 1 2
    python studies/start_later_half.py OUT --table

Writes ``OUT/runs/<series>-<seed>[-previous]/`` (with ``console.txt``) and ``OUT/start_later_half.csv``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from keep_rule import SERIES, data_overrides, ensure_series  # noqa: E402

EARLIER_ONLY = "but not on the later half"
# every round's gain over the start, overall and on the later half of the windows, as a "ROUND" line
ROUND_LINES = """
import forecast.training.closed_form as c
later_half_gain, on_validation_end = c.later_half_gain, c.ClosedFormStart.on_validation_end
def logged(self, trainer, pl_module):
    if self._start_losses is not None and not trainer.sanity_checking and trainer.state.fn == 'fit':
        losses = c.process_shards(trainer, pl_module.window_losses())
        if len(losses) == len(self._start_losses):
            overall = 1 - losses.mean() / self._start_losses.mean()
            print(f"ROUND {trainer.current_epoch + 1} {trainer.global_step} {overall:.6f} "
                  f"{later_half_gain(self._start_losses, losses):.6f}", flush=True)
    on_validation_end(self, trainer, pl_module)
c.ClosedFormStart.on_validation_end = logged
"""
PREVIOUS_RULE = "c.later_half_gain = lambda start, model: 1.0\n"


def run(overrides: list[str], run_dir: Path, *, previous: bool) -> dict[str, Any]:
    """One ``forecast-train`` subprocess (``threads=1``); its metrics, rounds and whether the rule spoke."""
    console = run_dir / "console.txt"
    if not (run_dir / "metrics.json").is_file():
        code = (ROUND_LINES + (PREVIOUS_RULE if previous else "") + "import sys; from forecast.cli.train import main; "
                "sys.argv = ['forecast-train', *sys.argv[1:]]; main()")
        args = [*overrides, "threads=1", "plot=false", "logger=none", "trainer.enable_progress_bar=false",
                f"hydra.run.dir={run_dir}"]
        proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{run_dir}: {proc.stderr[-3000:]}")
        console.write_text(proc.stdout + proc.stderr)
    m = json.loads((run_dir / "metrics.json").read_text())
    keep = m.get("keep", {})
    return {"rule": "previous" if previous else "later half", "rounds": m["epochs"], "steps": m.get("steps"),
            "decision": keep.get("decision"), "p_value": keep.get("p_value"), "test_mse": m["test/mse"],
            "wall_seconds": round(m["wall_seconds"], 1), "earlier_only": EARLIER_ONLY in console.read_text(),
            "round_gains": json.dumps([[float(v) for v in line.split()[3:5]] for line in console.read_text().splitlines()
                                       if line.startswith("ROUND ")])}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--series", nargs="+", default=list(SERIES), choices=list(SERIES))
    parser.add_argument("--seeds", type=int, nargs="+", default=[2021])
    parser.add_argument("--table", action="store_true", help="print OUT/start_later_half.csv and stop")
    args = parser.parse_args()
    table = args.out / "start_later_half.csv"
    if not args.table:
        ensure_series(args.out / "data")
        for name in args.series:
            for seed in args.seeds:
                overrides = [*data_overrides(name, args.out / "data"), f"seed={seed}"]
                rows = [run(overrides, args.out / "runs" / f"{name}-{seed}", previous=False)]
                if rows[0]["earlier_only"]:
                    rows.append(run(overrides, args.out / "runs" / f"{name}-{seed}-previous", previous=True))
                frame = pd.DataFrame([{"series": name, "seed": seed, **r} for r in rows])
                frame.to_csv(table, mode="a", header=not table.is_file(), index=False)
                print(frame.to_string(index=False, header=False), flush=True)
    print(pd.read_csv(table).to_string(index=False))


if __name__ == "__main__":
    main()
