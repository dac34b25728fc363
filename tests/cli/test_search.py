"""hparams_search=optuna: an Optuna sweep of the default model, its report, and the refusal without the plugin."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hydra.errors import ConfigCompositionException

from forecast.cli.compare import run as compare
from forecast.user_errors import config_error
from forecast.report.search import find_searches
from tests.cli.test_train import run_cli
from tests.conftest import tiny_run_overrides
from tests.report.test_compare import metrics, write_runs


def test_an_optuna_search_runs_its_trials_and_the_report_marks_the_best(small_csv: Path, tmp_path: Path) -> None:
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    sweep = tmp_path / "search"
    proc = run_cli("-m", "hparams_search=optuna", "hydra.sweeper.n_trials=2",
                   *tiny_run_overrides(small_csv, model="mlp_floor"),
                   "trainer.max_epochs=1", "trainer.limit_train_batches=2", "threads=1",
                   "model.net.net.hidden=choice(16,32)", "data.seq_len=choice(24,48)",
                   f"hydra.sweep.dir={sweep}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    trials = {p.parent.name: json.loads(p.read_text()) for p in sweep.glob("*/metrics.json")}
    assert sorted(trials) == ["0", "1"]
    best = min(trials, key=lambda name: trials[name]["val/mse"])
    (search,) = find_searches([sweep])
    assert search.best_run == sweep / best and search.best_value == pytest.approx(trials[best]["val/mse"])
    assert compare([str(sweep), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert f"best val/mse **{trials[best]['val/mse']:.4f}**, trial `{sweep / best}`" in report


def test_the_report_names_the_best_trial_of_a_search(tmp_path: Path) -> None:
    sweep = write_runs(tmp_path / "sweep", [metrics(mse=0.5, seq_len=48), metrics(mse=0.4, seq_len=96)])
    (sweep / "optimization_results.yaml").write_text("name: optuna\nbest_params:\n  data.seq_len: 96\n"
                                                     "  task.optimizer.lr: 0.000123456\nbest_value: 0.4\n")
    assert compare([str(sweep), "--out", str(tmp_path / "report")]) == 0
    report = (tmp_path / "report" / "report.md").read_text()
    assert (f"- `{sweep}`: best val/mse **0.4000**, trial `{sweep / '1'}`: `data.seq_len=96`, "
            f"`task.optimizer.lr=0.0001235`") in report


def test_without_the_plugin_the_search_is_refused_in_one_line() -> None:
    missing = ConfigCompositionException("In 'hparams_search/optuna': Could not find 'hydra/sweeper/optuna'\n\n"
                                         "Available options in 'hydra/sweeper':\n\tbasic")
    assert config_error(missing) == 'hparams_search=optuna needs the Optuna sweeper plugin: pip install -e ".[search]"'


@pytest.mark.parametrize("option,model", [("optuna", "WindowMLP"), ("optuna_informer", "Informer"),
                                          ("optuna_any", "WindowMLP")])
def test_every_searched_key_is_a_setting_of_the_model_the_search_picks(option: str, model: str,
                                                                        tmp_path: Path) -> None:
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from forecast.runtime import CONF_DIR

    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("train", overrides=[f"hparams_search={option}", f"paths.output_dir={tmp_path}"],
                      return_hydra_config=True)
    searched = list(cfg.hydra.sweeper.params)
    assert {"task.optimizer.lr", "data.seq_len"} <= set(searched)
    assert OmegaConf.select(cfg, "model.net.net._target_", default="").endswith(f".{model}")
    for key in searched:
        assert OmegaConf.select(cfg, key, default=None) is not None, key
