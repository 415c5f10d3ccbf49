#!/usr/bin/env bash
# Compares every backend this machine built on one data set and seed, VERIFIES each run against
# the serial reference, and writes a table, a CSV and plots under results/<date>-<host>/.
#
#   run_scripts/compare.sh [--data DIR] [--epochs N] [--batches 1,8,32,128] [--repeats N]
#                          [--max-threads N] [--max-ranks N] [--build DIR] [--out DIR] [--no-torch]
#                          [--no-peers] [--full] [--record]
#
# Per batch size B (rate from docs/network.md's table: B 1 -> 0.05, 8 -> 0.3, 32 -> 0.5,
# 128 -> 1.0): lenet-serial for each kernels (its first run saves the reference
# checkpoint), lenet-openmp at 1..cores threads for each strategy and kernels, lenet-mpi at 1..cores
# ranks (fast and --exact), lenet-cuda for each kernel version where a GPU is present, and the
# PyTorch baseline where python3-torch is installed (at B = 32 on 1 thread; with --full at every
# batch on 1 and all cores), then the peers lenet-tinydnn and lenet-dlib at 1 thread where they
# were built (docs/performance.md#peers; not comparable bit for bit, so not verified). Each
# point runs --repeats times (the report takes the median; the live line shows each repeat and
# that median) plus once with --timing for the per-layer plot. Every run is checked with
# --verify against the serial run of the same batch (and the same kernels, for the CPU backends,
# with --identical where the bits must match); a mismatch marks the row FAILED and the script
# exits non-zero. It prints the number of runs and an estimate of its duration first.
# Defaults: the real digits (data/digits), 1 epoch, batches 1,8,32,128, 3 repeats: 272 runs,
# 2 min 34 s on this project's 2-core machine without PyTorch (docs/results.md), the programs
# of build/ (--build: another build folder). --full:
# Fashion-MNIST (60k), 1 epoch, batches 1,32,128, every PyTorch point. --record: when every run
# is verified, the CPU backends' medians become rows of docs/data/epoch_times.csv, with the date,
# machine, cores, this command and the commit, and the docs' tables are rendered again
# (python3 -m reports record; docs/sweeps.md).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="compare.sh"
source "$root/run_scripts/lib.sh"
bin="$root/build"
data="$root/data/digits" epochs=1 batches="1,8,32,128" repeats=3 torch=1 peers=1 full=0
max_threads=$(nproc) max_ranks=$(nproc) out="" record=0
command="bash run_scripts/compare.sh${*:+ $*}"
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) data=$(realpath "$2"); shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --batches) batches=$2; shift 2 ;;
    --repeats) repeats=$2; shift 2 ;;
    --max-threads) max_threads=$2; shift 2 ;;
    --max-ranks) max_ranks=$2; shift 2 ;;
    --build) need "$@"; bin=$(realpath -m "$2"); shift 2 ;;
    --out) out=$(realpath -m "$2"); shift 2 ;;
    --no-torch) torch=0; shift ;;
    --no-peers) peers=0; shift ;;
    --full) data="$root/data/fashion" batches="1,32,128" full=1; shift ;;
    --record) record=1; shift ;;
    -h|--help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
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

export OMP_PLACES=cores OMP_PROC_BIND=close
cores=$(nproc)
say "$data, $epochs epoch(s), batches $batches, $repeats repeats, up to $max_threads threads / $max_ranks ranks -> $out"
say "OMP_PLACES=$OMP_PLACES OMP_PROC_BIND=$OMP_PROC_BIND; $(load_note)"

# estimate RUNS: the expected duration, from the default comparison measured on the 2-core
# machine of docs/results.md (272 runs in 151 s): a run costs 0.29 s (start, data, test set,
# MPI launcher) and 0.27 s of training on average there, the training in proportion to the images
# trained (data set x epochs) against that run's 7,996.
estimate() {
  local file images
  file=$(ls "$data"/train-images[-.]idx3-ubyte* | head -n 1)
  if [[ $file == *.gz ]]; then
    images=$(gzip -l "$file" | awk 'NR == 2 { print int(($2 - 16) / 784) }')
  else
    images=$((($(stat -c %s "$file") - 16) / 784))
  fi
  awk -v runs="$1" -v images="$images" -v epochs="$epochs" 'BEGIN {
    s = runs * (0.29 + 0.27 * images * epochs / 7996)
    printf "about %d min %02d s on a 2-core machine", s / 60, s % 60 }'
}

failed=0 planning=0 planned=0 planned_torch=0
# point LABEL COMMAND...: the timed repeats, then one --timing run (none where untimed=1: the
# peers have no per-layer timers). The live line lists each repeat's seconds per epoch, then
# their median, the figure the table shows; any failure is recorded. While planning, it only
# counts the runs.
untimed=0
point() {
  local label=$1 r s v
  local -a seconds=() verdicts=()
  shift
  if [[ $planning -eq 1 ]]; then
    planned=$((planned + repeats + (untimed == 0)))
    [[ $label != pytorch* ]] || planned_torch=$((planned_torch + repeats + 1))
    return
  fi
  printf '  %-40s' "$label"
  for ((r = 0; r < repeats; r++)); do
    if ! "$@" --csv "$runs" --quiet >>"$log" 2>&1; then
      echo " FAILED (see $log)"
      failed=1
      return
    fi
    read -r s v < <(csv_get "$runs" seconds_per_epoch verification)
    seconds+=("$s")
    verdicts+=("$v")
    printf ' %.3f' "${seconds[-1]}"
  done
  [[ $untimed -eq 1 ]] || "$@" --csv "$timing" --timing --quiet >>"$log" 2>&1 || true
  printf ' -> median %.3f s/epoch, %s\n' "$(median "${seconds[@]}")" \
    "$(printf '%s\n' "${verdicts[@]}" | sort -u | paste -sd /)"
}
# median X...: the middle value (the mean of the middle two for an even count), as the report's.
median() {
  printf '%s\n' "$@" | sort -g |
    awk '{ v[NR] = $1 } END { print (v[int((NR + 1) / 2)] + v[int(NR / 2) + 1]) / 2 }'
}

