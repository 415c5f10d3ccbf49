#!/usr/bin/env bash
# The summary block says what happened, through a real executable:
#   - `--quiet --timing` prints the summary block and nothing else;
#   - lenet-mpi's block has the per-step compute and communication lines and "Ranks agree"
#     (docs/strategies.md), read from a real mpirun run.
# Usage: summary.sh EXECUTABLE DATA_DIR [LAUNCHER...]
set -u
exe=$1 data=$2
shift 2
launch=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
ok() { echo "ok   $*"; }

"${launch[@]}" "$exe" --data "$data" --quiet --timing >"$tmp/out" 2>"$tmp/err" || fail "the run failed"
first=$(grep -m1 . "$tmp/out")
if [[ $first != *"= lenet-parallel ="* ]] || grep -q "Per-layer" "$tmp/out"; then
  fail "--quiet --timing printed more than the summary; its first line: $first"
else
  ok "--quiet --timing: the summary block only"
fi

if [[ $(basename "$exe") == lenet-mpi ]]; then
  for key in "Compute per step (ms)" "Comm per step (ms)" "Comm / compute" "Ranks agree"; do
    line=$(grep -F " $key " "$tmp/out")
    [[ -n $line ]] && ok "lenet-mpi: $line" || fail "lenet-mpi: no '$key' line in the summary"
  done
  grep -q "Ranks agree .*= yes" "$tmp/out" || fail "lenet-mpi: the ranks do not agree"
fi

echo "$failures failed"
[[ $failures -eq 0 ]]
