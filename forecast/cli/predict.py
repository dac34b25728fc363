"""``forecast-predict``: forecast the future of a CSV from a trained checkpoint, or backtest it.

Examples::

    forecast-predict outputs/2024-05-01/12-00-00 ../shared/data/ETTh2.csv --plot etth2.png
    forecast-predict run/checkpoints/best-epoch00.ckpt data/ETTh1.csv --rolling --span test

    forecast-predict run/ data/ETTh1.csv -o - | head     # the forecast CSV on stdout, status lines on stderr
    forecast-predict run/ history.csv --future future.csv  # a model trained with data.future_columns

Every bad input (file, columns, values, timestamps, frequency, length, checkpoint) prints one
``error: ...`` line on stderr and exits with status 2 without writing anything.

Output streams: with ``--output FILE`` (or the default file) the status lines and the forecast table go to
stdout; with ``-o -`` stdout holds the CSV only and the status lines go to stderr, without the table.
``--quiet`` drops the status lines and the table either way; notes (``note: ...``) and errors always
go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence, TextIO

from forecast.runtime import tune_malloc
from forecast.data.errors import DataError
from forecast.spelling import CLI


def preview(frame: Any) -> str:
    """The forecast as the console shows it beside the file: at most 12 rows and 10 columns (the first and last
    of each, ``...`` between), then the frame's size where that cut any."""
    return frame.to_string(index=False, max_rows=12, max_cols=10, show_dimensions="truncate",
                           float_format=lambda v: f"{v:.4f}")


def build_parser() -> argparse.ArgumentParser:
    """The command-line options."""
    p = argparse.ArgumentParser(
        prog="forecast-predict",
        description="Forecast the next pred_len steps of a CSV with a model trained by forecast-train "
                    "(columns, scaler, frequency and window sizes come from the checkpoint), or backtest it "
                    "with --rolling.")
    p.add_argument("checkpoint", help="a .ckpt file, or a forecast-train run directory (its best checkpoint)")
    p.add_argument("input", help="CSV with the training columns and timestamp column, at the training frequency")
    p.add_argument("--output", "-o", type=Path, default=None,
                   help="output CSV (default: <input stem>.forecast.csv, or .backtest.csv with --rolling, "
                        "next to the input); '-' writes it to stdout and the status lines to stderr")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="print no status lines and no forecast table (notes and errors still go to stderr)")
    p.add_argument("--plot", type=Path, default=None, help="also write a PNG: history tail plus forecast")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    p.add_argument("--fill", choices=("ffill", "interpolate"), default=None,
                   help="fill empty, NaN and infinite cells instead of refusing them (default: as the training "
                        "run, its data.fill)")
    p.add_argument("--fill-missing-dates", action="store_true", default=None,
                   help="add the rows missing from the timestamps at the model's frequency, filled by --fill "
                        "(default: as the training run, its data.fill_missing_dates)")
    p.add_argument("--timestamp-col", default=None,
                   help="the input's timestamp column (default: the training one); 'none' reads the rows as "
                        "consecutive steps (for a model trained without timestamps)")
    p.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the input's first line names the columns (default: as the training file; "
                        "--no-header names them 0 ... n-1)")
    p.add_argument("--encoding", default=None, metavar="CODEC",
                   help="the input's (and --future file's) text encoding, a Python codec name: cp932, cp1251, "
                        "latin-1 (default: the training run's data.encoding, else detected: UTF-8, UTF-16, GB18030, "
                        "Windows-1252)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--intervals", type=float, nargs="+", default=None, metavar="LEVEL",
                   help="conformal prediction intervals at these levels, fractions in (0, 1) on the whole-percent "
                        "grid (0.8 0.95): <col>_lo_80, <col>_hi_80 ... beside each forecast column; with --rolling, "
                        "their coverage and mean width per horizon step")
    p.add_argument("--future", type=Path, default=None, metavar="FILE",
                   help="for a model trained with data.future_columns: a CSV with the horizon's pred_len timestamps "
                        "(those after the input's last row) and the known-future columns; --rolling takes them "
                        "from the input file instead")
    r = p.add_argument_group("rolling backtest")
    r.add_argument("--rolling", action="store_true",
                   help="forecast from every origin in a span with known actuals; report MSE/MAE per step "
                        "against naive baselines and the run's ridge floor; write a long CSV and a JSON summary")
    r.add_argument("--span", default=None, choices=("train", "val", "test", "all"),
                   help="the training run's split (borders/ratios from the checkpoint) applied to this file")
    r.add_argument("--start", default=None, help="first forecast step: 0-based row or timestamp")
    r.add_argument("--end", default=None, help="end of the forecast steps: row (exclusive) or timestamp (inclusive)")
    r.add_argument("--every", type=int, default=1, help="use every k-th origin (default 1)")
    r.add_argument("--batch-size", type=int, default=None,
                   help="windows per forward pass (default: 256 at 96 + 48 + 24 steps a window, fewer for longer ones)")
    r.add_argument("--summary", type=Path, default=None,
                   help="JSON summary path (default: the output path with .json; none with -o - unless given)")
    return p


