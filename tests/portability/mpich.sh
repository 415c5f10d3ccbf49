#!/usr/bin/env bash
# lenet-mpi on MPICH, the other MPI family (Cray MPICH, Intel MPI and MVAPICH descend from it):
# a build of its own against Debian's MPICH, which sits beside Open MPI (mpicxx.mpich,
# mpiexec.mpich), then the whole MPI suite there (ctest -L mpi), its ranks started by MPICH's
# Hydra mpiexec through run_scripts/mpi_launch.sh. Then, where Open MPI is installed too, a plain
# configure must still take Open MPI (the README's commands unchanged). Prints each stage and its
# time; the builds are made in a temporary folder and removed.
#
# Usage: mpich.sh SOURCE_DIR
#   LENET_PORTABILITY=1  required: without it the test says SKIPPED (a second build, minutes;
#                        .ci/run sets it)
# SKIPPED (77): not asked for, or MPICH not installed (apt-get install mpich libmpich-dev).
set -euo pipefail
source_dir=$1

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
[[ ${LENET_PORTABILITY:-0} == 1 ]] || skip "set LENET_PORTABILITY=1 to run it (a second build: minutes)"
compiler=$(command -v mpicxx.mpich) && launcher=$(command -v mpiexec.mpich) ||
  skip "MPICH not installed (Debian: apt-get install mpich libmpich-dev)"

work=$(mktemp -d)
build="$work/build"

# stage --log LOG NAME SECONDS COMMAND... (lib.sh): COMMAND under `timeout`, its output in LOG,
# its time said; the test fails, showing LOG's end, if it fails. The stages' limits add up to
# less than CTest's TIMEOUT (tests/portability/portability.cmake).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
trap 'rm -rf "$work"; [[ -z $stage_pid ]] || kill -KILL -- "-$stage_pid" 2>/dev/null' EXIT

# Only what the MPI suite needs: no CUDA, peers or SimGrid.
stage --log "$work/configure.log" "1/4 configure against MPICH ($compiler, $launcher)" 120 \
  cmake -S "$source_dir" -B "$build" -DMPI_CXX_COMPILER="$compiler" -DMPIEXEC_EXECUTABLE="$launcher" \
  -DLENET_MPI=ON -DLENET_CUDA=OFF -DLENET_TINYDNN=OFF -DLENET_DLIB=OFF -DLENET_SMPI=OFF
grep "lenet: MPI ranks start with" "$work/configure.log"
grep -q "(Hydra's mpiexec (MPICH family)); library: MPICH" "$work/configure.log" ||
  fail "the build's launcher or library is not MPICH's (above)"

stage --log "$work/build.log" "2/4 build lenet-mpi, lenet-mpi-pingpong and the MPI unit tests" 900 \
  nice cmake --build "$build" -j "$(nproc)" --target lenet-mpi lenet-mpi-pingpong lenet_mpi_tests

# Where ranks start as unrelated one-rank jobs (Open MPI's launcher with an MPICH program) the
# suite's multi-rank tests fail. A test may skip only for what this machine lacks (data, a
# memory cgroup), said on its SKIPPED line.
cd "$build"
stage --log "$work/ctest.log" "3/4 ctest -L mpi, ranks started by $launcher" 600 \
  ctest -L mpi --output-on-failure --timeout 300
grep -E "Test +#|tests passed" "$work/ctest.log"
skipped=$(grep -h "^SKIPPED" Testing/Temporary/LastTest.log | sort -u) || skipped="none"
echo "skipped, with their reasons: $skipped"

cd "$work"
if command -v mpicxx.openmpi >/dev/null; then
  stage --log "$work/default.log" "4/4 a plain configure beside both MPIs" 120 cmake -S "$source_dir" \
    -B "$work/default" -DLENET_CUDA=OFF -DLENET_TINYDNN=OFF -DLENET_DLIB=OFF -DLENET_SMPI=OFF
  grep "lenet: MPI ranks start with" "$work/default.log"
  grep -q "(Open MPI's mpirun); library: Open MPI" "$work/default.log" ||
    fail "with MPICH installed, a plain configure no longer takes Open MPI (above)"
else
  echo "== 4/4 skipped: no Open MPI here, so no default to keep"
fi
echo "OK: lenet-mpi built against MPICH passes the MPI suite, launched by Hydra"
