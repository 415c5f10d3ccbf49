#!/usr/bin/env bash
# The serial and OpenMP test suites under AddressSanitizer + UndefinedBehaviorSanitizer
# (docs/reliability.md). Builds only what those suites run.
# Usage: run_scripts/sanitize.sh [--build DIR]
#   --build DIR  where to build (default: build-asan, CMakePresets.json's asan)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="sanitize.sh"
source "$root/run_scripts/lib.sh"
build=$root/build-asan
while [[ $# -gt 0 ]]; do
  case $1 in
    --build) need "$@"; build=$(realpath -m "$2"); shift 2 ;;
    -h|--help) sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
start=$SECONDS

# The preset asan: -O2 -g (RelWithDebInfo), line numbers in the reports. CUDA and MPI are off:
# the sanitizers check host code, and the MPI library's own allocations would drown the leak
# report.
cmake --preset asan -S "$root" -B "$build" | grep 'lenet:'

# The executables the "serial" and "openmp" tests run, where this checkout has them.
available=$(cmake --build "$build" --target help)
targets=()
for t in lenet_tests lenet_regression_tests lenet-serial lenet_openmp_tests lenet-openmp; do
  if grep -qE "(^|\.\.\. )$t(:|\$)" <<<"$available"; then targets+=("$t"); fi
done
say "building ${targets[*]}"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

# Any report fails the test that triggered it: ASan and UBSan stop at the first error
# (-fno-sanitize-recover), and LeakSanitizer makes the process exit non-zero. Left out: the
# accuracy and kill-and-resume runs (minutes of training on the real data sets, 10x slower
# under ASan, through code the other tests already cover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
ctest --test-dir "$build" -L "serial|openmp" -LE "accuracy|reliability" --output-on-failure \
  -j "$(nproc)"
say "passed in $((SECONDS - start)) s"