def _forecast(args: argparse.Namespace) -> None:
    from forecast.api import load
    from forecast.predict.output import check_targets, default_output, write_csv
    from forecast.training.conformal import label

    output = args.output or default_output(args.input, "forecast")
    to_stdout = _is_stdout(output)
    targets = ([] if to_stdout else [output]) + ([args.plot] if args.plot else [])
    check_targets(targets, inputs=[Path(args.input)] + ([args.future] if args.future else []),
                  overwrite=args.overwrite)
    model = load(args.checkpoint, device=args.device, spelling=CLI)
    fc = model.trained
    if args.plot and fc.spec.id_col is not None:
        raise DataError(f"--plot draws a single series; leave it out for a model of many series "
                        f"(id column {fc.spec.id_col!r})")
    levels = sorted(fc.half_widths(args.intervals, spelling=CLI)) if args.intervals else []
    options = _read_options(args)
    panel = model.read(args.input, **options)
    _notes(panel)
    frame = model.predict(panel, intervals=levels, future=args.future, timestamp_col=options["timestamp_col"],
                          header=args.header, fill=args.fill, encoding=args.encoding)
    if not to_stdout:
        write_csv(frame, output, overwrite=args.overwrite)
    if args.plot:
        from forecast.predict.plot import plot_forecast  # matplotlib: only when a plot is asked for

        series = panel.series[0]
        ts = frame.columns[0]
        col = fc.target
        history = series.frame[col].iloc[-fc.spec.seq_len:]
        band = None
        if levels:  # the widest level's interval
            tag = label(levels[-1])
            band = (frame.set_index(ts)[f"{col}_lo_{tag}"], frame.set_index(ts)[f"{col}_hi_{tag}"], tag)
        plot_forecast(history, frame.set_index(ts)[col], args.plot, overwrite=args.overwrite, band=band)
    _forecast_status(args, fc, panel, frame, output)
    if to_stdout:  # last, after the status lines on stderr: a reader that stops early (| head) cuts nothing
        frame.to_csv(sys.stdout, index=False)


def _forecast_status(args: argparse.Namespace, fc: Any, panel: Any, frame: Any, output: Path) -> None:
    """The status lines of a forecast (and its table, when the CSV went to a file)."""
    out = _status(args, output)
    if out is None:
        return
    to_stdout = _is_stdout(output)
    _print_checkpoint(fc, out)
    spec = fc.spec
    if panel.id_col is None:
        last, when = panel.series[0].index[-1], frame.columns[0]
        print(f"forecast:   {len(frame)} steps after {last}: {frame[when].iloc[0]} .. {frame[when].iloc[-1]}",
              file=out)
    else:
        print(f"forecast:   {spec.pred_len} steps after the last row of each of {len(panel.series)} series",
              file=out)
    if args.intervals:
        print(f"intervals:  {_intervals_line(fc, panel, args.intervals)}", file=out)
    if not to_stdout:  # on stdout the CSV is the table
        print(preview(frame), file=out)
    written = ([] if to_stdout else [str(output)]) + ([str(args.plot)] if args.plot else [])
    if written:
        print(f"wrote {' and '.join(written)}", file=out)


