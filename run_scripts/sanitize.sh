#!/usr/bin/env bash
# The serial and OpenMP test suites under AddressSanitizer + UndefinedBehaviorSanitizer
# (docs/reliability.md). Builds only what those suites run, in build-asan/ by default.
# Usage: run_scripts/sanitize.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$root/build-asan}
start=$SECONDS

# -O2 -g: line numbers in the reports. CUDA and MPI are off: the sanitizers check host code, and
# the MPI library's own allocations would drown the leak report.
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLENET_SANITIZE=ON \
  -DLENET_CUDA=OFF -DLENET_MPI=OFF | grep 'lenet:'

# The executables the "serial" and "openmp" tests run, where this checkout has them.
available=$(cmake --build "$build" --target help)
targets=()
for t in lenet_tests lenet_regression_tests lenet-serial lenet_openmp_tests lenet-openmp; do
  if grep -qE "(^|\.\.\. )$t(:|\$)" <<<"$available"; then targets+=("$t"); fi
done
echo "sanitize.sh: building ${targets[*]}"
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"

# Any report fails the test that triggered it: ASan and UBSan stop at the first error
# (-fno-sanitize-recover), and LeakSanitizer makes the process exit non-zero. Left out: the
# accuracy and kill-and-resume runs (minutes of training on the real data sets, 10x slower
# under ASan, through code the other tests already cover).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
ctest --test-dir "$build" -L "serial|openmp" -LE "accuracy|reliability" --output-on-failure \
  -j "$(nproc)"
echo "sanitize.sh: passed in $((SECONDS - start)) s"
