"""``forecast-train attention=<name> trainer.fast_dev_run=true`` for every file in forecast/conf/attention."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from forecast.runtime import CONF_DIR
from forecast.training.pipeline import train
from tests.conftest import compose_train, tiny_run_overrides

BACKENDS = sorted(p.stem for p in (CONF_DIR / "attention").glob("*.yaml"))


def causal_capable(name: str) -> bool:
    return instantiate(OmegaConf.load(CONF_DIR / "attention" / f"{name}.yaml"))().supports_causal


@pytest.mark.parametrize("name", BACKENDS)
def test_fast_dev_run_with_every_backend(name: str, small_csv: Path, tmp_path: Path) -> None:
    extra = [] if causal_capable(name) else ["attention@decoder_attention=full"]
    cfg = compose_train(tiny_run_overrides(small_csv, f"attention={name}", "trainer.fast_dev_run=true",
                                           "data.seq_len=64", "data.label_len=32", "data.pred_len=16", *extra),
                        tmp_path)
    metrics = train(cfg)
    assert metrics["epochs"] == 1 and metrics["test/mse"] == metrics["test/mse"]  # ran and is not NaN
    backend_class = OmegaConf.load(CONF_DIR / "attention" / f"{name}.yaml")["_target_"].rsplit(".", 1)[-1]
    assert metrics["encoder_attention"] == backend_class


def test_a_non_causal_backend_in_the_decoder_is_one_line_naming_the_fix(small_csv: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = subprocess.run([sys.executable, "-m", "forecast.cli.train", *tiny_run_overrides(small_csv),
                           "attention=nystrom", f"hydra.run.dir={run_dir}"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "error: attention backend NystromAttention cannot be used for decoder self-attention: it is not causal "
        "(its output at step t depends on later steps); use full, prob, local or linear there instead "
        "(e.g. attention@decoder_attention=full)")
    assert not run_dir.exists()
