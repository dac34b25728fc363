"""The Python API: ``train`` a model as ``forecast-train`` does, ``load`` it to forecast or backtest.

    from forecast import train, load

    run = train(data=frame_or_csv, overrides=["data.target=OT"], trainer__max_epochs=1)
    model = load(run.run_dir)
    future = model.predict(frame_or_csv)          # the next pred_len steps, with timestamps
    scores = model.backtest(frame_or_csv, span="test")

Both commands run the same functions: :func:`train` composes ``forecast/conf/train.yaml`` with the
same overrides and calls :func:`forecast.cli.pipeline.train`; :class:`Model` reads, forecasts and
backtests with :class:`~forecast.predict.forecaster.Forecaster` as ``forecast-predict`` does. User
errors raise :class:`~forecast.data.errors.DataError` (a ``ValueError``) with the one line the
commands print.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from forecast.data.errors import DataError

Data = pd.DataFrame | str | Path


@dataclass(frozen=True)
class Run:
    """A finished training run.

    Attributes:
        run_dir: the run directory (``config.yaml``, ``metrics.json``, ``checkpoints/``).
        metrics: what ``metrics.json`` holds (``test/mse``, ``floors``, ``checkpoint`` ...).
    """

    run_dir: Path
    metrics: dict[str, Any]

    @property
    def checkpoint(self) -> Path:
        """The best checkpoint."""
        return Path(self.metrics["checkpoint"])

    def load(self, *, device: str = "cpu") -> "Model":
        """The trained model, as :func:`load` gives it."""
        return load(self.run_dir, device=device)


def override_value(value: Any) -> str:
    """A Python value as a Hydra override value (``True`` -> ``true``, ``None`` -> ``null``, lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(override_value(v) for v in value) + "]"
    return str(value)


def as_overrides(overrides: Sequence[str] | None, settings: dict[str, Any]) -> list[str]:
    """Command-line overrides plus keyword settings (``trainer__max_epochs=1`` -> ``trainer.max_epochs=1``)."""
    given = list(overrides or [])
    return given + [f"{key.replace('__', '.')}={override_value(value)}" for key, value in settings.items()]


def train(data: Data | None = None, overrides: Sequence[str] | None = None, *, run_dir: str | Path | None = None,
          **settings: Any) -> Run:
    """Train and test a model exactly as ``forecast-train OVERRIDES`` does.

    Args:
        data: a CSV path or a DataFrame (written to ``<run_dir>/data.csv``); selects ``data=csv`` unless
            an override picks another data config. None trains on what the overrides say (the default
            ``data=etth1`` in a checkout).
        overrides: ``forecast-train``'s command-line overrides (``["data.target=OT", "model=linear"]``).
        run_dir: where the run is written (default ``outputs/<date>/<time>`` under the working directory).
        **settings: more overrides as keywords; ``__`` separates keys (``trainer__max_epochs=1``).

    Returns:
        The run directory and its metrics.

    Raises:
        DataError: bad data or settings, with the one line ``forecast-train`` prints; no run
            directory is left behind.
    """
    from hydra import compose, initialize_config_dir
    from hydra.errors import ConfigCompositionException, OverrideParseException
    from omegaconf.errors import MissingMandatoryValue

    from forecast.cli.runtime import CONF_DIR, register_resolvers
    from forecast.cli.pipeline import train as train_config
    from forecast.cli.train import config_error, user_error

    register_resolvers()
    out = Path(run_dir) if run_dir is not None else Path("outputs") / datetime.now().strftime("%Y-%m-%d/%H-%M-%S-%f")
    if out.exists() and any(out.iterdir()):
        raise DataError(f"run_dir {out}: already exists and is not empty; give another run_dir")
    items = as_overrides(overrides, settings)
    if data is not None:
        if not any(o.startswith(("data=", "+data=", "~data")) for o in items):
            items.insert(0, "data=csv")
        if isinstance(data, pd.DataFrame):
            out.mkdir(parents=True, exist_ok=True)
            path = out / "data.csv"
            _frame_for_csv(data).to_csv(path, index=False)
        else:
            path = Path(data)
        items.append(f"data.path={path.resolve()}")
    items.append(f"paths.output_dir={out.resolve()}")
    try:
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            cfg = compose("train", overrides=items)
    except (ConfigCompositionException, OverrideParseException, MissingMandatoryValue) as exc:
        _remove_unfinished(out)
        raise DataError(config_error(exc)) from exc
    try:
        metrics = train_config(cfg)
    except Exception as exc:  # noqa: BLE001 - user errors become one line, as on the command line
        message = user_error(exc)
        if message is None:
            raise
        _remove_unfinished(out)
        raise DataError(message) from exc
    return Run(run_dir=out.resolve(), metrics=metrics)


class Model:
    """A trained model from a checkpoint, forecasting and backtesting DataFrames or CSV files.

    Attributes:
        forecaster: the :class:`~forecast.predict.forecaster.Forecaster` (model, data spec, config).
    """

    def __init__(self, forecaster: Any) -> None:
        self.forecaster = forecaster

    @property
    def spec(self) -> Any:
        """Columns, frequency, window sizes and scaler of the training data."""
        return self.forecaster.spec

    def predict(self, data: Data, *, fill: str | None = None, fill_missing_dates: bool = False,
                intervals: Sequence[float] = (), future: Data | None = None) -> pd.DataFrame:
        """The ``pred_len`` steps after the last row of each series, as ``forecast-predict`` writes them.

        Args:
            data: a DataFrame or CSV with the training columns (and timestamp column), at least
                ``seq_len`` rows; a DataFrame's named index (a DatetimeIndex, say) counts as a column.
            fill: ``ffill`` or ``interpolate`` empty, NaN and infinite cells instead of refusing them.
            fill_missing_dates: add rows missing from the timestamps, filled by ``fill``.
            intervals: conformal interval levels in (0, 1), whole percents (``(0.8, 0.95)``), as
                ``forecast-predict --intervals``: ``<col>_lo_80``, ``<col>_hi_80`` ... after each column.
            future: for a model trained with ``data.future_columns``, a DataFrame or CSV with the
                horizon's ``pred_len`` timestamps and those columns, as ``forecast-predict --future``.

        Returns:
            The timestamp column (or ``step``), then the predicted columns in original units (each followed
            by its intervals); the id column first for a model of many series.

        Raises:
            DataError: bad input, bad levels, intervals from a checkpoint without calibration, or known-future
                values missing (or given to a model without them).
        """
        from forecast.predict.future import check_future_given, read_future

        fc = self.forecaster
        check_future_given(fc.spec, future is not None, option="future=", source=str(fc.checkpoint))
        with _as_csv(data) as (path, header):
            panel = fc.read(path, fill=fill, fill_missing_dates=fill_missing_dates, header=header,
                            dialect=_dialect(fc, header))
        values = None
        if future is not None:
            with _as_csv(future) as (path, header):
                values = read_future(path, fc.spec, panel.series[0], timestamp_col=fc.spec.timestamp_col,
                                     header=fc.spec.header if header is None else header, fill=fill,
                                     dialect=_dialect(fc, header))
        return fc.forecast(panel, intervals=intervals, future=values)

    def backtest(self, data: Data, span: str | None = "test", *, start: str | int | None = None,
                 end: str | int | None = None, every: int = 1, batch_size: int = 256) -> dict[str, dict[str, Any]]:
        """Forecast from every origin of a span with known actuals (``forecast-predict --rolling``).

        Args:
            data: a DataFrame or CSV, as for :meth:`predict`.
            span: the training run's split (``train``, ``val``, ``test``, ``all``), or None with ``start``/``end``.
            start: first forecast step (0-based row or timestamp).
            end: end of the forecast steps (row, exclusive, or timestamp, inclusive).
            every: use every k-th origin.
            batch_size: windows per forward pass.

        Returns:
            ``{method: {mse, mae, mse_orig, mae_orig, ..._per_step}}`` for ``model``, ``naive_last``,
            ``naive_mean`` and ``ridge_floor``: the JSON summary's ``metrics``.
        """
        from forecast.predict.rolling import run_backtest, score
        from forecast.predict.span import resolve_spans

        fc, spec = self.forecaster, self.forecaster.spec
        with _as_csv(data) as (path, header):
            panel = fc.read(path, header=header, dialect=_dialect(fc, header), min_rows=spec.seq_len + spec.pred_len,
                            what=f"one backtest window (seq_len {spec.seq_len} + pred_len {spec.pred_len})")
        panel, spans = resolve_spans(panel, fc.config, seq_len=spec.seq_len, pred_len=spec.pred_len, span=span,
                                     start=None if start is None else str(start),
                                     end=None if end is None else str(end))
        return score(fc, run_backtest(fc, panel, spans, every=every, batch_size=batch_size))


def load(path: str | Path, *, device: str = "cpu") -> Model:
    """A model from a ``.ckpt`` file or a run directory (its best checkpoint), as ``forecast-predict`` loads it.

    Raises:
        DataError: no checkpoint, or one that does not rebuild.
    """
    from forecast.predict.forecaster import Forecaster

    return Model(Forecaster.load(path, device=device))


def _dialect(fc: Any, header: bool | None) -> Any:
    """The checkpoint's dialect for a file (``header`` None), or for a DataFrame written by ``to_csv``."""
    return None if header is None else fc.spec.dialect.for_pandas_csv()


def _frame_for_csv(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with a named index (a DatetimeIndex ``date``, say) as its first column."""
    return frame.reset_index() if any(name is not None for name in frame.index.names) else frame


class _as_csv:
    """``with _as_csv(data) as (path, header)``: a CSV path for a DataFrame (a temporary file) or a path."""

    def __init__(self, data: Data) -> None:
        self.data = data
        self.tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> tuple[Path, bool | None]:
        if not isinstance(self.data, pd.DataFrame):
            return Path(self.data), None
        self.tmp = tempfile.TemporaryDirectory(prefix="forecast-")
        path = Path(self.tmp.name) / "data.csv"
        _frame_for_csv(self.data).to_csv(path, index=False)
        return path, True

    def __exit__(self, *exc: object) -> None:
        if self.tmp is not None:
            self.tmp.cleanup()


def _remove_unfinished(run_dir: Path) -> None:
    """Delete a run dir that holds nothing but the DataFrame written for the run."""
    if run_dir.is_dir() and all(p.name in {"data.csv", ".hydra"} for p in run_dir.iterdir()):
        shutil.rmtree(run_dir, ignore_errors=True)
