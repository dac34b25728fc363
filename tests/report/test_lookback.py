"""forecast.report.lookback: the per-look-back MSE table with the floors beside, and the cost table."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from forecast.report.build import write_report
from forecast.report.collect import load_runs
from forecast.report.lookback import floor_by_length, render_lookback
from forecast.report.table import aggregate, read_csv, write_csv
from tests.report.test_compare import metrics, with_floors, write_runs


def long_sweep(root: Path) -> Path:
    """Full and ProbSparse at 720 and 2880, 2 seeds; the ridge floor 0.5 at 720 and 0.4 at 2880; ProbSparse
    beats it at 2880 only; a DLinear row at both."""
    runs = []
    for n, ridge in ((720, 0.5), (2880, 0.4)):
        for seed in (1, 2):
            for enc, mse in (("FullAttention", 0.7), ("ProbSparseAttention", 0.6 if n == 720 else 0.35)):
                m = metrics(enc=enc, mse=mse + 0.01 * seed, seq_len=n, seed=seed)
                m = {**m, "train_seconds_per_epoch": n / 10, "peak_memory_mb": n}
                runs.append(with_floors(m, ridge=ridge))
            dlinear = metrics(model="DLinear", enc="none", mse=0.45, seq_len=n, seed=seed)
            runs.append(with_floors(dlinear, ridge=ridge))
    return write_runs(root, runs)


def test_the_mse_table_has_a_column_per_look_back_and_the_floors_as_rows(tmp_path: Path) -> None:
    text = "\n".join(render_lookback(aggregate(load_runs([long_sweep(tmp_path / "s")]))))
    assert "| model / backend | MSE @ 720 | MSE @ 2880 |" in text
    assert "| ProbSparseAttention | 0.615 ± 0.007 | **0.365 ± 0.007** ✓ |" in text
    assert "| FullAttention | 0.715 ± 0.007 | 0.715 ± 0.007 |" in text
    assert "| DLinear | **0.450 ± 0.000** ✓ | 0.450 ± 0.000 |" in text
    assert "| *ridge floor* | 0.500 | 0.400 |" in text
    assert "| *naive floor* | 1.500 | 1.200 |" in text
    assert "seasonal_naive" not in text  # no run scored it
    assert ("| model / backend | s/epoch @ 720 | s/epoch @ 2880 | ms/batch @ 720 | ms/batch @ 2880 "
            "| peak MB @ 720 | peak MB @ 2880 |") in text
    assert "| FullAttention | 72.0 ± 0.0 | 288.0 ± 0.0 | 5 ± 0 | 5 ± 0 | 720 ± 0 | 2,880 ± 0 |" in text


def test_floor_by_length_takes_each_look_backs_own_windows(tmp_path: Path) -> None:
    rows = aggregate(load_runs([long_sweep(tmp_path / "s")]))
    assert floor_by_length(rows, "ridge") == pytest.approx({720: 0.5, 2880: 0.4})


def test_the_report_gains_the_section_only_across_look_backs(tmp_path: Path) -> None:
    write_report([long_sweep(tmp_path / "s")], tmp_path / "out")
    assert "## By look-back" in (tmp_path / "out" / "report.md").read_text()
    one = write_runs(tmp_path / "one", [metrics(mse=0.5), metrics(mse=0.6, seed=2)])
    write_report([one], tmp_path / "out1")
    assert "## By look-back" not in (tmp_path / "out1" / "report.md").read_text()


def test_legend_names_are_short() -> None:
    from forecast.report.plots import short_label

    default = ("FloorResidual(BestFloor(RidgeFloor, CalendarResidual), InstanceNorm(Informer))[ProbSparseAttention]"
               " (default)")
    assert short_label(default) == "default: ProbSparse"
    assert short_label("InstanceNorm(Informer)[NystromAttention/FullAttention]") == "Informer[Nystrom/Full]"
    assert short_label("InstanceNorm(Informer)[FullAttention] [cycle=day]") == "Informer[Full] [cycle=day]"
    assert short_label("DLinear") == "DLinear" and short_label("FullAttention") == "Full"


def test_a_row_level_with_the_ridge_floor_gets_no_mark(tmp_path: Path) -> None:
    """The default that kept its start is the floor, a float32 rounding below it (ETTh1 at 2880: 0.42705536
    against 0.42705541): not marked as beating it. A row 0.1% below the floor is, though both print 0.427."""
    ridge = 0.42705541
    runs = [with_floors(metrics(model="FloorResidual", enc="none", mse=0.42705536, seq_len=n), ridge=ridge)
            for n in (720, 2880)]
    runs += [with_floors(metrics(model="DLinear", enc="none", mse=0.42663, seq_len=n), ridge=ridge)
             for n in (720, 2880)]
    text = "\n".join(render_lookback(aggregate(load_runs([write_runs(tmp_path / "s", runs)]))))
    assert "| FloorResidual | **0.427** | **0.427** |" in text  # level: bold at 3 decimals, no ✓
    assert "| DLinear | **0.427** ✓ | **0.427** ✓ |" in text


def test_results_csv_alone_gives_the_same_look_back_tables(tmp_path: Path) -> None:
    # a study keeps results.csv, not its run directories: the tables rendered from it are the runs' own
    rows = aggregate(load_runs([long_sweep(tmp_path / "s")]))
    write_csv(rows, tmp_path / "results.csv")
    back = read_csv(tmp_path / "results.csv")
    assert [(r.label, r.seq_len, r.seeds) for r in back] == [(r.label, r.seq_len, r.seeds) for r in rows]
    assert render_lookback(back) == render_lookback(rows)
    assert floor_by_length(back, "naive") == pytest.approx({720: 1.5, 2880: 1.2})


def test_a_results_csv_without_a_column_or_with_a_bad_number_names_it(tmp_path: Path) -> None:
    path = tmp_path / "results.csv"
    path.write_text("dataset,label\nETTh1,Full\n")
    with pytest.raises(ValueError, match=r"results.csv: no column features, pred_len, seq_len, seeds, test/mse_mean"):
        read_csv(path)
    write_csv(aggregate(load_runs([long_sweep(tmp_path / "s")])), path)
    lines = list(csv.reader(path.open()))
    lines[3][lines[0].index("seq_len")] = "seven"
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(lines)
    with pytest.raises(ValueError, match=r"results.csv: line 4: invalid literal for int\(\) with base 10: 'seven'"):
        read_csv(path)
