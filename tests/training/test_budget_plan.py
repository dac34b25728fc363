"""The budget line's planned steps: bounded by max_steps or rounds, none when either is 0."""

from types import SimpleNamespace

import pytest

from forecast.training.budget import planned_steps


@pytest.mark.parametrize(("max_steps", "max_epochs", "round_steps", "expected"), [
    (-1, 6, 266, 1596),        # rounds x steps a round
    (500, 6, 266, 500),        # max_steps is the tighter bound
    (-1, -1, 266, None),       # neither bounds the fit
    (-1, 0, 266, 0),           # trainer.max_epochs=0: the closed-form start alone, no step
    (0, 6, 266, 0),
    (-1, 3, float("inf"), None),
])
def test_planned_steps(max_steps: int, max_epochs: int, round_steps: float, expected: int | None) -> None:
    trainer = SimpleNamespace(max_steps=max_steps, max_epochs=max_epochs)
    assert planned_steps(trainer, round_steps) == expected
