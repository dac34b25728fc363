"""How a message names what the caller typed: ``forecast-predict``'s options or the Python API's keywords.

The code that reads, forecasts and backtests is shared by the command (:mod:`forecast.cli.predict`) and
:mod:`forecast.api`; its messages take a :class:`Spelling`, so ``forecast-predict --rolling --every 0`` is
told ``--every must be >= 1, got 0`` and ``model.backtest(frame, every=0)`` is told ``every must be >= 1,
got 0``. The shared code speaks as the command unless it is given :data:`API`.
"""

from __future__ import annotations

from dataclasses import dataclass

from forecast.data.hints import PREDICT, PYTHON, Hints


@dataclass(frozen=True)
class Spelling:
    """The words of one caller of the shared prediction code.

    Attributes:
        options: arguments are command-line options (``--batch-size``, ``--span 'nope'``), not Python
            keywords (``batch_size``, ``span='nope'``).
        future: how to give the horizon's known-future values (``--future FILE``, ``future=``).
        backtest: what runs a backtest (``--rolling``, ``Model.backtest``).
        more_rows: the remedy for an input with too few rows (``pass a longer file``, ``pass more rows``).
        hints: the reader's remedies (``--fill ffill|interpolate``, ``fill='ffill'|'interpolate'``).
        data: what the input is called (``the file``, ``the data``: a DataFrame or a CSV).
    """

    options: bool
    future: str
    backtest: str
    more_rows: str
    hints: Hints
    data: str

    def name(self, arg: str) -> str:
        """An argument as the caller writes it: ``batch_size`` -> ``--batch-size`` or ``batch_size``."""
        return "--" + arg.replace("_", "-") if self.options else arg

    def given(self, arg: str, value: object, *, quote: bool = False) -> str:
        """An argument with the value given: on the command line ``--start 5``, or ``--span 'nope'`` with
        ``quote`` (the value's repr, as each message chose); from Python always the literal: ``start=5``,
        ``span='nope'``."""
        if not self.options:
            return f"{arg}={value!r}"
        return f"{self.name(arg)} {value!r}" if quote else f"{self.name(arg)} {value}"


#: ``forecast-predict``'s options
CLI = Spelling(options=True, future="--future FILE", backtest="--rolling", more_rows="pass a longer file",
               hints=PREDICT, data="the file")
#: the keywords of :func:`forecast.api.load` and :class:`forecast.api.Model`'s methods
API = Spelling(options=False, future="future=", backtest="Model.backtest", more_rows="pass more rows",
               hints=PYTHON, data="the data")
