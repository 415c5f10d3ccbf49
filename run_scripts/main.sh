#!/usr/bin/env bash
# The README's main command: set up (packages, build, data), train the network on the real
# handwritten digits with every backend this machine built (printing each run's summary block),
# then compare them all, verified, with run_scripts/compare.sh (table, CSV, plots in results/).
# Usage: run_scripts/main.sh [--data DIR] [--epochs N] [--no-compare] [extra flags...]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
data="$root/data/digits"
epochs=5
compare=1
extra=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) data=$2; shift 2 ;;
    --epochs) epochs=$2; shift 2 ;;
    --no-compare) compare=0; shift ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done

bash "$root/run_scripts/setup.sh"
bash "$root/run_scripts/get_data.sh" >/dev/null
bin="$root/build"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cores=$(nproc)
status=0
run() {  # run NAME COMMAND...: one backend, its summary, and a line if it could not run
  echo
  echo "=== $1 ==="
  shift
  "$@" --data "$data" --epochs "$epochs" --save "$root/build/$name.ck" "${extra[@]}" || {
    local code=$?
    [[ $code -eq 2 && $name == cuda ]] && echo "(skipped: no usable CUDA device here)" || status=1
  }
}
name=serial run lenet-serial "$bin/backend_serial/lenet-serial"
if [[ -x $bin/backend_openmp/lenet-openmp ]]; then
  name=openmp run "lenet-openmp, $cores threads" "$bin/backend_openmp/lenet-openmp" --threads "$cores"
fi
if [[ -x $bin/backend_mpi/lenet-mpi ]] && command -v mpirun >/dev/null; then
  name=mpi run "lenet-mpi, 2 ranks" mpirun -np 2 --oversubscribe "$bin/backend_mpi/lenet-mpi"
fi
if [[ -x $bin/backend_cuda/lenet-cuda ]]; then
  name=cuda run lenet-cuda "$bin/backend_cuda/lenet-cuda"
fi
if [[ $compare -eq 1 ]]; then
  echo
  echo "=== compare.sh: every backend, verified against serial ==="
  bash "$root/run_scripts/compare.sh" --data "$data" || status=1
fi
exit $status
