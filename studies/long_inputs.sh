#!/usr/bin/env bash
# The long-input study of docs/long-inputs.md: every attention backend inside the Informer, DLinear and
# the project default, at look-backs 720, 1440 and 2880 on ETTh1 and ETTh2 (experiment=compare_long_cpu:
# horizon 96, seeds 1 and 2, every 8th training window, every validation and test window, up to 4
# epochs). Each run's metrics.json holds its floors (naive, mean, seasonal naive, ridge) on the same
# windows.
#
#   bash studies/long_inputs.sh outputs/long [extra overrides for every run]
#   forecast-compare outputs/long --out docs/long-inputs
#
# One sweep per model and look-back, into OUT_DIR/<model>/<look-back> (informer_<backend> for the
# Informers). The look-backs are the outer loop (LENGTHS, default "720 1440 2880"), so a sweep stopped
# early has every model at the shorter ones; MODELS names the models and their order (default: the
# paper's ProbSparse and the exact full attention first, then the default, DLinear and the other
# backends, the costliest at long inputs last). One dataset or seed: pass data=etth2 or seed=1 as an
# override (two such sweeps side by side, JOBS=1 each, keep both cores busy). A sweep that finished
# (its directory holds a .done mark) is not run again, so the same command continues a stopped study.
# Horizon 336: pass data.pred_len=336 with an OUT_DIR of its own (finished sweeps are skipped by directory).
# Width of the Informer: D_MODEL, N_HEADS, D_FF (default 16, 2, 32: two CPU cores), learning rate LR.
# The backends' own widths follow the model's: FLASH's shared query/key width s is min(128, d_model)
# (the paper's 128 is for d_model 768) and Performer draws int(E ln E) random features for head width
# E (the paper's rule; its 256 is for E = 64). JOBS runs of a sweep at a time (default 2), one thread
# each. On a GPU at the paper's width:
#   D_MODEL=512 N_HEADS=8 D_FF=2048 LR=1e-4 JOBS=1 bash studies/long_inputs.sh outputs/long trainer=gpu threads=null
set -euo pipefail
out=${1:?usage: bash studies/long_inputs.sh OUT_DIR [overrides...]}
shift
d_model=${D_MODEL:-16} n_heads=${N_HEADS:-2} d_ff=${D_FF:-32} jobs=${JOBS:-2} lr=${LR:-5e-3}
lengths=${LENGTHS:-720 1440 2880}
known="prob full default dlinear linear performer strided local atrous logsparse nystrom flash bigbird flash_quad"
models=${MODELS:-$known}
for m in $models; do
  if [[ " $known " != *" $m "* ]]; then
    echo "long_inputs.sh: unknown model '$m' in MODELS; choose from: $known" >&2
    exit 1
  fi
done
qk_dim=$(( d_model < 128 ? d_model : 128 ))
features=$(awk -v e="$((d_model / n_heads))" 'BEGIN { print int(e * log(e)) }')
sweep=(-m experiment=compare_long_cpu hydra/launcher=joblib "hydra.launcher.n_jobs=$jobs")
informer=(model=informer_revin "model.net.d_model=$d_model" "model.net.n_heads=$n_heads" "model.net.d_ff=$d_ff"
  "task.optimizer.lr=$lr")
# Attention dropout is 0 wherever a backend has it (full and ProbSparse): with dropout, SDPA has no fused
# CPU kernel and full attention would hold the (B, H, L, L) probabilities; ProbSparse has none either way.
no_drop=(encoder_attention.dropout=0 decoder_attention.dropout=0)

run() {  # run NAME OVERRIDES...: one sweep into OUT_DIR/NAME, marked .done when every job ran
  local name=$1
  shift
  if [[ -e $out/$name/.done ]]; then echo "sweep $name: done before, skipped"; return 0; fi
  if forecast-train "${sweep[@]}" "hydra.sweep.dir=$out/$name" "$@"; then
    touch "$out/$name/.done"
  else
    echo "sweep $name: some jobs failed (see $out/$name/failed_jobs.jsonl)"
  fi
}

# Every backend in both self-attention roles (cross-attention: full); Nystrom is not causal, so it
# fills the encoder only, with full attention in the decoder.
for len in $lengths; do
  at=("data.seq_len=$len")
  for m in $models; do
    case $m in
      default)  # the project default (best floor + instance-normalised Informer residual, ProbSparse)
        run "default/$len" model=informer_floor "model.net.net.d_model=$d_model" \
          "model.net.net.n_heads=$n_heads" "model.net.net.d_ff=$d_ff" "task.optimizer.lr=$lr" tag=default \
          "${at[@]}" "$@" ;;
      dlinear) run "dlinear/$len" model=dlinear "${at[@]}" "$@" ;;
      prob | full) run "informer_$m/$len" "${informer[@]}" "attention=$m" "${no_drop[@]}" "${at[@]}" "$@" ;;
      flash | flash_quad)
        run "informer_$m/$len" "${informer[@]}" "attention=$m" "encoder_attention.query_key_dim=$qk_dim" \
          "decoder_attention.query_key_dim=$qk_dim" "${at[@]}" "$@" ;;
      performer)
        run "informer_$m/$len" "${informer[@]}" attention=performer "encoder_attention.nb_features=$features" \
          "decoder_attention.nb_features=$features" "${at[@]}" "$@" ;;
      nystrom)
        run "informer_$m/$len" "${informer[@]}" attention@encoder_attention=nystrom \
          attention@decoder_attention=full decoder_attention.dropout=0 "${at[@]}" "$@" ;;
      *) run "informer_$m/$len" "${informer[@]}" "attention=$m" "${at[@]}" "$@" ;;
    esac
  done
done
