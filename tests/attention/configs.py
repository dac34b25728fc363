"""Every ``forecast/conf/attention/*.yaml`` as a backend factory, for the attention tests."""

from __future__ import annotations

from pathlib import Path

import hydra
from omegaconf import OmegaConf

from forecast.attention.base import AttentionBackend

CONF_ATTENTION = Path(__file__).resolve().parents[2] / "forecast" / "conf" / "attention"
#: Every attention config, globbed at collection time: a new YAML is tested without editing a test.
ATTENTION_CONFIGS = sorted(CONF_ATTENTION.glob("*.yaml"))


def load_backend(name_or_path: str | Path, **overrides: object) -> AttentionBackend:
    """Instantiate ``forecast/conf/attention/<name>.yaml`` the way the model does: ``instantiate(cfg)()``.

    A ``_target_`` that does not import raises here, so the test fails instead of skipping.
    """
    path = Path(name_or_path)
    if path.suffix != ".yaml":
        path = CONF_ATTENTION / f"{name_or_path}.yaml"
    cfg = OmegaConf.load(path)
    for key, value in overrides.items():
        cfg[key] = value
    backend = hydra.utils.instantiate(cfg)()
    if not isinstance(backend, AttentionBackend):
        raise TypeError(f"{path.name} built {type(backend).__name__}, not an AttentionBackend")
    return backend

