#!/usr/bin/env bash
# fp32 against bf16-mixed on one CUDA GPU, speed and accuracy, in one sitting of at most ~7 minutes:
# benchmarks/gpu_check.py does the work; this checks what is installed first and says what is missing.
# Needs no network and installs nothing: the repo runs from this checkout (PYTHONPATH).
#   OUT=/some/dir bash benchmarks/gpu_check.sh          # results in $OUT (default ./gpu_out)
#   GPU_CHECK_TINY=1 GPU_CHECK_DEVICE=cpu bash benchmarks/gpu_check.sh   # the logic, on a CPU, tiny
# ETTh2 is read from $ETTH2, ../shared/data, shared/data or data/ETTh2.csv (skipped, said, if absent).
# Files: bench.csv, accuracy.csv, summary.md, device.json, gpu_check.log, runs/<run>.log.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-./gpu_out}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/gpu_check.log") 2>&1
PY=${PYTHON:-python}
DEVICE=${GPU_CHECK_DEVICE:-cuda}
BUDGET=${GPU_CHECK_BUDGET_S:-390}
echo "== gpu_check $(date -u +%FT%TZ) on $(hostname), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
missing=$("$PY" - <<'PY'
import importlib
need = ["torch", "lightning", "hydra", "omegaconf", "pandas", "numpy", "sklearn"]
print(" ".join(m for m in need if importlib.util.find_spec(m) is None))
PY
)
if [ -n "$missing" ]; then
  echo "MISSING python packages: $missing -- this machine cannot run forecast-train; nothing was measured."
  echo "(no network here: install them from a local wheelhouse, e.g. pip install --no-index --find-links DIR $missing)"
  exit 3
fi
if [ "$DEVICE" = cuda ] && ! "$PY" -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "NO CUDA: torch $("$PY" -c 'import torch; print(torch.__version__)') sees no GPU; nothing was measured."
  exit 4
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$PY" -c "import forecast" || { echo "forecast does not import from $PWD"; exit 5; }
args=(--out "$OUT" --device "$DEVICE" --budget-s "$BUDGET")
[ "${GPU_CHECK_TINY:-0}" = 1 ] && args+=(--tiny --jobs 2 --threads 1)
timeout --signal=INT --kill-after=20 $((${BUDGET%.*} + 60)) "$PY" benchmarks/gpu_check.py "${args[@]}"
rc=$?
echo "== gpu_check done, exit $rc; files in $OUT: $(ls "$OUT" | tr '\n' ' ')"
exit $rc
