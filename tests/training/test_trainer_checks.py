"""Trainer settings Lightning would refuse after the run had started are refused first, in one line."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf

from forecast.api import train as api_train
from forecast.core.errors import ConfigError
from forecast.data.errors import DataError
from forecast.training.precision import apply_precision
from forecast.training.trainer_checks import check_gpus, check_trainer
from tests.conftest import compose_train


def gpus(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)


@pytest.mark.parametrize(("accelerator", "devices", "seen", "refused"), [
    ("gpu", 1, 0, True), ("cuda", 1, 0, True), ("gpu", 2, 1, True), ("gpu", 1, 1, False), ("gpu", 2, 2, False),
    ("gpu", "auto", 1, False), ("gpu", "auto", 0, True), ("cpu", 1, 0, False), ("auto", 1, 0, False)])
def test_gpus_asked_for_must_be_seen(monkeypatch: pytest.MonkeyPatch, accelerator: str, devices: object, seen: int,
                                     refused: bool) -> None:
    gpus(monkeypatch, seen)
    trainer = OmegaConf.create({"accelerator": accelerator, "devices": devices})
    if not refused:
        check_gpus(trainer)
        return
    with pytest.raises(ConfigError) as caught:
        check_gpus(trainer)
    wanted = devices if isinstance(devices, int) else 1  # devices=auto: at least one
    assert str(caught.value) == (f"trainer.accelerator must be cpu or auto here: {wanted} CUDA GPU(s) asked for and "
                                 f"this torch ({torch.__version__}) sees {seen or 'none'}; use trainer=cpu (trainer=ddp_sim "
                                 "for DDP in CPU processes), or run where a CUDA build of torch sees the GPUs")


def test_trainer_gpu_without_one_is_one_line_and_no_run_dir(small_csv: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    gpus(monkeypatch, 0)
    run_dir = tmp_path / "run"
    with pytest.raises(DataError) as caught:
        api_train(small_csv, ["data.target=OT", "trainer=gpu"], run_dir=run_dir)
    assert str(caught.value).startswith("trainer.accelerator must be cpu or auto here: 1 CUDA GPU(s) asked for")
    assert str(caught.value).endswith("; change that setting and run again")
    assert not run_dir.exists()


@pytest.mark.parametrize(("setting", "message"), [
    ({"devices": 0}, "`Trainer(devices=0)` value is not a valid input using cpu accelerator."),
    ({"num_nodes": 0}, None), ({"accelerator": "tpu"}, None)])
def test_what_lightning_refuses_is_refused_with_its_message(setting: dict, message: str | None) -> None:
    trainer = OmegaConf.create({"_target_": "lightning.Trainer", "accelerator": "cpu", "devices": 1, **setting})
    with pytest.raises(ConfigError) as caught:
        check_trainer(trainer)
    text = str(caught.value)
    assert text.startswith("trainer must be given settings Lightning's Trainer takes (") and text.endswith(")")
    if message is not None:
        assert text == f"trainer must be given settings Lightning's Trainer takes ({message})"


def test_the_default_trainer_passes_and_its_check_prints_nothing(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    cfg = compose_train([], tmp_path)
    apply_precision(cfg)  # as the pipeline does before the check
    with caplog.at_level("INFO"):
        check_trainer(cfg.trainer)
    assert capsys.readouterr().out == "" and [r for r in caplog.records if r.name.startswith("lightning")] == []
