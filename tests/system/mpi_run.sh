#!/usr/bin/env bash
# Runs COMMAND... where BUILD_DIR's MPI launcher is there (run_scripts/mpi_launch.sh), else
# reports SKIPPED with exit code 77 (CTest's SKIP_RETURN_CODE): an MPI test without a launcher
# must never pass. Usage: mpi_run.sh BUILD_DIR COMMAND...
#   e.g. mpi_run.sh build bash run_scripts/mpi_launch.sh build -n 2 lenet_mpi_tests
build=$1
shift
if ! family=$(bash "$(dirname "${BASH_SOURCE[0]}")/../../run_scripts/mpi_launch.sh" "$build" --family 2>&1); then
  echo "SKIPPED: ${family#mpi_launch.sh: error: }"
  exit 77
fi
# (The ranks' settings, yielding while they wait among them, are mpi_launch.sh's: the tests
# launch through ${LENET_MPI_LAUNCH}, cmake/mpi_launch.cmake, which passes it --yield.)
exec "$@"
