#!/usr/bin/env bash
# Compares every backend this machine built on one data set and seed, VERIFIES each run against
# the serial reference, and writes a table, a CSV and plots under results/<date>-<host>/.
#
#   run_scripts/compare.sh [--data DIR] [--epochs N] [--batches 1,8,32,128] [--repeats N]
#                          [--max-threads N] [--max-ranks N] [--out DIR] [--no-torch] [--no-peers]
#                          [--full]
#
# Per batch size B (rate from docs/network.md's table: B 1 -> 0.05, 8 -> 0.3, 32 -> 0.5,
# 128 -> 1.0): lenet-serial for each kernel tier (its first run saves the reference
# checkpoint), lenet-openmp at 1..cores threads for each strategy and tier, lenet-mpi at 1..cores
# ranks (fast and --exact), lenet-cuda for each kernel version where a GPU is present, and the
# PyTorch baseline at 1 and all cores where python3-torch is installed, then the peers
# lenet-tinydnn and lenet-dlib at 1 thread where they were built (docs/performance.md#peers; not
# comparable bit for bit, so not verified). Each point runs
# --repeats times (the report takes the median) plus once with --timing for the per-layer plot.
# Every run is checked with --verify against the serial run of the same batch (and the same
# tier, for the CPU backends, with --identical where the bits must match); a mismatch marks the
# row FAILED and the script exits non-zero.
# Defaults: the real digits (data/digits), 1 epoch, batches 1,8,32,128, 3 repeats (a few
# minutes on 2 cores). --full: Fashion-MNIST (60k), 1 epoch, batches 1,32,128.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="compare.sh"
source "$root/run_scripts/lib.sh"
bin="${LENET_BUILD_DIR:-$root/build}"
data="$root/data/digits" epochs=1 batches="1,8,32,128" repeats=3 torch=1 peers=1
max_threads=$(nproc) max_ranks=$(nproc) out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) data=$(realpath "$2"); shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --max-threads) max_threads=$2; shift 2 ;;
    --max-ranks) max_ranks=$2; shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --no-torch) torch=0; shift ;;
    --no-peers) peers=0; shift ;;
    --full) data="$root/data/fashion" batches="1,32,128"; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
require_built "$bin/backend_serial/lenet-serial"
require_data "$data"
positive --repeats "$repeats"
plot_python >/dev/null  # no matplotlib: stop now, not after the runs
torch_python=""
if [[ $torch -eq 1 ]]; then torch_python=$(python_with torch) || true; fi
out=${out:-$root/results/$(date +%Y%m%d-%H%M%S)-$(hostname -s)}
mkdir -p "$out/checkpoints"
runs="$out/runs.csv" timing="$out/timing.csv" log="$out/log.txt"
: >"$log"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMP_PLACES=cores OMP_PROC_BIND=close
cores=$(nproc)
say "$data, $epochs epoch(s), batches $batches, $repeats repeats, up to $max_threads threads / $max_ranks ranks -> $out"
say "OMP_PLACES=$OMP_PLACES OMP_PROC_BIND=$OMP_PROC_BIND; $(load_note)"

failed=0
# point LABEL COMMAND...: the timed repeats, then one --timing run (none where untimed=1: the
# peers have no per-layer timers); any failure is recorded.
untimed=0
point() {
  local label=$1
  shift
  printf '  %-44s' "$label"
  for ((r = 0; r < repeats; r++)); do
    if ! "$@" --csv "$runs" --quiet >>"$log" 2>&1; then
      echo " FAILED (see $log)"
      failed=1
      return
    fi
  done
  [[ $untimed -eq 1 ]] || "$@" --csv "$timing" --timing --quiet >>"$log" 2>&1 || true
  printf ' %.3f s/epoch, %s\n' "$(csv_get "$runs" seconds_per_epoch)" "$(csv_get "$runs" verification)"
}

