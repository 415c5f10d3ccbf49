#!/usr/bin/env bash
# experiments/epoch_budget.sh: bad flags and data fail with one line naming them; one round on
# the test data prints, for each kernels asked, the bench's prediction, the epoch and their
# ratio (what is printed, not how close: that is a measurement, docs/performance.md).
# Usage: epoch_budget.sh SOURCE_DIR BUILD_DIR DATA_DIR
set -u
src=$1 build=$2 data=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
script=(bash "$src/experiments/epoch_budget.sh" --build "$build")

expect "rounds 0" "--rounds" "${script[@]}" --data "$data" --rounds 0
expect "unknown kernels" "--kernels: 'fast'" "${script[@]}" --data "$data" --kernels fast
expect "no data" "--data $tmp/none" "${script[@]}" --data "$tmp/none"
expect "no build" "--build $tmp" bash "$src/experiments/epoch_budget.sh" --build "$tmp"
expect "unknown flag" "--frobnicate" "${script[@]}" --frobnicate

timeout -k 5 300 "${script[@]}" --data "$data" --rounds 1 --kernels ref,lanes >"$tmp/out" 2>&1
code=$?
for v in ref lanes; do
  # kernels, bench ns, predicted s, epoch s, ratio: four positive numbers
  if [[ $code -ne 0 ]] ||
    ! grep -qE "^  $v +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+x$" "$tmp/out"; then
    echo "FAIL a round with --kernels ref,lanes (exit $code): no row for $v:"
    sed 's/^/    /' "$tmp/out" | tail -6
    failures=$((failures + 1))
  else
    echo "ok   $v: $(grep -E "^  $v " "$tmp/out")"
  fi
done
report
