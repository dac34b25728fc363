"""``studies/long_inputs.sh``: which sweeps the long-input study launches, with which overrides, and
that a finished group is skipped when the same command runs again (a stub stands in for forecast-train)."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "studies" / "long_inputs.sh"
STUB = """#!/usr/bin/env bash
# records its arguments, one call a line, and fails for a sweep dir named in FAIL_SWEEP
for a in "$@"; do case $a in hydra.sweep.dir=*) dir=${a#hydra.sweep.dir=};; esac; done
printf '%s\\n' "$*" >> "$CALLS"
[[ $dir == "${FAIL_SWEEP:-none}" ]] && exit 1
mkdir -p "$dir"
"""


def run_script(tmp_path: Path, out: Path, *overrides: str, **env: str) -> subprocess.CompletedProcess:
    """Run the script with the stub on PATH, its calls recorded in ``tmp_path/calls.txt`` (emptied first)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    stub = bin_dir / "forecast-train"
    stub.write_text(STUB)
    stub.chmod(0o755)
    calls = tmp_path / "calls.txt"
    calls.unlink(missing_ok=True)
    full_env = {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "CALLS": str(calls), **env}
    return subprocess.run(["bash", str(SCRIPT), str(out), *overrides], capture_output=True, text=True,
                          env=full_env, timeout=60)


def study(tmp_path: Path, out: Path, *overrides: str, **env: str) -> list[list[str]]:
    """Run the script, which must succeed; the forecast-train calls it made, as argument lists."""
    proc = run_script(tmp_path, out, *overrides, **env)
    assert proc.returncode == 0, proc.stderr
    calls = tmp_path / "calls.txt"
    return [shlex.split(line) for line in calls.read_text().splitlines()] if calls.exists() else []


def sweep_dir(call: list[str]) -> str:
    return next(a.split("=", 1)[1] for a in call if a.startswith("hydra.sweep.dir="))


BACKENDS = ["prob", "full", "linear", "performer", "strided", "local", "atrous", "logsparse", "nystrom",
            "flash", "bigbird", "flash_quad"]


def test_every_model_at_every_length_lengths_outermost(tmp_path: Path) -> None:
    out = tmp_path / "long"
    calls = study(tmp_path, out, "data=etth1", LENGTHS="720 2880")
    groups = ["informer_prob", "informer_full", "default", "dlinear"] + [
        f"informer_{b}" for b in BACKENDS if b not in ("prob", "full")]
    assert [sweep_dir(c) for c in calls] == [f"{out}/{g}/{n}" for n in (720, 2880) for g in groups]
    for call in calls:
        assert call[:2] == ["-m", "experiment=compare_long_cpu"]
        assert call[-1] == "data=etth1"  # the caller's overrides come last, so they win
        assert f"data.seq_len={sweep_dir(call).rsplit('/', 1)[1]}" in call


def test_every_backend_fills_both_roles_but_nystrom(tmp_path: Path) -> None:
    calls = study(tmp_path, tmp_path / "long", LENGTHS="720", MODELS=" ".join(BACKENDS))
    by_dir = {sweep_dir(c).rsplit("/", 2)[1]: c for c in calls}
    assert list(by_dir) == [f"informer_{b}" for b in BACKENDS]
    for backend in BACKENDS:
        call = by_dir[f"informer_{backend}"]
        assert "model=informer_revin" in call
        if backend == "nystrom":
            assert {"attention@encoder_attention=nystrom", "attention@decoder_attention=full",
                    "decoder_attention.dropout=0"} <= set(call)
        else:
            assert f"attention={backend}" in call
        # only full and ProbSparse have an attention dropout to switch off
        assert ("encoder_attention.dropout=0" in call) == (backend in ("prob", "full"))


def test_models_sets_the_order_and_an_unknown_one_stops_before_any_run(tmp_path: Path) -> None:
    out = tmp_path / "long"
    calls = study(tmp_path, out, LENGTHS="720", MODELS="dlinear strided prob")
    assert [sweep_dir(c) for c in calls] == [f"{out}/dlinear/720", f"{out}/informer_strided/720",
                                             f"{out}/informer_prob/720"]
    proc = run_script(tmp_path, tmp_path / "other", "data=etth1", MODELS="prob sparse")
    assert proc.returncode == 1
    assert proc.stderr.startswith("long_inputs.sh: unknown model 'sparse' in MODELS; choose from: prob full")
    assert not (tmp_path / "calls.txt").exists() and not (tmp_path / "other").exists()


def test_backend_widths_follow_the_model_width(tmp_path: Path) -> None:
    calls = study(tmp_path, tmp_path / "long", MODELS="flash flash_quad performer", LENGTHS="720",
                  D_MODEL="64", N_HEADS="4")
    by_dir = {sweep_dir(c).rsplit("/", 2)[1]: c for c in calls}
    assert set(by_dir) == {"informer_flash", "informer_flash_quad", "informer_performer"}
    for gau in ("flash", "flash_quad"):
        assert f"attention={gau}" in by_dir[f"informer_{gau}"]
        assert "encoder_attention.query_key_dim=64" in by_dir[f"informer_{gau}"]  # min(128, d_model)
    assert "encoder_attention.nb_features=44" in by_dir["informer_performer"]  # int(16 ln 16)
    assert "model.net.d_model=64" in by_dir["informer_performer"]


def test_finished_groups_are_skipped_and_failed_ones_run_again(tmp_path: Path) -> None:
    out = tmp_path / "long"
    first = study(tmp_path, out, MODELS="prob full", LENGTHS="720", FAIL_SWEEP=f"{out}/informer_full/720")
    assert [sweep_dir(c) for c in first] == [f"{out}/informer_prob/720", f"{out}/informer_full/720"]
    assert (out / "informer_prob" / "720" / ".done").exists()
    again = study(tmp_path, out, MODELS="prob full", LENGTHS="720")
    assert [sweep_dir(c) for c in again] == [f"{out}/informer_full/720"]