def _rolling(args: argparse.Namespace) -> None:
    from forecast.api import load
    from forecast.io import atomic_path
    from forecast.predict.output import check_targets, default_output, write_csv

    if args.plot:
        raise DataError("--plot draws a single forecast; leave it out with --rolling")
    output = args.output or default_output(args.input, "backtest")
    to_stdout = _is_stdout(output)
    summary = args.summary or (None if to_stdout else output.with_suffix(".json"))
    files = ([] if to_stdout else [output]) + ([summary] if summary is not None else [])
    check_targets(files, inputs=[Path(args.input)], overwrite=args.overwrite)
    model = load(args.checkpoint, device=args.device, spelling=CLI)
    fc, spec = model.trained, model.spec
    if args.intervals:
        fc.half_widths(args.intervals, spelling=CLI)  # bad levels are refused before the file is read
    panel = model.read(args.input, **_read_options(args), backtest=True)
    _notes(panel)
    report = model.backtest_report(panel, span=args.span, start=args.start, end=args.end, every=args.every,
                                   batch_size=args.batch_size, intervals=args.intervals or ())
    bt, panel, metrics = report.backtest, report.panel, report.metrics
    payload = {
        "checkpoint": str(fc.checkpoint), "input": str(args.input), "features": spec.features, "freq": spec.freq,
        "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
        "columns": list(spec.target_columns), "span": args.span, "every": args.every, "windows": len(bt.origins),
    }
    if fc.start_floor is not None:  # what the metrics' start_floor is
        payload["start_floor"] = fc.start_floor[0]
    if panel.id_col is None:
        index = panel.series[0].index
        first, last = int(bt.origins[0]) + 1, int(bt.origins[-1]) + spec.pred_len
        payload.update({"first_forecast_row": first, "last_forecast_row": last,
                        "first_forecast_timestamp": str(index[first]), "last_forecast_timestamp": str(index[last])})
        where = f"forecasts {index[first]} .. {index[last]} (rows {first}..{last})"
    else:
        payload.update({"id_col": panel.id_col, "series": report.per_series})
        where = f"of {len(report.per_series or {})} series"
    payload.update({"seconds": report.seconds, "metrics": metrics, "output": "-" if to_stdout else str(output)})
    if report.intervals is not None:
        payload["intervals"] = report.intervals
    if not to_stdout:
        write_csv(report.parts, output, overwrite=args.overwrite)
    if summary is not None:
        with atomic_path(summary, overwrite=args.overwrite) as tmp:
            tmp.write_text(json.dumps(payload, indent=2) + "\n")
    _rolling_status(args, fc, bt, payload, metrics, where, output, summary)
    if to_stdout:  # last, after the status lines on stderr; a series at a time
        for k, part in enumerate(report.parts()):
            part.to_csv(sys.stdout, index=False, header=k == 0)


def _rolling_status(args: argparse.Namespace, fc: Any, bt: Any, payload: dict[str, Any], metrics: dict[str, Any],
                    where: str, output: Path, summary: Path | None) -> None:
    """The status lines of a backtest: windows, the per-step table, the model against its floors."""
    from forecast.predict.rolling import format_intervals, format_series_table, format_table
    from forecast.predict.trained_model import BACKTEST_FLOORS
    from forecast.training.floors import standing

    out = _status(args, output)
    if out is None:
        return
    to_stdout = _is_stdout(output)
    seconds = payload["seconds"]
    _print_checkpoint(fc, out)
    print(f"backtest:   {len(bt.origins)} windows (every {args.every}), {where}, {seconds:.1f} s", file=out)
    if "series" in payload:
        print("per series (model), windows and MSE/MAE scaled and in original units:", file=out)
        print(format_series_table(payload["series"]), file=out)
    print("MSE/MAE on the scaled values per horizon step; 'orig' = overall in original units", file=out)
    print(format_table(metrics), file=out)
    m = metrics["model"]
    print(f"model mse {m['mse']:.6f}  mae {m['mae']:.6f}  (original units: mse {m['mse_orig']:.4f}, "
          f"mae {m['mae_orig']:.4f})", file=out)
    mape = "n/a (an actual is 0)" if m["mape"] is None else f"{m['mape']:.2%}"
    mase = "n/a (the naive forecast is exact)" if m["mase"] is None else f"{m['mase']:.4f}"
    print(f"model mape {mape}  smape {m['smape']:.4f}  mase {mase}  (original units; mase: MAE "
          f"over the naive forecast's on the same windows)", file=out)
    floors = {name: metrics[method]["mse"] for name, method in BACKTEST_FLOORS.items() if method in metrics}
    if "start_floor" in metrics:  # the floor the model started from, by its name
        floors[fc.start_floor[0]] = metrics["start_floor"]["mse"]
    print(f"vs floors: {standing(m['mse'], floors)}", file=out)
    if "intervals" in payload:
        print("conformal intervals: coverage (share of actuals inside) and mean width (original units) per "
              "horizon step", file=out)
        print(format_intervals(payload["intervals"]), file=out)
    written = ([] if to_stdout else [str(output)]) + ([str(summary)] if summary is not None else [])
    if written:
        print(f"wrote {' and '.join(written)}", file=out)


