#!/usr/bin/env bash
# Trains on a real data set and checks the test accuracy against a floor measured with an
# independent PyTorch model of the same network (docs/network.md, "Defaults").
# Usage: accuracy.sh DATA_DIR MIN_PERCENT COMMAND... ; exits 77 (SKIPPED) without the data.
set -u
data=$1 min=$2
shift 2
if [[ ! -d $data ]]; then
  echo "SKIPPED: no data in $data (run run_scripts/get_data.sh)"
  exit 77
fi
out=$("$@" --data "$data" --quiet) || { echo "$out"; echo "FAIL: the run failed"; exit 1; }
acc=$(awk -F'= ' '/Test accuracy/ {print $2}' <<<"$out")
echo "test accuracy $acc% (floor $min%)"
awk -v a="$acc" -v m="$min" 'BEGIN { exit !(a >= m) }'
