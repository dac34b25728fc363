"""A non-editable install works from any directory: build the wheel, install it into a fresh venv that
reuses this environment's packages, and run the three console scripts outside the checkout."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from forecast.runtime import PROJECT_ROOT
from tests.conftest import etth1_slice



def _sh(*cmd: str | Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The ``bin/`` of a fresh venv holding the wheel of this checkout (dependencies from this environment)."""
    root = tmp_path_factory.mktemp("install")
    src = root / "src"  # build from a copy: an in-tree build would leave build/ in the checkout
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT_ROOT / name, src / name)
    shutil.copytree(PROJECT_ROOT / "forecast", src / "forecast", ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    # offline: build with this environment's setuptools when it has one
    isolation = ["--no-build-isolation"] if importlib.util.find_spec("setuptools") else []
    built = _sh(sys.executable, "-m", "pip", "wheel", "--no-deps", *isolation, "-q", "-w", root / "dist", ".",
                cwd=src, env=env)
    assert built.returncode == 0, built.stderr
    [wheel] = (root / "dist").glob("forecast-*.whl")
    venv = root / "venv"
    made = _sh(sys.executable, "-m", "venv", "--without-pip", venv, cwd=root, env=env)
    assert made.returncode == 0, made.stderr
    # reuse this environment's packages (torch, lightning ...) without its own forecast: a plain path line
    # in a .pth adds the directory but runs none of its .pth hooks (the editable install's finder)
    [site] = (venv / "lib").glob("python3*/site-packages")
    (site / "_reuse_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    python = venv / "bin" / "python"
    pip = _sh(python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", wheel, cwd=root, env=env)
    assert pip.returncode == 0, pip.stderr
    return venv / "bin"


def test_installed_scripts_train_predict_and_compare_from_another_directory(installed: Path,
                                                                            tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    work = tmp_path / "elsewhere"
    work.mkdir()
    csv = etth1_slice(work / "small.csv", 400)
    where = _sh(installed / "python", "-c", "import forecast, forecast.runtime as r; "
                "print(forecast.__file__); print(r.CONF_DIR.is_dir())", cwd=work, env=env)
    assert where.returncode == 0, where.stderr
    module, conf_found = where.stdout.split()
    assert not Path(module).is_relative_to(PROJECT_ROOT) and conf_found == "True"
    wheel = next(installed.parent.parent.glob("dist/forecast-*.whl"))
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
    missing = [p.relative_to(PROJECT_ROOT).as_posix() for p in (PROJECT_ROOT / "forecast" / "conf").rglob("*.yaml")
               if p.relative_to(PROJECT_ROOT).as_posix() not in names]
    assert missing == []

    # the default data lives in the checkout: the installed package says so in one line, leaving nothing
    default = _sh(installed / "forecast-train", "trainer.fast_dev_run=true", cwd=work, env=env)
    assert default.returncode == 2, default.stderr
    assert default.stderr.splitlines()[-1] == (
        f"error: data.path is under ${{project_root:}}, the repository checkout, and this forecast is installed "
        f"without one ({Path(module).parent}): give the file's path (data.path=FILE), or train on your own CSV "
        f"with data=csv data.path=FILE data.target=COLUMN")
    assert [p for p in work.rglob("*") if p.is_file()] == [csv]

    run_dir = work / "run"
    train = _sh(installed / "forecast-train", "trainer.fast_dev_run=true", "data=csv", f"data.path={csv.name}",
                "data.target=OT", "data.seq_len=24", "data.label_len=12", "data.pred_len=6", "plot=false",
                "threads=1", "logger=none", f"hydra.run.dir={run_dir}", cwd=work, env=env)
    assert train.returncode == 0, train.stderr
    assert f"run dir:    {run_dir}" in train.stdout.splitlines()
    assert (run_dir / "metrics.json").is_file()

    predict = _sh(installed / "forecast-predict", run_dir, csv.name, "-o", "future.csv", cwd=work, env=env)
    assert predict.returncode == 0, predict.stderr
    assert (work / "future.csv").is_file()

    compare = _sh(installed / "forecast-compare", run_dir, "--out", "report", cwd=work, env=env)
    assert compare.returncode == 0, compare.stderr
    assert (work / "report" / "report.md").is_file() and (work / "report" / "results.csv").is_file()
    assert json.loads((run_dir / "metrics.json").read_text())["run_dir"] == str(run_dir)
