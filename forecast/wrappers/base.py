"""The base of the add-on wrappers: a forecaster around another forecaster (``net``)."""

from __future__ import annotations

from typing import Any, Iterable

from forecast.core.forecaster import Forecaster


class Wrapper(Forecaster):
    """Keeps the forecaster contract around ``self.net`` and hands both hooks down to it.

    A subclass builds ``self.net`` from the factory it is given (with the data sizes it wants the
    net to see) and overrides a hook where it changes the answer: a wrapper that adds something to
    the forecast cannot start from a zero forecast, one with closed-form parts fits them first.
    """

    net: Forecaster

    def fit_closed_form(self, batches: Iterable[Any]) -> int | None:
        """The wrapped forecaster's closed-form fit (see :meth:`Forecaster.fit_closed_form`)."""
        return self.net.fit_closed_form(batches)

    def select_on_validation(self, batches: Iterable[Any]) -> None:
        """The wrapped forecaster's choice on validation (see :meth:`Forecaster.select_on_validation`)."""
        self.net.select_on_validation(batches)

    def zero_output_(self) -> None:
        """The wrapped forecaster's zero start (see :meth:`Forecaster.zero_output_`)."""
        self.net.zero_output_()

    def output_is_zero(self) -> bool:
        """Whether the wrapped forecaster's output is exactly zero (see :meth:`Forecaster.output_is_zero`)."""
        return self.net.output_is_zero()
