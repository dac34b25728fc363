"""The console's filter of library warnings a user of forecast cannot act on."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import pytest
from lightning.pytorch.trainer.connectors import data_connector
from torch.utils.data import DataLoader

from forecast.runtime import console


def warned(verbose: bool, warn) -> list[str]:
    """The messages ``warn()`` leaves after ``console(verbose)``; the filters are restored after."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        console(verbose)
        warn()
    return [str(w.message) for w in seen]


def lightning_worker_hint() -> None:
    """Lightning's own check of a loader with no workers, on a machine where it suggests 15."""
    data_connector._worker_check(SimpleNamespace(num_devices=1), DataLoader(range(4)), "train_dataloader")


def test_lightnings_hint_to_add_workers_is_dropped_unless_verbose(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(data_connector, "suggested_max_num_workers", lambda num_devices: 15)
    assert warned(False, lightning_worker_hint) == []
    (message,) = warned(True, lightning_worker_hint)
    assert message.startswith("The 'train_dataloader' does not have many workers which may be a bottleneck.")


@pytest.mark.parametrize("kernel", ["Memory Efficient attention", "cuDNN Attention", "Flash Attention"])
def test_torchs_cuda_attention_determinism_note_is_dropped_unless_verbose(kernel: str) -> None:
    text = (f"{kernel} defaults to a non-deterministic algorithm. To explicitly enable determinism call "
            "torch.use_deterministic_algorithms(True, warn_only=False).")
    assert warned(False, lambda: warnings.warn(text, UserWarning)) == []
    assert warned(True, lambda: warnings.warn(text, UserWarning)) == [text]


def test_other_warnings_still_reach_the_console() -> None:
    assert warned(False, lambda: warnings.warn("data.path has 3 empty rows", UserWarning)) == [
        "data.path has 3 empty rows"]
