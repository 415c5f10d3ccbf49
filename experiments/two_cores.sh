#!/usr/bin/env bash
# two_cores.sh: does a second core halve the epoch? lenet-serial, lenet-openmp at 2 threads and
# lenet-mpi at 2 ranks, one epoch each, in turn, --rounds times (interleaved, so that a change in
# the machine's load falls on all three alike); prints each program's median epoch and its
# speedup over serial's median (issue 50's targets: 1.9x and 1.85x on a quiet 2-core machine).
# See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="two_cores.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/two_cores.sh [--rounds N] [--data DIR] [--batch B] [--build DIR] [--record]

  --rounds N   rounds of the three runs (default: 9)
  --data DIR   MNIST-format data (default: data/fashion; bash run_scripts/get_data.sh)
  --batch B    batch size (default: 32)
  --build DIR  the CMake build directory (default: build)
  --record     add every run to docs/data/two_cores.csv (date, machine, load, commit, command)
  -h, --help   this help
EOF
}

rounds=9 data=data/fashion batch=32 build=build record=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) need "$@"; rounds=$2; shift 2 ;;
    --data) need "$@"; data=$2; shift 2 ;;
    --batch) need "$@"; batch=$2; shift 2 ;;
    --build) need "$@"; build=$2; shift 2 ;;
    --record) record=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds: expected a positive whole number, got '$rounds'"
[[ $batch =~ ^[1-9][0-9]*$ ]] || die "--batch: expected a positive whole number, got '$batch'"
cd "$REPO_ROOT"
[[ -f $data/train-images-idx3-ubyte || -f $data/train-images-idx3-ubyte.gz ]] ||
  die "--data $data: no train-images-idx3-ubyte(.gz) there (bash run_scripts/get_data.sh)"
for exe in backend_serial/lenet-serial backend_openmp/lenet-openmp backend_mpi/lenet-mpi; do
  [[ -x $build/$exe ]] || die "--build $build: no $exe (bash run_scripts/setup.sh builds it)"
done

common=(--data "$data" --epochs 1 --batch "$batch" --quiet)
declare -A cmd=(
  [lenet-serial]="$build/backend_serial/lenet-serial ${common[*]}"
  [lenet-openmp]="OMP_PLACES=cores OMP_PROC_BIND=close $build/backend_openmp/lenet-openmp --threads 2 ${common[*]}"
  [lenet-mpi]="bash run_scripts/mpi_launch.sh $build --bind core -n 2 $build/backend_mpi/lenet-mpi ${common[*]}"
)
declare -A workers=([lenet-serial]=1 [lenet-openmp]=2 [lenet-mpi]=2)
order=(lenet-serial lenet-openmp lenet-mpi)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start_utc=$(date -u +%H:%MZ)
: >"$tmp/runs.txt"
for ((r = 1; r <= rounds; ++r)); do
  for p in "${order[@]}"; do
    # Each run bounded; its process group ended with it (setsid: mpirun's ranks too).
    out=$(timeout -k 10 600 setsid bash -c "${cmd[$p]}") || die "$p failed in round $r: ${cmd[$p]}"
    s=$(sed -n 's/^ *Time per epoch (s) *= *//p' <<<"$out")
    [[ -n $s ]] || die "$p printed no 'Time per epoch' in round $r"
    echo "$r $p ${workers[$p]} $s" >>"$tmp/runs.txt"
  done
  echo "$PROG: round $r of $rounds: $(tail -n 3 "$tmp/runs.txt" | awk '{printf "%s %s s  ", $2, $4}')"
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

serial=$(awk '$2 == "lenet-serial" {print $4}' "$tmp/runs.txt" | median)
echo "$PROG: medians of $rounds interleaved rounds, B = $batch, $data; load average $load_start at the start, $load_end at the end"
for p in "${order[@]}"; do
  m=$(awk -v p="$p" '$2 == p {print $4}' "$tmp/runs.txt" | median)
  awk -v p="$p" -v m="$m" -v s="$serial" -v w="${workers[$p]}" \
    'BEGIN {printf "  %-13s %d worker(s)  %.4f s an epoch  %.2fx serial\n", p, w, m, s / m}'
done

if [[ $record -eq 1 ]]; then
  csv=docs/data/two_cores.csv
  python3 - "$csv" "$tmp/runs.txt" "$start_utc" "load average $load_start at the start, $load_end at the end (1, 5, 15 min)" \
    "$(git rev-parse --short HEAD)" "$batch" "$data" "$(nproc)" "${cmd[lenet-serial]}" \
    "${cmd[lenet-openmp]}" "${cmd[lenet-mpi]}" <<'PY'
import csv, datetime, os, sys
path, runs, start, state, commit, batch, data, cores = sys.argv[1:9]
commands = dict(zip(("lenet-serial", "lenet-openmp", "lenet-mpi"), sys.argv[9:12]))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
rows = [[datetime.date.today().isoformat(), start, cpu, cores, state, "main", commit, r, p, w,
         batch, data, s, commands[p]]
        for r, p, w, s in (line.split() for line in open(runs))]
text = open(path).read()
with open(path + ".tmp", "w", newline="") as f:
    f.write(text if text.endswith("\n") else text + "\n")
    csv.writer(f, lineterminator="\n").writerows(rows)
os.replace(path + ".tmp", path)
print(f"two_cores.sh: {len(rows)} rows added to {path}")
PY
fi
