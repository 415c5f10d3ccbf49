#!/usr/bin/env bash
# mpi_sweep.sh: the MPI scaling sweep. Runs lenet-serial (the baseline) and lenet-mpi at 1, 2, 4
# ranks, each point --repeats times, collects one CSV row per run, and writes a Markdown table
# and a speedup plot with the sweep report (reports/sweep.py), with the communication share of
# each point. See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="mpi_sweep.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/mpi_sweep.sh [options]

Times training epochs of lenet-serial and of lenet-mpi at each rank count, for each batch
size, --repeats times each, and reports the median time per epoch, the speedup and efficiency
against lenet-serial measured in the same sweep, the share of communication, the test accuracy,
and whether the final parameters are bit-identical to serial's.

  --ranks LIST       comma-separated rank counts (default: 1,2,4)
  --threads T        OpenMP threads per rank, the hybrid mode (default: 1)
  --batches LIST     comma-separated batch sizes (default: 32)
  --kernels K        the kernels of every run (default: the fastest built)
  --exact            also sweep lenet-mpi --exact (bit-identical to serial)
  --eager-limit N    Open MPI's shared-memory eager limit in bytes (default: 16384, so that
                     the 9376-byte gradient goes in one eager message, not the rendezvous
                     protocol that Open MPI uses above its default of 4096; 0: leave it;
                     a build with another MPI leaves its own)
  --data DIR         MNIST-format data (default: data/fashion; bash run_scripts/get_data.sh)
  --repeats N        runs per point, at least 3; the report shows the median (default: 3)
  --epochs N         epochs per run (default: 1)
  --lr X             learning rate (default: docs/network.md's rate for the batch size:
                     B >= 1: 0.05, >= 8: 0.3, >= 32: 0.5, >= 128: 1.0)
  --train-limit N    use the first N training images (default: all)
  --build DIR        the CMake build directory, or the prefix of an installed copy
                     (default: build; installed: the prefix it was installed to)
  --out DIR          where runs.csv, runs.log, report.md and report.png go
                     (default: results/mpi-YYYYmmdd-HHMMSS)
  --record           add the points to docs/data/sweeps.csv (date, machine, cores, this
                     command, commit) and render the docs' tables again (docs/sweeps.md)
  -h, --help         this help

Placement: while ranks x threads <= cores, each rank is bound to its own cores (through
run_scripts/mpi_launch.sh --bind core or cores:T, in this build's launcher's flags); beyond
that the point is run unbound and marked "oversubscribed" in the report: its ranks take
turns on the cores, so it measures time-sharing, not scaling. On a machine busy with other
work the timings are noisy: compare the ratios within one sweep, not across sweeps.
EOF
}

ranks="1,2,4"
threads=1
batches=32
kernels=""
exact=0
eager_limit=16384
data_dir="${REPO_ROOT}/data/fashion"
repeats=3
epochs=1
train_limit=0
lr=""
build_dir=$(default_build)
out_dir=""
record=0
command="bash experiments/mpi_sweep.sh${*:+ $*}"

while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) need "$@"; ranks=$2; shift 2 ;;
    --threads) need "$@"; positive "$1" "$2"; threads=$2; shift 2 ;;
    --batches) need "$@"; batches=$2; shift 2 ;;
    --kernels) need "$@"; kernels=$2; shift 2 ;;
    --exact) exact=1; shift ;;
    --eager-limit) need "$@"; count "$1" "$2"; eager_limit=$2; shift 2 ;;
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

[[ $repeats -ge 3 ]] || die "--repeats: at least 3, for a median that one slow run cannot move"
serial=$(program "$build_dir" lenet-serial)
mpi=$(program "$build_dir" lenet-mpi)
require_built "$serial" "$mpi"
require_data "$data_dir"
plot_python >/dev/null  # no matplotlib: stop now, not after the runs
IFS=, read -ra rank_list <<<"$ranks"
IFS=, read -ra batch_list <<<"$batches"
for p in "${rank_list[@]}"; do positive --ranks "$p"; done
for b in "${batch_list[@]}"; do positive --batches "$b"; done
built=$(kernels_of "$mpi")
[[ -n "$kernels" ]] || kernels=${built##*,}
[[ ",$built," == *",$kernels,"* ]] || die "--kernels: '$kernels' is not built (this build has: $built)"
modes=("")
if [[ $exact -eq 1 ]]; then modes+=(--exact); fi

cores=$(nproc)
# launch [--dry-run] -n P COMMAND...: starts P ranks of $threads threads each, bound to their
# cores while they fit (run_scripts/mpi_launch.sh, which knows this build's launcher).
bind=core
((threads == 1)) || bind="cores:$threads"
family=$(bash "$REPO_ROOT/run_scripts/mpi_launch.sh" "$build_dir" --family) || exit 2
# The eager limit is a parameter of Open MPI's shared-memory transport (vader): mpi_launch.sh
# --eager-limit.
eager=()
if [[ $family == openmpi ]] && ((eager_limit > 0)); then
  eager=(--eager-limit "$eager_limit")
elif ((eager_limit > 0)); then
  say "--eager-limit is Open MPI's; this build's MPI ($family) keeps its own"
fi
launch() { bash "$REPO_ROOT/run_scripts/mpi_launch.sh" "$build_dir" --bind "$bind" "${eager[@]}" "$@"; }

open_out mpi
common=(--data "$data_dir" --epochs "$epochs" --kernels "$kernels" --quiet --csv "$csv")
if [[ "$train_limit" -gt 0 ]]; then common+=(--train-limit "$train_limit"); fi

say "data $data_dir, epochs $epochs, repeats $repeats, batches $batches, kernels $kernels"
say "ranks ${rank_list[*]} x $threads thread(s) on $cores cores; $family's launcher"
for p in "${rank_list[@]}"; do
  if ((p * threads > cores)); then
    say "warning: $p ranks x $threads threads > $cores cores: oversubscribed (time-sharing)"
  fi
  say "  $p ranks: $(launch --dry-run -n "$p" "$mpi")"
done
say "$(load_note)"
say "writing $out_dir/"

# The repeats are interleaved, so that a burst of other work on the machine hits every
# configuration alike instead of all repeats of one.
for ((r = 1; r <= repeats; ++r)); do
  say "repeat $r/$repeats"
  for b in "${batch_list[@]}"; do
    step=(--batch "$b" --lr "${lr:-$(lr_for "$b")}")
    run "serial $kernels B=$b" "$serial" "${common[@]}" "${step[@]}"
    for mode in "${modes[@]}"; do
      for p in "${rank_list[@]}"; do
        if ((p > b)); then
          say "  skipping $p ranks at B=$b: a batch needs at least one sample per rank"
          continue
        fi
        run "mpi ${mode:---allreduce} $kernels B=$b P=$p T=$threads" \
          launch -n "$p" "$mpi" "${common[@]}" "${step[@]}" --threads "$threads" $mode
      done
    done
  done
done

say "$(load_note)"
title="lenet-mpi ($threads thread(s) per rank) vs lenet-serial, $(basename "$data_dir"), $cores cores"
report sweep --csv "$csv" --x ranks --cores "$cores" --out "$out_dir/report" --title "$title"
say "done: $out_dir/report.md and $out_dir/report.png"
[[ $record -eq 0 ]] || report record --sweep ranks --runs "$csv" --command "$command"
