#!/usr/bin/env bash
# lenet-mpi-pingpong on this machine's 2 ranks: a short run must print positive latency,
# bandwidth and allreduce figures in the "key = value" lines that bandwidth_sweep.sh reads,
# and bad use must get the usual one-line error.
# Usage: pingpong_test.sh LENET_MPI_PINGPONG LAUNCH...   (LAUNCH: run_scripts/mpi_launch.sh BUILD_DIR)
set -u
exe=$1
shift
launch=("$@" --quiet)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../cli/expect.sh"

expect "unknown flag" "--frobnicate" "${launch[@]}" -n 2 "$exe" --frobnicate
expect "seconds out of range" "--seconds" "${launch[@]}" -n 2 "$exe" --seconds 0
expect "one rank" "2 ranks" "${launch[@]}" -n 1 "$exe"

timeout 60 "${launch[@]}" -n 2 "$exe" --seconds 0.01 >"$tmp/out" 2>&1
code=$?
for key in alpha_us beta_MBps allreduce_us; do
  value=$(sed -n "s/^$key = //p" "$tmp/out")
  if [[ $code -ne 0 ]] || ! awk -v v="$value" 'BEGIN { exit !(v + 0 > 0) }'; then
    echo "FAIL $key: exit $code, value '$value'"
    failures=$((failures + 1))
  else
    echo "ok   $key = $value"
  fi
done
report
