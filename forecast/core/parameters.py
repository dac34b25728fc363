"""How many parameters a forecaster has: every parameter, less what a part says it allocates unused."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

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
