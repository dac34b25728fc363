"""forecast.runtime: the configs inside the package, ``${project_root:}`` in and out of a checkout."""

from __future__ import annotations

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from forecast import runtime
from forecast.user_errors import user_error


def test_the_configs_live_inside_the_package() -> None:
    assert runtime.CONF_DIR == Path(runtime.__file__).resolve().parent / "conf"
    assert (runtime.CONF_DIR / "train.yaml").is_file()


def test_project_root_is_the_checkout() -> None:
    runtime.register_resolvers()
    cfg = OmegaConf.create({"data": {"path": "${project_root:}/data/ETTh1.csv"}})
    assert cfg.data.path == str(runtime.PROJECT_ROOT / "data" / "ETTh1.csv")
    assert Path(cfg.data.path).is_file()


def test_project_root_outside_a_checkout_is_one_line_naming_the_key(monkeypatch: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    runtime.register_resolvers()
    monkeypatch.setattr(runtime, "PROJECT_ROOT", tmp_path)  # no pyproject.toml, no data/: an installed package
    cfg = OmegaConf.create({"data": {"path": "${project_root:}/data/ETTh1.csv"}})
    with pytest.raises(Exception) as caught:
        _ = cfg.data.path
    assert user_error(caught.value) == (
        f"data.path is under ${{project_root:}}, the repository checkout, and this forecast is installed without "
        f"one ({runtime.PACKAGE_DIR}): give the file's path (data.path=FILE), or train on your own CSV with "
        f"data=csv data.path=FILE data.target=COLUMN")


@pytest.mark.parametrize("backend", ["dynamo", "inductor"])
def test_a_compile_that_does_not_build_is_one_line(backend: str) -> None:
    """Inductor's C++ that does not build (no compiler; torch 2.11 on an AVX-512 bf16 CPU) stops the run with
    one line."""
    from torch._dynamo.exc import BackendCompilerFailed
    from torch._inductor.exc import InductorError

    inner = RuntimeError("C++ compile error\n\nCommand:\ng++ /tmp/kernel.cpp ...\nerror: cannot convert 'float'")
    failure = BackendCompilerFailed(lambda *a: None, inner, None) if backend == "dynamo" else InductorError(inner, None)
    try:
        try:
            raise failure
        except type(failure) as failed:
            raise RuntimeError("the training step failed") from failed
    except RuntimeError as outer:
        assert user_error(outer) == ("compile=true: torch.compile could not build the model on this machine "
                                     "(RuntimeError: C++ compile error); run again without compile=true")
