#!/usr/bin/env bash
# The README's test command: the set-up (packages, build, data), then the test suite through
# CTest, without the long tests; --all runs them too (the README's second command, and CI's).
# It builds everything, lenet-cuda included wherever nvcc is found, GPU or not. Tests that need a
# GPU or an MPI launcher and cannot get one report SKIPPED.
#
# Usage: run_scripts/test.sh [--cxx COMPILER] [--build DIR] [--cuda auto|gpu|on|off] [--all]
#                            [CTEST_ARGS...]
#   --cxx, --build, --cuda: as for setup.sh, e.g. --cxx clang++ builds into build-clang++/
#                           (CMakePresets.json's clang++)
#   --all:      the long tests too: every lab kit grading, the Colab notebook, the Slurm
#               cluster, the namespace hosts and the portability builds (labels labkit,
#               notebook, slurm, multihost, portability)
#   CTEST_ARGS: the rest goes to ctest, e.g. -L serial or -L lab1 (tests are picked by label);
#               given any, they alone pick the tests
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="test.sh"
source "$root/run_scripts/lib.sh"
setup=()
build_dir=""
cxx=""
all=0
# The long tests' labels, one place: what the README's test command leaves to --all.
long='^(labkit|slurm|multihost|portability|notebook)$'
while [[ $# -gt 0 ]]; do
  case $1 in
    --cxx) need "$@"; cxx=$2; shift 2 ;;
    --build) need "$@"; build_dir=$(realpath -m "$2"); shift 2 ;;
    --cuda) need "$@"; setup+=(--cuda "$2"); shift 2 ;;
    --all) all=1; shift ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
[[ -n $build_dir ]] || build_dir=$(build_dir_for "$root" "$cxx")
bash "$root/run_scripts/setup.sh" --for test --build "$build_dir" ${cxx:+--cxx "$cxx"} "${setup[@]}"
bash "$root/run_scripts/get_data.sh"
cd "$build_dir"
if [[ $# -eq 0 && $all -eq 0 ]]; then
  echo "test.sh: the suite without the long tests (labels matching $long): --all runs them too"
  set -- -LE "$long"
fi
ctest --output-on-failure --no-tests=error -j "$(nproc)" "$@" && exit 0
rc=$?
# A long run's log shows its end first: each failed test's first and last lines again, here
# (the lab kit's tests put their verdict first).
awk '/^[0-9]+\/[0-9]+ Test: / { name = substr($0, index($0, ": ") + 2); n = 0 }
     /^<end of output>$/ { out = 0 }
     out { if (n < 3) head[n] = $0; else tail[n % 5] = $0; ++n }
     /^Output:$/ { out = 1; getline }
     /^Test Failed/ { print "--- failed: " name
                      for (i = 0; i < n && i < 3; ++i) print "    " head[i]
                      if (n > 8) print "    [...]"
                      for (i = (n > 8 ? n - 5 : 3); i < n; ++i) print "    " tail[i % 5] }' \
  Testing/Temporary/LastTest.log || true
exit $rc
