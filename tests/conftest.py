"""Shared fixtures: data slices, config composition, thread pinning.

The suite checks what CI checks on a CPU (a resumed run equal to an uninterrupted one, the same metrics for
a seed, exact keep-rule values), so it hides any GPU from this process and the ones it starts, before
torch sets up CUDA; ``FORECAST_TEST_GPU=1`` leaves it visible. ``benchmarks/gpu_check.sh`` checks the GPU
path.
"""

from __future__ import annotations

import os

if os.environ.get("FORECAST_TEST_GPU") != "1":
    os.environ["CUDA_VISIBLE_DEVICES"] = ""

from pathlib import Path  # noqa: E402
from typing import Iterator, Sequence  # noqa: E402

import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from hydra import compose, initialize_config_dir  # noqa: E402
from omegaconf import DictConfig  # noqa: E402

from forecast.runtime import CONF_DIR, PROJECT_ROOT, register_resolvers  # noqa: E402

ETTH1 = PROJECT_ROOT / "data" / "ETTh1.csv"
ETTH2 = PROJECT_ROOT.parent / "shared" / "data" / "ETTh2.csv"

register_resolvers()


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    """Small tensors run fastest (and deterministically) on one thread."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def etth1_slice(path: Path, rows: int) -> Path:
    """Write the first ``rows`` rows of the shipped ETTh1 to ``path``."""
    pd.read_csv(ETTH1, nrows=rows).to_csv(path, index=False)
    return path


@pytest.fixture
def small_csv(tmp_path: Path) -> Path:
    """1,000 hourly rows of ETTh1."""
    return etth1_slice(tmp_path / "etth1_small.csv", 1000)


def compose_train(overrides: Sequence[str], output_dir: Path) -> DictConfig:
    """Compose ``forecast/conf/train.yaml`` outside a Hydra app, writing into ``output_dir``."""
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        return compose("train", overrides=[*overrides, f"paths.output_dir={output_dir}"])


# where each Informer preset keeps the Informer (forecast/conf/model/*.yaml)
INFORMER_PATH = {"informer": "model", "informer_revin": "model.net", "informer_small": "model.net",
                 "informer_floor": "model.net.net", "informer_plus": "model.net.net.net"}
TINY_INFORMER = {"d_model": 16, "n_heads": 2, "d_ff": 32, "e_layers": 2, "d_layers": 1}


def tiny_model(model: str = "informer_floor", **sizes: int) -> list[str]:
    """Overrides that pick ``model`` and, for an Informer preset, shrink its Informer to ``TINY_INFORMER``
    (with ``sizes`` changed)."""
    path = INFORMER_PATH.get(model)
    widths = [f"{path}.{key}={value}" for key, value in {**TINY_INFORMER, **sizes}.items()] if path else []
    # the default's extra rounds off: a tiny run trains the rounds it asks for (tests/training/test_extra_rounds.py)
    exact = ["train.extra_rounds=0"] if model in ("informer_floor", "mlp_floor") else []
    return [f"model={model}", *widths, *exact]


def tiny_run_overrides(csv: Path, *extra: str, model: str = "informer_floor") -> list[str]:
    """A run that trains for seconds on a small CSV (the default model, or ``model``, at a tiny width)."""
    return ["data=csv", f"data.path={csv}", "data.target=OT", "data.seq_len=24", "data.label_len=12",
            "data.pred_len=6", "data.batch_size=16", *tiny_model(model), "trainer.max_epochs=2",
            "trainer.limit_train_batches=5", "logger=none", "plot=false", "trainer.enable_progress_bar=false",
            "trainer.enable_model_summary=false", *extra]
