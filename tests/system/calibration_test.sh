#!/usr/bin/env bash
# scale_sim.sh --calibration FILE (tests/system/system.cmake): a calibration file written by
# experiments/slurm/calibration.py from a real lenet-serial CSV and ping-pong outputs is the one
# the study uses (its compute per sample in sim.csv, its link in the platform, both named in
# report.md), and --shapes simulates every shape that fills the nodes, with the file's intra-node
# link inside a node; bad files stop the study before any work with one line naming the file.
# Usage: calibration_test.sh BUILD_DIR DATA_DIR     (SKIPPED without lenet-mpi-smpi or smpirun)
set -uo pipefail
build=$1 data=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
[[ -x $build/backend_mpi/lenet-mpi-smpi ]] || { echo "SKIPPED: lenet-mpi-smpi not built"; exit 77; }
command -v smpirun >/dev/null || { echo "SKIPPED: smpirun not found (libsimgrid-dev)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$here/../cli/expect.sh"
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
calibration=(python3 "$root/experiments/slurm/calibration.py")
scale_sim=(bash "$root/experiments/scale_sim.sh" --build "$build" --max-ranks 4
  --algorithms rdb --steps 2 --data "$data")
# csv_rows FILE COLUMN...: the study's CSVs read by column name, by reports/runs.py through
# lib.sh (sourced in a subshell: its report() is not expect.sh's).
csv_rows() { (PROG=calibration_test.sh && source "$root/run_scripts/lib.sh" && csv_rows "$@"); }

# Three compute runs (their time per sample is what the file keeps) and a 2-node link of 25 us
# and 1,000 MB/s, as lenet-mpi-pingpong prints them.
for _ in 1 2 3; do
  "$build/backend_serial/lenet-serial" --data "$data" --quiet --csv "$tmp/compute.csv" >/dev/null ||
    fail "lenet-serial --csv"
done
cat >"$tmp/inter.txt" <<EOF
ranks = 2
alpha_us = 25.000
beta_MBps = 1000.000
allreduce_bytes = 9376
allreduce_us = 61.000
allreduce_median_us = 60.000
EOF
sed -e 's/^alpha_us = .*/alpha_us = 0.400/' -e 's/^beta_MBps = .*/beta_MBps = 5000.000/' \
  "$tmp/inter.txt" >"$tmp/intra.txt"
"${calibration[@]}" write --out "$tmp/cal.json" --compute "$tmp/compute.csv" \
  --inter "$tmp/inter.txt" --intra "$tmp/intra.txt" --job test >/dev/null ||
  fail "calibration.py write"
sample=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["compute"]["sample_us_min"])' \
  "$tmp/cal.json")

if "${scale_sim[@]}" --calibration "$tmp/cal.json" --out "$tmp/study" >"$tmp/log" 2>&1; then
  # Every row simulated the calibrated platform with the file's compute per sample.
  rows=$(csv_rows "$tmp/study/sim.csv" platform sample_us | grep -vFx "calibrated $sample")
  [[ -z $rows && $(wc -l <"$tmp/study/sim.csv") -gt 1 ]] ||
    fail "sim.csv does not use the calibration ($sample us, platform calibrated): $rows"
  grep -q 'bw="1000MBps" lat="12.5us"' "$tmp/study/calibrated.xml" ||
    fail "calibrated.xml is not the file's link (25 us, 1000 MB/s host to host)"
  grep -q "The calibration used" "$tmp/study/report.md" &&
    grep -q "$sample us per" "$tmp/study/report.md" ||
    fail "report.md does not say which calibration it used"
  echo "ok   the study used $tmp/cal.json: $sample us per sample, 25 us and 1000 MB/s"
else
  tail -n 5 "$tmp/log"
  fail "scale_sim.sh --calibration"
fi

# Shapes of nodes with 4 cores, up to 8 ranks, B = 32: 1 x 4, 2 x 2 and 4 x 1 per node, each
# on 1, 2, 4 ... nodes while the ranks are at most 8: 4 + 3 + 2 rows.
if "${scale_sim[@]}" --calibration "$tmp/cal.json" --shapes --cores-per-node 4 --max-ranks 8 \
  --shape-batches 32 --out "$tmp/shapes" >"$tmp/log" 2>&1; then
  shapes=$(csv_rows "$tmp/shapes/shapes.csv" nodes ranks_per_node threads | tr ' ' x | sort |
    paste -sd' ')
  [[ $shapes == "1x1x4 1x2x2 1x4x1 2x1x4 2x2x2 2x4x1 4x1x4 4x2x2 8x1x4" ]] ||
    fail "--shapes simulated '$shapes' (nodes x ranks per node x threads)"
  grep -q 'core="4" loopback_bw="5000MBps" loopback_lat="0.2us"' "$tmp/shapes/shapes.xml" ||
    fail "--shapes: the node is not 4 cores with the file's intra-node link"
  grep -q "^Fastest: " "$tmp/shapes/shapes.md" && [[ -s $tmp/shapes/shapes-32.png ]] ||
    fail "--shapes: no fastest shape in shapes.md, or no shapes-32.png"
  echo "ok   --shapes: $shapes; $(grep '^Fastest' "$tmp/shapes/shapes.md" | cut -c1-90)"
else
  tail -n 5 "$tmp/log"
  fail "scale_sim.sh --shapes"
fi

# Bad files: one line naming the file, exit 2, no output folder.
echo '{"calibration": 1, "compute": {}}' >"$tmp/empty.json"
echo 'not json' >"$tmp/text.json"
sed 's/"calibration": 1/"calibration": 7/' "$tmp/cal.json" >"$tmp/v7.json"
expect "a file without figures" "empty.json: needs compute.sample_us_min" \
  "${scale_sim[@]}" --calibration "$tmp/empty.json" --out "$tmp/no1"
expect "a file that is not JSON" "text.json: not JSON" \
  "${scale_sim[@]}" --calibration "$tmp/text.json" --out "$tmp/no2"
expect "another version" "v7.json: not a calibration file of version 1" \
  "${scale_sim[@]}" --calibration "$tmp/v7.json" --out "$tmp/no3"
expect "no such file" "--calibration: no file $tmp/none.json" \
  "${scale_sim[@]}" --calibration "$tmp/none.json" --out "$tmp/no4"
for d in no1 no2 no3 no4; do [[ ! -e $tmp/$d ]] || fail "a refused study left $tmp/$d"; done
# A ping-pong of 4 ranks is not the 2-rank measurement the file needs.
sed 's/^ranks = 2/ranks = 4/' "$tmp/inter.txt" >"$tmp/four.txt"
expect "a 4-rank ping-pong" "four.txt: a run on 4 ranks, expected 2" \
  "${calibration[@]}" write --out "$tmp/x.json" --compute "$tmp/compute.csv" --inter "$tmp/four.txt"
[[ ! -e $tmp/x.json ]] || fail "a refused write left x.json"
report
