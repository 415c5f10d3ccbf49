#!/usr/bin/env bash
# Runs COMMAND... when mpirun is on PATH, else reports SKIPPED with exit code 77 (CTest's
# SKIP_RETURN_CODE): an MPI test without mpirun must never pass. Open MPI refuses to run as root
# unless told; the tests may run as root in containers.
# Usage: mpi_run.sh COMMAND...     e.g. mpi_run.sh mpirun -np 2 lenet_mpi_tests
if ! command -v mpirun >/dev/null; then
  echo "SKIPPED: mpirun not found (Debian: apt-get install openmpi-bin)"
  exit 77
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The tests check bits, not speed: a rank waiting for another gives up its core instead of
# spinning, so that a machine busy with other work does not slow every message to a time slice.
export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
exec "$@"
