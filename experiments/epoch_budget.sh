#!/usr/bin/env bash
# epoch_budget.sh: does lenet-serial's epoch run at its kernels' rate? For each kernel variant,
# the bench's prediction (lenet-bench-layers: sample/VARIANT + reduce/B32 + update/B32, in ns a
# sample, times the training images) against the epoch that lenet-serial reports, in turn,
# --rounds times (interleaved, so that a change in load falls on both alike); prints medians
# and measured / predicted (issue 50's target: within 5%). See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="epoch_budget.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/epoch_budget.sh [--rounds N] [--data DIR] [--kernels LIST] [--build DIR] [--record]

  --rounds N      rounds of one epoch per variant and one bench run (default: 5)
  --data DIR      MNIST-format data (default: data/fashion; bash run_scripts/get_data.sh)
  --kernels LIST  kernel variants, comma-separated (default: every variant lenet-serial has)
  --build DIR     the CMake build directory (default: build)
  --record        add each variant's medians to docs/data/epoch_budget.csv (date, machine,
                  load, commit, command)
  -h, --help      this help
EOF
}

rounds=5 data=data/fashion kernels="" build=build record=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) need "$@"; positive "$1" "$2"; rounds=$2; shift 2 ;;
    --data) need "$@"; data=$2; shift 2 ;;
    --kernels) need "$@"; kernels=$2; shift 2 ;;
    --build) need "$@"; build=$2; shift 2 ;;
    --record) record=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
cd "$REPO_ROOT"
serial=$build/backend_serial/lenet-serial bench=$build/bench/lenet-bench-layers
[[ -x $serial ]] || die "--build $build: no backend_serial/lenet-serial (bash run_scripts/setup.sh)"
[[ -x $bench ]] || die "--build $build: no bench/lenet-bench-layers (bash run_scripts/setup.sh)"
images=$data/train-images-idx3-ubyte
[[ -f $images ]] || images+=.gz
[[ -f $images ]] || die "--data $data: no train-images-idx3-ubyte(.gz) (bash run_scripts/get_data.sh)"
have=$(kernels_of "$serial")
[[ -n $kernels ]] || kernels=$have
IFS=, read -ra variants <<<"$kernels"
for v in "${variants[@]}"; do
  [[ ,$have, == *,$v,* ]] || die "--kernels: '$v' is not one of lenet-serial's ($have)"
done
# The image count: bytes 4 to 7 of the IDX header, big-endian.
n=$( (gzip -cdf "$images" 2>/dev/null || true) | od -An -j4 -N4 -tu1 | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$(printf '%s|' "${variants[@]/#/sample/}")
filter="^(${rows}reduce/B32|update/B32)\$"
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start_utc=$(date -u +%H:%MZ)
for ((r = 1; r <= rounds; ++r)); do
  for v in "${variants[@]}"; do
    out=$(timeout -k 10 600 "$serial" --kernels "$v" --data "$data" --epochs 1 --batch 32 --quiet) ||
      die "lenet-serial --kernels $v failed in round $r"
    s=$(sed -n 's/^ *Time per epoch (s) *= *//p' <<<"$out")
    [[ -n $s ]] || die "lenet-serial --kernels $v printed no 'Time per epoch' in round $r"
    echo "epoch $v $s" >>"$tmp/runs.txt"
  done
  timeout -k 10 600 "$bench" --benchmark_filter="$filter" --benchmark_format=json \
    >"$tmp/bench.json" 2>/dev/null || die "lenet-bench-layers failed in round $r"
  python3 - "$tmp/bench.json" >>"$tmp/runs.txt" <<'PY' || die "the bench's JSON had no ns/sample"
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    print("bench", b["name"], b["ns/sample"])
PY
  say "round $r of $rounds done"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# of KEY NAME: the runs' values for NAME, one a line (for lib.sh's median).
of() { awk -v k="$1" -v n="$2" '$1 == k && $2 == n { print $3 }' "$tmp/runs.txt"; }
reduce=$(of bench reduce/B32 | median) update=$(of bench update/B32 | median)
say "medians of $rounds interleaved rounds, B = 32, $n images of $data; load average $load_start at the start, $load_end at the end"
printf '  %-7s %12s %12s %12s %8s\n' kernels "bench ns" "predicted s" "epoch s" ratio
: >"$tmp/rows.txt"
for v in "${variants[@]}"; do
  sample=$(of bench "sample/$v" | median) epoch=$(of epoch "$v" | median)
  # kernels,sample_ns,reduce_ns,update_ns,predicted_s,epoch_s,ratio
  row=$(awk -v v="$v" -v s="$sample" -v r="$reduce" -v u="$update" -v n="$n" -v e="$epoch" \
    'BEGIN { p = (s + r + u) * n * 1e-9; printf "%s,%.1f,%.1f,%.1f,%.4f,%.4f,%.3f", v, s, r, u, p, e, e / p }')
  echo "$row" >>"$tmp/rows.txt"
  IFS=, read -r _ s r u p e ratio <<<"$row"
  printf '  %-7s %12.1f %12s %12s %7sx\n' "$v" "$(awk -v a="$s" -v b="$r" -v c="$u" 'BEGIN { print a + b + c }')" "$p" "$e" "$ratio"
done

if [[ $record -eq 1 ]]; then
  csv=docs/data/epoch_budget.csv
  python3 - "$csv" "$tmp/rows.txt" "$start_utc" \
    "load average $load_start at the start, $load_end at the end (1, 5, 15 min)" \
    "$(git rev-parse --short HEAD)" "$rounds" "$data" "$(nproc)" <<'PY'
import csv, datetime, os, sys
path, rows, start, state, commit, rounds, data, cores = sys.argv[1:9]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
command = f"bash experiments/epoch_budget.sh --rounds {rounds} --data {data}"
head = ("date,time_utc,machine,cores,machine_state,commit,kernels,sample_ns,reduce_ns,update_ns,"
        "predicted_s,epoch_s,ratio,command\n")
text = open(path).read() if os.path.exists(path) else head
with open(path + ".tmp", "w", newline="") as f:
    f.write(text if text.endswith("\n") else text + "\n")
    for line in open(rows):
        csv.writer(f, lineterminator="\n").writerow(
            [datetime.date.today().isoformat(), start, cpu, cores, state, commit,
             *line.strip().split(","), command])
os.replace(path + ".tmp", path)
print(f"epoch_budget.sh: rows added to {path}")
PY
fi
