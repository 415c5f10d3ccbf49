#!/usr/bin/env bash
# An installed copy's sweeps run on their own (docs/sweeps.md): `cmake --install BUILD --prefix P`
# puts omp_sweep.sh and mpi_sweep.sh in P/share/lenet-parallel/experiments. Started from another
# folder with only --data, each must find P/bin's programs, write its report under ./results and
# show the parallel program's point at 2 workers beside serial's. mpi_sweep.sh runs where
# lenet-mpi is installed.
# Usage: installed_sweeps.sh BUILD DATA
set -uo pipefail
build=$1 data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}

if ! timeout -k 5 120 cmake --install "$build" --prefix "$tmp/p" >"$tmp/install.log" 2>&1; then
  tail -5 "$tmp/install.log"
  fail "cmake --install $build failed"
fi
share=$tmp/p/share/lenet-parallel
mkdir "$tmp/work"
cd "$tmp/work" || exit 1

# sweep NAME ROW ARGS...: runs the installed NAME.sh from $tmp/work; its report must exist and
# hold the row ROW (an extended regular expression: the parallel point at 2 workers, 3 runs) with
# a serial baseline.
sweep() {
  local name=$1 row=$2
  shift 2
  echo "running the installed $name.sh $*"
  if ! timeout -k 10 300 bash "$share/experiments/$name.sh" --data "$data" --repeats 3 \
    --batches 4 "$@" >"$tmp/$name.log" 2>&1; then
    tail -5 "$tmp/$name.log"
    fail "the installed $name.sh failed"
  fi
  local report
  report=$(ls "$tmp"/work/results/"${name%_sweep}"-*/report.md 2>/dev/null | head -1)
  [[ -n $report ]] || fail "$name.sh wrote no results/${name%_sweep}-DATE/report.md in the folder it ran from"
  grep -qE "$row" "$report" || fail "$report has no row '$row'"
  ! grep -q "no baseline" "$report" || fail "$report has a point without its serial baseline"
  echo "ok: $report: $(grep -E "$row" "$report")"
}

sweep omp_sweep "^\| openmp batch ref, B = 4 \| 2 \| 3 \|" --max 2 --strategies batch --kernels ref
if [[ -x $tmp/p/bin/lenet-mpi ]]; then
  sweep mpi_sweep "^\| mpi .*, B = 4 \| 2 \| 3 \|" --ranks 1,2
else
  echo "lenet-mpi is not installed: mpi_sweep.sh not run"
fi
