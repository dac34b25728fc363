"""ExtraRounds: rounds after the budget's last one, one at a time, only while each gains ``min_gain`` of the best
round before it; a run stopped inside an extra round resumes to the uninterrupted result."""

from __future__ import annotations

from pathlib import Path

import lightning as L
import pytest
import torch
from torch.utils.data import DataLoader, TensorDataset

from forecast.data.errors import DataError
from forecast.training.budget import TrainPlan, apply_plan, planned_steps, round_name
from forecast.training.extra_rounds import ExtraRounds
from forecast.training.pipeline import train
from forecast.training.stopping import RelativeEarlyStopping
from tests.conftest import compose_train, etth1_slice, tiny_run_overrides
from tests.training.test_step_resume import assert_same_run, stop
from tests.training.test_stopping import ScriptedLoss


class StartAt(L.Callback):
    """Puts a closed-form start's validation loss into early stopping at the start of training, as
    ``ClosedFormStart`` does."""

    def __init__(self, loss: float) -> None:
        self.loss = loss

    def on_train_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        trainer.early_stopping_callback.best_score = torch.tensor(self.loss)


def fit(losses: list[float], rounds: int, extra: int, start: float | None = None,
        min_gain: float = 0.05) -> tuple[int, ExtraRounds]:
    """Rounds trained on the scripted validation ``losses`` and the callback, ``rounds + extra`` at most."""
    extension = ExtraRounds(rounds=rounds, min_gain=min_gain)
    callbacks: list[L.Callback] = []
    if start is not None:  # early stopping that never stops, holding the start
        callbacks += [RelativeEarlyStopping(monitor="val/loss", mode="min", patience=99), StartAt(start)]
    data = DataLoader(TensorDataset(torch.ones(2, 1)), batch_size=2)
    trainer = L.Trainer(max_epochs=rounds + extra, callbacks=[*callbacks, extension], logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False,
                        num_sanity_val_steps=0, accelerator="cpu", devices=1)
    trainer.fit(ScriptedLoss(losses), data, data)
    return trainer.current_epoch, extension


def test_rounds_go_on_while_each_gains_the_share_and_stop_at_the_first_that_does_not() -> None:
    # round 2 gains 20% of round 1, round 3 12.5% of round 2, round 4 2.9% of round 3: stop after round 4
    trained, extension = fit([1.0, 0.8, 0.7, 0.68, 0.3, 0.2], rounds=2, extra=4)
    assert trained == 4 and extension.allowed == 4 and extension.best == pytest.approx(0.68)


def test_no_extra_round_when_the_last_round_gains_less_than_the_share() -> None:
    trained, extension = fit([1.0, 0.96, 0.5, 0.4], rounds=2, extra=2)  # round 2: 4%
    assert trained == 2 and extension.allowed == 2


def test_a_round_worse_than_the_best_before_it_ends_the_extension() -> None:
    trained, _ = fit([1.0, 0.5, 0.6, 0.1], rounds=2, extra=2)  # round 2: 50%; round 3 behind round 2
    assert trained == 3


def test_the_trainers_max_epochs_bounds_the_extension() -> None:
    trained, extension = fit([1.0, 0.5, 0.25, 0.12, 0.06], rounds=2, extra=2)
    assert trained == 4 and extension.allowed == 4


def test_the_first_round_is_weighed_against_the_closed_form_start() -> None:
    assert fit([0.9, 0.5], rounds=1, extra=1, start=1.0)[0] == 2    # 10% under the start: one more round
    assert fit([0.98, 0.5], rounds=1, extra=1, start=1.0)[0] == 1   # 2%: none
    assert fit([0.9, 0.5], rounds=1, extra=1)[0] == 1               # nothing to weigh it against: none


def test_state_round_trips() -> None:
    extension = ExtraRounds(rounds=4, min_gain=0.05)
    extension.best, extension.allowed = 0.25, 6
    restored = ExtraRounds(rounds=4, min_gain=0.05)
    restored.load_state_dict(extension.state_dict())
    assert (restored.best, restored.allowed) == (0.25, 6)


