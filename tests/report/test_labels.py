"""``forecast-compare --labels``: display names for report rows, and the long-input doc's tables taken from
the report (``studies/long_inputs_doc.py``)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from forecast.cli.compare import run
from forecast.report.collect import ReportError, load_runs
from forecast.report.labels import read_labels, relabel
from tests.report.test_compare import metrics, write_runs

@pytest.fixture
def sweep(tmp_path: Path) -> Path:
    return write_runs(tmp_path / "sweep", [
        metrics(model="InstanceNorm(Informer)", enc="FullAttention", mse=0.5, seed=1),
        metrics(model="InstanceNorm(Informer)", enc="FullAttention", mse=0.7, seed=2),
        metrics(model="InstanceNorm(Informer)", enc="ProbSparseAttention", mse=0.4),
        metrics(model="DLinear", enc="none", mse=0.45),
    ])


def write_labels(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "labels.yaml"
    path.write_text(text)
    return path


def test_named_rows_take_their_names_everywhere_and_the_others_keep_their_labels(
        sweep: Path, tmp_path: Path, capsys) -> None:
    labels = write_labels(tmp_path, '"InstanceNorm(Informer)[FullAttention]": Full (SDPA)\n'
                                    '"InstanceNorm(Informer)[ProbSparseAttention]": ProbSparse\n'
                                    'Absent[LocalAttention]: Local\n')  # no such row: ignored
    out = tmp_path / "report"
    assert run([str(sweep), "--labels", str(labels), "--out", str(out)]) == 0
    rows = {r["label"]: r for r in csv.DictReader((out / "results.csv").open())}
    assert set(rows) == {"Full (SDPA)", "ProbSparse", "DLinear"}
    assert rows["Full (SDPA)"]["n_seeds"] == "2" and float(rows["Full (SDPA)"]["test/mse_mean"]) == pytest.approx(0.6)
    report = (out / "report.md").read_text()
    assert "| ETTh1 | M | 4 | Full (SDPA) | 96 | 2 | 0.600 ± 0.141 |" in report
    assert "| ETTh1 | M | 4 | ProbSparse | 96 | 1 | **0.400** |" in report
    assert "FullAttention" not in report and "ProbSparseAttention" not in report


def test_two_rows_given_one_name_is_an_error_and_nothing_is_written(sweep: Path, tmp_path: Path, capsys) -> None:
    labels = write_labels(tmp_path, '"InstanceNorm(Informer)[FullAttention]": attention\n'
                                    '"InstanceNorm(Informer)[ProbSparseAttention]": attention\n')
    out = tmp_path / "report"
    assert run([str(sweep), "--labels", str(labels), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (f"error: labels file {labels}: rows 'InstanceNorm(Informer)[FullAttention]' and "
                   "'InstanceNorm(Informer)[ProbSparseAttention]' would both be named 'attention'; "
                   "give each its own name\n")
    assert not out.exists()


def test_a_name_that_is_another_rows_label_is_an_error(sweep: Path) -> None:
    with pytest.raises(ReportError, match="rows 'DLinear' and 'InstanceNorm\\(Informer\\)\\[FullAttention\\]' "
                                          "would both be named 'DLinear'"):
        relabel(load_runs([sweep]), {"InstanceNorm(Informer)[FullAttention]": "DLinear"})


@pytest.mark.parametrize(("text", "message"), [
    (None, "labels file {path} does not exist; pass a YAML file of 'row label: name' lines"),
    ("", "labels file {path} holds no mapping; write one 'row label: name' line per row"),
    ("- a\n- b\n", "labels file {path} holds no mapping; write one 'row label: name' line per row"),
    ("a: [1\n", "labels file {path} is not readable YAML (while parsing a flow sequence)"),
    ("a: 3\n", "labels file {path}: entry 'a': 3 is not 'row label: name' with a non-empty name "
               "(quote a label that YAML would read otherwise)"),
    ("a: ' '\n", "labels file {path}: entry 'a': ' ' is not 'row label: name' with a non-empty name "
                 "(quote a label that YAML would read otherwise)"),
])
def test_a_bad_labels_file_is_one_line_naming_it(tmp_path: Path, text: str | None, message: str) -> None:
    path = tmp_path / "labels.yaml"
    if text is not None:
        path.write_text(text)
    with pytest.raises(ReportError) as err:
        read_labels(path)
    assert str(err.value) == message.format(path=path)
