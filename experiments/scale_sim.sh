#!/usr/bin/env bash
# scale_sim.sh: how far lenet-mpi scales, predicted by running it (lenet-mpi-smpi, the same
# sources built against SimGrid's SMPI: cmake/smpi.cmake) on simulated clusters of up to 1024
# ranks. Each rank's compute is charged from the time per sample that lenet-serial measures on
# this machine; the communication is simulated. Writes sim.csv, report.md and PNG plots
# (reports/scaling.py). docs/scaling.md explains the study. See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="scale_sim.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/scale_sim.sh [options]

Predicted seconds per epoch, speedup and efficiency of lenet-mpi (allreduce mode) for P = 1, 2,
4, ... ranks on each simulated platform, with each allreduce algorithm, in three series:
  strong32    B = 32 for every P (lenet-mpi needs B >= P: up to P = 32)
  strong1024  B = 1024 for every P
  weak        B = 32 x P (32 samples per rank)
Each point simulates --steps steps and scales the time per step to an epoch of --epoch-images.

  --platforms LIST    platform files in experiments/simgrid/, without .xml
                      (default: fattree-100g,ethernet-10g)
  --algorithms LIST   SMPI allreduce algorithms (smpi/allreduce; default: rdb,rab_rdb,redbcast)
  --max-ranks P       largest P, a power of 2 (default: 1024)
  --steps N           simulated steps per point (default: 10; the simulated time per step
                      is the same at 10, 30 and 90: docs/scaling.md)
  --epoch-images N    images of the epoch the step time is scaled to (default: 60000)
  --sample-us X       compute per sample in us (default: measured with lenet-serial, B = 32)
  --validate          instead: the simulator against measured runs (this machine at 2 ranks,
                      and docs/multihost.md's namespace hosts); writes validation.md
  --sweep DIR         with --validate: the namespace hosts of this bandwidth_sweep.sh output
                      directory (default: the recorded experiments/simgrid/namespace_sweep.csv)
  --build-dir DIR     where lenet-mpi-smpi was built (default: build)
  --out DIR           output directory (default: results/scale-sim-DATE)
EOF
}

platforms="fattree-100g,ethernet-10g"
algorithms="rdb,rab_rdb,redbcast"
max_ranks=1024
steps=10
epoch_images=60000
sample_us=""
validate=0
sweep=""
build_dir="${REPO_ROOT}/build"
out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --platforms) need "$@"; platforms=$2; shift 2 ;;
    --algorithms) need "$@"; algorithms=$2; shift 2 ;;
    --max-ranks) need "$@"; positive "$1" "$2"; max_ranks=$2; shift 2 ;;
    --steps) need "$@"; positive "$1" "$2"; steps=$2; shift 2 ;;
    --epoch-images) need "$@"; positive "$1" "$2"; epoch_images=$2; shift 2 ;;
    --sample-us) need "$@"; [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]] || die "--sample-us: expected a number of microseconds, got '$2'"; sample_us=$2; shift 2 ;;
    --validate) validate=1; shift ;;
    --sweep) need "$@"; sweep=$(realpath -m "$2"); shift 2 ;;
    --build-dir) need "$@"; build_dir=$(realpath -m "$2"); shift 2 ;;
    --out) need "$@"; out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ -z $sweep || -f $sweep/runs.csv ]] || die "--sweep: no runs.csv in $sweep (bandwidth_sweep.sh's --out)"
[[ $validate -eq 1 || -z $sweep ]] || die "--sweep goes with --validate"
((max_ranks & (max_ranks - 1))) && die "--max-ranks: expected a power of 2, got $max_ranks"
((max_ranks <= 1024)) || die "--max-ranks: the platforms have 1024 hosts, got $max_ranks"
IFS=, read -ra platform_list <<<"$platforms"
IFS=, read -ra algorithm_list <<<"$algorithms"
for p in "${platform_list[@]}"; do
  [[ -f ${SCRIPT_DIR}/simgrid/$p.xml ]] || die "--platforms: no experiments/simgrid/$p.xml"
done

smpi_exe="${build_dir}/backend_mpi/lenet-mpi-smpi"
serial_exe="${build_dir}/backend_serial/lenet-serial"
command -v smpirun >/dev/null || die "smpirun not found (Debian: apt-get install libsimgrid-dev)"
[[ -f $smpi_exe ]] || die "$smpi_exe not found: build with SimGrid installed (bash run_scripts/setup.sh)"
require_built "$serial_exe"
data="${REPO_ROOT}/data/digits"
[[ -f $data/train-images-idx3-ubyte ]] || die "no $data: bash run_scripts/get_data.sh"
py=$(plot_python)

[[ -n $out ]] || out="${REPO_ROOT}/results/scale-sim-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

# smpirun's settings for every run: compute is charged by lenet-mpi-smpi, not timed; the
# platform's latencies and bandwidths are taken as they are (no SMPI correction factors); the
# start-up's allgather of host names (untimed) with Bruck's algorithm, which simulates in
# seconds where the default takes minutes at 256 ranks.
smpi_common=(--cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
             --cfg=smpi/allgather:bruck --log=root.thres:critical)

