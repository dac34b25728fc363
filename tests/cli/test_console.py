"""What ``forecast-train`` prints: its own few lines and its progress (a bar on a terminal, plain lines in a pipe);
``-v`` adds Lightning's own lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from forecast.training.progress import StepProgressLines, duration
from tests.conftest import tiny_run_overrides

BAR = re.compile(r"^(Epoch \d+/\d+|round \d+/\d+, steps|Training|Validation|Testing|Sanity Checking)\b|^\s*\x1b?\[A$")


def console_lines(output: str) -> list[str]:
    """The non-empty printed lines that are not the progress bar (a bar line and its indented continuation)."""
    lines, in_bar = [], False
    for line in output.replace("\r", "\n").splitlines():
        if BAR.match(line):
            in_bar = True
            continue
        if in_bar and line.startswith(" "):
            continue
        in_bar = False
        if line.strip():
            lines.append(line)
    return lines


def train(csv: Path, cwd: Path, *flags: str) -> str:
    """stdout and stderr of a short run with the default console settings (progress bar, logger, summary)."""
    overrides = [o for o in tiny_run_overrides(csv) if not o.startswith(("trainer.enable_", "logger="))]
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.train", *flags, *overrides, "threads=1"], cwd=cwd,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout + proc.stderr


def test_a_default_run_prints_its_own_lines_and_the_bar(small_csv: Path, tmp_path: Path) -> None:
    output = train(small_csv, tmp_path)
    lines = console_lines(output)
    assert len(lines) <= 15, "\n".join(lines)
    assert lines[0].startswith("read ") and lines[0].endswith(" s")  # the message alone, no stamp
    assert lines[1].startswith("floors (naive, mean, seasonal_naive, ridge, cross_ridge, day_profile, "
                               "week_profile) in ")
    closing = [line for line in lines if line.startswith(("test/mse ", "run dir:    ", "checkpoint: "))]
    assert len(closing) == 3  # the closing lines, once each
    assert "\r" not in output and "\x1b" not in output  # a pipe gets lines, not a bar's returns and cursor moves
    assert re.search(r"^round 1/2, step \d+: val/loss \d\.\d{4} \(\d+ s\)$", output, flags=re.M)
    for chatter in ("GPU available", "Tip:", "Total FLOPs", "Trainable params", "LeafSpec", "Restoring states"):
        assert chatter not in output


@pytest.mark.parametrize("patience", ["callbacks.early_stopping.patience=1",  # early stopping stops the run
                                      "callbacks.early_stopping.patience=2"])  # the start's patience does
def test_a_round_that_stops_training_is_said_before_the_stop(small_csv: Path, tmp_path: Path, patience: str) -> None:
    lines = console_lines(train(small_csv, tmp_path, "task.optimizer.lr=50.0", "start_patience_steps=1", patience))
    at = {line.split(":")[0]: i for i, line in enumerate(lines)}
    assert at["round 1/2, step 5"] < at["training stops after round 1"], "\n".join(lines)


def test_progress_lines_give_the_step_the_budget_and_the_time_left() -> None:
    lines = StepProgressLines()
    trainer = SimpleNamespace(global_step=400, current_epoch=1, max_epochs=6)
    lines._total, lines._started, lines._first_step = 3000, 100.0, 0
    assert lines.line(trainer, 200.0) == "round 2/6: step 400/3000 (13%), 4.00 steps/s, about 11 min left"
    lines._first_step = 400  # a resumed run's rate counts only its own steps
    assert lines.line(trainer, 200.0) == "round 2/6: step 400/3000 (13%), 0.00 steps/s, about ? left"
    lines._total, lines._first_step = None, 0
    assert lines.line(trainer, 200.0) == "round 2/6: step 400, 4.00 steps/s"
    assert [duration(s) for s in (45, 650, 9000)] == ["45 s", "11 min", "2.5 h"]


def test_verbose_brings_back_lightnings_lines_once(small_csv: Path, tmp_path: Path) -> None:
    output = train(small_csv, tmp_path, "-v", "callbacks.early_stopping.patience=2")  # to Lightning's max_epochs line
    # once: not also through Lightning's own handler
    assert len(re.findall(r"GPU available: (True|False)", output)) == 1
    assert "Trainable params" in output  # the model summary
    assert "`Trainer.fit` stopped: `max_epochs=2` reached." in output
    assert len(console_lines(output)) > 15
