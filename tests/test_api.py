"""forecast.api: ``train`` runs forecast-train's code path, ``load`` forecast-predict's; the README's snippet runs."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

from forecast import Model, Run, load, train
from forecast.api import as_overrides
from forecast.cli.predict import run as predict_cli
from forecast.runtime import CONF_DIR, PROJECT_ROOT, register_resolvers
from forecast.data.errors import DataError
from forecast.data.reader import read_panel
from tests.conftest import ETTH1, tiny_model

TINY = ["data.target=OT", "data.seq_len=24", "data.label_len=12", "data.pred_len=6", *tiny_model(),
        "trainer.max_epochs=1", "trainer.limit_train_batches=2", "logger=none", "plot=false",
        "trainer.enable_progress_bar=false", "trainer.enable_model_summary=false"]


def readme_snippet() -> str:
    """The indented code block of README's "Use it from Python" section."""
    text = (PROJECT_ROOT / "README.md").read_text()
    section = text.split("## Use it from Python\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"\n\n((?:    .*\n|\n)+)", section)
    assert block is not None
    return "\n".join(line[4:] for line in block.group(1).splitlines())


def test_the_readme_snippet_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "ETTh1.csv").symlink_to(ETTH1)
    monkeypatch.chdir(tmp_path)
    scope: dict[str, object] = {}
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        exec(compile(readme_snippet(), "README.md", "exec"), scope)  # noqa: S102 - the README's own code
    run, future, scores = scope["run"], scope["future"], scope["scores"]
    assert isinstance(run, Run) and run.run_dir.parent.parent == tmp_path / "outputs"
    assert (run.run_dir / "metrics.json").is_file() and not (run.run_dir / "data.csv").exists()
    assert "path: <DataFrame>" in (run.run_dir / "config.yaml").read_text()  # the frame itself is not written
    assert isinstance(future, pd.DataFrame) and len(future) == run.metrics["pred_len"] == 12
    assert future.columns[0] == "date"
    last = pd.Timestamp(pd.read_csv(ETTH1, nrows=2000)["date"].iloc[-1])
    assert pd.Timestamp(future["date"].iloc[0]) == last + pd.Timedelta(hours=1)
    assert scores["model"]["mse"] == pytest.approx(run.metrics["test/mse"], rel=1e-4)
    assert f"run dir:    {run.run_dir}" in printed.getvalue()


def test_keyword_settings_become_overrides() -> None:
    assert as_overrides(["model=linear"], {"trainer__max_epochs": 1, "plot": False, "data__ratios": [0.6, 0.2, 0.2],
                                           "tag": None}) == [
        "model=linear", "trainer.max_epochs=1", "plot=false", "data.ratios=[0.6,0.2,0.2]", "tag=null"]
    register_resolvers()
    items = as_overrides(["data=csv"], {"data__agg": {"rain": "sum", "snow": "max"}})
    assert items == ["data=csv", "data.agg={rain:sum,snow:max}"]
    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        assert compose("train", overrides=items).data.agg == {"rain": "sum", "snow": "max"}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Run, Path]:
    root = tmp_path_factory.mktemp("api")
    csv = root / "in.csv"
    pd.read_csv(ETTH1, nrows=600).to_csv(csv, index=False)
    return train(data=csv, overrides=TINY, run_dir=root / "run", threads=1), csv


def test_train_on_a_path_and_predict_as_the_command_does(tiny_run: tuple[Run, Path], tmp_path: Path) -> None:
    run, csv = tiny_run
    assert run.run_dir == (csv.parent / "run").resolve() and run.checkpoint.is_file()
    assert run.metrics["data"] == "in" and not (run.run_dir / "data.csv").exists()
    model = run.load()
    assert isinstance(model, Model)
    out = tmp_path / "cli.csv"
    with contextlib.redirect_stdout(io.StringIO()):
        assert predict_cli([str(run.run_dir), str(csv), "-o", str(out), "--quiet"]) == 0
    cli = pd.read_csv(out)
    api = model.predict(csv)
    pd.testing.assert_frame_equal(api.assign(date=api["date"].astype(str)), cli, check_exact=False, rtol=1e-12)
    # a DataFrame with the timestamps as its index gives the same forecast
    frame = pd.read_csv(csv, parse_dates=["date"]).set_index("date")
    pd.testing.assert_frame_equal(model.predict(frame), api)
    pd.testing.assert_frame_equal(model.predict(frame.rename_axis(None)), api)  # unnamed: the timestamps all the same


