"""A forecaster's parameters: how many it has (less what a part says it allocates unused), and where they are."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import torch
from torch import nn


@runtime_checkable
class PartlyFitted(Protocol):
    """A module that allocates more parameters than its fit fills, and says how many it left unused.

    A daily calendar profile (``forecast.wrappers.calendar.CalendarProfile``) holds a slot per minute of the
    day whatever the data's frequency, and hourly data fills 24 of its 1440.
    """

    def unused_parameters(self) -> int:
        """Parameter values this module holds that its fit did not fill."""
        ...


def count_parameters(net: nn.Module) -> int:
    """Parameters of ``net`` (each shared one once), less those its parts report unused (:class:`PartlyFitted`)."""
    unused = sum(m.unused_parameters() for m in net.modules() if isinstance(m, PartlyFitted))
    return sum(p.numel() for p in net.parameters()) - unused


def trains(net: nn.Module) -> bool:
    """Whether ``net`` has parameters that train (a closed-form floor has none: it is fitted, not trained)."""
    return any(p.requires_grad for p in net.parameters())


def module_device(net: nn.Module) -> torch.device:
    """The device of ``net``'s weights (the CPU for a module without parameters): where its inputs go.

    This is not ``LightningModule.device`` in a ``setup`` hook, which runs before Lightning moves the weights.
    """
    return next(net.parameters(), torch.empty(0)).device
