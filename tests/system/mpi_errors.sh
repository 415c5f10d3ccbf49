#!/usr/bin/env bash
# lenet-mpi's own failures on 2 ranks: each run must stop every rank within seconds, exit
# non-zero and print exactly one line on stderr (from one rank) that names the problem. A rank
# that fails alone must not leave the others waiting in a collective.
# Usage: mpi_errors.sh LENET_MPI DATA_DIR LAUNCH...   (LAUNCH: run_scripts/mpi_launch.sh BUILD_DIR)
set -u
exe=$1 data=$2
shift 2
launch=("$@")
# --quiet: no text from the launcher about the non-zero exit, only the program's own line.
on_2_ranks=("${launch[@]}" --quiet -n 2)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/../cli/expect.sh"

# Rank 1 reads its data from $2, every other rank from $1. (A rank's number: Open MPI sets
# OMPI_COMM_WORLD_RANK, Hydra PMI_RANK.)
rank1_data=("${on_2_ranks[@]}" bash -c \
  'if [[ ${OMPI_COMM_WORLD_RANK:-$PMI_RANK} == 1 ]]; then d=$2; else d=$1; fi; exec "$0" --data "$d"' "$exe")

expect "rank 1 cannot read its data" "/nonexistent" "${rank1_data[@]}" "$data" /nonexistent

cp -r "$data" "$tmp/other"
printf '\x07' | dd of="$tmp/other/train-labels-idx1-ubyte" bs=1 seek=20 conv=notrunc status=none
expect "rank 1 loaded other labels" "different data" "${rank1_data[@]}" "$data" "$tmp/other"

expect "batch smaller than the ranks" "--batch" "${on_2_ranks[@]}" "$exe" --data "$data" --batch 1
expect "threads 0" "--threads" "${on_2_ranks[@]}" "$exe" --data "$data" --threads 0
expect "unknown kernels" "--kernels" "${on_2_ranks[@]}" "$exe" --data "$data" --kernels nope

# A rank killed mid-run (SIGKILL, as by the out-of-memory killer): the launcher must end the
# whole job within seconds, exit non-zero and say that a rank died of signal 9 (its own message:
# the dead rank cannot print one; Open MPI names the rank, Hydra its PID), and no rank may be
# left running.
if [[ $("${launch[@]}" --family) == openmpi ]]; then said="rank 1.*signal 9"; else said="Killed (signal 9)"; fi
killed_run() {
  local start=$SECONDS code
  timeout 30 "${launch[@]}" -n 2 bash -c \
    'echo $$ >"$1/rank${OMPI_COMM_WORLD_RANK:-$PMI_RANK}.pid"; exec "$0" --data "$2" --epochs 1000000 --batch 2 --quiet' \
    "$exe" "$tmp" "$data" >"$tmp/out" 2>"$tmp/err" &
  local job=$!
  for _ in $(seq 200); do [[ -s $tmp/rank1.pid && -s $tmp/rank0.pid ]] && break; sleep 0.05; done
  sleep 1  # well into training
  start=$SECONDS
  kill -KILL "$(cat "$tmp/rank1.pid")"
  wait "$job"
  code=$?
  # Rank 0 may take a moment to go after the launcher (it is told to stop, then reaped).
  for _ in $(seq 50); do kill -0 "$(cat "$tmp/rank0.pid")" 2>/dev/null || break; sleep 0.1; done
  local seconds=$((SECONDS - start))
  if [[ $code -eq 0 || $code -eq 124 || $seconds -gt 10 ]] || ! grep -q "$said" "$tmp/out" "$tmp/err" ||
    kill -0 "$(cat "$tmp/rank0.pid")" 2>/dev/null; then
    echo "FAIL rank 1 killed mid-run: exit $code after $seconds s, rank 0 $(kill -0 "$(cat "$tmp/rank0.pid")" 2>/dev/null && echo still running || echo gone):"
    cat "$tmp/out" "$tmp/err" | sed 's/^/    /' | head -12
    failures=$((failures + 1))
  else
    echo "ok   rank 1 killed mid-run (exit $code, $seconds s): $(cat "$tmp/out" "$tmp/err" | grep -m1 "$said")"
  fi
}
killed_run

report
