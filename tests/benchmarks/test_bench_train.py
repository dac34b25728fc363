"""benchmarks/bench_train.py composes the forecast-train config and reports what it measured (no timing asserted)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "bench_train.py"
TINY = ["experiment=bench_default", "model.d_model=16", "model.n_heads=2", "model.d_ff=16", "model.e_layers=1",
        "data.seq_len=48", "data.label_len=24", "data.pred_len=12"]
OPTIONS = ["--steps", "2", "--warmup", "1", "--infer-batches", "1", "--threads", "1"]


def bench(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *argv], capture_output=True, text=True, timeout=300)


def test_one_config_writes_the_step_inference_memory_and_parameter_count(tmp_path: Path) -> None:
    done = bench(*TINY, *OPTIONS, "--out", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    r = json.loads((tmp_path / "r.json").read_text())
    assert r["status"] == "ok" and r["seq_len"] == 48 and r["batch"] == 32 and r["threads"] == 1
    assert r["steps_timed"] == 2 and r["step_s_min"] <= r["step_s_median"] <= r["step_s_max"]
    assert r["infer_s_per_batch"] > 0 and r["infer_s_per_window"] > 0 and r["peak_memory_mb"] > 0
    assert r["overrides"] == TINY and r["precision"] == "32-true" and r["compiled"] is False
    from forecast.core.parameters import count_parameters
    from forecast.models.informer import Informer
    from tests.dims import with_dims
    from forecast.attention.prob import ProbSparseAttention
    from forecast.attention.full import FullAttention
    net = Informer(**with_dims(enc_in=7, c_out=7, n_time_features=4, seq_len=48, label_len=24, pred_len=12,
                   target_index=list(range(7)), encoder_attention=ProbSparseAttention,
                   decoder_attention=ProbSparseAttention, cross_attention=FullAttention, d_model=16, n_heads=2,
                   d_ff=16, e_layers=1, d_layers=1))
    assert r["params"] == count_parameters(net)


def test_lengths_run_in_their_own_processes_and_a_length_past_the_memory_limit_is_a_status(tmp_path: Path) -> None:
    done = bench(*TINY, *OPTIONS, "--lengths", "48", "96", "192", "--max-gb", "0.5", "--out", str(tmp_path / "r.json"))
    assert done.returncode == 0, done.stderr
    runs = json.loads((tmp_path / "r.json").read_text())["runs"]
    assert [r["seq_len"] for r in runs] == [48, 96, 192]
    # 0.5 GB of address space cannot even import torch: the first length fails as oom, the rest are skipped
    assert runs[0]["status"] == "oom" and [r["status"] for r in runs[1:]] == ["skipped", "skipped"]


def test_an_unknown_option_is_one_line_and_exit_2() -> None:
    done = bench(*TINY, "--stepz", "3")
    assert done.returncode == 2 and done.stderr.strip() == "bench_train.py: unknown option --stepz; see --help"
