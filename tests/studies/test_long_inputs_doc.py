"""``studies/long_inputs_doc.py``: the long-input doc's look-back tables are rendered from the study's
results.csv (its run directories are not in git)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from forecast.report.build import write_report
from tests.report.test_lookback import long_sweep

SYNC = Path(__file__).resolve().parents[2] / "studies" / "long_inputs_doc.py"
DOC = """# Long inputs

### ETTh1, horizon 4

| model / backend | MSE @ 720 |
|---|---:|
| Full (SDPA) | 0.500 |

| model / backend | s/epoch @ 720 |
|---|---:|
| Full (SDPA) | 1.0 |

The reading stays.
"""


def load_sync():
    spec = importlib.util.spec_from_file_location("long_inputs_doc", SYNC)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """results.csv of a tiny generated study: two look-backs, two seeds, floors (``long_sweep``)."""
    write_report([long_sweep(tmp_path / "runs")], tmp_path / "report")
    return tmp_path / "report" / "results.csv"


def test_the_doc_takes_each_sections_two_tables_from_the_csv_and_keeps_its_text(
        tmp_path: Path, table: Path, capsys) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    sync = load_sync()
    assert sync.main(["--doc", str(doc), "--table", str(table), "--check"]) == 1
    assert capsys.readouterr().err == (f"{doc}: the tables under '### ETTh1, horizon 4' differ from {table}; "
                                       "run python studies/long_inputs_doc.py\n")
    assert doc.read_text() == DOC
    assert sync.main(["--doc", str(doc), "--table", str(table)]) == 0
    text = doc.read_text()
    assert text.startswith("# Long inputs\n\n### ETTh1, horizon 4\n\n| model / backend | MSE @ 720 | MSE @ 2880 |\n")
    assert "| ProbSparseAttention | 0.615 ± 0.007 | **0.365 ± 0.007** ✓ |" in text
    assert "| *ridge floor* | 0.500 | 0.400 |" in text  # from the CSV's floor columns
    assert "| FullAttention | 72.0 ± 0.0 | 288.0 ± 0.0 | 5 ± 0 | 5 ± 0 | 720 ± 0 | 2,880 ± 0 |" in text
    assert text.endswith("|\n\nThe reading stays.\n") and "0.500 |\n\n| model" not in text
    # the tables are the report's own: the doc's section equals report.md's
    report = (table.parent / "report.md").read_text()
    section = text.split("horizon 4\n\n")[1].split("\nThe reading stays.")[0]
    assert f"### ETTh1 M, horizon 4\n\n{section}" in report
    assert sync.main(["--doc", str(doc), "--table", str(table), "--check"]) == 0


def test_a_csv_section_the_doc_lacks_is_an_error_and_the_doc_is_unchanged(
        tmp_path: Path, table: Path, capsys) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC.replace("ETTh1", "ETTh2"))
    assert load_sync().main(["--doc", str(doc), "--table", str(table)]) == 2
    assert capsys.readouterr().err == ("error: the doc has no two tables under '### ETTh1, horizon 4'; "
                                       "add the heading and two tables\n")
    assert doc.read_text() == DOC.replace("ETTh1", "ETTh2")


def test_a_missing_table_is_one_line(tmp_path: Path, capsys) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text(DOC)
    assert load_sync().main(["--doc", str(doc), "--table", str(tmp_path / "nope.csv")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "nope.csv" in err


def test_the_long_input_doc_shows_the_studys_table() -> None:
    # docs/long-inputs.md's look-back tables are those of docs/long-inputs/results.csv
    assert load_sync().main(["--check"]) == 0
