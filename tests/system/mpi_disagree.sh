#!/usr/bin/env bash
# Ranks given different options (here by an MPMD launch, rank 0's command line : rank 1's) must
# all stop at start-up: the launcher exits non-zero (1, rank 0's exit code), stderr holds exactly one
# line that names the option and both values, and no MPI error. Before the check, different
# --batch ended in MPI_ERR_TRUNCATE (exit 15), different --epochs hung and different --lr
# trained apart and exited 0. Seconds are printed, not checked (a busy machine is slow); a hang
# is caught by `timeout`.
# Usage: mpi_disagree.sh LENET_MPI DATA_DIR LAUNCH...   (LAUNCH: run_scripts/mpi_launch.sh BUILD_DIR)
set -u
exe=$1 data=$2
shift 2
# --quiet: only the program's own line, and the job ends as soon as a rank exits non-zero.
launch=("$@" --quiet)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../cli/expect.sh"  # report

# disagree FLAG RANK0_VALUE RANK1_VALUE
disagree() {
  local flag=$1 a=$2 b=$3 start=$SECONDS code lines
  local want="the ranks disagree on $flag: $a on rank 0, $b on rank 1"
  timeout 60 "${launch[@]}" -n 1 "$exe" --data "$data" --quiet "$flag" "$a" \
    : -n 1 "$exe" --data "$data" --quiet "$flag" "$b" >"$tmp/out" 2>"$tmp/err"
  code=$?
  lines=$(grep -c . "$tmp/err")
  if [[ $code -eq 0 || $code -eq 124 || $lines -ne 1 ]] || ! grep -qF -- "$want" "$tmp/err" ||
    grep -q "MPI_ERR" "$tmp/out" "$tmp/err"; then
    echo "FAIL different $flag: exit $code after $((SECONDS - start)) s, $lines stderr lines," \
      "wanted one containing '$want' and no MPI_ERR:"
    sed 's/^/    /' "$tmp/err" | head -5
    failures=$((failures + 1))
  else
    echo "ok   different $flag (exit $code, $((SECONDS - start)) s): $(cat "$tmp/err")"
  fi
}

disagree --batch 32 64
disagree --epochs 1 2
disagree --lr 0.1 0.05

report
