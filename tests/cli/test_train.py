"""forecast-train end to end on small data: outputs, reproducibility, errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import torch

from forecast.api import train as api_train
from forecast.data.errors import DataError
from forecast.training.pipeline import train
from forecast.training.recipe import RECIPE_KEY, load_checkpoint, load_model
from tests.conftest import compose_train, tiny_run_overrides


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "forecast.cli.train", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def test_fast_dev_run_through_the_cli(small_csv: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    proc = run_cli(*tiny_run_overrides(small_csv), "trainer.fast_dev_run=true", f"hydra.run.dir={run_dir}",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "test/mse" in proc.stdout and f"run dir:    {run_dir}" in proc.stdout
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["epochs"] == 1 and metrics["test_windows"] == 200 - 6 + 1  # 20% test rows, look-back taken before the border


def test_run_writes_metrics_config_checkpoint_and_plot(small_csv: Path, tmp_path: Path) -> None:
    cfg = compose_train(tiny_run_overrides(small_csv, "plot=true"), tmp_path)
    metrics = train(cfg)
    for key in ("test/mse", "test/mae", "test/mae_orig", "test/rmse_orig", "val/mse", "val/mae"):
        assert isinstance(metrics[key], float)
    assert len(metrics["test/mse_per_step"]) == 6
    assert metrics["test/mse"] == pytest.approx(sum(metrics["test/mse_per_step"]) / 6, rel=1e-5)
    on_disk = json.loads((tmp_path / "metrics.json").read_text())
    assert on_disk["test/mse"] == metrics["test/mse"]
    assert "${" not in (tmp_path / "config.yaml").read_text()  # resolved
    assert (tmp_path / "forecast.png").stat().st_size > 10_000
    ckpt_path = Path(metrics["checkpoint"])
    assert ckpt_path.parent == tmp_path / "checkpoints" and ckpt_path.suffix == ".ckpt"
    ckpt = load_checkpoint(ckpt_path)
    assert ckpt[RECIPE_KEY]["spec"]["input_columns"] == ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
    model, spec = load_model(ckpt)
    assert spec.seq_len == 24 and spec.pred_len == 6 and not model.training


def test_same_seed_same_metrics(small_csv: Path, tmp_path: Path) -> None:
    # keep_start=false: the trained model is scored whatever the keep rule would say, so the seed matters
    runs = [train(compose_train(tiny_run_overrides(small_csv, "seed=7", "keep_start=false"), tmp_path / str(i)))
            for i in range(2)]
    for key in ("test/mse", "test/mae", "val/mse"):
        assert runs[0][key] == runs[1][key]
    other = train(compose_train(tiny_run_overrides(small_csv, "seed=8", "keep_start=false"), tmp_path / "other"))
    assert other["test/mse"] != runs[0]["test/mse"]


@pytest.mark.parametrize("features,c_out", [("S", 1), ("MS", 1)])
def test_univariate_and_many_to_one(features: str, c_out: int, small_csv: Path, tmp_path: Path) -> None:
    metrics = train(compose_train(tiny_run_overrides(small_csv, f"data.features={features}",
                                                     "trainer.max_epochs=1"), tmp_path))
    model, spec = load_model(load_checkpoint(metrics["checkpoint"]))
    assert spec.target_columns == ("OT",)
    x = torch.zeros(2, 24, len(spec.input_columns))
    marks = torch.zeros(2, 24, 9)
    assert model(x, marks, torch.zeros(2, 18, 9)).shape == (2, 6, c_out)


def test_bad_csv_is_one_line_exit_2_and_no_run_dir(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("date,a,OT\n2020-01-01 00:00:00,1,2\n2020-01-01 00:00:00,3,4\n")
    run_dir = tmp_path / "run"
    proc = run_cli("data=csv", f"data.path={bad}", "data.target=OT", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: {bad}: line 3: duplicate timestamp 2020-01-01 00:00:00 (also on line 2, with another "
        f"'a'); remove or aggregate duplicates; or aggregate the readings into steps: data.resample=FREQ (e.g. h), "
        f"data.agg=mean|sum|..."]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not run_dir.exists()


IMPOSSIBLE_SETTINGS = [
    ("model=informer_floor model.net.net.patch_len=200", "patch_len (200) cannot exceed the encoder input length (96)"),
    ("model=informer_floor model.net.net.n_heads=5", "d_model (128) must be divisible by n_heads (5)"),
    ("model=informer_floor model.net.net.d_model=wide", "model.net.net.d_model must be an int, got 'wide'"),
    ("trainer.max_epochs=abc", "trainer.max_epochs must be an int or null, got 'abc'"),
    ("trainer.max_time=2min", "trainer.max_time must be days:hours:minutes:seconds (00:00:02:00 for two minutes), "
     "got '2min'"),
    ("trainer.max_time=120", "trainer.max_time must be days:hours:minutes:seconds (00:00:02:00 for two minutes), "
     "got 120"),
    ("model=informer_floor model.net.net.embed=weird",
     "model.net.net.embed must be 'timeF' or 'fixed' or 'learned', got 'weird'"),
    ("task.optimizer._target_=torch.optim.RMSprop",
     "task.optimizer must be given only settings its optimiser takes (RMSprop.__init__() got an unexpected keyword "
     "argument 'fused'); remove it: ~task.optimizer.fused"),
    ("model.net.restore_mean=true",
     "instance norm adds each window's mean back, so its forecast cannot start at zero; set restore_mean: false on "
     "the InstanceNorm inside a FloorResidual"),
    ("task.optimizer.lr=-1", "task.optimizer must be given values its optimiser takes (Invalid learning rate: -1)"),
    ("model.floor.ridge.alpha=-1", "a ridge's alpha (-1) must be 0 or more"),
    ("model=informer_floor model.net.net.dropout=2", "the Informer's dropout (2) must be in [0, 1)"),
    ("model=informer_floor model.net.net.d_model=0", "the Informer's d_model (0) must be at least 1"),
    ("model=informer_floor model.net.net.e_layers=0", "the Informer's e_layers (0) must be at least 1"),
    ("trainer.gradient_clip_val=-1", "trainer.gradient_clip_val must be 0 or more (0 or null: no clipping), got -1"),
    ("threads=abc", "threads must be an int of 1 or more, or null, got 'abc'"),
    ("threads=0", "threads must be an int of 1 or more, or null, got 0"),
    ("start_patience_steps=-3", "start_patience_steps must be an int of 0 or more, or null, got -3"),
    ("keep_start=maybe", "keep_start must be true or false, got 'maybe'"),
]


def setting_line(message: str) -> str:
    """The one line ``forecast-train`` prints (after ``error: ``) for a setting that cannot work."""
    label = "" if re.match(r"[\w.]+ must be ", message) else "model settings: "
    return f"{label}{message}; change that setting and run again"


@pytest.mark.parametrize("override,message", IMPOSSIBLE_SETTINGS)
def test_impossible_model_setting_is_the_commands_one_line_and_no_run_dir(small_csv: Path, tmp_path: Path,
                                                                          override: str, message: str) -> None:
    """In process, through ``forecast.train``: the same composition, build and message as the command."""
    run_dir = tmp_path / "run"
    with pytest.raises(DataError) as caught:
        api_train(small_csv, ["data.target=OT", *override.split()], run_dir=run_dir)
    assert str(caught.value) == setting_line(message)
    assert not run_dir.exists()


def test_impossible_model_setting_is_one_line_exit_2_and_no_run_dir(small_csv: Path, tmp_path: Path) -> None:
    override, message = IMPOSSIBLE_SETTINGS[1]
    run_dir = tmp_path / "run"
    proc = run_cli("data=csv", f"data.path={small_csv}", "data.target=OT", *override.split(),
                   f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [f"error: {setting_line(message)}"]
    assert "Traceback" not in proc.stdout + proc.stderr
    assert not run_dir.exists()


def test_missing_file_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("data=csv", f"data.path={tmp_path / 'nope.csv'}", "data.target=OT",
                   f"hydra.run.dir={tmp_path / 'run'}", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"error: {tmp_path / 'nope.csv'}: file not found; check the path"


def test_ddp_on_two_cpu_processes_counts_every_test_window_once(small_csv: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "ddp"
    proc = run_cli(*tiny_run_overrides(small_csv, "trainer.max_epochs=1"), "trainer=ddp_sim", "logger=csv",
                   f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    metrics = json.loads((run_dir / "metrics.json").read_text())
    assert metrics["epochs"] == 1 and len(metrics["test/mse_per_step"]) == 6
    assert (proc.stdout + proc.stderr).count("round 1/1, step ") == 1  # one line, not one a process
    backtest = subprocess.run([sys.executable, "-m", "forecast.cli.predict", str(run_dir), str(small_csv),
                               "--rolling", "--span", "test", "--output", str(tmp_path / "bt.csv")],
                              capture_output=True, text=True, timeout=120)
    assert backtest.returncode == 0, backtest.stderr
    summary = json.loads((tmp_path / "bt.json").read_text())
    assert summary["metrics"]["model"]["mse"] == pytest.approx(metrics["test/mse"], rel=1e-5)


def test_keep_start_keeps_the_floor_when_training_only_hurts(small_csv: Path, tmp_path: Path) -> None:
    ruined = train(compose_train(tiny_run_overrides(small_csv, "task.optimizer.lr=50.0"), tmp_path / "ruined"))
    floor = ruined["floors"][ruined["floor_choice"]["chosen"]]
    assert ruined["kept_start"] and Path(ruined["checkpoint"]).name == "start.ckpt"
    assert ruined["start/val_loss"] == pytest.approx(floor["val/mse"], rel=1e-5)
    assert ruined["test/mse"] == pytest.approx(floor["test/mse"], rel=1e-5)  # the start is the floor


def test_ddp_train_loss_is_the_mean_over_both_processes(small_csv: Path, tmp_path: Path) -> None:
    # 640 training windows (rows 0..668, 24 in + 6 out) = 40 batches of 16, or 20 per process with no
    # padding. DLinear at lr 0 has no dropout or batch statistics, so every window's loss is fixed and
    # one process gives the epoch loss of the whole set; rank 0's own half alone is 3% off it.
    frozen = [*tiny_run_overrides(small_csv, model="dlinear"), "data.borders=[669,835,1000]", "trainer.max_epochs=1",
              "trainer.limit_train_batches=1.0", "task.optimizer.lr=0.0", "logger=csv"]
    single = train(compose_train([*frozen, "trainer.accelerator=cpu"], tmp_path / "single"))  # ddp_sim's CPUs
    run_dir = tmp_path / "ddp"
    proc = run_cli(*frozen, "trainer=ddp_sim", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]

    def epoch_train_loss(run: Path) -> float:
        logged = pd.read_csv(run / "logs" / "metrics.csv")
        return float(logged["train/loss_epoch"].dropna().iloc[-1])

    assert single["epochs"] == 1
    assert epoch_train_loss(run_dir) == pytest.approx(epoch_train_loss(tmp_path / "single"), rel=1e-5)


def test_keep_start_under_ddp_keeps_the_same_floor_as_one_process(small_csv: Path, tmp_path: Path) -> None:
    ruin = tiny_run_overrides(small_csv, "task.optimizer.lr=50.0")
    single = train(compose_train(ruin, tmp_path / "single"))
    run_dir = tmp_path / "ddp"
    proc = run_cli(*ruin, "trainer=ddp_sim", f"hydra.run.dir={run_dir}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ddp = json.loads((run_dir / "metrics.json").read_text())
    assert ddp["kept_start"] and Path(ddp["checkpoint"]).name == "start.ckpt"
    # every process validates the start on every window
    assert ddp["start/val_loss"] == pytest.approx(single["start/val_loss"], rel=1e-5)
    assert ddp["test/mse"] == pytest.approx(single["test/mse"], rel=1e-5)


def test_keep_start_selects_by_validation(small_csv: Path, tmp_path: Path) -> None:
    metrics = train(compose_train(tiny_run_overrides(small_csv, "task.optimizer.lr=1e-3"), tmp_path))
    assert metrics["val/loss"] <= metrics["start/val_loss"] + 1e-7
    assert metrics["kept_start"] == (Path(metrics["checkpoint"]).name == "start.ckpt")
    without = train(compose_train(tiny_run_overrides(small_csv, "keep_start=false"), tmp_path / "off"))
    assert without["start/val_loss"] is None and not without["kept_start"]


def test_a_refused_run_in_the_default_layout_leaves_no_outputs_folder(small_csv: Path, tmp_path: Path) -> None:
    """Hydra makes outputs/<date>/<time> before the run reads anything; a refused run removes all three."""
    proc = run_cli("data=csv", f"data.path={small_csv}", "data.target=OT", "threads=abc", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.startswith("error: threads must be an int of 1 or more")
    assert sorted(p.name for p in tmp_path.iterdir()) == [small_csv.name]


def test_a_refused_run_leaves_an_outputs_folder_that_holds_other_runs(small_csv: Path, tmp_path: Path) -> None:
    earlier = tmp_path / "outputs" / "2026-01-01" / "00-00-00-000000"
    earlier.mkdir(parents=True)
    proc = run_cli("data=csv", f"data.path={small_csv}", "data.target=OT", "threads=abc", cwd=tmp_path)
    assert proc.returncode == 2
    assert [p.relative_to(tmp_path).as_posix() for p in sorted((tmp_path / "outputs").rglob("*"))] == [
        "outputs/2026-01-01", "outputs/2026-01-01/00-00-00-000000"]
