#!/usr/bin/env bash
# The README's test command: the same set-up as the main run (packages, build, data), then the
# whole test suite through CTest. Tests that need a GPU or mpirun and cannot get one report
# SKIPPED. Extra arguments go to ctest (e.g. -L serial, -R vectors).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/run_scripts/setup.sh"
bash "$root/run_scripts/get_data.sh"
# Open MPI refuses to run as root unless told; the MPI tests launch 2 ranks on any core count.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$root/build"
ctest --output-on-failure -j "$(nproc)" "$@"