class FakeData:
    n_inputs = 7

    def set_round(self, *args) -> None:
        self.round = args


@pytest.mark.parametrize(("plan", "rounds", "max_epochs"), [
    (TrainPlan(extra_rounds=4), 4, 8),
    (TrainPlan(extra_rounds=0), 4, None),                       # no extra rounds
    (TrainPlan(extra_rounds=4, schedule="epochs"), 6, None),     # whole epochs: the papers' protocol
    (TrainPlan(extra_rounds=4), None, None),                    # unbounded rounds
])
def test_the_plan_extends_max_epochs_only_for_a_budget_of_rounds(plan: TrainPlan, rounds: int | None,
                                                                 max_epochs: int | None) -> None:
    overrides = apply_plan(plan, FakeData(), rounds)
    assert overrides.get("max_epochs") == max_epochs
    assert plan.extends(rounds) == (plan.extension(rounds) is not None) == (max_epochs is not None)


def test_the_progress_plans_the_rounds_allowed_now() -> None:
    extension = ExtraRounds(rounds=4, min_gain=0.05)
    trainer = type("T", (), {"max_steps": -1, "max_epochs": 8, "callbacks": [extension]})()
    assert planned_steps(trainer, 100) == 400 and round_name(trainer, 2) == "round 2/4"
    extension.allowed = 5
    assert planned_steps(trainer, 100) == 500 and round_name(trainer, 5) == "round 5/5"


@pytest.mark.parametrize(("key", "value", "message"), [
    ("extra_rounds", -1, "train.extra_rounds must be 0 or more, got -1; set train.extra_rounds=0 for none"),
    ("extra_gain", 1.5, "train.extra_gain must be in [0, 1), got 1.5; set train.extra_gain=0.05"),
])
def test_bad_settings_are_refused_in_one_line(key: str, value: float, message: str) -> None:
    with pytest.raises(DataError) as error:
        TrainPlan(**{key: value})
    assert str(error.value) == message


# one round of 5 steps in the budget, then up to 2 extra rounds at any gain; no closed-form start to weigh
# round 1 against, so round 2 always runs
EXTRA = ["train.round_cap=5", "trainer.max_epochs=1", "train.extra_rounds=2", "train.extra_gain=0.0",
         "train.ckpt_every_steps=2", "trainer.limit_train_batches=null", "model.net.net.dropout=0.2",
         "data.batch_size=8", "keep_start=false", "callbacks.early_stopping.patience=9", "threads=1"]


def test_a_run_stopped_inside_an_extra_round_resumes_to_the_uninterrupted_result(tmp_path: Path) -> None:
    csv = etth1_slice(tmp_path / "tiny.csv", 400)
    torch.set_num_threads(1)
    straight = train(compose_train(tiny_run_overrides(csv, *EXTRA), tmp_path / "straight"))
    assert straight["epochs"] >= 2 and straight["steps"] == 5 * straight["epochs"]  # an extra round ran
    run_dir = tmp_path / "stopped"
    with pytest.raises(RuntimeError):
        train(compose_train(tiny_run_overrides(csv, *EXTRA, *stop(7, "crash")), run_dir))  # inside round 2
    resumed = train(compose_train(tiny_run_overrides(csv, *EXTRA, f"resume={run_dir}"), run_dir))
    assert_same_run(straight, resumed)


def test_the_progress_lines_count_an_added_round_in_their_budget() -> None:
    from forecast.training.progress import StepProgressLines

    extension = ExtraRounds(rounds=4, min_gain=0.05)
    trainer = type("T", (), {"max_steps": -1, "max_epochs": 8, "callbacks": [extension], "num_training_batches": 100,
                             "accumulate_grad_batches": 1, "global_step": 400, "current_epoch": 4})()
    lines = StepProgressLines()
    lines.on_train_start(trainer, None)
    assert lines._total == 400
    extension.allowed = 5
    lines.on_train_epoch_start(trainer, None)
    lines._started, lines._first_step = 100.0, 0
    assert lines.line(trainer, 200.0) == "round 5/5: step 400/500 (80%), 4.00 steps/s, about 25 s left"