IFS=',' read -ra batch_list <<<"$batches"
for B in "${batch_list[@]}"; do
  lr=$(lr_for "$B")
  common=(--data "$data" --epochs "$epochs" --batch "$B" --lr "$lr")
  echo "batch $B, lr $lr"
  # The references: one serial run per tier. CPU runs are checked against the serial run of
  # their own tier, with --identical where docs/network.md promises the same bits (serial,
  # OpenMP, MPI --exact); MPI's allreduce mode, CUDA and PyTorch within tolerance.
  ck() { echo "$out/checkpoints/serial-B$B-$1.ck"; }
  for t in $(tiers "$bin/backend_serial/lenet-serial" | tr , ' '); do
    "$bin/backend_serial/lenet-serial" "${common[@]}" --kernels "$t" --save "$(ck "$t")" --quiet >>"$log"
  done
  verify=(--verify "$(ck ref)")
  for t in $(tiers "$bin/backend_serial/lenet-serial" | tr , ' '); do
    point "serial $t" "$bin/backend_serial/lenet-serial" "${common[@]}" --verify "$(ck "$t")" \
      --identical --kernels "$t"
  done
  omp="$bin/backend_openmp/lenet-openmp"
  if [[ -x $omp ]]; then
    for t in $(tiers "$omp" | tr , ' '); do
      for s in batch layer; do
        [[ $s == layer && $t != ref ]] && continue  # layer supports the readable tier only
        for ((n = 1; n <= max_threads; n *= 2)); do
          point "openmp $s $t, $n threads" env OMP_NUM_THREADS="$n" "$omp" "${common[@]}" --verify "$(ck "$t")" \
            --identical --kernels "$t" --strategy "$s" --threads "$n"
        done
      done
    done
  fi
  mpi="$bin/backend_mpi/lenet-mpi"
  if [[ -x $mpi ]] && command -v mpirun >/dev/null; then
    for t in $(tiers "$mpi" | tr , ' '); do
      for mode in "" --exact; do
        for ((p = 1; p <= max_ranks; p *= 2)); do
          [[ $p -gt $B ]] && continue  # a batch needs at least one sample per rank
          # Each rank on a core of its own while they fit. Without the OpenMP placement: with
          # OMP_PROC_BIND set, every rank would pin its thread to the first core (the same one).
          place=(--map-by core --bind-to core)
          [[ $p -gt $cores ]] && place=(--oversubscribe --bind-to none)
          point "mpi ${mode:-fast} $t, $p ranks" env -u OMP_PLACES -u OMP_PROC_BIND \
            mpirun -np "$p" "${place[@]}" "$mpi" "${common[@]}" --verify "$(ck "$t")" --kernels "$t" \
            $mode ${mode:+--identical}
        done
      done
    done
  fi
  cuda="$bin/backend_cuda/lenet-cuda"
  if [[ -x $cuda ]] && "$cuda" --data "$data" --epochs 0 --quiet >/dev/null 2>&1; then
    for v in v1 v2 fused; do
      point "cuda $v" "$cuda" "${common[@]}" "${verify[@]}" --kernels "$v"
    done
  elif [[ -x $cuda ]]; then
    echo "  cuda: skipped (no usable CUDA device)"
  fi
  if [[ -n $torch_python ]]; then
    for n in 1 "$cores"; do
      point "pytorch, $n threads" "$torch_python" "$root/peers/torch_baseline.py" \
        "${common[@]}" "${verify[@]}" --threads "$n"
      [[ $cores -eq 1 ]] && break
    done
  fi
  if [[ $peers -eq 1 ]]; then
    untimed=1
    for p in tiny-dnn dlib; do
      exe="$bin/peers/lenet-${p//-/}"
      if [[ -x $exe ]]; then
        point "$p, 1 thread" env OPENBLAS_NUM_THREADS=1 "$exe" "${common[@]}" --threads 1
      fi
    done
    untimed=0
  fi
done

report compare --runs "$runs" --timing "$timing" --out "$out" \
  --title "$(basename "$data"), $epochs epoch(s)" || failed=1
say "wrote $out/summary.md, runs.csv and plots; $(load_note)"
[[ $failed -eq 0 ]] || { echo "compare.sh: some runs FAILED verification or did not run (see $out/summary.md, $log)" >&2; exit 1; }
