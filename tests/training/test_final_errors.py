"""The final validation keeps its errors for the interval calibration and the per-series metrics.

One process scores every validation and test window in ``trainer.validate``/``trainer.test``; the errors
it kept there replace a second prediction pass. The stored calibration must be the one a fresh pass of
the checkpoint's model over the same windows gives.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hydra.utils import instantiate
from omegaconf import OmegaConf

from forecast.predict.trained_model import TrainedModel
from forecast.training import per_series, pipeline
from forecast.training.conformal import calibrate, validation_scores
from tests.predict.tiny import etth1_rows, panel, train_tiny


@pytest.mark.parametrize("name", ["single", "panel"])
def test_stored_calibration_equals_a_fresh_pass_over_the_validation_windows(tmp_path: Path, name: str,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    def second_pass(*args: object, **kwargs: object) -> None:
        raise AssertionError("the final evaluation's windows were predicted a second time")

    monkeypatch.setattr(pipeline, "validation_scores", second_pass)
    monkeypatch.setattr(per_series, "_predict", second_pass)
    if name == "single":
        run_dir = train_tiny(tmp_path, "kept_errors", etth1_rows(600))
    else:
        run_dir = train_tiny(tmp_path, "kept_errors_panel", panel(6), target="sales", extra=["data.id_col=store"])
    monkeypatch.undo()
    metrics = json.loads((run_dir / "metrics.json").read_text())
    if name == "panel":
        assert len(metrics["series"]) == 6 and metrics["test/mae_orig"] > 0
    model = TrainedModel.load(metrics["checkpoint"])
    datamodule = instantiate(OmegaConf.load(run_dir / "config.yaml").data)
    datamodule.setup("fit")
    scores = validation_scores(model.model, datamodule.ordered_dataloader("val"))  # (W, P, C_out)
    assert scores.shape[0] == metrics["val_windows"] > 0
    stored = model.conformal
    assert stored["n"] == metrics["val_windows"]
    np.testing.assert_allclose(stored["half_widths"].numpy(), calibrate(scores)["half_widths"].numpy(),
                               rtol=1e-5, atol=1e-6)