# simulate XML P ALG SAMPLE_SECONDS ARGS...: one run on hosts node-0 .. node-(P-1); writes
# "images_per_s compute_ms_per_step comm_ms_per_step" to $out/point, from the --csv row and the
# summary block (compute and comm per step: the slowest rank's).
simulate() {
  local xml=$1 np=$2 alg=$3 sample=$4 csv log
  shift 4
  csv="$out/run.csv" log="$out/run.log"
  rm -f "$csv"
  for ((i = 0; i < np; ++i)); do echo "node-$i"; done >"$out/hosts"
  if ! nice smpirun -np "$np" -platform "$xml" -hostfile "$out/hosts" "${smpi_common[@]}" \
      --cfg=smpi/allreduce:"$alg" "$smpi_exe" --quiet --csv "$csv" \
      --sim-sample-seconds "$sample" "$@" >"$log" 2>&1; then
    tail -n 5 "$log" >&2
    die "smpirun failed: P = $np, $alg on $xml (log: $log)"
  fi
  "$py" - "$csv" "$log" >"$out/point" <<'EOF'
import csv, re, sys
row = next(csv.DictReader(open(sys.argv[1])))
text = open(sys.argv[2]).read()
per_step = [re.search(rf"{k} per step \(ms\)\s*=\s*([0-9.]+)", text) for k in ("Compute", "Comm")]
print(row["images_per_s"], *(m.group(1) if m else "nan" for m in per_step))
EOF
}

# median3 A B C: the middle of three numbers; epoch_of: a summary block's time per epoch, from
# stdin (both here and in simgrid/validate.sh).
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
epoch_of() { sed -n 's/^ *Time per epoch (s) *= *//p'; }

# sample_seconds: lenet-serial's time per sample on this machine (B = 32, 4000 digits, median
# of 3), unless --sample-us gave it.
measure_sample() {
  local t runs=()
  for _ in 1 2 3; do
    t=$(nice "$serial_exe" --data "$data" --train-limit 4000 --batch 32 --quiet | epoch_of)
    runs+=("$t")
  done
  median3 "${runs[@]}" | awk '{printf "%.4f", $1 / 4000 * 1e6}'
}

if [[ $validate -eq 1 ]]; then
  source "${SCRIPT_DIR}/simgrid/validate.sh"
  exit 0
fi

if [[ -z $sample_us ]]; then
  say "measuring the compute per sample with lenet-serial (B = 32, 4000 digits, median of 3)"
  sample_us=$(measure_sample)
fi
sample_s=$(awk -v u="$sample_us" 'BEGIN { printf "%.9g", u * 1e-6 }')
say "compute per sample: $sample_us us"

# A small copy of the digits (1024 train, 16 test images) for the simulated ranks: each rank
# loads its own copy of the data, 1024 times over.
"$py" - "$data" "$out/data" <<'EOF'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
for name, n, header, item in [("train-images-idx3-ubyte", 1024, 16, 784),
                              ("train-labels-idx1-ubyte", 1024, 8, 1),
                              ("t10k-images-idx3-ubyte", 16, 16, 784),
                              ("t10k-labels-idx1-ubyte", 16, 8, 1)]:
    b = open(os.path.join(src, name), "rb").read()
    head = bytearray(b[:header]); head[4:8] = struct.pack(">I", n)
    open(os.path.join(dst, name), "wb").write(bytes(head) + b[header:header + n * item])
EOF

# Every point runs --steps epochs of one batch each (--train-limit = --batch), so that the
# per-rank data stays one batch. Each epoch starts at a barrier, so the time per step is the
# slowest rank's compute + communication per step, not rank 0's clock: with reduce + broadcast
# the root leaves the broadcast before the leaves have received it (its sends are detached), and
# back to back the next step would wait for them. The weak series runs
# B = P with each sample charged 32 times: each rank computes the time of 32 samples and sends
# the same 9,376-byte message as at B = 32 P (its size does not depend on B).
csv_out="$out/sim.csv"
echo "platform,algorithm,series,ranks,batch,steps,sample_us,seconds_per_step,comm_ms_per_step,seconds_per_epoch,wall_s" >"$csv_out"
start=$SECONDS
for plat in "${platform_list[@]}"; do
  xml="${SCRIPT_DIR}/simgrid/$plat.xml"
  for alg in "${algorithm_list[@]}"; do
    for series in strong32 strong1024 weak; do
      for ((np = 1; np <= max_ranks; np *= 2)); do
        case $series in
          strong32) ((np <= 32)) || continue; batch=32 run_batch=32 sample=$sample_s ;;
          strong1024) batch=1024 run_batch=1024 sample=$sample_s ;;
          weak) batch=$((32 * np)) run_batch=$np
                sample=$(awk -v s="$sample_s" 'BEGIN { printf "%.9g", 32 * s }') ;;
        esac
        t0=$SECONDS
        simulate "$xml" "$np" "$alg" "$sample" --data "$out/data" --train-limit "$run_batch" \
          --batch "$run_batch" --epochs "$steps" --no-shuffle
        read -r _ compute comm <"$out/point"
        step=$(awk -v a="$compute" -v c="$comm" 'BEGIN { printf "%.9g", (a + c) * 1e-3 }')
        epoch=$(awk -v s="$step" -v n="$epoch_images" -v b="$batch" \
          'BEGIN { printf "%.6g", s * int((n + b - 1) / b) }')
        echo "$plat,$alg,$series,$np,$batch,$steps,$sample_us,$step,$comm,$epoch,$((SECONDS - t0))" >>"$csv_out"
      done
      say "$plat $alg $series: done ($((SECONDS - start)) s so far)"
    done
  done
done
rm -f "$out/run.csv" "$out/run.log" "$out/point" "$out/hosts"
report scaling "$csv_out" "$out" "$epoch_images"
say "done in $((SECONDS - start)) s: $out/report.md, $out/sim.csv, $out/*.png"
