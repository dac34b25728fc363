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
from typing import Sequence

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
                   help="fill empty/NaN cells instead of refusing them")
    p.add_argument("--timestamp-col", default=None, help="the input's timestamp column (default: the training one)")
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
    series = fc.read(args.input, fill=args.fill, timestamp_col=args.timestamp_col)
    _note_extra(series.extra_columns)
    frame = fc.forecast(series)
    write_csv(frame, output, overwrite=args.overwrite)
    if args.plot:
        ts = frame.columns[0]
        col = fc.target
        history = series.frame[col].iloc[-fc.spec.seq_len:]
        plot_forecast(history, frame.set_index(ts)[col], args.plot, overwrite=args.overwrite)
    spec = fc.spec
    print(f"checkpoint: {fc.checkpoint} ({spec.features}, freq {spec.freq}, seq_len {spec.seq_len}, "
          f"pred_len {spec.pred_len})")
    print(f"forecast:   {len(frame)} steps after {series.index[-1]}: {frame.iloc[0, 0]} .. {frame.iloc[-1, 0]}")
    print(frame.to_string(index=False, max_rows=12, float_format=lambda v: f"{v:.4f}"))
    print(f"wrote {output}" + (f" and {args.plot}" if args.plot else ""))


def _rolling(args: argparse.Namespace) -> None:
    from forecast.io import atomic_path
    from forecast.predict.forecaster import Forecaster
    from forecast.predict.output import check_targets, default_output, write_csv
    from forecast.predict.rolling import format_table, long_frame, run_backtest, score
    from forecast.predict.span import resolve_span
    from forecast.training.floors import standing

    if args.plot:
        raise DataError("--plot draws a single forecast; leave it out with --rolling")
    output = args.output or default_output(args.input, "backtest")
    summary = args.summary or output.with_suffix(".json")
    check_targets([output, summary], inputs=[Path(args.input)], overwrite=args.overwrite)
    fc = Forecaster.load(args.checkpoint, device=args.device)
    spec = fc.spec
    series = fc.read(args.input, fill=args.fill, timestamp_col=args.timestamp_col,
                     min_rows=spec.seq_len + spec.pred_len,
                     what=f"one backtest window (seq_len {spec.seq_len} + pred_len {spec.pred_len})")
    _note_extra(series.extra_columns)
    rows = resolve_span(series.index, fc.config, seq_len=spec.seq_len, span=args.span, start=args.start,
                        end=args.end)
    started = time.perf_counter()
    bt = run_backtest(fc, series, rows, every=args.every, batch_size=args.batch_size)
    seconds = time.perf_counter() - started
    metrics = score(fc, bt)
    index = series.index
    first, last = int(bt.origins[0]) + 1, int(bt.origins[-1]) + spec.pred_len
    payload = {
        "checkpoint": str(fc.checkpoint), "input": str(args.input), "features": spec.features, "freq": spec.freq,
        "seq_len": spec.seq_len, "label_len": spec.label_len, "pred_len": spec.pred_len,
        "columns": list(spec.target_columns), "span": args.span, "every": args.every, "windows": len(bt.origins),
        "first_forecast_row": first, "last_forecast_row": last,
        "first_forecast_timestamp": str(index[first]), "last_forecast_timestamp": str(index[last]),
        "seconds": seconds, "metrics": metrics, "output": str(output),
    }
    write_csv(long_frame(fc, series, bt), output, overwrite=args.overwrite)
    with atomic_path(summary, overwrite=args.overwrite) as tmp:
        tmp.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"checkpoint: {fc.checkpoint} ({spec.features}, freq {spec.freq}, seq_len {spec.seq_len}, "
          f"pred_len {spec.pred_len})")
    print(f"backtest:   {len(bt.origins)} windows (every {args.every}), forecasts {index[first]} .. {index[last]} "
          f"(rows {first}..{last}), {seconds:.1f} s")
    print("MSE/MAE on the scaled values per horizon step; 'orig' = overall in original units")
    print(format_table(metrics))
    m = metrics["model"]
    print(f"model mse {m['mse']:.6f}  mae {m['mae']:.6f}  (original units: mse {m['mse_orig']:.4f}, "
          f"mae {m['mae_orig']:.4f})")
    floors = {name: metrics[method]["mse"] for name, method in FLOOR_METHODS.items() if method in metrics}
    print(f"vs floors: {standing(m['mse'], floors)}")
    print(f"wrote {output} and {summary}")


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
