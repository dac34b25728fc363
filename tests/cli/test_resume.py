"""resume=RUN_DIR: a run that stopped continues from its last finished epoch and ends as if it never stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import lightning as L
import pandas as pd
import pytest
import torch

from forecast.runtime import PROJECT_ROOT
from forecast.training.pipeline import train
from forecast.data.errors import DataError
from forecast.training.recipe import load_checkpoint
from forecast.training.resume import merge_log, set_aside_log
from tests.conftest import compose_train, tiny_run_overrides

CRASH = ["+callbacks.crash._target_=tests.cli.test_resume.CrashAtEpoch", "+callbacks.crash.epoch=2"]


class CrashAtEpoch(L.Callback):
    """Raises when training reaches ``epoch``: a stand-in for a kill or a power cut."""

    def __init__(self, epoch: int) -> None:
        self.epoch = epoch

    def on_train_epoch_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        if trainer.current_epoch == self.epoch:
            raise RuntimeError("simulated crash")


class CrashInTest(L.Callback):
    """Raises when the test pass starts, after training has ended."""

    def on_test_start(self, trainer: L.Trainer, pl_module: L.LightningModule) -> None:
        raise RuntimeError("simulated crash")


def overrides(csv: Path, *extra: str) -> list[str]:
    # dropout on and shuffled batches: the resumed run matches only if it draws the same random numbers; the
    # tiny run trains every one of its 4 rounds, past the crash, whether or not its rounds beat the start
    return tiny_run_overrides(csv, "trainer.max_epochs=4", "logger=default", "model.net.net.dropout=0.2",
                              "callbacks.early_stopping.min_gain=0", "callbacks.early_stopping.patience=4",
                              "start_patience_steps=null", *extra)


def crashed_run(csv: Path, run_dir: Path, *extra: str) -> None:
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(compose_train(overrides(csv, *CRASH, *extra), run_dir))


def val_losses(run_dir: Path) -> list[float]:
    log = pd.read_csv(run_dir / "logs" / "metrics.csv")
    return log.dropna(subset=["val/loss"])["val/loss"].tolist()


@pytest.mark.parametrize("model", [["keep_start=false"], []], ids=["floor-residual", "floor-residual-kept-start"])
def test_resumed_run_ends_with_the_metrics_and_weights_of_an_uninterrupted_one(model: list[str], small_csv: Path,
                                                                               tmp_path: Path) -> None:
    straight = train(compose_train(overrides(small_csv, *model), tmp_path / "straight"))
    run_dir = tmp_path / "crashed"
    crashed_run(small_csv, run_dir, *model)
    assert not (run_dir / "metrics.json").exists() and (run_dir / "checkpoints" / "last.ckpt").is_file()
    # epochs 0 and 1 finished
    assert val_losses(run_dir) == val_losses(tmp_path / "straight")[:2]
    assert load_checkpoint(run_dir / "checkpoints" / "last.ckpt")["epoch"] == 1  # saved even if epoch 1 is not best

    resumed = train(compose_train(overrides(small_csv, *model, f"resume={run_dir}"), run_dir))
    assert resumed["kept_start"] == straight["kept_start"] and resumed["start/val_loss"] == straight["start/val_loss"]
    for key in ("test/mse", "test/mae", "val/mse"):
        assert resumed[key] == straight[key]
    assert resumed["epochs"] == straight["epochs"] == 4 and resumed["resumed_after_epochs"] == 2
    assert straight["resumed_after_epochs"] is None
    assert Path(resumed["checkpoint"]).name == Path(straight["checkpoint"]).name
    weights = [load_checkpoint(m["checkpoint"])["state_dict"] for m in (straight, resumed)]
    assert all(torch.equal(weights[0][k], weights[1][k]) for k in weights[0])
    # one log holds every epoch, before and after the resume; last.ckpt is gone once the run is done
    assert val_losses(run_dir) == val_losses(tmp_path / "straight")
    assert not (run_dir / "logs" / "metrics.before_resume.csv").exists()
    assert not (run_dir / "checkpoints" / "last.ckpt").exists()
    assert not (tmp_path / "straight" / "checkpoints" / "last.ckpt").exists()


def test_resume_refuses_a_setting_that_changes_what_the_run_learns(small_csv: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "crashed"
    patient = "callbacks.early_stopping.patience=5"  # no early stop: the resumed run trains every round it may
    crashed_run(small_csv, run_dir, patient)
    config_before = (run_dir / "config.yaml").read_text()
    with pytest.raises(DataError) as err:
        train(compose_train(overrides(small_csv, f"resume={run_dir}", "model.net.net.d_model=32", patient), run_dir))
    assert str(err.value) == (f"resume={run_dir}: model.net.net.d_model was 16 in that run but is 32 now; resume with the "
                              f"run's own settings (its .hydra/overrides.yaml)")
    assert (run_dir / "config.yaml").read_text() == config_before
    assert (run_dir / "checkpoints" / "last.ckpt").is_file()
    # where and how it runs may change: more epochs, threads
    resumed = train(compose_train(overrides(small_csv, f"resume={run_dir}", "trainer.max_epochs=5", "threads=1",
                                            patient), run_dir))
    assert resumed["epochs"] == 5


def test_resume_needs_a_run_that_stopped(small_csv: Path, tmp_path: Path) -> None:
    done = tmp_path / "done"
    train(compose_train(overrides(small_csv, "trainer.max_epochs=1"), done))
    with pytest.raises(DataError) as err:
        train(compose_train(overrides(small_csv, "trainer.max_epochs=1", f"resume={done}"), done))
    assert str(err.value) == (f"resume={done}: no checkpoints/last.ckpt (the run finished, or stopped before its "
                              f"first epoch ended); start a new run without resume=")
    elsewhere = tmp_path / "elsewhere"
    with pytest.raises(DataError) as err:
        train(compose_train(overrides(small_csv, f"resume={done}"), elsewhere))
    assert str(err.value) == (f"resume={done}: this run writes to {elsewhere} instead; resume one run at a time, "
                              f"without -m or hydra.run.dir")


def test_a_refused_resume_of_a_finished_run_leaves_its_dir_as_it_was(small_csv: Path, tmp_path: Path) -> None:
    done = tmp_path / "done"
    train(compose_train(overrides(small_csv, "trainer.max_epochs=1"), done))
    (done / "train.log").write_text("the finished run's log\n")  # as forecast-train's Hydra logging leaves it
    before = {p.relative_to(done): p.read_bytes() for p in done.rglob("*") if p.is_file()}
    refused = run_cli(*overrides(small_csv, "trainer.max_epochs=1"), f"resume={done}", f"hydra.run.dir={done}",
                      cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"error: resume={done}: no checkpoints/last.ckpt (the run finished, or stopped before its first epoch ended); "
        f"start a new run without resume="]
    assert {p.relative_to(done): p.read_bytes() for p in done.rglob("*") if p.is_file()} == before  # train.log too


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}  # the crash callback lives in tests/
    return subprocess.run([sys.executable, "-m", "forecast.cli.train", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env=env)


def test_the_cli_says_how_to_resume_and_resumes_in_the_run_dir(small_csv: Path, tmp_path: Path) -> None:
    args = overrides(small_csv, "logger=none")
    crashed = run_cli(*args, *CRASH, cwd=tmp_path)
    assert crashed.returncode != 0 and "simulated crash" in crashed.stderr
    (run_dir,) = (tmp_path / "outputs").glob("*/*")
    hint = f"forecast-train {' '.join(args)} {' '.join(CRASH)} resume={run_dir}"
    assert "its last checkpoint is saved. Continue it with:\n  " + hint in crashed.stdout + crashed.stderr
    first_overrides = (run_dir / ".hydra" / "overrides.yaml").read_text()

    refused = run_cli(*args, "model.net.net.d_ff=64", f"resume={run_dir}", cwd=tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines() == [
        f"error: resume={run_dir}: model.net.net.d_ff was 32 in that run but is 64 now; resume with the run's own settings "
        f"(its .hydra/overrides.yaml)"]
    assert sorted(p.name for p in (run_dir / ".hydra").iterdir()) == ["config.yaml", "hydra.yaml", "overrides.yaml"]

    resumed = run_cli(*args, f"resume={run_dir}", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"run dir:    {run_dir}" in resumed.stdout
    assert list((tmp_path / "outputs").glob("*/*")) == [run_dir]  # no second run dir
    assert json.loads((run_dir / "metrics.json").read_text())["resumed_after_epochs"] == 2
    assert (run_dir / ".hydra" / "overrides.yaml").read_text() == first_overrides
    assert len(list((run_dir / ".hydra").glob("resume-*/overrides.yaml"))) == 1


def test_a_run_stopped_twice_keeps_each_finished_epochs_rows_once_in_order(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    # each part logs its finished epochs' rows and some of an unfinished epoch's (the last step), which the
    # next part logs again; the side file keeps the rows before the last finished epoch's end
    for steps, finished in (([0, 4, 9, 12], 10), ([14, 19, 21], 20)):
        pd.DataFrame({"step": steps, "val/loss": [0.5] * len(steps)}).to_csv(logs / "metrics.csv", index=False)
        set_aside_log(tmp_path, finished)
        assert not (logs / "metrics.csv").exists()
    pd.DataFrame({"step": [24, 29], "test/mse": ["0.25", "0.125"]}).to_csv(logs / "metrics.csv", index=False)
    merge_log(tmp_path)
    assert (logs / "metrics.csv").read_text().splitlines() == [
        "step,val/loss,test/mse", "0,0.5,", "4,0.5,", "9,0.5,", "14,0.5,", "19,0.5,", "24,,0.25", "29,,0.125"]
    assert sorted(p.name for p in logs.iterdir()) == ["metrics.csv"]


def test_a_run_that_had_stopped_early_trains_no_more_epochs_when_resumed(small_csv: Path, tmp_path: Path) -> None:
    # min_delta 10: no epoch after the first counts as an improvement, so early stopping fires after epoch 2
    # (without the closed-form start as a candidate, whose val/loss would be the best score from the start)
    stop_early = ["callbacks.early_stopping.patience=1", "callbacks.early_stopping.min_delta=10", "keep_start=false"]
    straight = train(compose_train(overrides(small_csv, *stop_early), tmp_path / "straight"))
    assert straight["epochs"] == 2
    run_dir = tmp_path / "crashed"
    crash_in_test = "+callbacks.crash._target_=tests.cli.test_resume.CrashInTest"
    with pytest.raises(RuntimeError, match="simulated crash"):
        train(compose_train(overrides(small_csv, *stop_early, crash_in_test), run_dir))
    resumed = train(compose_train(overrides(small_csv, *stop_early, f"resume={run_dir}"), run_dir))
    assert resumed["epochs"] == 2 and resumed["resumed_after_epochs"] == 2
    for key in ("test/mse", "test/mae", "val/mse"):
        assert resumed[key] == straight[key]
    # the crashed part's validation of the best epoch is logged once, by the part that finished
    assert val_losses(run_dir) == val_losses(tmp_path / "straight")
