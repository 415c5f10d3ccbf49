#!/usr/bin/env bash
# Runs an executable with bad flags and bad files; each must exit non-zero with exactly one line
# on stderr that names the flag or file. Usage: cli_errors.sh EXECUTABLE DATA_DIR [LAUNCHER...]
# (LAUNCHER, e.g. "mpirun -np 2 ...", is put in front of the executable.)
set -u
exe=$1 data=$2
shift 2
launch=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect NAME EXPECTED_TEXT ARGS...: run, check exit code, stderr line count and content.
expect() {
  local name=$1 want=$2
  shift 2
  "${launch[@]}" "$exe" "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$? lines
  lines=$(grep -c . "$tmp/err")
  if [[ $code -eq 0 || $lines -ne 1 ]] || ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL $name: exit $code, $lines stderr lines, wanted one containing '$want':"
    sed 's/^/    /' "$tmp/err" | head -5
    failures=$((failures + 1))
  else
    echo "ok   $name (exit $code): $(cat "$tmp/err")"
  fi
}

# A private copy of the data that each case below may break.
fresh() {
  rm -rf "$tmp/d" && mkdir "$tmp/d" && cp "$data"/* "$tmp/d/"
}

expect "batch 0" "--batch" --data "$data" --batch 0
expect "lr nan" "--lr" --data "$data" --lr nan
expect "lr negative" "--lr" --data "$data" --lr -1
expect "lr not a number" "--lr" --data "$data" --lr fast
expect "epochs negative" "--epochs" --data "$data" --epochs -1
expect "unknown flag" "--frobnicate" --data "$data" --frobnicate
expect "no --data" "--data"
expect "missing data dir" "$tmp/none" --data "$tmp/none"
expect "train limit too large" "--train-limit" --data "$data" --train-limit 1000000

fresh
rm "$tmp/d"/train-labels*
expect "missing label file" "train labels" --data "$tmp/d"

fresh
head -c 5000 "$data/train-images-idx3-ubyte" >"$tmp/d/train-images-idx3-ubyte"
expect "truncated IDX" "truncated" --data "$tmp/d"

fresh
printf '\x00\x00\x08\x04' | dd of="$tmp/d/train-images-idx3-ubyte" bs=1 count=4 conv=notrunc status=none
expect "wrong magic" "magic" --data "$tmp/d"

fresh
printf '\x0b' | dd of="$tmp/d/train-labels-idx1-ubyte" bs=1 seek=10 conv=notrunc status=none
expect "label 11" "label 11" --data "$tmp/d"

fresh
head -c 108 "$data/train-labels-idx1-ubyte" >"$tmp/d/train-labels-idx1-ubyte"
printf '\x00\x00\x00\x64' | dd of="$tmp/d/train-labels-idx1-ubyte" bs=1 seek=4 conv=notrunc status=none
expect "image/label count mismatch" "100 labels" --data "$tmp/d"

"${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet --save "$tmp/ck" >/dev/null 2>&1
printf '\xff' | dd of="$tmp/ck" bs=1 seek=100 conv=notrunc status=none
expect "bad checkpoint CRC" "CRC" --data "$data" --load "$tmp/ck"
expect "missing checkpoint" "$tmp/nope.ck" --data "$data" --load "$tmp/nope.ck"
"${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet --save "$tmp/ck.v1" >/dev/null 2>&1

expect "resume from a v1 checkpoint" "no training position" --data "$data" --resume "$tmp/ck.v1"
expect "save-every without save" "--save-every" --data "$data" --save-every 10
expect "resume and load together" "--resume" --data "$data" --resume "$tmp/ck.v1" --load "$tmp/ck.v1"

echo "$failures failed"
[[ $failures -eq 0 ]]
