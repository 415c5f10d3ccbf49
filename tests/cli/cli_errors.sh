#!/usr/bin/env bash
# Runs an executable with bad flags and bad files; each must exit non-zero with exactly one line
# on stderr that names the flag or file. Usage: cli_errors.sh EXECUTABLE DATA_DIR [LAUNCHER...]
# (LAUNCHER, e.g. "bash run_scripts/mpi_launch.sh build -n 2", is put in front of the executable.)
set -u
exe=$1 data=$2
shift 2
launch=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
run=("${launch[@]}" "$exe")

# A private copy of the data that each case below may break.
fresh() {
  rm -rf "$tmp/d" && mkdir "$tmp/d" && cp "$data"/* "$tmp/d/"
}

expect "batch 0" "--batch" "${run[@]}" --data "$data" --batch 0
expect "lr nan" "--lr" "${run[@]}" --data "$data" --lr nan
expect "lr negative" "--lr" "${run[@]}" --data "$data" --lr -1
expect "lr not a number" "--lr" "${run[@]}" --data "$data" --lr fast
expect "epochs negative" "--epochs" "${run[@]}" --data "$data" --epochs -1
expect "unknown flag" "--frobnicate" "${run[@]}" --data "$data" --frobnicate
expect "no --data" "--data" "${run[@]}"
expect "missing data dir" "$tmp/none" "${run[@]}" --data "$tmp/none"
expect "train limit too large" "--train-limit" "${run[@]}" --data "$data" --train-limit 1000000

fresh
rm "$tmp/d"/train-labels*
expect "missing label file" "train labels" "${run[@]}" --data "$tmp/d"

fresh
head -c 5000 "$data/train-images-idx3-ubyte" >"$tmp/d/train-images-idx3-ubyte"
expect "truncated IDX" "truncated" "${run[@]}" --data "$tmp/d"

fresh
printf '\x00\x00\x08\x04' | dd of="$tmp/d/train-images-idx3-ubyte" bs=1 count=4 conv=notrunc status=none
expect "wrong magic" "magic" "${run[@]}" --data "$tmp/d"

fresh
printf '\x0b' | dd of="$tmp/d/train-labels-idx1-ubyte" bs=1 seek=10 conv=notrunc status=none
expect "label 11" "label 11" "${run[@]}" --data "$tmp/d"

fresh
head -c 108 "$data/train-labels-idx1-ubyte" >"$tmp/d/train-labels-idx1-ubyte"
printf '\x00\x00\x00\x64' | dd of="$tmp/d/train-labels-idx1-ubyte" bs=1 seek=4 conv=notrunc status=none
expect "image/label count mismatch" "100 labels" "${run[@]}" --data "$tmp/d"

"${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet --save "$tmp/ck" >/dev/null 2>&1
printf '\xff' | dd of="$tmp/ck" bs=1 seek=100 conv=notrunc status=none
expect "bad checkpoint CRC" "CRC" "${run[@]}" --data "$data" --load "$tmp/ck"
expect "missing checkpoint" "$tmp/nope.ck" "${run[@]}" --data "$data" --load "$tmp/nope.ck"
"${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet --save "$tmp/ck.v1" >/dev/null 2>&1

expect "resume from a v1 checkpoint" "no training position" "${run[@]}" --data "$data" --resume "$tmp/ck.v1"
expect "save-every without save" "--save-every" "${run[@]}" --data "$data" --save-every 10
expect "resume and load together" "--resume" "${run[@]}" --data "$data" --resume "$tmp/ck.v1" --load "$tmp/ck.v1"

# Every file named on the command line is checked before any work. before_work NAME TEXT
# ARGS...: a run of 50 epochs with ARGS must fail as expect() demands, before its first epoch (no
# "epoch" line) and having written nothing: its good outputs go to $tmp/w, which must stay empty.
: >"$tmp/file"  # a regular file: a path under it cannot be written, not even by root
before_work() {
  local name=$1 want=$2
  shift 2
  rm -rf "$tmp/w" && mkdir "$tmp/w"
  expect "$name" "$want" "${run[@]}" --epochs 50 "$@"
  if grep -q "^epoch" "$tmp/out" || [[ -n $(ls -A "$tmp/w") ]]; then
    echo "FAIL $name: it trained or wrote first: $(grep -c "^epoch" "$tmp/out") epoch lines," \
      "files: $(ls -A "$tmp/w" | tr '\n' ' ')"
    failures=$((failures + 1))
  fi
}
outputs=(--save "$tmp/w/ck" --csv "$tmp/w/runs.csv")
before_work "--verify missing" "--verify: $tmp/nope.ck" \
  --data "$data" --verify "$tmp/nope.ck" "${outputs[@]}"
before_work "--verify corrupt" "--verify: $tmp/ck" --data "$data" --verify "$tmp/ck" "${outputs[@]}"
before_work "--load missing" "--load: $tmp/nope.ck" --data "$data" --load "$tmp/nope.ck" "${outputs[@]}"
before_work "--resume missing" "--resume: $tmp/nope.ck" \
  --data "$data" --resume "$tmp/nope.ck" --save-every 10 "${outputs[@]}"
before_work "--data missing" "$tmp/none" --data "$tmp/none" "${outputs[@]}"
for flag in --save --csv; do
  before_work "$flag into a missing directory" "$flag: $tmp/none/out" \
    --data "$data" "$flag" "$tmp/none/out"
  before_work "$flag under a regular file" "$flag: $tmp/file/out" --data "$data" "$flag" "$tmp/file/out"
done
before_work "--save-every under a regular file" "--save: $tmp/file/ck" \
  --data "$data" --save-every 1 --save "$tmp/file/ck" --csv "$tmp/w/runs.csv"
expect "--save to a directory" "is a directory" "${run[@]}" --data "$data" --save "$tmp"

report
