#!/usr/bin/env bash
# Kill-and-resume and divergence, through a real executable (docs/reliability.md).
#   1. a run killed with SIGKILL mid-epoch and resumed with --resume ends bit-identical
#      (same parameter CRC-32) to an uninterrupted run;
#   2. a run whose loss becomes NaN stops with exit code 3 naming the epoch and step, and
#      leaves the --save file as it was.
# Usage: reliability.sh DATA_DIR EXECUTABLE [LAUNCHER...]; SKIPPED (77) without the data.
set -u
data=$1 exe=$2
shift 2
launch=("$@")
[[ -d $data ]] || { echo "SKIPPED: no data in $data (run run_scripts/get_data.sh)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
crc() { awk -F'= ' '/Param CRC-32/ {print $2}' "$1"; }

# B = 2 (one sample per rank on 2 MPI ranks) with the readable kernels. RELIABILITY_IMAGES (the
# MPI test takes fewer: each step is an allreduce, slow when another process holds a core).
images=${RELIABILITY_IMAGES:-20000}
steps=$((images / 2))
args=(--data "$data" --train-limit "$images" --batch 2 --lr 0.05 --kernels ref --quiet)

"${launch[@]}" "$exe" "${args[@]}" --epochs 2 >"$tmp/full.txt" || fail "the uninterrupted run failed"
want=$(crc "$tmp/full.txt")

# The interrupted run. It is asked for many epochs, so that it cannot end before it is killed however the machine
# schedules this script; its first checkpoint comes in the middle of epoch 2 and the next one
# 1.5 epochs later, so the kill always lands between the two, and the run resumed with
# --epochs 2 (the epoch count is not part of what must match) ends where the full run ended.
"${launch[@]}" "$exe" "${args[@]}" --epochs 1000 --save "$tmp/ck" \
  --save-every $((steps * 3 / 2)) >/dev/null 2>&1 &
pid=$!
# Wait for the event, the first checkpoint, however long a busy machine takes (CTest's timeout
# ends a hung run); the file appears only once complete (written aside, then renamed).
while [[ ! -f $tmp/ck ]] && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
[[ -f $tmp/ck ]] || fail "the run ended without writing a checkpoint"
# SIGKILL to every process of the run at once (the MPI launcher and each rank: their command
# lines hold this test's private path); a rank that outlived the launcher could write another
# checkpoint.
pkill -KILL -f -- "$tmp/ck"
wait "$pid" 2>/dev/null
echo "killed the run after its first checkpoint"

"${launch[@]}" "$exe" "${args[@]}" --epochs 2 --resume "$tmp/ck" >"$tmp/resumed.txt" ||
  fail "resume failed"
got=$(crc "$tmp/resumed.txt")
echo "uninterrupted CRC $want, killed and resumed CRC $got"
[[ -n $want && $want == "$got" ]] || fail "the resumed run is not bit-identical"
# The resumed run says where it started and times only the epochs it trained.
grep -q "Start .*= resumed from $tmp/ck (epoch" "$tmp/resumed.txt" || fail "no 'Start = resumed from'"
trained=$(sed -n 's/.*Epochs .*(\([0-9.]*\) trained by this run).*/\1/p' "$tmp/resumed.txt")
echo "the resumed run trained ${trained:-?} of 2 epochs"
awk -v t="${trained:-2}" 'BEGIN { exit !(t > 0 && t < 2) }' || fail "Epochs does not say what it trained"

# Divergence: a checkpoint whose W1 holds NaN makes the first loss NaN.
"${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet --save "$tmp/good.ck" >/dev/null ||
  fail "could not write a checkpoint"
python3 - "$tmp/good.ck" "$tmp/nan.ck" <<'PY'
import struct, sys, zlib
raw = bytearray(open(sys.argv[1], "rb").read())
raw[12:16] = struct.pack("<f", float("nan"))          # the first parameter, W1[0][0][0]
raw[-4:] = struct.pack("<I", zlib.crc32(raw[:-4]))
open(sys.argv[2], "wb").write(raw)
PY
cp "$tmp/good.ck" "$tmp/kept.ck"
"${launch[@]}" "$exe" --data "$data" --train-limit 1000 --load "$tmp/nan.ck" --save "$tmp/kept.ck" \
  --quiet >/dev/null 2>"$tmp/err"
code=$?
echo "NaN run: exit $code: $(cat "$tmp/err")"
[[ $code -eq 3 ]] || fail "expected exit code 3"
grep -q "diverged in epoch 1 at step 1" "$tmp/err" || fail "the message does not name epoch and step"
cmp -s "$tmp/good.ck" "$tmp/kept.ck" || fail "the last good checkpoint was overwritten"
echo "1 passed, 0 failed"
