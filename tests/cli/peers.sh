#!/usr/bin/env bash
# A peer (peers/: the network in another library) on the real digits: its parameters start as
# the spec's (the test loss before training equals lenet-serial's), one epoch learns (accuracy
# well above chance), the summary and the CSV row say what ran and that nothing was verified,
# and bad input is one line and a non-zero exit.
# Usage: peers.sh PEER_EXE BACKEND_NAME SERIAL_EXE DATA_DIR MIN_PERCENT
# Exits 77 (SKIPPED) when the peer was not built or the data is absent.
set -u
PROG="peers.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../../run_scripts/lib.sh" # csv_get
exe=$1 name=$2 serial=$3 data=$4 min=$5
[[ -x $exe ]] || { echo "SKIPPED: $exe not built (its library was not found at configure time)"; exit 77; }
[[ -d $data ]] || { echo "SKIPPED: no data in $data (run run_scripts/get_data.sh)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
value() { awk -F' += ' -v k="$1" '{ sub(/^ /, "", $1) } $1 == k { print $2 }' <<<"$2"; }

# The same initial function: every layer the library holds starts from the spec's values.
theirs=$("$exe" --data "$data" --epochs 0 --test-limit 500 --quiet) || fail "--epochs 0 failed"
ours=$("$serial" --data "$data" --epochs 0 --test-limit 500 --quiet) || fail "lenet-serial failed"
a=$(value "Test loss" "$theirs") b=$(value "Test loss" "$ours")
echo "test loss before training: $a ($name), $b (lenet-serial)"
awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; exit !(a != "" && (d < 0 ? -d : d) <= 1e-4) }' ||
  fail "the initial parameters differ from the spec's"

# One epoch at B = 8, lr 0.3 (docs/network.md's rate for that batch).
out=$("$exe" --data "$data" --batch 8 --lr 0.3 --csv "$tmp/runs.csv" --quiet) || { echo "$out"; fail "the run failed"; }
[[ $(value Backend "$out") == "$name" ]] || fail "Backend is not $name"
[[ $(value Verification "$out") == "NOT PERFORMED (not comparable bit for bit"* ]] ||
  fail "Verification does not say NOT PERFORMED (not comparable bit for bit)"
t=$(value "Time per epoch (s)" "$out") acc=$(value "Test accuracy (%)" "$out")
echo "1 epoch: $t s, test accuracy $acc% (floor $min%)"
awk -v t="$t" 'BEGIN { exit !(t > 0) }' || fail "no training time"
awk -v a="$acc" -v m="$min" 'BEGIN { exit !(a >= m) }' || fail "accuracy $acc% < $min%"
row_backend=$(csv_get "$tmp/runs.csv" backend) row_verification=$(csv_get "$tmp/runs.csv" verification)
[[ $row_backend == "$name" && $row_verification == "NOT PERFORMED" ]] ||
  fail "CSV row: backend '$row_backend', verification '$row_verification'"

# Bad input: one line naming the flag, exit 2.
err=$("$exe" --data "$data" --lr nan 2>&1 >/dev/null)
code=$?
[[ $code -eq 2 && $(wc -l <<<"$err") -eq 1 && $err == *--lr* ]] || fail "--lr nan: exit $code, '$err'"
echo "PASS"
