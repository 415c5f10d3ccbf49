#!/usr/bin/env bash
# The summary block says what happened, through a real executable:
#   - `--quiet --timing` prints the summary block and nothing else;
#   - lenet-mpi's block has the per-step compute and communication lines and "Ranks agree"
#     (docs/strategies.md), read from a real run on ranks;
#   - lenet-openmp says how many threads had work, warns when threads exceed the cores or the
#     batch's chunks, and says when --strategy layer takes the ref kernels.
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
  # One clean line naming the library (MPICH's version string holds a tab).
  library=$(grep -F " MPI library " "$tmp/out")
  [[ $library =~ "= "[^[:space:]].*[^[:space:]]$ && $library != *$'\t'* ]] &&
    ok "lenet-mpi: $library" || fail "lenet-mpi: the MPI library line is '$library'"
fi

if [[ $(basename "$exe") == lenet-openmp ]]; then
  # B = 32 is two chunks of 16 samples: of 4 threads, 2 have work.
  "$exe" --data "$data" --quiet --threads 4 --batch 32 >"$tmp/out" 2>"$tmp/err"
  grep -q "Threads .*= 4 asked, 2 had work" "$tmp/out" && ok "--threads 4 at B = 32: 2 had work" ||
    fail "--threads 4 at B = 32: $(grep "Threads " "$tmp/out")"
  grep -q "warning: .*2 thread(s) will work" "$tmp/err" && ok "warned: $(grep chunk "$tmp/err")" ||
    fail "no warning about threads without chunks"
  many=$(($(nproc) + 1))
  "$exe" --data "$data" --quiet --threads "$many" --batch 256 >"$tmp/out" 2>"$tmp/err"
  grep -q "warning: --threads $many but this process may use" "$tmp/err" &&
    ok "warned: $(grep core "$tmp/err")" || fail "no warning for $many threads on $(nproc) cores"
  # Bound threads (the OpenMP runtime pins the main thread before main()) still see every core.
  # (Without OMP_WAIT_POLICY, so that lenet-openmp restarts itself with a bounded spin.)
  env -u OMP_WAIT_POLICY OMP_PROC_BIND=close OMP_PLACES=cores "$exe" --data "$data" --quiet \
    --threads "$(nproc)" \
    --batch 256 >"$tmp/out" 2>"$tmp/err"
  grep -q "core(s)" "$tmp/err" && fail "OMP_PROC_BIND=close: $(cat "$tmp/err")" ||
    ok "OMP_PROC_BIND=close, --threads $(nproc): no false warning"
  "$exe" --data "$data" --threads 2 --strategy layer >"$tmp/out" 2>"$tmp/err"
  grep -q "strategy layer runs the ref kernels" "$tmp/out" && grep -q "Kernels .*= ref" "$tmp/out" &&
    ok "--strategy layer says it runs ref" || fail "--strategy layer switched kernels silently"
fi

echo "$failures failed"
[[ $failures -eq 0 ]]
