"""The Python API: ``train`` a model as ``forecast-train`` does, ``load`` it to forecast or backtest.

    from forecast import train, load

    run = train(data=frame_or_csv, overrides=["data.target=OT"], trainer__max_epochs=1)
    model = load(run.run_dir)
    future = model.predict(frame_or_csv)          # the next pred_len steps, with timestamps
    scores = model.backtest(frame_or_csv, span="test")

The commands are shells over the same code: :func:`train` composes ``forecast/conf/train.yaml`` with
``forecast-train``'s overrides and calls :func:`forecast.training.pipeline.train`; ``forecast-predict``
parses its options, calls :class:`Model` (reading, forecasting and backtesting with
:class:`~forecast.predict.trained_model.TrainedModel`) and writes and prints what it returns. Data is a
CSV path or a DataFrame, read the same way (a DataFrame is never written to a file). User errors raise
:class:`~forecast.data.errors.DataError` (a ``ValueError``) with the one line the commands print, naming the
keywords given here where the command names its options (``span='nope'`` for ``--span 'nope'``:
:mod:`forecast.spelling`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Mapping, Sequence

import pandas as pd

from forecast.data.errors import DataError
from forecast.data.reader import DATAFRAME, FillMethod, Panel
from forecast.io import remove_unfinished_run
from forecast.predict.trained_model import FROM_CHECKPOINT, TrainedModel
from forecast.spelling import API, Spelling

if TYPE_CHECKING:
    from forecast.predict.rolling import Backtest

Data = pd.DataFrame | pd.Series | str | Path


def as_source(data: Data) -> pd.DataFrame | Path:
    """A DataFrame as it is, a Series as a DataFrame of its one column, else the path of a file."""
    if isinstance(data, pd.Series):
        return data.to_frame()
    return data if isinstance(data, pd.DataFrame) else Path(data)


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
    """A Python value as a Hydra override value (``True`` -> ``true``, ``None`` -> ``null``, lists, dicts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(override_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{override_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def as_overrides(overrides: Sequence[str] | None, settings: dict[str, Any]) -> list[str]:
    """Command-line overrides plus keyword settings (``trainer__max_epochs=1`` -> ``trainer.max_epochs=1``)."""
    given = list(overrides or [])
    return given + [f"{key.replace('__', '.')}={override_value(value)}" for key, value in settings.items()]


def train(data: Data | None = None, overrides: Sequence[str] | None = None, *, run_dir: str | Path | None = None,
          **settings: Any) -> Run:
    """Train and test a model exactly as ``forecast-train OVERRIDES`` does.

    Args:
        data: a CSV path, a DataFrame (an unnamed index of timestamps is the timestamp column) or a Series
            (handed to the data module and read as the file would be, never written; ``config.yaml`` records ``data.path: <DataFrame>``); selects ``data=csv`` unless an
            override picks another data config. None trains on what the overrides say (the default
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

    from forecast.runtime import CONF_DIR, register_resolvers
    from forecast.training.pipeline import train as train_config
    from forecast.user_errors import config_error, user_error

    register_resolvers()
    out = Path(run_dir) if run_dir is not None else Path("outputs") / datetime.now().strftime("%Y-%m-%d/%H-%M-%S-%f")
    if out.exists() and any(out.iterdir()):
        raise DataError(f"run_dir {out}: already exists and is not empty; give another run_dir")
    items = as_overrides(overrides, settings)
    frame = None
    if data is not None:
        if not any(o.startswith(("data=", "+data=", "~data")) for o in items):
            items.insert(0, "data=csv")
        source = as_source(data)
        frame = source if isinstance(source, pd.DataFrame) else None
        items.append(f"data.path='{DATAFRAME}'" if frame is not None else f"data.path={Path(data).resolve()}")
    items.append(f"paths.output_dir={out.resolve()}")
    try:
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            cfg = compose("train", overrides=items)
    except (ConfigCompositionException, OverrideParseException, MissingMandatoryValue) as exc:
        remove_unfinished_run(out)
        raise DataError(config_error(exc, keywords=settings)) from exc
    try:
        metrics = train_config(cfg, frame=frame)
    except Exception as exc:  # noqa: BLE001 - user errors become one line, as on the command line
        message = user_error(exc)
        if message is None:
            raise
        remove_unfinished_run(out)
        raise DataError(message) from exc
    return Run(run_dir=out.resolve(), metrics=metrics)


@dataclass(frozen=True)
class BacktestReport:
    """A rolling backtest and its scores: what ``forecast-predict --rolling`` writes and prints.

    Attributes:
        panel: the series backtested (with the reader's ``notes``).
        backtest: every window's forecast, actuals and baselines, scaled.
        metrics: ``{method: {mse, mae, mse_orig, mae_orig, ..._per_step}}`` for ``model``, ``naive_last``,
            ``naive_mean``, ``ridge_floor`` and, where the model started from another floor, ``start_floor``.
        per_series: the model's scores per series (a file of many series), else None.
        intervals: coverage and mean width of each conformal level asked for, else None.
        seconds: time spent forecasting the windows.
    """

    panel: Panel
    backtest: "Backtest"
    metrics: dict[str, dict[str, Any]]
    per_series: dict[str, dict[str, float]] | None
    intervals: dict[str, dict[str, Any]] | None
    seconds: float
    trained: TrainedModel = field(repr=False)
    widths: dict[float, Any] = field(repr=False, default_factory=dict)

    @cached_property
    def table(self) -> pd.DataFrame:
        """One row per (origin, step, column): [id,] origin, timestamp (or step), column, prediction,
        actual (original units), then ``lo_80``, ``hi_80`` ... per level."""
        from forecast.predict.rolling import long_frame

        return long_frame(self.trained, self.panel, self.backtest, self.widths)

    def parts(self) -> Iterator[pd.DataFrame]:
        """:attr:`table`'s rows a series at a time, in order, without the whole table held."""
        from forecast.predict.rolling import long_parts

        return long_parts(self.trained, self.panel, self.backtest, self.widths)


#: :meth:`Model.backtest`'s default span: the run's test split, or the rows ``start``/``end`` bound where either is
#: given (``forecast-predict --rolling`` passes None where ``--span`` is not given: the whole file)
TEST_OR_BOUNDS = "test, or start/end"


class Model:
    """A trained model from a checkpoint, forecasting and backtesting DataFrames or CSV files.

    Attributes:
        trained: the :class:`~forecast.predict.trained_model.TrainedModel` (model, data spec, config).
        spelling: how its messages name the arguments: these methods' keywords (:data:`~forecast.spelling.API`),
            or ``forecast-predict``'s options when the command made it.
    """

    def __init__(self, trained: TrainedModel, *, spelling: Spelling = API) -> None:
        self.trained = trained
        self.spelling = spelling

    @property
    def spec(self) -> Any:
        """Columns, frequency, window sizes and scaler of the training data."""
        return self.trained.spec

    def read(self, data: Data, *, fill: FillMethod | None = None, fill_missing_dates: bool | None = None,
             timestamp_col: str | None = FROM_CHECKPOINT, header: bool | None = None, encoding: str | None = None,
             backtest: bool = False) -> Panel:
        """Read and validate ``data`` against the training columns, frequency and series.

        Args:
            data: a DataFrame or CSV with the training columns (and timestamp column); a DataFrame's
                named index (a DatetimeIndex, say) counts as a column.
            fill: ``ffill`` or ``interpolate`` empty, NaN and infinite cells instead of refusing them
                (default: the training run's ``data.fill``).
            fill_missing_dates: add rows missing from the timestamps, filled by ``fill`` (default: the
                training run's ``data.fill_missing_dates``).
            timestamp_col: the timestamp column (default: the training one); None reads the rows as steps.
            header: whether a CSV's first line names the columns (default: as the training file).
            encoding: a CSV's text encoding, a Python codec name (default: the training run's ``data.encoding``,
                else detected: UTF-8, UTF-16, GB18030, Windows-1252).
            backtest: require one backtest window (``seq_len + pred_len`` rows), not one input window.

        Raises:
            DataError: any problem with the data, in one line.
        """
        spec = self.spec
        needed = {"min_rows": spec.seq_len + spec.pred_len,
                  "what": f"one backtest window (seq_len {spec.seq_len} + pred_len {spec.pred_len})"}
        return self.trained.read(as_source(data), fill=fill, timestamp_col=timestamp_col, header=header,
                                 fill_missing_dates=fill_missing_dates, encoding=encoding, spelling=self.spelling,
                                 **(needed if backtest else {}))

    def predict(self, data: Data | Panel, *, fill: FillMethod | None = None, fill_missing_dates: bool | None = None,
                intervals: Sequence[float] = (), future: Data | None = None,
                timestamp_col: str | None = FROM_CHECKPOINT, header: bool | None = None,
                encoding: str | None = None) -> pd.DataFrame:
        """The ``pred_len`` steps after the last row of each series, as ``forecast-predict`` writes them.

        Args:
            data: a DataFrame or CSV with the training columns (and timestamp column), at least
                ``seq_len`` rows; a DataFrame's named index (a DatetimeIndex, say) counts as a column;
                or a panel :meth:`read` returned.
            fill: ``ffill`` or ``interpolate`` empty, NaN and infinite cells instead of refusing them
                (default: the training run's ``data.fill``).
            fill_missing_dates: add rows missing from the timestamps, filled by ``fill`` (default: the
                training run's ``data.fill_missing_dates``).
            intervals: conformal interval levels in (0, 1), whole percents (``(0.8, 0.95)``), as
                ``forecast-predict --intervals``: ``<col>_lo_80``, ``<col>_hi_80`` ... after each column;
                the checkpoint's half-widths tracked through each series' recent windows
                (:mod:`forecast.predict.future_widths`).
            future: for a model trained with ``data.future_columns``, a DataFrame or CSV with the
                horizon's ``pred_len`` timestamps and those columns, as ``forecast-predict --future``.
            timestamp_col: the timestamp column of ``data`` and ``future`` (default: the training one).
            header: whether the CSVs' first line names the columns (default: as the training file).
            encoding: the CSVs' text encoding (default: the training run's ``data.encoding``, else detected).

        Returns:
            The timestamp column (or ``step``), then the predicted columns in original units (each followed
            by its intervals); the id column first for a model of many series.

        Raises:
            DataError: bad input, bad levels, intervals from a checkpoint without calibration, or known-future
                values missing (or given to a model without them).
        """
        from forecast.predict.future import check_future_given, read_future

        trained, spec, spelling = self.trained, self.spec, self.spelling
        check_future_given(spec, future is not None, source=str(trained.checkpoint), spelling=spelling)
        split = trained.half_widths(intervals, spelling=spelling) if intervals else None  # refused before reading
        panel = data if isinstance(data, Panel) else self.read(data, fill=fill, fill_missing_dates=fill_missing_dates,
                                                                timestamp_col=timestamp_col, header=header,
                                                                encoding=encoding)
        values = None
        if future is not None:
            ts = spec.timestamp_col if timestamp_col == FROM_CHECKPOINT else timestamp_col
            values = read_future(as_source(future), spec,
                                 panel.series[0], timestamp_col=ts, header=spec.header if header is None else header,
                                 fill=fill, encoding=encoding, spelling=spelling)
        widths = None
        if split is not None:
            from forecast.predict.future_widths import future_widths

            widths = future_widths(trained, panel, split)
        return trained.forecast(panel, widths=widths, future=values, spelling=spelling)

    def backtest(self, data: Data | Panel, span: str | None = TEST_OR_BOUNDS, *, start: str | int | None = None,
                 end: str | int | None = None, every: int = 1, batch_size: int | None = None) -> dict[str, dict[str, Any]]:
        """Forecast from every origin of a span with known actuals (``forecast-predict --rolling``).

        Args:
            data: a DataFrame or CSV, as for :meth:`predict`, or a panel :meth:`read` returned.
            span: the training run's split (``train``, ``val``, ``test``, ``all``); None: every window of the data,
                or those ``start``/``end`` bound (as ``forecast-predict --rolling`` without ``--span``); the default
                (:data:`TEST_OR_BOUNDS`): ``test``, or the bounds where either is given.
            start: first forecast step (0-based row or timestamp).
            end: end of the forecast steps (row, exclusive, or timestamp, inclusive).
            every: use every k-th origin.
            batch_size: windows per forward pass; None: 256 at 96 + 48 + 24 steps a window, fewer for longer ones.

        Returns:
            ``{method: {mse, mae, mse_orig, mae_orig, ..._per_step}}`` for ``model``, ``naive_last``,
            ``naive_mean``, ``ridge_floor`` and, where the model started from another floor (``day_profile``,
            ...: ``trained.start_floor``), ``start_floor``: the JSON summary's ``metrics``.
        """
        return self.backtest_report(data, span, start=start, end=end, every=every, batch_size=batch_size).metrics

    def backtest_report(self, data: Data | Panel, span: str | None = TEST_OR_BOUNDS, *, start: str | int | None = None,
                        end: str | int | None = None, every: int = 1, batch_size: int | None = None,
                        intervals: Sequence[float] = ()) -> BacktestReport:
        """:meth:`backtest` with everything ``forecast-predict --rolling`` reports: the windows, per-series
        scores, interval coverage at ``intervals`` and the long table of every forecast."""
        from forecast.predict.rolling import interval_scores, run_backtest, score, score_series
        from forecast.predict.span import resolve_spans

        trained, spec, spelling = self.trained, self.spec, self.spelling
        widths = trained.half_widths(intervals, spelling=spelling) if intervals else {}
        panel = data if isinstance(data, Panel) else self.read(data, backtest=True)
        if span == TEST_OR_BOUNDS:
            span = None if start is not None or end is not None else "test"
        panel, spans = resolve_spans(panel, trained.config, seq_len=spec.seq_len, pred_len=spec.pred_len, span=span,
                                     start=start, end=end, spelling=spelling)
        started = time.perf_counter()
        bt = run_backtest(trained, panel, spans, every=every, batch_size=batch_size, spelling=spelling)
        seconds = time.perf_counter() - started
        return BacktestReport(panel=panel, backtest=bt, metrics=score(trained, bt),
                              per_series=None if panel.id_col is None else score_series(trained, bt),
                              intervals=interval_scores(trained, panel, bt, widths) if widths else None,
                              seconds=seconds, trained=trained, widths=widths)


def load(path: str | Path, *, device: str = "cpu", spelling: Spelling = API) -> Model:
    """A model from a ``.ckpt`` file or a run directory (its best checkpoint), as ``forecast-predict`` loads it.

    Args:
        path: a ``.ckpt`` file or a ``forecast-train`` run directory.
        device: ``cpu``, ``cuda`` or ``cuda:N``.
        spelling: how the messages name the arguments (default: the Python keywords, ``device='tpu'``;
            ``forecast-predict`` passes its options, ``--device 'tpu'``).

    Raises:
        DataError: an unknown device, no checkpoint, or one that does not rebuild.
    """
    return Model(TrainedModel.load(path, device=device, spelling=spelling), spelling=spelling)

