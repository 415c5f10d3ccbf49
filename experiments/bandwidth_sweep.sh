#!/usr/bin/env bash
# bandwidth_sweep.sh: how lenet-mpi on 2 "hosts" (network namespaces, experiments/multihost.sh)
# fares as their link gets slower, against lenet-serial on one host and against the cost model
# of docs/multihost.md. For each link rate it measures the link with lenet-mpi-pingpong
# (backend_mpi/pingpong.cpp: latency, bandwidth, the per-step allreduce), then trains at each
# per-rank batch size; it writes one CSV row per run and a Markdown table and a plot
# (reports/bandwidth.py). Must run as root (namespaces). See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="bandwidth_sweep.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/bandwidth_sweep.sh [options]

For each link rate: the ping-pong over the shaped link, then lenet-mpi (allreduce strategy, one
rank per host) at each per-rank batch size, --repeats times; lenet-serial at the same global
batch sizes is the baseline. Reports the median time per epoch, the communication share, the
speedup over serial, and the cost model's prediction beside each measured point.

  --rates LIST         comma-separated tc rates; "unshaped" for none
                       (default: unshaped,1gbit,100mbit,10mbit)
  --latency TIME       every link also this one-way latency, e.g. 1ms: the hosts are then
                       joined by multihost.sh's user-space switch, which sets the rates too
                       (kbit, mbit or gbit) instead of tc (default: none)
  --batches LIST       per-rank batch sizes b; each run's batch is B = b * hosts
                       (default: 16,64,256)
  --hosts H            hosts, one rank each (default: 2)
  --data DIR           MNIST-format data (default: data/digits; bash run_scripts/get_data.sh)
  --train-limit N      first N training images (default: 4000; 0: all)
  --test-limit N       first N test images, evaluated after each epoch (default: 500)
  --epochs N           epochs per run (default: 1)
  --repeats N          runs per point; the report shows the median (default: 3)
  --pingpong-time S    seconds per ping-pong point, lenet-mpi-pingpong's --seconds
                       (default: 0.5)
  --build DIR          the CMake build directory (default: build)
  --out DIR            where runs.csv, network.csv, runs.log, report.md and report.png go
                       (default: results/bandwidth-YYYYmmdd-HHMMSS)
  -h, --help           this help

Each multihost.sh run builds and removes its namespaces (about 4 s). The machine's other work
skews timings: the load average is printed; compare within one sweep.
EOF
}

rates="unshaped,1gbit,100mbit,10mbit"
batches="16,64,256"
hosts=2
data_dir="${REPO_ROOT}/data/digits"
train_limit=4000
test_limit=500
epochs=1
repeats=3
pingpong_time=0.5
build_dir="${REPO_ROOT}/build"
out_dir=""
latency=""

while [[ $# -gt 0 ]]; do
  case "$1" in
    --rates) need "$@"; rates=$2; shift 2 ;;
    --batches) need "$@"; batches=$2; shift 2 ;;
    --hosts) need "$@"; positive "$1" "$2"; hosts=$2; shift 2 ;;
    --data) need "$@"; data_dir=$2; shift 2 ;;
    --train-limit) need "$@"; count "$1" "$2"; train_limit=$2; shift 2 ;;
    --test-limit) need "$@"; count "$1" "$2"; test_limit=$2; shift 2 ;;
    --epochs) need "$@"; positive "$1" "$2"; epochs=$2; shift 2 ;;
    --repeats) need "$@"; positive "$1" "$2"; repeats=$2; shift 2 ;;
    --pingpong-time) need "$@"; pingpong_time=$2; shift 2 ;;
    --latency) need "$@"; latency_arg "$1" "$2"; latency=$2; shift 2 ;;
    --build) need "$@"; build_dir=$2; shift 2 ;;
    --out) need "$@"; out_dir=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done

serial="${build_dir}/backend_serial/lenet-serial"
mpi="${build_dir}/backend_mpi/lenet-mpi"
pingpong="${build_dir}/backend_mpi/lenet-mpi-pingpong"
require_built "$serial" "$mpi" "$pingpong"
require_data "$data_dir"
plot_python >/dev/null  # no matplotlib: stop now, not after the runs
IFS=, read -ra rate_list <<<"$rates"
IFS=, read -ra batch_list <<<"$batches"
for b in "${batch_list[@]}"; do positive --batches "$b"; done

