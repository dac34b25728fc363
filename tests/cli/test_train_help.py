"""``forecast-train --help``: the config groups with their options, and three examples that compose."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from forecast.runtime import CONF_DIR, PROJECT_ROOT
from tests.conftest import compose_train


@pytest.fixture(scope="module")
def help_text(tmp_path_factory: pytest.TempPathFactory) -> str:
    cwd = tmp_path_factory.mktemp("help")
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.train", "--help"], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert list(cwd.iterdir()) == []  # help writes no run directory
    return proc.stdout


def _groups() -> list[str]:
    """One ``group: a, b, c`` line per folder of forecast/conf (Hydra's own groups left out)."""
    lines = []
    for folder in sorted(p for p in CONF_DIR.rglob("*") if p.is_dir() and p.relative_to(CONF_DIR).parts[0] != "hydra"):
        options = sorted(p.stem for p in folder.glob("*.yaml"))
        if options:
            lines.append(f"{folder.relative_to(CONF_DIR).as_posix()}: {', '.join(options)}")
    return lines


def test_help_lists_every_group_with_its_options(help_text: str) -> None:
    lines = help_text.splitlines()
    assert lines[0].startswith("forecast-train: train a forecaster")
    start = lines.index("== Config groups (group=option) ==") + 2
    end = lines.index("", start)
    assert lines[start:end] == _groups()
    assert "data: csv, etth1, etth2" in lines and "$APP_CONFIG_GROUPS" not in help_text


def test_help_shows_three_examples_that_compose(help_text: str, tmp_path: Path) -> None:
    lines = help_text.splitlines()
    start = lines.index("== Examples ==") + 2
    examples = [line.split("#")[0].split() for line in lines[start:start + 3]]
    assert lines[start + 3] == ""
    assert all(words[0] == "forecast-train" for words in examples)
    for words in examples:
        overrides = [w for w in words[1:] if w != "-m"]
        overrides = [re.sub(r"=([^,]+),.*", r"=\1", o) for o in overrides]  # a sweep's first job
        cfg = compose_train(overrides, tmp_path)
        assert cfg.trainer is not None
    assert "--hydra-help Hydra's own options." in help_text
