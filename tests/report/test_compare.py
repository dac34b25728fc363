"""forecast-compare and forecast.report: table values, mean ± std, best marking, plots, bad input."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import to_rgba

from forecast.runtime import PROJECT_ROOT
from forecast.report import lookback, plots
from forecast.report.build import write_report
from forecast.report.collect import ReportError, load_runs, run_label
from forecast.report.table import aggregate, best_cells, to_markdown



def metrics(*, model: str = "Informer", enc: str = "FullAttention", mse: float, seed: int = 1, pred_len: int = 4,
            data: str = "ETTh1", seq_len: int = 96) -> dict:
    return {"test/mse": mse, "test/mae": mse / 2, "test/mae_orig": mse * 3, "val/mse": mse,
            "train_seconds_per_epoch": 10.0, "inference_ms_per_batch": 5.0, "peak_memory_mb": 100.0,
            "n_params": 1000, "seed": seed, "model": model, "data": data, "features": "M", "seq_len": seq_len,
            "label_len": 48, "pred_len": pred_len, "encoder_attention": enc, "decoder_attention": enc,
            "cross_attention": enc, "test/mse_per_step": [mse] * pred_len}


def write_runs(root: Path, runs: list[dict]) -> Path:
    for i, m in enumerate(runs):
        (root / str(i)).mkdir(parents=True)
        (root / str(i) / "metrics.json").write_text(json.dumps(m))
    return root


@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "sweep", [
        metrics(enc="FullAttention", mse=0.50, seed=1), metrics(enc="FullAttention", mse=0.70, seed=2),
        metrics(enc="ProbSparseAttention", mse=0.40, seed=1),
        metrics(model="WindowMean", enc="none", mse=0.90, seed=1),
        metrics(model="WindowMean", enc="none", mse=0.90, seed=1),  # the same run again (attention sweep)
        metrics(enc="FullAttention", mse=0.30, pred_len=8),
    ])


def test_labels_are_backends_for_attention_models_and_names_for_baselines() -> None:
    assert run_label(metrics(mse=1)) == "FullAttention"
    assert run_label(metrics(model="WindowMean", enc="none", mse=1)) == "WindowMean"
    assert run_label({**metrics(mse=1), "tag": "revin+ridge"}) == "FullAttention (revin+ridge)"
    assert run_label({**metrics(model="WindowMean", enc="none", mse=1), "tag": None}) == "WindowMean"
    assert run_label(metrics(model="Other", enc="LocalAttention", mse=1)) == "Other[LocalAttention]"


def test_rows_average_seeds_and_repeated_seeds_count_once(sweep: Path) -> None:
    rows = aggregate(load_runs([sweep]))
    by = {(r.pred_len, r.label): r for r in rows}
    assert set(by) == {(4, "FullAttention"), (4, "ProbSparseAttention"), (4, "WindowMean"), (8, "FullAttention")}
    full = by[(4, "FullAttention")].stats["test/mse"]
    assert full.mean == pytest.approx(0.60) and full.std == pytest.approx(0.1414213, rel=1e-5)
    assert len(by[(4, "WindowMean")].runs) == 1
    assert [r.label for r in rows if r.pred_len == 4] == ["ProbSparseAttention", "FullAttention", "WindowMean"]
    assert by[(4, "FullAttention")].per_step() == pytest.approx([0.6] * 4)


def test_markdown_marks_the_best_error_per_dataset_and_horizon(sweep: Path) -> None:
    rows = aggregate(load_runs([sweep]))
    text = to_markdown(rows)
    assert "| ETTh1 | M | 4 | FullAttention | 96 | 2 | 0.600 ± 0.141 |" in text
    assert "| ETTh1 | M | 4 | ProbSparseAttention | 96 | 1 | **0.400** | **0.200** | **1.200** |" in text
    assert "| ETTh1 | M | 8 | FullAttention | 96 | 1 | **0.300** |" in text  # its own group
    assert {key for _, key in best_cells(rows)} == {"test/mse", "test/mae", "test/mae_orig"}


def test_report_files_and_csv_values(sweep: Path, tmp_path: Path) -> None:
    out = tmp_path / "report"
    written = write_report([sweep], out)
    names = {p.name for p in written}
    assert names == {"results.csv", "report.md", "mse_vs_train_time.png", "mse_vs_peak_memory.png",
                     "error_by_horizon_step.png"}
    for p in written:
        assert p.stat().st_size > 0
    assert (out / "error_by_horizon_step.png").read_bytes()[:4] == b"\x89PNG"
    lines = list(csv.DictReader((out / "results.csv").open()))
    full = next(r for r in lines if r["label"] == "FullAttention" and r["pred_len"] == "4")
    assert float(full["test/mse_mean"]) == pytest.approx(0.6) and full["n_seeds"] == "2" and full["seeds"] == "1 2"
    assert next(r for r in lines if r["label"] == "WindowMean")["test/mse_std"] == ""
    assert "![error_by_horizon_step](error_by_horizon_step.png)" in (out / "report.md").read_text()
    assert sorted(p.name for p in out.iterdir()) == sorted(names)  # no temp files left


def test_a_series_has_one_colour_in_every_panel_of_every_figure(tmp_path: Path, monkeypatch) -> None:
    # the two backends swap ranks between the horizons, so colouring by rank would swap their colours
    rows = aggregate(load_runs([write_runs(tmp_path / "sweep", [
        metrics(enc="FullAttention", mse=0.5), metrics(enc="ProbSparseAttention", mse=0.4),
        metrics(enc="FullAttention", mse=0.3, pred_len=8),
        metrics(enc="ProbSparseAttention", mse=0.6, pred_len=8),
    ])]))
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, target: figures.append(fig))
    plots.write_plots(rows, tmp_path / "report")
    assert len(figures) == 3
    for fig in figures:
        colours: dict[str, set] = {}
        for ax in fig.axes:
            for points, name in zip(ax.collections, ax.texts):  # one scatter and one label per row
                colours.setdefault(name.get_text(), set()).add(tuple(points.get_facecolor()[0]))
            for line in ax.get_lines():
                colours.setdefault(line.get_label(), set()).add(to_rgba(line.get_color()))
        assert set(colours) == {"FullAttention (96)", "ProbSparseAttention (96)"}
        assert all(len(c) == 1 for c in colours.values())
        assert len(set().union(*colours.values())) == 2
        plt.close(fig)


def test_empty_or_missing_dir_is_one_error_line_and_nothing_written(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    out = tmp_path / "report"
    with pytest.raises(ReportError, match="no metrics.json"):
        write_report([tmp_path / "empty"], out)
    for bad in ("empty", "missing"):
        proc = subprocess.run([sys.executable, "-m", "forecast.cli.compare", str(tmp_path / bad), "--out", str(out)],
                              capture_output=True, text=True, cwd=PROJECT_ROOT)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("error: ")
    assert not out.exists()


def test_unreadable_metrics_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "sweep" / "0").mkdir(parents=True)
    (tmp_path / "sweep" / "0" / "metrics.json").write_text("{not json")
    with pytest.raises(ReportError, match="not a readable metrics file"):
        write_report([tmp_path / "sweep"], tmp_path / "report")
    assert not (tmp_path / "report").exists()


def write_configs(root: Path, configs: list[str]) -> None:
    for i, text in enumerate(configs):
        (root / str(i) / "config.yaml").write_text(text)


def config(*, cycle: str = "null", label_len: int = 48, attention: str = "FullAttention", lr: float = 1e-4) -> str:
    return (f"model:\n  _target_: forecast.baselines.ridge.RidgeFloor\n  cycle: {cycle}\n"
            f"  encoder_attention:\n    _target_: forecast.attention.{attention}\n"
            f"data:\n  path: /somewhere/ETTh1.csv\n  seq_len: 96\n  pred_len: 4\n  label_len: {label_len}\n  seed: 1\n"
            f"task:\n  optimizer:\n    lr: {lr}\nseed: 1\npaths:\n  output_dir: /tmp/x\n")


def test_untagged_variants_of_one_row_get_the_settings_that_differ_in_their_label(tmp_path: Path) -> None:
    floor = dict(model="RidgeFloor", enc="none")
    sweep = write_runs(tmp_path / "sweep", [
        metrics(**floor, mse=0.38), metrics(**floor, mse=0.37),  # model.cycle=null,day: one row each
        metrics(**floor, mse=0.37),  # the day run again from an attention sweep: a repeat, counted once
        metrics(**floor, mse=0.50, pred_len=8), metrics(**floor, mse=0.48, pred_len=8),  # another row, label_len 0
    ])
    write_configs(sweep, [config(), config(cycle="day"), config(cycle="day", attention="ProbSparseAttention"),
                          config(label_len=0), config(cycle="day", label_len=0)])
    rows = {(r.pred_len, r.label): r for r in aggregate(load_runs([sweep]))}
    # label_len changes only from row to row, so it is not part of the variant's name
    assert set(rows) == {(4, "RidgeFloor [cycle=null]"), (4, "RidgeFloor [cycle=day]"),
                         (8, "RidgeFloor [cycle=null]"), (8, "RidgeFloor [cycle=day]")}
    assert len(rows[(4, "RidgeFloor [cycle=day]")].runs) == 1
    assert rows[(4, "RidgeFloor [cycle=null]")].stats["test/mse"].mean == pytest.approx(0.38)
    write_configs(sweep, [config(lr=1e-3)])  # two settings now differ within the row: both are named
    labels = {r.label for r in aggregate(load_runs([sweep])) if r.pred_len == 4}
    assert labels == {"RidgeFloor [cycle=null, task.optimizer.lr=0.001]",
                      "RidgeFloor [cycle=day, task.optimizer.lr=0.0001]"}


def test_tagged_or_identical_runs_keep_their_labels(tmp_path: Path) -> None:
    sweep = write_runs(tmp_path / "sweep", [{**metrics(mse=0.4), "tag": "a"}, {**metrics(mse=0.5), "tag": "b"},
                                           metrics(mse=0.6, seed=2), metrics(mse=0.7, seed=3)])
    write_configs(sweep, [config(), config(cycle="day"), config(), config()])
    assert sorted(r.label for r in aggregate(load_runs([sweep]))) == ["FullAttention", "FullAttention (a)",
                                                                      "FullAttention (b)"]


def test_unreadable_run_config_is_an_error(tmp_path: Path) -> None:
    sweep = write_runs(tmp_path / "sweep", [metrics(mse=0.4)])
    (sweep / "0" / "config.yaml").write_text("model: [unclosed\n")
    with pytest.raises(ReportError, match=r"config.yaml: not a readable run config"):
        load_runs([sweep])


def test_failed_sweep_jobs_are_listed_under_the_table(sweep: Path, tmp_path: Path) -> None:
    (sweep / "failed_jobs.jsonl").write_text(
        '{"job": 3, "overrides": ["attention=nystrom", "data.pred_len=4"], "error": "not causal"}\n'
        "\n"
        "a line cut short {\"job\n")
    write_report([tmp_path], tmp_path / "report")  # the sweep below a parent dir is found too
    text = (tmp_path / "report" / "report.md").read_text()
    table_end, figures = text.index("## Jobs that failed"), text.index("## Figures")
    assert table_end < figures
    assert text[table_end:figures].splitlines()[2:] == [
        "2 sweep job(s) stopped on a user error (from each sweep's `failed_jobs.jsonl`); their cells are missing "
        "from the table.",
        "",
        f"- `{sweep}` job 3: `attention=nystrom data.pred_len=4`: not causal",
        f"- `{sweep}`: a line cut short {{\"job",
        "",
        "",
    ]


def test_a_report_without_failed_jobs_has_no_such_section(sweep: Path, tmp_path: Path) -> None:
    write_report([sweep], tmp_path / "report")
    assert "Jobs that failed" not in (tmp_path / "report" / "report.md").read_text()


def with_floors(m: dict, ridge: float) -> dict:
    return {**m, "floors": {"ridge": {"val/mse": ridge, "test/mse": ridge}, "naive": {"test/mse": ridge * 3}}}


def test_a_sweep_across_look_backs_gets_mse_time_and_memory_against_look_back(tmp_path: Path,
                                                                              monkeypatch) -> None:
    runs = [with_floors({**metrics(enc=enc, mse=mse + 0.01 * seed, seq_len=n, seed=seed),
                         "train_seconds_per_epoch": n / 100, "peak_memory_mb": n}, ridge=0.5 - n / 10_000)
            for n in (720, 1440, 2880) for enc, mse in (("FullAttention", 0.6), ("ProbSparseAttention", 0.55))
            for seed in (1, 2)]
    drawn: dict[str, list] = {}
    real_plot_lookback = plots.plot_lookback

    def spy(rows, key, ylabel, target):  # records the points each figure is drawn from
        real_plot_lookback(rows, key, ylabel, target)
        drawn[target.name] = [(r.label, r.seq_len, r.stats[key].mean, r.stats[key].std) for r in rows]

    monkeypatch.setattr(plots, "plot_lookback", spy)
    written = {p.name for p in write_report([write_runs(tmp_path / "sweep", runs)], tmp_path / "out")}
    assert {"mse_vs_lookback.png", "train_time_vs_lookback.png", "memory_vs_lookback.png"} <= written
    mse = {(label, n): (mean, std) for label, n, mean, std in drawn["mse_vs_lookback.png"]}
    assert mse[("ProbSparseAttention", 1440)] == pytest.approx((0.565, 0.00707), abs=1e-4)
    assert {n for _, n, *_ in drawn["memory_vs_lookback.png"]} == {720, 1440, 2880}
    assert (tmp_path / "out" / "mse_vs_lookback.png").read_bytes()[:4] == b"\x89PNG"


def test_floor_lines_take_each_look_backs_own_floor(tmp_path: Path) -> None:
    runs = [with_floors(metrics(mse=0.6, seq_len=n, seed=s), ridge=r) for n, r in ((720, 0.40), (2880, 0.30))
            for s in (1, 2)]
    rows = {r.seq_len: r for r in aggregate(load_runs([write_runs(tmp_path / "sweep", runs)]))}
    assert lookback.floor_mse(rows[720], "ridge") == pytest.approx(0.40)
    assert lookback.floor_mse(rows[2880], "naive") == pytest.approx(0.90)
    assert math.isnan(lookback.floor_mse(rows[720], "seasonal_naive"))


def test_a_single_look_back_draws_no_look_back_figure(sweep: Path, tmp_path: Path) -> None:
    assert not any("lookback" in p.name for p in write_report([sweep], tmp_path / "out"))
