#!/usr/bin/env bash
# The long-input study of docs/long-inputs.md: every attention backend inside the Informer, DLinear and
# the project default, at look-backs 720, 1440 and 2880 on ETTh1 and ETTh2 (experiment=compare_long_cpu:
# horizon 96, seeds 1 and 2, every 32nd training window, every 23rd validation and test window). Each run's
# metrics.json holds its floors (naive, mean, seasonal naive, ridge) on the same windows.
#
#   bash scripts/long_inputs.sh outputs/long [extra overrides for every run]
#   forecast-compare outputs/long --out docs/long-inputs
#
# Width of the Informer: D_MODEL, N_HEADS, D_FF (default 16, 2, 32: two CPU cores). Two runs at a time
# (JOBS), one thread each. On a GPU at the paper's width:
#   D_MODEL=512 N_HEADS=8 D_FF=2048 JOBS=1 bash scripts/long_inputs.sh outputs/long trainer=gpu threads=null
set -euo pipefail
out=${1:?usage: bash scripts/long_inputs.sh OUT_DIR [overrides...]}
shift
d_model=${D_MODEL:-16} n_heads=${N_HEADS:-2} d_ff=${D_FF:-32} jobs=${JOBS:-2}
sweep=(-m experiment=compare_long_cpu hydra/launcher=joblib "hydra.launcher.n_jobs=$jobs")
width=("model.net.d_model=$d_model" "model.net.n_heads=$n_heads" "model.net.d_ff=$d_ff" task.optimizer.lr=1e-3)
# Attention dropout is 0 wherever a backend has it: with dropout, SDPA has no fused CPU kernel and full
# attention would hold the (B, H, L, L) probabilities; ProbSparse has none either way.
no_drop=(encoder_attention.dropout=0 decoder_attention.dropout=0)

run() {  # run NAME OVERRIDES...: one sweep into OUT_DIR/NAME (a sweep that fails for one job goes on)
  local name=$1
  shift
  forecast-train "${sweep[@]}" "hydra.sweep.dir=$out/$name" "$@" || echo "sweep $name: some jobs failed (see $out/$name/failed_jobs.jsonl)"
}

# Every backend in both self-attention roles (cross-attention: full); Nystrom is not causal, so it
# fills the encoder only, with full attention in the decoder. ProbSparse (the paper's) and full (the
# exact reference) first, then the default and DLinear, then the other backends.
run informer_prob model=informer_revin "${width[@]}" attention=prob "${no_drop[@]}" "$@"
run informer_full model=informer_revin "${width[@]}" attention=full "${no_drop[@]}" "$@"
# The project default (best floor + instance-normalised Informer residual, ProbSparse) at the same width.
run default model=informer_floor "model.net.net.d_model=$d_model" "model.net.net.n_heads=$n_heads" \
  "model.net.net.d_ff=$d_ff" task.optimizer.lr=1e-3 tag=default "$@"
run dlinear model=dlinear "$@"
run informer_other model=informer_revin "${width[@]}" 'attention=glob(*,exclude=[full,prob,nystrom])' "$@"
run informer_nystrom model=informer_revin "${width[@]}" attention@encoder_attention=nystrom \
  attention@decoder_attention=full decoder_attention.dropout=0 "$@"