def test_a_series_indexed_by_time_trains_and_predicts_as_its_csv(tmp_path: Path) -> None:
    """A pandas Series with an unnamed DatetimeIndex (or PeriodIndex) is the file ``date,OT``."""
    series = pd.read_csv(ETTH1, nrows=600, parse_dates=["date"]).set_index("date")["OT"].rename_axis(None)
    csv = tmp_path / "ot.csv"
    series.rename_axis("date").to_csv(csv)
    settings = [*TINY[:4], "trainer.max_epochs=0", "logger=none", "plot=false"]
    by_file = train(data=csv, overrides=settings, run_dir=tmp_path / "file", threads=1)
    by_series = train(data=series, overrides=settings, run_dir=tmp_path / "series", threads=1)
    assert by_series.metrics["test/mse"] == by_file.metrics["test/mse"]
    future = by_series.load().predict(series)
    pd.testing.assert_frame_equal(future, by_file.load().predict(csv))
    assert list(future.columns) == ["date", "OT"]
    daily = pd.Series(range(40), index=pd.period_range("2020-01-01", periods=40, freq="D"), dtype=float)
    panel = read_panel(daily)
    assert panel.series[0].index.equals(pd.DatetimeIndex(pd.date_range("2020-01-01", periods=40), name="date",
                                                         freq=None))
    assert panel.notes == ("<DataFrame>: detected timestamps in the DataFrame's index, read as 'date'",)


def test_backtest_reproduces_the_runs_test_metrics(tiny_run: tuple[Run, Path]) -> None:
    run, csv = tiny_run
    scores = load(run.checkpoint).backtest(pd.read_csv(csv), span="test")
    assert list(scores) == ["model", "naive_last", "naive_mean", "ridge_floor", "start_floor"]
    start = run.metrics["floors"][run.metrics["floor_choice"]["chosen"]]
    assert scores["start_floor"]["mse"] == pytest.approx(start["test/mse"], rel=1e-5)
    assert scores["model"]["mse"] == pytest.approx(run.metrics["test/mse"], rel=1e-4)
    assert scores["model"]["mae"] == pytest.approx(run.metrics["test/mae"], rel=1e-4)


def test_backtest_takes_the_test_split_by_default_and_bounds_without_a_span(tiny_run: tuple[Run, Path]) -> None:
    run, csv = tiny_run
    model, frame = load(run.checkpoint), pd.read_csv(csv)
    assert model.backtest(frame)["model"]["mse"] == model.backtest(frame, span="test")["model"]["mse"]
    bounded = model.backtest_report(frame, start=100, end=160)
    assert (bounded.backtest.origins[0], len(bounded.backtest.origins)) == (99, 160 - 100 - model.spec.pred_len + 1)


def test_bad_data_raises_one_line_and_leaves_no_run_dir(tmp_path: Path) -> None:
    frame = pd.read_csv(ETTH1, nrows=600)
    with pytest.raises(DataError) as caught:
        train(data=frame, overrides=[*TINY, "data.target=nope"], run_dir=tmp_path / "run")
    assert "'nope'" in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "run").exists()


def test_bad_setting_raises_the_commands_message(tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        train(data=ETTH1, overrides=["data.target=OT", "data.seq_ln=5"], run_dir=tmp_path / "run")
    assert str(caught.value).startswith("unknown setting data.seq_ln")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("settings,message", [
    ({"target": "OT"}, "unknown setting target: did you mean data__target?"),
    ({"max_epochs": 1}, "unknown setting max_epochs: did you mean trainer__max_epochs?"),
    ({"lr": 0.01}, "unknown setting lr: did you mean task__optimizer__lr?"),
    ({"data__targt": "OT"}, "unknown setting data__targt: did you mean data__target?"),
])
def test_an_unknown_keyword_is_named_with_the_keywords_it_may_mean(settings: dict, message: str,
                                                                    tmp_path: Path) -> None:
    with pytest.raises(DataError) as caught:
        train(data=ETTH1, run_dir=tmp_path / "run", **settings)
    assert str(caught.value) == message
    assert not (tmp_path / "run").exists()


def test_load_refuses_what_is_no_checkpoint(tmp_path: Path) -> None:
    with pytest.raises(DataError):
        load(tmp_path)
