"""ProbSparse under torch.compile: a training forward of the Informer traces as one graph."""

from __future__ import annotations

from pathlib import Path

import torch
from hydra.utils import instantiate

from forecast.attention.prob import ProbSparseAttention
from forecast.core.forecaster import build_forecaster
from tests.conftest import compose_train, tiny_run_overrides


def test_a_training_forward_has_no_graph_break(small_csv: Path, tmp_path: Path) -> None:
    """The key sampling draws from the module's own generator in eager mode; a generator cannot enter a
    compiled graph, and there every ProbSparse layer broke the model into pieces."""
    overrides = tiny_run_overrides(small_csv, "model.e_layers=1", "model.distil=false", model="informer")
    cfg = compose_train(overrides, tmp_path)
    datamodule = instantiate(cfg.data)
    datamodule.setup("fit")
    net = build_forecaster(cfg.model, datamodule.model_dims()).train()
    batch = next(iter(datamodule.train_dataloader()))
    explained = torch._dynamo.explain(net)(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
    assert explained.graph_break_count == 0, [b.reason.splitlines()[0] for b in explained.break_reasons]


def test_eval_keeps_the_modules_seeded_samples() -> None:
    attention = ProbSparseAttention(factor=2, seed=3).eval()
    first = attention.sample_keys(24, 24)
    torch.manual_seed(123)  # the default generator plays no part
    assert torch.equal(first, attention.sample_keys(24, 24))
