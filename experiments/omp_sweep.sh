#!/usr/bin/env bash
# omp_sweep.sh: the OpenMP scaling sweep. Runs lenet-serial (the baseline) and lenet-openmp with
# both strategies at 1, 2, 4, ... threads, each point --repeats times, collects one CSV row per
# run, and writes a Markdown table and a speedup plot with reports/sweep.py.
# See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="omp_sweep.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/omp_sweep.sh [options]

Times training epochs of lenet-serial and of lenet-openmp (strategies batch and layer) at
1, 2, 4, 8, ... threads up to --max, for each batch size, --repeats times each, and reports the
median time per epoch, the speedup and efficiency against lenet-serial measured in the same
sweep, the test accuracy, and whether the final parameters are bit-identical to serial's.

  --max N            most threads (default: nproc = $(nproc)); the last point is N itself
  --batches LIST     comma-separated batch sizes (default: 32)
  --kernels LIST     kernels for serial and the batch strategy (default: all kernels built);
                     the layer strategy always runs ref
  --strategies LIST  batch,layer (default: both)
  --data DIR         MNIST-format data (default: data/fashion; bash run_scripts/get_data.sh)
  --repeats N        runs per point; the report shows the median (default: 3)
  --epochs N         epochs per run (default: 1)
  --lr X             learning rate (default: docs/network.md's rate for the batch size:
                     B >= 1: 0.05, >= 8: 0.3, >= 32: 0.5, >= 128: 1.0)
  --train-limit N    use the first N training images (default: all)
  --build DIR        the CMake build directory, or the prefix of an installed copy
                     (default: build; installed: the prefix it was installed to)
  --out DIR          where runs.csv, runs.log, report.md and report.png go
                     (default: results/omp-YYYYmmdd-HHMMSS)
  --record           add the points to docs/data/sweeps.csv (date, machine, cores, this
                     command, commit) and render the docs' tables again (docs/sweeps.md)
  -h, --help         this help

Threads are placed with OMP_PLACES=cores and OMP_PROC_BIND=close (printed before the runs);
OMP_WAIT_POLICY is left as you set it. On a machine busy with other work the timings are
noisy: compare the ratios within one sweep, not across sweeps.
EOF
}

max_threads=$(nproc)
batches=32
kernels=""
strategies="batch,layer"
data_dir="${REPO_ROOT}/data/fashion"
repeats=3
epochs=1
train_limit=0
lr=""
build_dir=$(default_build)
out_dir=""
record=0
command="bash experiments/omp_sweep.sh${*:+ $*}"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --max) need "$@"; positive "$1" "$2"; max_threads=$2; shift 2 ;;
    --batches) need "$@"; batches=$2; shift 2 ;;
    --kernels) need "$@"; kernels=$2; shift 2 ;;
    --strategies) need "$@"; strategies=$2; shift 2 ;;
    --data) need "$@"; data_dir=$2; shift 2 ;;
    --repeats) need "$@"; positive "$1" "$2"; repeats=$2; shift 2 ;;
    --epochs) need "$@"; positive "$1" "$2"; epochs=$2; shift 2 ;;
    --lr) need "$@"; lr=$2; shift 2 ;;
    --train-limit) need "$@"; positive "$1" "$2"; train_limit=$2; shift 2 ;;
    --build) need "$@"; build_dir=$2; shift 2 ;;
    --out) need "$@"; out_dir=$2; shift 2 ;;
    --record) record=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

serial=$(program "$build_dir" lenet-serial)
openmp=$(program "$build_dir" lenet-openmp)
require_built "$serial" "$openmp"
require_data "$data_dir"
plot_python >/dev/null  # no matplotlib: stop now, not after the runs
IFS=, read -ra batch_list <<<"$batches"
IFS=, read -ra strategy_list <<<"$strategies"
for b in "${batch_list[@]}"; do positive --batches "$b"; done
for s in "${strategy_list[@]}"; do
  [[ "$s" == batch || "$s" == layer ]] || die "--strategies: '$s' is neither batch nor layer"
done
built=$(kernels_of "$serial")
[[ -n "$kernels" ]] || kernels=$built
IFS=, read -ra kernels_list <<<"$kernels"
for k in "${kernels_list[@]}"; do
  [[ ",$built," == *",$k,"* ]] || die "--kernels: '$k' is not built (this build has: $built)"
done
# Serial runs all kernels that an OpenMP run uses, as its baseline.
serial_kernels=("${kernels_list[@]}")
if [[ ",$strategies," == *",layer,"* && ",$kernels," != *",ref,"* ]]; then serial_kernels+=(ref); fi

# 1, 2, 4, ... below --max, then --max itself.
thread_list=()
for ((t = 1; t < max_threads; t *= 2)); do thread_list+=("$t"); done
thread_list+=("$max_threads")

open_out omp

export OMP_PLACES=cores OMP_PROC_BIND=close
common=(--data "$data_dir" --epochs "$epochs" --quiet --csv "$csv")
if [[ "$train_limit" -gt 0 ]]; then common+=(--train-limit "$train_limit"); fi

say "data $data_dir, epochs $epochs, repeats $repeats, batches $batches, kernels $kernels"
say "threads ${thread_list[*]} on $(nproc) cores; OMP_PLACES=$OMP_PLACES" \
  "OMP_PROC_BIND=$OMP_PROC_BIND OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-(unset)}"
say "$(load_note)"
say "writing $out_dir/"

# The repeats are interleaved, so that a burst of other work on the machine hits every
# configuration alike instead of all repeats of one.
for ((r = 1; r <= repeats; ++r)); do
  say "repeat $r/$repeats"
  for b in "${batch_list[@]}"; do
    step=(--batch "$b" --lr "${lr:-$(lr_for "$b")}")
    for k in "${serial_kernels[@]}"; do
      run "serial $k B=$b" "$serial" "${common[@]}" "${step[@]}" --kernels "$k"
    done
    for s in "${strategy_list[@]}"; do
      for t in "${thread_list[@]}"; do
        export OMP_NUM_THREADS=$t
        if [[ "$s" == layer ]]; then
          run "openmp layer ref B=$b T=$t" "$openmp" "${common[@]}" "${step[@]}" \
            --strategy layer --kernels ref --threads "$t"
        else
          for k in "${kernels_list[@]}"; do
            run "openmp batch $k B=$b T=$t" "$openmp" "${common[@]}" "${step[@]}" \
              --strategy batch --kernels "$k" --threads "$t"
          done
        fi
      done
      unset OMP_NUM_THREADS
    done
  done
done

say "$(load_note)"
report sweep --csv "$csv" --x threads --out "$out_dir/report" \
  --title "lenet-openmp vs lenet-serial, $(basename "$data_dir"), $(nproc) cores"
say "done: $out_dir/report.md and $out_dir/report.png"
[[ $record -eq 0 ]] || report record --sweep threads --runs "$csv" --command "$command"