def _read_options(args: argparse.Namespace) -> dict[str, Any]:
    """:meth:`forecast.api.Model.read`'s keywords from the command line (``--timestamp-col none``: no timestamps)."""
    from forecast.predict.trained_model import FROM_CHECKPOINT

    ts = args.timestamp_col
    timestamp_col = FROM_CHECKPOINT if ts is None else None if ts.strip().lower() == "none" else ts
    return {"fill": args.fill, "timestamp_col": timestamp_col, "header": args.header,
            "fill_missing_dates": args.fill_missing_dates, "encoding": args.encoding}


def _is_stdout(output: Path) -> bool:
    """``-o -``: the CSV goes to stdout."""
    return str(output) == "-"


def _status(args: argparse.Namespace, output: Path) -> TextIO | None:
    """Where the status lines go: None with ``--quiet``, stderr when stdout carries the CSV, else stdout."""
    if args.quiet:
        return None
    return sys.stderr if _is_stdout(output) else sys.stdout


def _intervals_line(fc: Any, panel: Any, levels: list[float]) -> str:
    """``80%, 95%: the validation calibration tracked through the file's last 2000 windows`` (what
    :func:`~forecast.predict.future_widths.future_widths` did)."""
    from forecast.predict.future_widths import tracked_windows
    from forecast.training.conformal import label

    counts = tracked_windows(fc, panel)
    named = ", ".join(f"{label(a)}%" for a in sorted(levels))
    if not any(counts):
        return (f"{named}: the validation calibration, untracked (no window with known actuals after the "
                f"training rows)")
    if panel.id_col is None:
        return f"{named}: the validation calibration tracked through the file's last {counts[0]} windows"
    return (f"{named}: the validation calibration tracked through each series' latest windows ({sum(counts)} "
            f"in all)")


def _print_checkpoint(fc: Any, out: TextIO) -> None:
    spec = fc.spec
    freq = spec.freq if spec.freq is not None else "none (rows are steps)"
    print(f"checkpoint: {fc.checkpoint} ({spec.features}, freq {freq}, seq_len {spec.seq_len}, "
          f"pred_len {spec.pred_len}{', series by ' + spec.id_col if spec.id_col else ''})", file=out)


def _notes(panel: Any) -> None:
    """The reader's notes (rows added, series skipped), then the columns ignored."""
    for note in panel.notes:
        print(f"note: {note}", file=sys.stderr)
    _note_extra(panel.extra_columns)


def _note_extra(extra: Sequence[str]) -> None:
    if extra:
        print(f"note: ignoring column(s) {', '.join(extra)} that the model was not trained on", file=sys.stderr)


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` and run; returns the exit status (0, or 2 for a user error)."""
    args = build_parser().parse_args(argv)
    try:
        if not args.rolling:
            given = [f"--{k.replace('_', '-')}" for k in ("span", "start", "end", "summary") if getattr(args, k)]
            if given:
                raise DataError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} only with --rolling")
        elif args.future is not None:
            raise DataError("--future gives the horizon of one forecast; --rolling takes the known-future columns "
                            "from the input file itself, so leave --future out")
        _rolling(args) if args.rolling else _forecast(args)
        sys.stdout.flush()
    except (DataError, FileExistsError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `-o - | head`: the reader has what it wanted; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    return 0


def main() -> None:
    """Console entry point."""
    tune_malloc()
    sys.exit(run())


if __name__ == "__main__":
    main()
