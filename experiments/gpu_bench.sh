#!/usr/bin/env bash
# gpu_bench.sh: the GPU measurements of docs/cuda.md in one command. For each batch size, one
# 60k-image epoch of lenet-cuda with every kernel version, each verified against lenet-serial's
# parameters, and the same network in PyTorch on the same GPU (where torch sees CUDA); medians
# of --repeats runs, in a CSV and a Markdown table.
#
#   experiments/gpu_bench.sh [--data DIR] [--batches 1,128] [--repeats 3] [--device N]
#                            [--build DIR] [--out DIR]
#     --build DIR  where lenet-cuda and lenet-serial were built (default: build)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="gpu_bench.sh"
source "$root/run_scripts/lib.sh"
data="$root/data/fashion" batches="1,128" repeats=3 device=0 bin="$root/build" out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) data=$(realpath "$2"); shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --build) need "$@"; bin=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
cuda="$bin/backend_cuda/lenet-cuda" serial="$bin/backend_serial/lenet-serial"
require_built "$cuda" "$serial"
require_data "$data"
positive --repeats "$repeats"
plot_python >/dev/null  # no matplotlib: stop now, not after the runs
# One-line reason and exit code 2 where there is no usable GPU.
"$cuda" --data "$data" --device "$device" --epochs 0 --quiet >/dev/null
out=${out:-$root/results/gpu-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
runs="$out/runs.csv" log="$out/log.txt"
: >"$log"
torch_python=$(python_with torch) || true
if [[ -n $torch_python ]] && ! "$torch_python" -c "import sys, torch; sys.exit(not torch.cuda.is_available())" 2>/dev/null; then
  torch_python=""
fi

# Kernels loaded before training, not at their first launch inside the timed epoch.
export CUDA_MODULE_LOADING=EAGER
failed=0
# outcome COMMAND...: runs it, its output to the log; prints ok, unverified (it ran, but its
# parameters failed --verify: exit 1 and "Verification = UNSUCCESSFUL") or failed.
outcome() {
  local text status=0
  text=$("$@" 2>&1) || status=$?
  printf '%s\n' "$text" >>"$log"
  if [[ $status -eq 0 ]]; then
    echo ok
  elif [[ $status -eq 1 ]] && grep -q "Verification *= UNSUCCESSFUL" <<<"$text"; then
    echo unverified
  else
    echo failed
  fi
}
# point LABEL COMMAND...: one run with --verify that is not timed (it also loads the kernels and
# warms up), then --repeats timed runs appended to runs.csv. A failed verification is reported,
# and the timing is still taken (the report marks the configuration FAILED); a run that crashes
# ends the point.
point() {
  local label=$1 verified r
  shift
  printf '  %-28s' "$label"
  verified=$(outcome "$@" --verify "$ck" --quiet)
  [[ $verified == ok ]] || failed=1
  if [[ $verified == failed ]]; then
    echo " FAILED (see $log)"
    return
  fi
  for ((r = 0; r < repeats; r++)); do
    if [[ $(outcome "$@" --verify "$ck" --csv "$runs" --quiet) == failed ]]; then
      echo " FAILED (see $log)"
      return
    fi
  done
  echo " $(printf '%.4f' "$(csv_get "$runs" seconds_per_epoch)") s/epoch," \
    "$([[ $verified == ok ]] && echo verified || echo "VERIFICATION FAILED")"
}

IFS=',' read -ra batch_list <<<"$batches"
for B in "${batch_list[@]}"; do
  lr=$(lr_for "$B")
  common=(--data "$data" --batch "$B" --lr "$lr")
  echo "batch $B, lr $lr"
  ck="$out/serial-B$B.ck"
  "$serial" "${common[@]}" --kernels ref --save "$ck" --quiet >>"$log"
  point "serial ref (the baseline)" "$serial" "${common[@]}" --kernels ref
  for v in v1 v2 fused; do
    point "cuda $v" "$cuda" "${common[@]}" --device "$device" --kernels "$v"
  done
  if [[ -n $torch_python ]]; then
    point "pytorch cuda" "$torch_python" "$root/peers/torch_baseline.py" "${common[@]}" \
      --device cuda
  else
    echo "  pytorch cuda: skipped (no python3 with torch that sees CUDA)"
  fi
done

# The report exits 1 when a run failed verification, after writing summary.md; any other
# failure leaves no summary behind, and then this says so.
rm -f "$out/summary.md"
report compare --runs "$runs" --out "$out" \
  --title "$(basename "$data"), GPU $device" >>"$log" 2>&1 || failed=1
if [[ -s $out/summary.md ]]; then
  say "wrote $out/summary.md and runs.csv"
else
  say "error: the report step failed (see $log); the timings are in $runs"
  failed=1
fi
exit $failed