cuda="$bin/backend_cuda/lenet-cuda" cuda_ok=0
if [[ -x $cuda ]] && "$cuda" --data "$data" --epochs 0 --quiet >/dev/null 2>&1; then cuda_ok=1; fi
IFS=',' read -ra batch_list <<<"$batches"

# every_point: each batch's reference runs and points, in order.
every_point() {
  local B lr t s n p mode name
  for B in "${batch_list[@]}"; do
    lr=$(lr_for "$B")
    common=(--data "$data" --epochs "$epochs" --batch "$B" --lr "$lr")
    [[ $planning -eq 1 ]] || echo "batch $B, lr $lr"
    # The references: one serial run per set of kernels. CPU runs are checked against the serial run of
    # their own kernels, with --identical where docs/network.md promises the same bits (serial,
    # OpenMP, MPI --exact); MPI's allreduce strategy, CUDA and PyTorch within tolerance.
    ck() { echo "$out/checkpoints/serial-B$B-$1.ck"; }
    for t in $(kernels_of "$bin/backend_serial/lenet-serial" | tr , ' '); do
      if [[ $planning -eq 1 ]]; then
        planned=$((planned + 1))
      else
        "$bin/backend_serial/lenet-serial" "${common[@]}" --kernels "$t" --save "$(ck "$t")" --quiet >>"$log"
      fi
    done
    verify=(--verify "$(ck ref)")
    for t in $(kernels_of "$bin/backend_serial/lenet-serial" | tr , ' '); do
      point "serial $t" "$bin/backend_serial/lenet-serial" "${common[@]}" --verify "$(ck "$t")" \
        --identical --kernels "$t"
    done
    omp="$bin/backend_openmp/lenet-openmp"
    if [[ -x $omp ]]; then
      for t in $(kernels_of "$omp" | tr , ' '); do
        for s in batch layer; do
          [[ $s == layer && $t != ref ]] && continue  # layer supports the readable kernels only
          for ((n = 1; n <= max_threads; n *= 2)); do
            point "openmp $s $t, $n threads" env OMP_NUM_THREADS="$n" "$omp" "${common[@]}" --verify "$(ck "$t")" \
              --identical --kernels "$t" --strategy "$s" --threads "$n"
          done
        done
      done
    fi
    mpi="$bin/backend_mpi/lenet-mpi"
    if [[ -x $mpi ]]; then
      for t in $(kernels_of "$mpi" | tr , ' '); do
        for mode in "" --exact; do
          for ((p = 1; p <= max_ranks; p *= 2)); do
            [[ $p -gt $B ]] && continue  # a batch needs at least one sample per rank
            # Each rank on a core of its own while they fit (--bind core). Without the OpenMP
            # placement: with OMP_PROC_BIND set, every rank would pin its thread to the first
            # core (the same one).
            name=allreduce # the report's names of the two strategies
            [[ -z $mode ]] || name=exact
            point "mpi $name $t, $p ranks" env -u OMP_PLACES -u OMP_PROC_BIND \
              bash "$root/run_scripts/mpi_launch.sh" "$bin" --bind core -n "$p" "$mpi" "${common[@]}" \
              --verify "$(ck "$t")" --kernels "$t" $mode ${mode:+--identical}
          done
        done
      done
    fi
    if [[ $cuda_ok -eq 1 ]]; then
      for v in v1 v2 fused; do
        point "cuda $v" "$cuda" "${common[@]}" "${verify[@]}" --kernels "$v"
      done
    elif [[ -x $cuda && $planning -eq 0 ]]; then
      echo "  cuda: skipped (no usable CUDA device)"
    fi
    # PyTorch pays its per-step overhead at every sample (0.45 ms a step: docs/performance.md):
    # by default one point, B = 32 on 1 thread; --full: every batch, 1 thread and all cores.
    if [[ -n $torch_python && ($full -eq 1 || $B -eq 32) ]]; then
      for n in 1 "$cores"; do
        point "pytorch, $n threads" "$torch_python" "$root/peers/torch_baseline.py" \
          "${common[@]}" "${verify[@]}" --threads "$n"
        [[ $cores -eq 1 || $full -eq 0 ]] && break
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
}

planning=1
every_point
planning=0
torch_note=""
((planned_torch == 0)) ||
  torch_note=", plus $planned_torch PyTorch runs (a few seconds each; not in the estimate)"
say "$planned runs: $(estimate $((planned - planned_torch)))$torch_note"
say "each point: its $repeats repeats' seconds per epoch, then their median (the table's figure)"
start=$SECONDS
every_point

report compare --runs "$runs" --timing "$timing" --out "$out" \
  --title "$(basename "$data"), $epochs epoch(s)" || failed=1
say "wrote $out/summary.md, runs.csv and plots; $planned runs in $((SECONDS - start)) s;" \
  "$(load_note)"
[[ $failed -eq 0 ]] || { echo "compare.sh: some runs FAILED verification or did not run (see $out/summary.md, $log)" >&2; exit 1; }
[[ $record -eq 0 ]] || report record --runs "$runs" --command "$command"
