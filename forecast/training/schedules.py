"""Learning-rate schedules expressible from YAML."""

from __future__ import annotations

from torch.optim import Optimizer
from torch.optim.lr_scheduler import LambdaLR


def halving(optimizer: Optimizer, *, constant_epochs: int = 2, gamma: float = 0.5) -> LambdaLR:
    """The reference's ``type1`` schedule: epochs 1..constant_epochs at lr, then x gamma every epoch.

    With the defaults, epochs 1 and 2 run at lr, epoch 3 at lr/2, epoch 4 at lr/4 (step once per epoch).
    """
    return LambdaLR(optimizer, lambda epoch: gamma ** max(0, epoch - constant_epochs + 1))
