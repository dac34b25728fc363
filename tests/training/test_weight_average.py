"""The average of the weights: what each round validates, what the checkpoints hold and what the run keeps
(through a whole run: tests/training/test_keep_rule.py)."""

from __future__ import annotations

from pathlib import Path

import lightning as L
import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from forecast.core.errors import ConfigError
from forecast.training.averaging import WeightAverage

ROUND = 8  # steps a round


class Line(L.LightningModule):
    """``y = x @ w`` trained by SGD, beside a parameter that does not train and an integer buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.zeros(3))
        self.fitted = nn.Parameter(torch.tensor([0.1, 1 / 3, 7.0]), requires_grad=False)
        self.register_buffer("choice", torch.tensor(3))
        self.seen: list[torch.Tensor] = []  # the weights after every step
        self.validated: list[torch.Tensor] = []  # the weights each validation saw

    def training_step(self, batch, batch_idx):
        x, y = batch
        return ((x @ self.w - y) ** 2).mean()

    def on_train_batch_end(self, outputs, batch, batch_idx) -> None:
        self.seen.append(self.w.detach().cpu().clone())

    def validation_step(self, batch, batch_idx) -> None:
        if batch_idx == 0:
            self.validated.append(self.w.detach().cpu().clone())

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


def loader(seed: int) -> DataLoader:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(ROUND * 4, 3, generator=g)
    return DataLoader(TensorDataset(x, x @ torch.tensor([1.0, -2.0, 0.5]) + 0.3 * torch.randn(len(x), generator=g)),
                      batch_size=4)


def fit(tmp_path: Path, rounds: int) -> tuple[Line, L.Trainer]:
    torch.manual_seed(0)
    module = Line()
    saver = L.pytorch.callbacks.ModelCheckpoint(dirpath=tmp_path, filename="round{epoch}", save_top_k=-1,
                                                auto_insert_metric_name=False)
    trainer = L.Trainer(max_epochs=rounds, limit_train_batches=ROUND, limit_val_batches=1, logger=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
                        callbacks=[WeightAverage(span=0.5), saver], default_root_dir=tmp_path)
    trainer.fit(module, loader(0), loader(1))
    return module, trainer


def by_hand(seen: list[torch.Tensor], rate: float) -> list[torch.Tensor]:
    """The average after every step: the first step's weights, then ``avg + rate * (w - avg)``."""
    averages = [seen[0].clone()]
    for w in seen[1:]:
        averages.append(averages[-1] + rate * (w - averages[-1]))
    return averages


def test_each_round_validates_and_the_run_keeps_the_average_over_half_a_round(tmp_path: Path) -> None:
    module, _ = fit(tmp_path, rounds=3)
    averages = by_hand(module.seen, rate=1 / (0.5 * ROUND))
    assert len(module.seen) == 3 * ROUND
    for r, validated in enumerate(module.validated):
        torch.testing.assert_close(validated, averages[(r + 1) * ROUND - 1], rtol=1e-6, atol=1e-7)
    assert not torch.allclose(module.validated[-1], module.seen[-1])  # the average, not the last step's weights
    torch.testing.assert_close(module.w.detach(), averages[-1], rtol=1e-6, atol=1e-7)  # what the run keeps


def test_a_parameter_that_does_not_train_and_integer_buffers_are_kept_exactly(tmp_path: Path) -> None:
    module, _ = fit(tmp_path, rounds=2)
    assert torch.equal(module.fitted, torch.tensor([0.1, 1 / 3, 7.0]))
    assert module.choice.item() == 3


def test_a_parameter_that_does_not_train_is_left_out_of_the_average(tmp_path: Path) -> None:
    """``avg + rate * (w - avg)`` turns an infinite value into NaN; a parameter that does not train is not
    averaged, so every value it holds (an infinite one included) is what the model and its checkpoints keep."""
    torch.manual_seed(0)
    module = Line()
    module.fitted.data[2] = float("inf")
    trainer = L.Trainer(max_epochs=1, limit_train_batches=ROUND, limit_val_batches=1, logger=False,
                        enable_progress_bar=False, enable_model_summary=False, num_sanity_val_steps=0,
                        callbacks=[WeightAverage(span=0.5)], default_root_dir=tmp_path)
    trainer.fit(module, loader(0), loader(1))
    assert torch.equal(module.fitted, torch.tensor([0.1, 1 / 3, float("inf")]))
    assert not torch.equal(module.w.detach(), module.seen[-1])  # the rest is averaged


def test_a_checkpoint_while_training_holds_the_average_and_the_last_weights(tmp_path: Path) -> None:
    module, _ = fit(tmp_path, rounds=2)
    averages = by_hand(module.seen, rate=1 / (0.5 * ROUND))
    # saved after round 1's validation
    checkpoint = torch.load(tmp_path / "round0.ckpt", map_location="cpu", weights_only=False)
    torch.testing.assert_close(checkpoint["state_dict"]["w"], averages[ROUND - 1], rtol=1e-6, atol=1e-7)
    assert torch.equal(checkpoint["current_model_state"]["w"], module.seen[ROUND - 1])


def test_span_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="^span must be positive, got 0$"):
        WeightAverage(span=0)
