"""A trained model plus everything it needs about its data, rebuilt from a checkpoint alone.

The checkpoint's recipe gives the columns, the frequency, the window sizes and the *training-rows*
scaler; inputs are scaled with it (never refitted on the new file, the reference's
``Dataset_Pred`` bug) and forecasts are unscaled with it.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd
import torch
from torch import Tensor, nn

from forecast.baselines.best_floor import BestFloor
from forecast.data.dialect import Dialect, check_encoding
from forecast.data.errors import DataError
from forecast.data.known_future import with_known
from forecast.data.reader import DATAFRAME, STEP, FillMethod, Panel, Series, read_panel
from forecast.data.spec import DataSpec
from forecast.data.time_features import Calendars, future_index
from forecast.data.windows import WindowDataset, as_tensor, eval_batch_windows
from forecast.predict.checkpoint import resolve_checkpoint, resolve_device
from forecast.predict.future import check_future_given, known_columns
from forecast.predict.validate import check_length
from forecast.spelling import CLI, Spelling
from forecast.training.conformal import CONFORMAL_KEY, check_levels, half_widths, label
from forecast.training.floors import RIDGE, ridge_from_state
from forecast.training.recipe import FLOORS_KEY, RECIPE_KEY, load_checkpoint, load_model

FROM_CHECKPOINT = "<the training timestamp column>"  # TrainedModel.read's default timestamp column
#: the floors every backtest scores: the training run's name of each -> the backtest's method
BACKTEST_FLOORS = {RIDGE: "ridge_floor", "naive": "naive_last", "mean": "naive_mean"}


def own_floor(model: nn.Module) -> tuple[str, nn.Module] | None:
    """The floor a model's best floor chose, ``(name, copy on CPU in eval mode)``, where it is not one the
    backtest scores anyway (:data:`BACKTEST_FLOORS`); None without a best floor."""
    best = next((m for m in model.modules() if isinstance(m, BestFloor)), None)
    if best is None or best.chosen in BACKTEST_FLOORS:
        return None
    return best.chosen, copy.deepcopy(best.candidates[best.chosen]).cpu().eval()


@dataclass
class TrainedModel:
    """A model in eval mode with its data spec and training config.

    Attributes:
        model: ``model(x_enc, x_mark_enc, x_mark_dec) -> (B, pred_len, C_out)`` scaled.
        spec: columns, frequency, window sizes and scaler of the training data.
        config: the resolved training configuration.
        checkpoint: the ``.ckpt`` file loaded.
        device: where the model runs.
        ridge_floor: the run's ridge floor rebuilt from the checkpoint (on CPU, eval mode), for the
            backtest; None for a checkpoint that stores none.
        conformal: the interval calibration (``forecast.training.conformal``); None for a checkpoint
            that holds none.
        start_floor: the floor the model started from, where it is none of the backtest's others (not
            ``naive``, ``mean`` or ``ridge``): ``(name, module)`` of its best floor's choice (on CPU, eval
            mode), e.g. ``day_profile``; None otherwise.
    """

    model: nn.Module
    spec: DataSpec
    config: dict[str, Any]
    checkpoint: Path
    device: torch.device
    ridge_floor: nn.Module | None = None
    conformal: dict[str, Any] | None = None
    start_floor: tuple[str, nn.Module] | None = None
    calendars: Calendars = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.calendars = Calendars(self.spec.freq)

    @classmethod
    def load(cls, path: str | Path, *, device: str = "cpu", spelling: Spelling = CLI) -> "TrainedModel":
        """Load a ``.ckpt`` file or a run directory's best checkpoint onto ``device`` (named in messages as
        ``spelling`` writes it).

        Raises:
            DataError: an unknown device, no checkpoint, a corrupt or foreign file, or a recipe that no longer
                builds.
        """
        dev = resolve_device(device, spelling=spelling)
        ckpt_path = resolve_checkpoint(path)
        ckpt = load_checkpoint(ckpt_path)
        recipe = ckpt[RECIPE_KEY]
        stored = (recipe.get(FLOORS_KEY) or {}).get(RIDGE)
        try:
            model, spec = load_model(ckpt)
            ridge = None if stored is None else ridge_from_state(recipe["model_dims"], stored)
        except Exception as exc:  # noqa: BLE001 - any rebuild failure means the checkpoint is unusable
            first = str(exc).splitlines()[0] if str(exc) else ""
            raise DataError(f"{ckpt_path}: cannot rebuild the model from the checkpoint's recipe "
                            f"({type(exc).__name__}: {first[:200]}); was it written by another version?") from exc
        start = own_floor(model)
        model.to(dev)
        return cls(model=model, spec=spec, config=recipe.get("config", {}), checkpoint=ckpt_path, device=dev,
                   ridge_floor=ridge, conformal=recipe.get(CONFORMAL_KEY), start_floor=start)

    @property
    def target(self) -> str:
        """The column to plot: the training target when predicted, else the last predicted column."""
        target = (self.config.get("data") or {}).get("target")
        target = None if target is None else str(target)
        return target if target in self.spec.target_columns else self.spec.target_columns[-1]

    # ------------------------------------------------------------------------------------- reading
    def read(self, path: str | Path | pd.DataFrame, *, fill: FillMethod | None = None,
             timestamp_col: str | None = FROM_CHECKPOINT,
             header: bool | None = None, fill_missing_dates: bool | None = None, min_rows: int | None = None,
             what: str | None = None, dialect: Dialect | None = None, encoding: str | None = None,
             spelling: Spelling = CLI) -> Panel:
        """Read and validate a CSV (or a DataFrame) against the training data's columns, frequency and series;
        readings are aggregated into steps as the training run's were (its ``data.resample`` and ``data.agg``).

        Args:
            path: the CSV, or a DataFrame of its columns (a named index counts as a column).
            fill: fill missing (empty, NaN, infinite) cells instead of refusing them (default: as the
                training run did, its ``data.fill``).
            timestamp_col: the file's timestamp column (default: the training one); None reads the
                rows as consecutive steps, for a model trained without calendar features.
            header: whether the file has a header row (default: as the training file).
            fill_missing_dates: add the rows missing from the timestamps, filled by ``fill`` (default:
                as the training run did, its ``data.fill_missing_dates``).
            min_rows: rows each series needs (default ``seq_len``).
            what: what needs ``min_rows``, for the message.
            dialect: how the file is written (default: as the training file, the checkpoint's).
            encoding: the file's text encoding, a Python codec name (default: the training run's
                ``data.encoding``, else detected).
            spelling: whose options or keywords the messages' remedies name (``--timestamp-col NAME``,
                ``timestamp_col='NAME'``).

        Returns:
            The panel of usable series (one without an id column). Of many series, those shorter
            than ``min_rows`` and, with per-series scalers, those not trained on are left out with a
            note in ``notes``.

        Raises:
            DataError: any problem with the file (one line naming the file, line and column), or no
                usable series.
        """
        spec = self.spec
        trained = self.config.get("data") or {}
        fill = trained.get("fill") if fill is None else fill
        fill_missing_dates = bool(trained.get("fill_missing_dates")) if fill_missing_dates is None else fill_missing_dates
        source = DATAFRAME if isinstance(path, pd.DataFrame) else str(path)
        ts = spec.timestamp_col if timestamp_col == FROM_CHECKPOINT else timestamp_col
        if ts is None and spec.freq is not None:
            raise DataError(f"{source}: the model was trained with calendar features at frequency {spec.freq!r}, so "
                            f"it needs the file's timestamps; pass {spelling.given('timestamp_col', 'NAME')}")
        columns = list(spec.input_columns) + list(spec.future_columns)  # the known inputs' history too
        if encoding is not None:
            check_encoding(encoding, key=spelling.name("encoding"))
        panel = read_panel(path, timestamp_col=ts, columns=columns, id_col=spec.id_col,
                           header=spec.header if header is None else header, fill=fill, freq=spec.freq,
                           model_freq=spec.freq is not None, fill_missing_dates=fill_missing_dates,
                           resample=trained.get("resample"), agg=trained.get("agg"), hints=spelling.hints,
                           dialect=spec.dialect_for(ts, encoding) if dialect is None else dialect,
                           start=trained.get("start"))
        needed = spec.seq_len if min_rows is None else min_rows
        what = what or f"the model's input window (seq_len {spec.seq_len})"
        if spec.id_col is None:
            check_length(len(panel.series[0].frame), needed, source=source, what=what, spelling=spelling)
            return panel
        return self._usable(panel, needed, what, source=source, spelling=spelling)

    def _usable(self, panel: Panel, needed: int, what: str, *, source: str, spelling: Spelling) -> Panel:
        """The panel without the series too short for ``what`` or without a scaler; refused when none is left."""
        short = [s for s in panel.series if len(s.frame) < needed]
        unknown = [s for s in panel.series if len(s.frame) >= needed and not self.spec.has_scaler(s.series_id)]
        kept = tuple(s for s in panel.series if len(s.frame) >= needed and self.spec.has_scaler(s.series_id))
        notes = list(panel.notes)
        if short:
            notes.append(f"{source}: skipping {len(short)} of {len(panel.series)} series with fewer than {needed} rows "
                         f"({what}): {_names(short)}")
        if unknown:
            notes.append(f"{source}: skipping {len(unknown)} series the model was not trained on (each series has "
                         f"its own scaler; train with data.scaler=global to forecast new series): {_names(unknown)}")
        if not kept:
            longest = max(panel.series, key=lambda s: len(s.frame))
            reason = (f"{what} needs at least {needed} rows and the longest, {longest.series_id}, has "
                      f"{len(longest.frame)}" if short else "the model was trained on none of them")
            raise DataError(f"{source}: no series to forecast among {len(panel.series)}: {reason}"
                            f"{'; ' + spelling.more_rows if short else ''}")
        return replace(panel, series=kept, notes=tuple(notes))

    def scaled(self, series: Series) -> np.ndarray:
        """Inputs scaled with the checkpoint's scaler (the series' own, if scaled per series), float32, (N, C_in)."""
        columns = list(self.spec.input_columns)
        frame = series.frame if list(series.frame.columns) == columns else series.frame[columns]
        values = frame.to_numpy(dtype=np.float64)  # (N, C_in)
        return np.ascontiguousarray(self.spec.scale_inputs(values, series.series_id).astype(np.float32))

    def marks(self, series: Series, future: np.ndarray | None = None, index: pd.Index | None = None) -> np.ndarray:
        """Time marks of the series' rows, then of ``index`` (the horizon) if given, float32.

        The known-future columns come from the series itself, then from ``future`` ((P, K) original
        units) over the horizon.

        Shapes: -> (N [+ P], M), M = n_time_features + K + 5.
        """
        known = known_columns(series, self.spec)  # (N, K)
        stamps = series.index
        if index is not None:
            stamps = stamps.append(index)
            extra = np.zeros((len(index), 0)) if future is None else self.spec.scale_future(future)
            known = np.concatenate([known, extra])
        return with_known(self.calendars.marks(stamps), known)

    def unscale(self, values: np.ndarray, series_id: str | None = None) -> np.ndarray:
        """Scaled targets (..., C_out) -> original units, float64."""
        return self.spec.unscale_targets(torch.from_numpy(np.asarray(values)).double(), series_id).numpy()

    # ----------------------------------------------------------------------------------- predicting
    @property
    def batch_windows(self) -> int:
        """Windows in one forward pass (:func:`~forecast.data.windows.eval_batch_windows` of the windows' steps)."""
        spec = self.spec
        return eval_batch_windows(spec.seq_len, spec.label_len, spec.pred_len)

    @torch.inference_mode()
    def predict(self, x_enc: Tensor, x_mark_enc: Tensor, x_mark_dec: Tensor) -> Tensor:
        """One forward pass. Shapes: (B, S, C_in), (B, S, M), (B, L+P, M) -> (B, P, C_out) scaled, on CPU."""
        self.model.eval()
        dev = self.device
        return self.model(x_enc.to(dev), x_mark_enc.to(dev), x_mark_dec.to(dev)).float().cpu()

    def half_widths(self, levels: Sequence[float], *, spelling: Spelling = CLI) -> dict[float, np.ndarray]:
        """``{level: (P, C_out) conformal half-width, scaled}`` for validated ``levels`` (named in messages as
        ``spelling`` writes them).

        Raises:
            DataError: bad levels, or a checkpoint without calibration.
        """
        return half_widths(self.conformal, check_levels(levels, spelling=spelling), source=str(self.checkpoint),
                           spelling=spelling)

    def forecast(self, panel: Panel, *, widths: Sequence[dict[float, np.ndarray]] | None = None,
                 future: np.ndarray | None = None, spelling: Spelling = CLI) -> pd.DataFrame:
        """Forecast the ``pred_len`` steps after each series' last row, the series batched together.

        Args:
            panel: the series to forecast.
            widths: per series of ``panel``, ``{level: (P, C_out) half-width, scaled}``
                (:func:`~forecast.predict.future_widths.future_widths`); each level adds ``<col>_lo_80``,
                ``<col>_hi_80`` (for 0.8) after each forecast column, in original units.
            future: the known-future columns over the horizon, (P, K) original units
                (:func:`~forecast.predict.future.read_future`); required exactly when the model was
                trained with ``data.future_columns`` (a file of one series).
            spelling: how the messages say to give ``future`` (``--future FILE``, ``future=``).

        Returns:
            Frame with the id column (many series), the timestamp column (or ``step``: the row
            numbers that follow the file's) then the predicted columns (each followed by its
            intervals, narrowest level first), in original units.

        Raises:
            DataError: ``future`` given to a model without known-future columns (or missing for one
                with them).
        """
        widths = [{}] * len(panel.series) if widths is None else widths
        if len(widths) != len(panel.series):
            raise ValueError(f"{len(widths)} sets of half-widths for {len(panel.series)} series")
        spec = self.spec
        check_future_given(spec, future is not None, source=str(self.checkpoint), spelling=spelling)
        xs, marks, futures = [], [], []
        for series in panel.series:
            tail = Series(frame=series.frame.iloc[-spec.seq_len:], series_id=series.series_id)
            xs.append(as_tensor(self.scaled(tail)))  # (S, C_in)
            horizon = future_index(tail.index[-1], panel.freq, spec.pred_len)
            marks.append(as_tensor(self.marks(tail, future, horizon)))  # (S + P, M)
            futures.append(horizon)
        x, mark, n = torch.stack(xs), torch.stack(marks), self.batch_windows  # (N, S, C_in), (N, S + P, M)
        pred = torch.cat([self.predict(x[i:i + n], mark[i:i + n, :spec.seq_len],
                                       mark[i:i + n, spec.seq_len - spec.label_len:])
                          for i in range(0, len(x), n)])  # (N, P, C_out), N series
        parts = [self._with_intervals(p.numpy().astype(np.float64), w, series.series_id)
                 for series, p, w in zip(panel.series, pred, widths)]  # p: (P, C_out)
        data: dict[str, Any] = {}
        cells = [panel.id_cells(s.series_id) for s in panel.series]  # the id columns as the file names them
        for name in cells[0] if cells else ():
            data[name] = np.repeat(np.asarray([c[name] for c in cells], dtype=object), spec.pred_len)
        written = [spec.dialect.written(f) for f in futures]
        data[panel.series[0].frame.index.name or spec.timestamp_col or STEP] = written[0].append(written[1:])
        data.update({col: np.concatenate([part[col] for part in parts]) for col in parts[0]})
        return pd.DataFrame(data)

    def _with_intervals(self, pred: np.ndarray, widths: dict[float, np.ndarray],
                        series_id: str | None) -> dict[str, np.ndarray]:
        """One series' forecast (P, C_out) scaled, with each column's intervals, in original units: ``{column:
        (P,)}``, each forecast column followed by its bounds."""
        data: dict[str, np.ndarray] = {}
        centre = self.unscale(pred, series_id)  # (P, C_out)
        bounds = {a: (self.unscale(pred - w, series_id), self.unscale(pred + w, series_id)) for a, w in widths.items()}
        for c, col in enumerate(self.spec.target_columns):
            data[col] = centre[:, c]
            for a, (lo, hi) in bounds.items():
                data[f"{col}_lo_{label(a)}"], data[f"{col}_hi_{label(a)}"] = lo[:, c], hi[:, c]
        return data

    def windows(self, series: Series, *, start: int, end: int, stride: int = 1,
                spelling: Spelling = CLI) -> WindowDataset:
        """Every ``stride``-th window of a series whose rows lie in ``[start, end)`` (start includes the look-back);
        a ``stride`` below 1 is refused naming the backtest's ``every`` as ``spelling`` writes it."""
        spec = self.spec
        x = as_tensor(self.scaled(series))  # (N, C_in)
        y = x[:, spec.target_index].contiguous()  # (N, C_out)
        marks = as_tensor(self.marks(series))  # (N, M): the known-future columns are the file's own
        if stride < 1:
            raise DataError(f"{spelling.name('every')} must be >= 1, got {stride}")
        return WindowDataset(x, y, marks, start=start, end=end, seq_len=spec.seq_len, label_len=spec.label_len,
                             pred_len=spec.pred_len, stride=stride)


def _names(series: list[Series], limit: int = 10) -> str:
    ids = [str(s.series_id) for s in series]
    return ", ".join(ids[:limit]) + (f" and {len(ids) - limit} more" if len(ids) > limit else "")
