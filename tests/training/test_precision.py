"""trainer.precision: auto is fp32, bf16 on request (warned where emulated), the short names, bf16 beside fp32."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
import yaml
from omegaconf import OmegaConf

from forecast.training.pipeline import train
from forecast.training import precision as prec
from tests.conftest import compose_train, tiny_run_overrides

ZEN4 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2 avx512f avx512_bf16 avx512_vnni\n\n"
ZEN3 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse2 avx2 fma\n\n"
NEOVERSE = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve bf16 i8mm\n\n"


@pytest.mark.parametrize(("text", "native"), [(ZEN4, True), (ZEN3, False), (NEOVERSE, True), ("", False)])
def test_native_bf16_is_read_from_the_cpu_flags(tmp_path: Path, text: str, native: bool) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(text)
    assert prec.cpu_has_bf16(prec.cpu_flags(cpuinfo)) is native


def test_an_unreadable_cpuinfo_means_no_native_bf16(tmp_path: Path) -> None:
    assert prec.cpu_flags(tmp_path / "missing") == frozenset()


@pytest.mark.parametrize(("native", "cuda"), [(True, False), (False, False), (True, True)])
def test_auto_is_fp32_on_every_device_and_bf16_only_on_request(monkeypatch: pytest.MonkeyPatch, native: bool,
                                                                cuda: bool) -> None:
    monkeypatch.setattr(prec, "cpu_has_bf16", lambda flags=None: native)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: cuda)
    for accelerator in ("auto", "cpu", "gpu"):
        cfg = OmegaConf.create({"trainer": {"accelerator": accelerator, "precision": "auto"}})
        assert prec.apply_precision(cfg) == "32-true" and cfg.trainer.precision == "32-true"
        cfg = OmegaConf.create({"trainer": {"accelerator": accelerator, "precision": "bf16"}})
        assert prec.apply_precision(cfg) == "bf16-mixed" and cfg.trainer.precision == "bf16-mixed"


@pytest.mark.parametrize(("value", "expected"), [("auto", "32-true"), ("fp32", "32-true"), (32, "32-true"),
                                                  ("32", "32-true"), ("bf16", "bf16-mixed"), ("BF16", "bf16-mixed"),
                                                  ("bf16-mixed", "bf16-mixed"), ("32-true", "32-true"),
                                                  ("16-mixed", "16-mixed")])
def test_short_names_map_to_lightnings(value: object, expected: str) -> None:
    assert prec.resolve_precision(value) == expected


@pytest.mark.parametrize(("native", "accelerator", "warned"), [(False, "cpu", True), (False, "auto", True),
                                                               (True, "cpu", False), (False, "gpu", False)])
def test_bf16_asked_of_a_cpu_that_would_emulate_it_is_warned(monkeypatch: pytest.MonkeyPatch,
                                                             caplog: pytest.LogCaptureFixture, native: bool,
                                                             accelerator: str, warned: bool) -> None:
    monkeypatch.setattr(prec, "cpu_has_bf16", lambda flags=None: native)
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    cfg = OmegaConf.create({"trainer": {"accelerator": accelerator, "precision": "bf16"}})
    with caplog.at_level("WARNING", logger="forecast"):
        prec.apply_precision(cfg)
    expected = ["trainer.precision=bf16-mixed on a CPU without native bf16 (no avx512_bf16, amx_bf16 or bf16 flag): "
                "autocast emulates it, slower than fp32; trainer.precision=fp32 is faster here"] if warned else []
    assert [r.getMessage() for r in caplog.records] == expected


def test_auto_trains_in_fp32_on_a_bf16_cpu(small_csv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prec, "cpu_has_bf16", lambda flags=None: True)
    floor = train(compose_train(tiny_run_overrides(small_csv, model="linear"), tmp_path / "floor"))
    net = train(compose_train(tiny_run_overrides(small_csv, "trainer.max_epochs=1"), tmp_path / "net"))
    assert (floor["precision"], net["precision"]) == ("32-true", "32-true")
    assert yaml.safe_load((tmp_path / "net" / "config.yaml").read_text())["trainer"]["precision"] == "32-true"
    assert floor["test/mse"] == pytest.approx(floor["floors"]["ridge"]["test/mse"], rel=1e-6)  # the report's fp32 fit


def test_a_bf16_run_records_its_precision(small_csv: Path, tmp_path: Path) -> None:
    overrides = tiny_run_overrides(small_csv, "trainer.precision=bf16", "trainer.fast_dev_run=true", model="informer")
    metrics = train(compose_train(overrides, tmp_path))
    assert metrics["precision"] == "bf16-mixed"
    assert yaml.safe_load((tmp_path / "config.yaml").read_text())["trainer"]["precision"] == "bf16-mixed"
    assert json.loads((tmp_path / "metrics.json").read_text())["precision"] == "bf16-mixed"


def fit_steps(cfg, dims, batches: list, autocast: bool, steps: int = 20) -> tuple[list[float], torch.Tensor]:
    """Adam steps of the model ``cfg`` builds (seed 0) on ``batches``, under CPU bf16 autocast or not, as
    Lightning's ``bf16-mixed`` runs them: the losses and the trained model's eval forecast of the first batch."""
    torch.manual_seed(0)
    from forecast.core.forecaster import build_forecaster

    net = build_forecaster(cfg.model, dims)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    losses = []
    for i in range(steps):
        b = batches[i % len(batches)]
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            pred = net(b.x_enc, b.x_mark_enc, b.x_mark_dec)
        loss = torch.nn.functional.mse_loss(pred.float(), b.y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    net.eval()
    with torch.inference_mode():
        return losses, net(batches[0].x_enc, batches[0].x_mark_enc, batches[0].x_mark_dec)



def test_bf16_training_tracks_fp32_on_a_tiny_series(small_csv: Path, tmp_path: Path) -> None:
    """A tiny Informer, 20 steps from the same start on the same batches: under bf16 autocast (emulated on
    a CPU without native bf16) the losses follow fp32's to a few percent, and so does the trained forecast."""
    from hydra.utils import instantiate

    cfg = compose_train(tiny_run_overrides(small_csv, model="informer"), tmp_path)
    datamodule = instantiate(cfg.data)
    datamodule.setup("fit")
    dims = datamodule.model_dims()
    batches = [b for _, b in zip(range(4), datamodule.train_dataloader())]
    fp32_losses, fp32_pred = fit_steps(cfg, dims, batches, autocast=False)
    bf16_losses, bf16_pred = fit_steps(cfg, dims, batches, autocast=True)
    assert fp32_losses[-1] < 0.8 * fp32_losses[0]  # it learned
    assert bf16_losses != fp32_losses  # bf16 did run: the rounding shows
    for a, b in zip(fp32_losses, bf16_losses):
        assert b == pytest.approx(a, rel=0.02)
    rel = (bf16_pred.float() - fp32_pred).norm() / fp32_pred.norm()
    assert rel < 0.02, rel



def test_under_bf16_autocast_the_floor_of_the_default_model_stays_float32(small_csv: Path, tmp_path: Path) -> None:
    """The default model starts at its floor (the net's output is zero): with and without autocast the
    forecast is the same float32 floor (the ridge floor's matrix product would otherwise run in bf16)."""
    from hydra.utils import instantiate

    from forecast.core.forecaster import build_forecaster

    cfg = compose_train(tiny_run_overrides(small_csv), tmp_path)
    datamodule = instantiate(cfg.data)
    datamodule.setup("fit")
    net = build_forecaster(cfg.model, datamodule.model_dims()).eval()
    assert net.fit_closed_form(datamodule.train_dataloader())
    assert net.floor.chosen == "ridge"
    batch = next(iter(datamodule.train_dataloader()))
    with torch.inference_mode():
        plain = net(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            autocast = net(batch.x_enc, batch.x_mark_enc, batch.x_mark_dec)
    assert autocast.dtype == torch.float32
    torch.testing.assert_close(autocast, plain)