out_dir=${out_dir:-"${REPO_ROOT}/results/bandwidth-$(date +%Y%m%d-%H%M%S)"}
mkdir -p "$out_dir"
out_dir=$(cd "$out_dir" && pwd)
runs="${out_dir}/runs.csv"       # the executables' rows, with the link in front
network="${out_dir}/network.csv" # the ping-pong's figures per link
log="${out_dir}/runs.log"
raw="${out_dir}/.row.csv"        # one run's --csv, moved into runs.csv after the run
rm -f "$runs" "$network" "$log" "$raw"
echo "link,alpha_us,beta_MBps,allreduce_bytes,allreduce_us" >"$network"

common=(--data "$data_dir" --epochs "$epochs" --test-limit "$test_limit" --quiet --csv "$raw")
[[ "$train_limit" -eq 0 ]] || common+=(--train-limit "$train_limit")
say "data $data_dir, train limit $train_limit (0: all), epochs $epochs, repeats $repeats"
say "links ${rate_list[*]}${latency:+, each with a one-way latency of $latency (user-space switch)}; per-rank batches ${batch_list[*]} on $hosts hosts, 1 rank each"
load_start=$(cut -d' ' -f1 /proc/loadavg)
say "$(load_note)"
say "writing $out_dir/"

# keep_row LINK: moves the run's CSV row into runs.csv with the link in front.
keep_row() {
  [[ -s "$runs" ]] || echo "link,$(head -1 "$raw")" >"$runs"
  echo "$1,$(tail -1 "$raw")" >>"$runs"
  rm -f "$raw"
}
# multihost LINK ARGS...: multihost.sh on the link (no --bandwidth when unshaped).
multihost() {
  local link=$1
  shift
  local shape=()
  [[ "$link" == unshaped ]] || shape=(--bandwidth "$link")
  [[ -z $latency ]] || shape+=(--latency "$latency")
  bash "${SCRIPT_DIR}/multihost.sh" --hosts "$hosts" --no-check "${shape[@]}" "$@"
}

# The links first: latency, bandwidth and the allreduce itself, for the model.
value() { sed -n "s/^$1 = //p" <<<"$2"; } # value KEY TEXT: the pingpong's "KEY = value"
for link in "${rate_list[@]}"; do
  status=0
  out=$(multihost "$link" --mpi "$pingpong" -- --seconds "$pingpong_time" 2>&1) || status=$?
  echo "$out" >>"$log"
  if [[ $status -eq 77 ]]; then
    grep '^SKIPPED' <<<"$out"
    exit 77
  fi
  [[ $status -eq 0 ]] || die "the ping-pong failed on link $link (see $log)"
  alpha=$(value alpha_us "$out")
  beta=$(value beta_MBps "$out")
  allreduce=$(value allreduce_us "$out")
  echo "$link,$alpha,$beta,$(value allreduce_bytes "$out"),$allreduce" >>"$network"
  printf '  link %-9s latency %9.1f us  bandwidth %9.2f MB/s  allreduce %9.1f us\n' "$link" \
    "$alpha" "$beta" "$allreduce"
done

# Then training. Repeats are interleaved, so that a burst of other work on the machine hits
# every configuration alike.
for ((r = 1; r <= repeats; ++r)); do
  say "repeat $r/$repeats (load $(cut -d' ' -f1 /proc/loadavg))"
  for b in "${batch_list[@]}"; do
    batch=$((b * hosts))
    step=(--batch "$batch" --lr "$(lr_for "$batch")")
    "$serial" "${common[@]}" "${step[@]}" >>"$log" 2>&1 || die "lenet-serial failed (see $log)"
    keep_row serial
    printf '  %-30s %s s/epoch\n' "serial B=$batch" "$(csv_get "$runs" seconds_per_epoch)"
    for link in "${rate_list[@]}"; do
      multihost "$link" --mpi "$mpi" -- "${common[@]}" "${step[@]}" >>"$log" 2>&1 ||
        die "multihost.sh failed on link $link, B=$batch (see $log)"
      keep_row "$link"
      printf '  %-30s %s s/epoch\n' "$hosts hosts $link b=$b (B=$batch)" "$(csv_get "$runs" seconds_per_epoch)"
    done
  done
done

note="$(nproc) cores, load average $load_start at the start and $(cut -d' ' -f1 /proc/loadavg) at"
images=$train_limit
[[ $images -ne 0 ]] || images=all
note+=" the end; $images training images of $(basename "$data_dir"), $repeats repeats."
[[ -z $latency ]] || note+=" Every link has a one-way latency of $latency (multihost.sh's user-space switch)."
report bandwidth --runs "$runs" --network "$network" \
  --hosts "$hosts" --out "${out_dir}/report" --note "$note"
say "done: $out_dir/report.md and $out_dir/report.png"
