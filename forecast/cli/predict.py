"""``forecast-predict``: forecast the future of a CSV from a trained checkpoint, or backtest it.

Examples::

    forecast-predict outputs/2024-05-01/12-00-00 ../shared/data/ETTh2.csv --plot etth2.png
    forecast-predict run/checkpoints/best-epoch00.ckpt data/ETTh1.csv --rolling --span test

Every bad input (file, columns, values, timestamps, frequency, length, checkpoint) prints one
``error: ...`` line on stderr and exits with status 2 without writing anything.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from forecast.cli.runtime import tune_malloc
from forecast.data.errors import DataError

# The backtest's baselines under the floor names of forecast-train's closing line.
FLOOR_METHODS = {"ridge": "ridge_floor", "naive": "naive_last", "mean": "naive_mean"}


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
                        "next to the input)")
    p.add_argument("--plot", type=Path, default=None, help="also write a PNG: history tail plus forecast")
    p.add_argument("--overwrite", action="store_true", help="replace existing output files")
    p.add_argument("--fill", choices=("ffill", "interpolate"), default=None,
                   help="fill empty, NaN and infinite cells instead of refusing them")
    p.add_argument("--fill-missing-dates", action="store_true",
                   help="add the rows missing from the timestamps at the model's frequency, filled by --fill")
    p.add_argument("--timestamp-col", default=None,
                   help="the input's timestamp column (default: the training one); 'none' reads the rows as "
                        "consecutive steps (for a model trained without timestamps)")
    p.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="whether the input's first line names the columns (default: as the training file; "
                        "--no-header names them 0 ... n-1)")
    p.add_argument("--device", default="cpu", help="cpu (default) or cuda")
    r = p.add_argument_group("rolling backtest")
    r.add_argument("--rolling", action="store_true",
                   help="forecast from every origin in a span with known actuals; report MSE/MAE per step "
                        "against naive baselines and the run's ridge floor; write a long CSV and a JSON summary")
    r.add_argument("--span", default=None, choices=("train", "val", "test", "all"),
                   help="the training run's split (borders/ratios from the checkpoint) applied to this file")
    r.add_argument("--start", default=None, help="first forecast step: 0-based row or timestamp")
    r.add_argument("--end", default=None, help="end of the forecast steps: row (exclusive) or timestamp (inclusive)")
    r.add_argument("--every", type=int, default=1, help="use every k-th origin (default 1)")
    r.add_argument("--batch-size", type=int, default=256, help="windows per forward pass (default 256)")
    r.add_argument("--summary", type=Path, default=None,
                   help="JSON summary path (default: the output path with .json)")
    return p


def _forecast(args: argparse.Namespace) -> None:
    from forecast.predict.forecaster import Forecaster
    from forecast.predict.output import check_targets, default_output, write_csv
    from forecast.predict.plot import plot_forecast

    output = args.output or default_output(args.input, "forecast")
    targets = [output] + ([args.plot] if args.plot else [])
    check_targets(targets, inputs=[Path(args.input)], overwrite=args.overwrite)
    fc = Forecaster.load(args.checkpoint, device=args.device)
    if args.plot and fc.spec.id_col is not None:
        raise DataError(f"--plot draws a single series; leave it out for a model of many series "
                        f"(id column {fc.spec.id_col!r})")
    panel = fc.read(args.input, **_read_options(args))
    _notes(panel)
    frame = fc.forecast(panel)
    write_csv(frame, output, overwrite=args.overwrite)
    if args.plot:
        series = panel.series[0]
        ts = frame.columns[0]
        col = fc.target
        history = series.frame[col].iloc[-fc.spec.seq_len:]
        plot_forecast(history, frame.set_index(ts)[col], args.plot, overwrite=args.overwrite)
    _print_checkpoint(fc)
    spec = fc.spec
    if panel.id_col is None:
        last, when = panel.series[0].index[-1], frame.columns[0]
        print(f"forecast:   {len(frame)} steps after {last}: {frame[when].iloc[0]} .. {frame[when].iloc[-1]}")
    else:
        print(f"forecast:   {spec.pred_len} steps after the last row of each of {len(panel.series)} series")
    print(frame.to_string(index=False, max_rows=12, float_format=lambda v: f"{v:.4f}"))
    print(f"wrote {output}" + (f" and {args.plot}" if args.plot else ""))


def _rolling(args: argparse.Namespace) -> None:
    from forecast.io import atomic_path
    from forecast.predict.forecaster import Forecaster
    from forecast.predict.output import check_targets, default_output, write_csv
    from forecast.predict.rolling import (format_series_table, format_table, long_frame, run_backtest, score,
                                          score_series)
    from forecast.predict.span import resolve_spans
    from forecast.training.floors import standing

    if args.plot:
        raise DataError("--plot draws a single forecast; leave it out with --rolling")
    output = args.output or default_output(args.input, "backtest")
    summary = args.summary or output.with_suffix(".json")
    check_targets([output, summary], inputs=[Path(args.input)], overwrite=args.overwrite)
    fc = Forecaster.load(args.checkpoint, device=args.device)
    spec = fc.spec
    panel = fc.read(args.input, **_read_options(args), min_rows=spec.seq_len + spec.pred_len,
                    what=f"one backtest window (seq_len {spec.seq_len} + pred_len {spec.pred_len})")
    panel, spans = resolve_spans(panel, fc.config, seq_len=spec.seq_len, pred_len=spec.pred_len, span=args.span,
                                 start=args.start, end=args.end)
    _notes(panel)
    started = time.perf_counter()
    bt = run_backtest(fc, panel, spans, every=args.every, batch_size=args.batch_size)
    seconds = time.perf_counter() - started
    metrics = score(fc, bt)
    payload = {
        "checkpoint": str(fc.checkpoint), "input": str(args.input), "features": spec.features, "freq": spec.freq,
        "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
        "columns": list(spec.target_columns), "span": args.span, "every": args.every, "windows": len(bt.origins),
    }
    if panel.id_col is None:
        index = panel.series[0].index
        first, last = int(bt.origins[0]) + 1, int(bt.origins[-1]) + spec.pred_len
        payload.update({"first_forecast_row": first, "last_forecast_row": last,
                        "first_forecast_timestamp": str(index[first]), "last_forecast_timestamp": str(index[last])})
        where = f"forecasts {index[first]} .. {index[last]} (rows {first}..{last})"
    else:
        per_series = score_series(fc, bt)
        payload.update({"id_col": panel.id_col, "series": per_series})
        where = f"of {len(per_series)} series"
    payload.update({"seconds": seconds, "metrics": metrics, "output": str(output)})
    write_csv(long_frame(fc, panel, bt), output, overwrite=args.overwrite)
    with atomic_path(summary, overwrite=args.overwrite) as tmp:
        tmp.write_text(json.dumps(payload, indent=2) + "\n")
    _print_checkpoint(fc)
    print(f"backtest:   {len(bt.origins)} windows (every {args.every}), {where}, {seconds:.1f} s")
    if panel.id_col is not None:
        print("per series (model), windows and MSE/MAE scaled and in original units:")
        print(format_series_table(payload["series"]))
    print("MSE/MAE on the scaled values per horizon step; 'orig' = overall in original units")
    print(format_table(metrics))
    m = metrics["model"]
    print(f"model mse {m['mse']:.6f}  mae {m['mae']:.6f}  (original units: mse {m['mse_orig']:.4f}, "
          f"mae {m['mae_orig']:.4f})")
    floors = {name: metrics[method]["mse"] for name, method in FLOOR_METHODS.items() if method in metrics}
    print(f"vs floors: {standing(m['mse'], floors)}")
    print(f"wrote {output} and {summary}")


def _read_options(args: argparse.Namespace) -> dict[str, Any]:
    """Forecaster.read's keywords from the command line (``--timestamp-col none``: no timestamps)."""
    from forecast.predict.forecaster import FROM_CHECKPOINT

    ts = args.timestamp_col
    timestamp_col = FROM_CHECKPOINT if ts is None else None if ts.strip().lower() == "none" else ts
    return {"fill": args.fill, "timestamp_col": timestamp_col, "header": args.header,
            "fill_missing_dates": args.fill_missing_dates}


def _print_checkpoint(fc: Any) -> None:
    spec = fc.spec
    freq = spec.freq if spec.freq is not None else "none (rows are steps)"
    print(f"checkpoint: {fc.checkpoint} ({spec.features}, freq {freq}, seq_len {spec.seq_len}, "
          f"pred_len {spec.pred_len}{', series by ' + spec.id_col if spec.id_col else ''})")


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
        _rolling(args) if args.rolling else _forecast(args)
    except (DataError, FileExistsError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


def main() -> None:
    """Console entry point."""
    tune_malloc()
    sys.exit(run())


if __name__ == "__main__":
    main()
