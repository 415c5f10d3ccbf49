#!/usr/bin/env bash
# scale_sim.sh: how far lenet-mpi scales, predicted by running it (lenet-mpi-smpi, the same
# sources built against SimGrid's SMPI: cmake/smpi.cmake) on simulated clusters of up to 1024
# ranks. Each rank's compute is charged from the time per sample that lenet-serial measures on
# this machine, or that a calibration file measured on a cluster (--calibration); the
# communication is simulated. Writes sim.csv, report.md and PNG plots
# (reports/scaling.py). docs/scaling.md explains the study. See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="scale_sim.sh"
source "${SCRIPT_DIR}/../run_scripts/lib.sh"

usage() {
  cat <<EOF
Usage: bash experiments/scale_sim.sh [options]

Predicted seconds per epoch, speedup and efficiency of lenet-mpi (allreduce strategy) for P = 1, 2,
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
  --sample-us X       compute per sample in us (default: measured with lenet-serial, B = 32,
                      the fastest of 5 runs; a warning when the machine was busy)
  --calibration FILE  the compute per sample and the network measured on your cluster
                      (experiments/slurm/lenet-calibrate.sbatch writes FILE): the platform
                      "calibrated" is built from its link and simulated instead of the default
                      platforms (--platforms adds built-in ones)
  --shapes            instead: which shape of allocation is fastest, for each batch size of
                      --shape-batches: N nodes x R ranks per node x T threads per rank, every
                      shape filling the nodes' --cores-per-node cores (R x T = C), up to 1024
                      ranks, on the first platform (ranks of one node talk through its
                      loopback, at the intra-node figures of --calibration or of this machine);
                      writes shapes.csv, shapes.md and shapes-B.png
  --cores-per-node C  cores of a node for --shapes, a power of 2 (default: 32)
  --shape-batches L   batch sizes for --shapes (default: 32,1024)
  --validate          instead: the simulator against measured runs (this machine at 2 ranks,
                      docs/multihost.md's recorded namespace hosts, and, as root, namespace
                      hosts measured live: --hosts); writes validation.md and validation-live.md
  --hosts LIST        with --validate: the live points, namespace hosts of one rank each, 2 to
                      7 (default: 2,3,4)
  --rate RATE         with --validate: their links' bandwidth, in each direction (default:
                      10mbit; none: no limit)
  --latency TIME      with --validate: their one-way latency, host to host (default: 1ms); the
                      links are multihost.sh --latency's user-space switch
  --sweep DIR         with --validate: the namespace hosts of this bandwidth_sweep.sh output
                      directory (default: the recorded experiments/simgrid/namespace_sweep.csv)
  --data DIR          the images (default: data/digits): the simulated ranks train on the
                      first 1024, repeated where DIR has fewer; the measured compute per
                      sample on the first 4000
  --build DIR         the CMake build directory (default: build)
  --out DIR           output directory (default: results/scale-sim-DATE)
EOF
}

platforms="fattree-100g,ethernet-10g"
algorithms="rdb,rab_rdb,redbcast"
max_ranks=1024
steps=10
epoch_images=60000
sample_us=""
calibration=""
platforms_given=0
validate=0
shapes=0
cores_per_node=32
shape_batches="32,1024"
sweep=""
data=""
live_hosts="2,3,4"
live_rate="10mbit"
live_latency="1ms"
live_given=0
build_dir="${REPO_ROOT}/build"
out=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --platforms) need "$@"; platforms=$2; platforms_given=1; shift 2 ;;
    --algorithms) need "$@"; algorithms=$2; shift 2 ;;
    --max-ranks) need "$@"; positive "$1" "$2"; max_ranks=$2; shift 2 ;;
    --steps) need "$@"; positive "$1" "$2"; steps=$2; shift 2 ;;
    --epoch-images) need "$@"; positive "$1" "$2"; epoch_images=$2; shift 2 ;;
    --sample-us) need "$@"; [[ $2 =~ ^[0-9]*\.?[0-9]+$ ]] || die "--sample-us: expected a number of microseconds, got '$2'"; sample_us=$2; shift 2 ;;
    --calibration) need "$@"; [[ -f $2 ]] || die "--calibration: no file $2"; calibration=$(realpath "$2"); shift 2 ;;
    --validate) validate=1; shift ;;
    --shapes) shapes=1; shift ;;
    --cores-per-node) need "$@"; positive "$1" "$2"; cores_per_node=$2; shift 2 ;;
    --shape-batches) need "$@"; [[ $2 =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--shape-batches: expected a comma-separated list of batch sizes, got '$2'"; shape_batches=$2; shift 2 ;;
    --sweep) need "$@"; sweep=$(realpath -m "$2"); shift 2 ;;
    --hosts) need "$@"; [[ $2 =~ ^[2-7](,[2-7])*$ ]] || die "--hosts: expected a comma-separated list of 2 to 7 hosts, got '$2'"; live_hosts=$2; live_given=1; shift 2 ;;
    --rate) need "$@"; [[ $2 == none ]] || rate_arg "$1" "$2"; live_rate=$2; live_given=1; shift 2 ;;
    --latency) need "$@"; latency_arg "$1" "$2"; live_latency=$2; live_given=1; shift 2 ;;
    --data) need "$@"; data=$(realpath -m "$2"); shift 2 ;;
    --build) need "$@"; build_dir=$(realpath -m "$2"); shift 2 ;;
    --out) need "$@"; out=$(realpath -m "$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
[[ -z $sweep || -f $sweep/runs.csv ]] || die "--sweep: no runs.csv in $sweep (bandwidth_sweep.sh's --out)"
[[ $validate -eq 1 || -z $sweep ]] || die "--sweep goes with --validate"
[[ $validate -eq 1 || $live_given -eq 0 ]] || die "--hosts, --rate and --latency go with --validate"
((max_ranks & (max_ranks - 1))) && die "--max-ranks: expected a power of 2, got $max_ranks"
((cores_per_node & (cores_per_node - 1))) &&
  die "--cores-per-node: expected a power of 2, got $cores_per_node"
[[ $shapes -eq 0 || $validate -eq 0 ]] || die "--shapes and --validate: one study at a time"
((max_ranks <= 1024)) || die "--max-ranks: the platforms have 1024 hosts, got $max_ranks"
[[ -z $calibration || -z $sample_us ]] || die "--sample-us and --calibration: give one of them"
[[ -z $calibration || $validate -eq 0 ]] || die "--calibration does not go with --validate"
calibrate=(python3 "${SCRIPT_DIR}/slurm/calibration.py")
if [[ -n $calibration ]]; then
  # Checked before any work: a bad file stops here, naming itself.
  read -r cal_sample cal_alpha cal_beta cal_link < <("${calibrate[@]}" show "$calibration") ||
    exit 2
  [[ $cal_link != none ]] || die "--calibration: $calibration has no network figures"
  [[ $platforms_given -eq 1 ]] && platforms="calibrated,$platforms" || platforms=calibrated
fi
IFS=, read -ra platform_list <<<"$platforms"
IFS=, read -ra algorithm_list <<<"$algorithms"
for p in "${platform_list[@]}"; do
  [[ $p == calibrated && -n $calibration ]] && continue
  [[ -f ${SCRIPT_DIR}/simgrid/$p.xml ]] || die "--platforms: no experiments/simgrid/$p.xml"
done

smpi_exe="${build_dir}/backend_mpi/lenet-mpi-smpi"
serial_exe="${build_dir}/backend_serial/lenet-serial"
command -v smpirun >/dev/null || die "smpirun not found (Debian: apt-get install libsimgrid-dev)"
[[ -f $smpi_exe ]] || die "$smpi_exe not found: build with SimGrid installed (bash run_scripts/setup.sh)"
require_built "$serial_exe"
data=${data:-"${REPO_ROOT}/data/digits"}
[[ -f $data/train-images-idx3-ubyte ]] ||
  die "--data: no $data/train-images-idx3-ubyte (the digits: bash run_scripts/get_data.sh)"
py=$(plot_python)

[[ -n $out ]] || out="${REPO_ROOT}/results/scale-sim-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"

# smpirun's settings for every run: compute is charged by lenet-mpi-smpi, not timed; the
# platform's latencies and bandwidths are taken as they are (no SMPI correction factors); the
# start-up's allgather of host names (untimed) with Bruck's algorithm, which simulates in
# seconds where the default takes minutes at 256 ranks.
smpi_common=(--cfg=smpi/simulate-computation:no --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1
             --cfg=smpi/allgather:bruck --log=root.thres:critical)

# simulate XML P ALG SAMPLE_SECONDS ARGS...: one run on hosts node-0, node-1, ...,
# $ranks_per_host ranks on each (default 1); writes
# "images_per_s compute_ms_per_step comm_ms_per_step" to $out/point, from the --csv row and the
# summary block (compute and comm per step: the slowest rank's).
ranks_per_host=1
simulate() {
  local xml=$1 np=$2 alg=$3 sample=$4 csv log
  shift 4
  csv="$out/run.csv" log="$out/run.log"
  rm -f "$csv"
  for ((i = 0; i < np; ++i)); do echo "node-$((i / ranks_per_host))"; done >"$out/hosts"
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

# read_point BATCH: the last simulation's compute and comm per step (ms), and from them $step
# (seconds per step) and $epoch (seconds per epoch of --epoch-images at batch BATCH).
read_point() {
  read -r _ compute comm <"$out/point"
  step=$(awk -v a="$compute" -v c="$comm" 'BEGIN { printf "%.9g", (a + c) * 1e-3 }')
  epoch=$(awk -v s="$step" -v n="$epoch_images" -v b="$1" \
    'BEGIN { printf "%.6g", s * int((n + b - 1) / b) }')
}

# median3 A B C: the middle of three numbers; epoch_of: a summary block's time per epoch, from
# stdin (both here and in simgrid/validate.sh).
median3() { printf '%s\n' "$@" | sort -g | sed -n 2p; }
epoch_of() { sed -n 's/^ *Time per epoch (s) *= *//p'; }

# cpu_ticks: "busy total" jiffies of all CPUs so far (/proc/stat's first line).
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }

# measure_sample: lenet-serial's time per sample on this machine (B = 32, 4000 digits), 5 runs,
# each with the load average before it, into a calibration file of this machine
# ($out/calibration.json); prints the fastest run's time per sample. Other processes only ever
# slow a run down, so the fastest is the machine's; still, it warns when other processes kept
# more than half a core busy while it measured (all cores' busy time less the one core of the
# runs: the load average would lag by a minute).
measure_sample() {
  local busy0 total0 busy1 total1 others
  rm -f "$out/compute.csv"
  : >"$out/loads.txt"
  read -r busy0 total0 < <(cpu_ticks)
  for _ in 1 2 3 4 5; do
    cat /proc/loadavg >>"$out/loads.txt"
    # Not niced: a niced run on a busy machine measures the other processes' share.
    "$serial_exe" --data "$data" --train-limit 4000 --batch 32 --quiet \
      --csv "$out/compute.csv" >/dev/null
  done
  read -r busy1 total1 < <(cpu_ticks)
  "${calibrate[@]}" write --out "$out/calibration.json" --compute "$out/compute.csv" \
    --loads "$out/loads.txt" --hosts "$(hostname)" --note "local: scale_sim.sh" >/dev/null
  read -r cal_sample _ < <("${calibrate[@]}" show "$out/calibration.json")
  others=$(awk -v b="$((busy1 - busy0))" -v t="$((total1 - total0))" -v c="$(nproc)" \
    'BEGIN { printf "%.2f", (t > 0 ? b / t * c : 0) - 1 }')
  awk -v o="$others" 'BEGIN { exit !(o > 0.5) }' &&
    echo "$PROG: warning: the machine was busy (other processes kept $others of $(nproc) cores" \
      "busy while it measured): the compute per sample may be too high; give --sample-us or" \
      "--calibration" >&2
  echo "$cal_sample"
}

if [[ $validate -eq 1 ]]; then
  source "${SCRIPT_DIR}/simgrid/validate.sh"
  exit 0
fi

if [[ -n $calibration ]]; then
  sample_us=$cal_sample
  cp "$calibration" "$out/calibration.json"
  "${calibrate[@]}" platform "$calibration" "$out/calibrated.xml"
  say "calibration $calibration: $sample_us us per sample; platform 'calibrated' from its" \
    "$cal_link-node link: $cal_alpha us, $cal_beta MB/s"
elif [[ -z $sample_us ]]; then
  say "measuring the compute per sample with lenet-serial (B = 32, 4000 digits, fastest of 5)"
  sample_us=$(measure_sample)
fi
sample_s=$(awk -v u="$sample_us" 'BEGIN { printf "%.9g", u * 1e-6 }')
say "compute per sample: $sample_us us"

# A small copy of the digits (1024 train, 16 test images) for the simulated ranks: each rank
# loads its own copy of the data, 1024 times over. A smaller --data (the tests' 128 images) is
# repeated: the compute is charged per sample, so which images does not change the timing.
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
    items = b[header:]
    items = items * -(-n * item // len(items))  # repeated up to n items
    open(os.path.join(dst, name), "wb").write(bytes(head) + items[:n * item])
EOF

# ---- --shapes: nodes x ranks per node x threads per rank ------------------------------------
# Every shape fills its nodes: R ranks of T = C / R threads on each of N nodes. The simulated
# node has C cores (one per rank) and a loopback link for the ranks inside it. lenet-mpi-smpi
# has no threads (SMPI runs ranks only), so T enters the compute charged per sample: a rank's
# n = B / P samples are ceil(n / 16) chunks of up to 16, its T threads take whole chunks (as
# lenet-mpi --threads does), so a step costs ceil(chunks / T) x min(n, 16) samples' time.
if [[ $shapes -eq 1 ]]; then
  plat=${platform_list[0]}
  xml="${SCRIPT_DIR}/simgrid/$plat.xml"
  [[ $plat == calibrated && -n $calibration ]] && xml="$out/calibrated.xml"
  loop_from=none
  [[ -n $calibration ]] &&
    read -r _ loop_alpha loop_beta loop_from < <("${calibrate[@]}" show "$calibration" intra)
  if [[ $loop_from == intra ]]; then
    loop_from="$calibration"
  else
    pingpong="${build_dir}/backend_mpi/lenet-mpi-pingpong"
    [[ -x $pingpong ]] ||
      die "--shapes needs the intra-node link: a --calibration file with one, or $pingpong"
    say "measuring this machine's intra-node link (lenet-mpi-pingpong, 2 ranks)"
    timeout 120 bash "$LIB_ROOT/run_scripts/mpi_launch.sh" "$build_dir" -n 2 "$pingpong" --seconds 0.05 \
      >"$out/intra.txt" 2>&1 || die "lenet-mpi-pingpong failed (log: $out/intra.txt)"
    loop_alpha=$(sed -n 's/^alpha_us = //p' "$out/intra.txt")
    loop_beta=$(sed -n 's/^beta_MBps = //p' "$out/intra.txt")
    loop_from="lenet-mpi-pingpong on $(hostname)"
  fi
  "$py" - "$xml" "$out/shapes.xml" "$cores_per_node" "$loop_alpha" "$loop_beta" <<'EOF'
import re, sys
src, dst, cores, alpha, beta = sys.argv[1:]
text = open(src).read()
attrs = f' core="{cores}" loopback_bw="{beta}MBps" loopback_lat="{float(alpha) / 2:g}us"'
text, n = re.subn(r"(<cluster\b[^>]*?)(\s*/>)", r"\1" + attrs + r"\2", text, count=1)
if n != 1:
    sys.exit(f"scale_sim.sh: error: {src}: no <cluster .../> element to give {cores} cores")
open(dst, "w").write(text)
EOF
  say "shapes on $plat: nodes of $cores_per_node cores; inside a node $loop_alpha us and" \
    "$loop_beta MB/s ($loop_from); $sample_us us per sample"
  alg=${algorithm_list[0]}
  shapes_csv="$out/shapes.csv"
  echo "platform,algorithm,batch,nodes,ranks_per_node,threads,ranks,sample_us,charged_us,compute_ms_per_step,comm_ms_per_step,seconds_per_step,seconds_per_epoch,wall_s" >"$shapes_csv"
  start=$SECONDS
  IFS=, read -ra batch_list <<<"$shape_batches"
  for batch in "${batch_list[@]}"; do
    ((batch <= 1024)) || die "--shape-batches: the data copy has 1024 images, got B = $batch"
    for ((rpn = 1; rpn <= cores_per_node; rpn *= 2)); do
      threads=$((cores_per_node / rpn))
      for ((nodes = 1; nodes * rpn <= max_ranks && nodes * rpn <= batch && nodes <= 1024; nodes *= 2)); do
        np=$((nodes * rpn))
        charged=$(awk -v t="$sample_us" -v b="$batch" -v p="$np" -v th="$threads" 'BEGIN {
          n = b / p; chunks = int((n + 15) / 16); rounds = int((chunks + th - 1) / th)
          printf "%.6g", t * rounds * (n < 16 ? n : 16) / n }')
        t0=$SECONDS
        ranks_per_host=$rpn simulate "$out/shapes.xml" "$np" "$alg" \
          "$(awk -v u="$charged" 'BEGIN { printf "%.9g", u * 1e-6 }')" --data "$out/data" \
          --train-limit "$batch" --batch "$batch" --epochs "$steps" --no-shuffle
        read_point "$batch"
        echo "$plat,$alg,$batch,$nodes,$rpn,$threads,$np,$sample_us,$charged,$compute,$comm,$step,$epoch,$((SECONDS - t0))" >>"$shapes_csv"
      done
      say "B = $batch, $rpn rank(s) x $threads thread(s) per node: done ($((SECONDS - start)) s so far)"
    done
  done
  rm -f "$out/run.csv" "$out/run.log" "$out/point" "$out/hosts"
  report shapes "$shapes_csv" "$out" "$epoch_images" "$loop_from"
  say "done in $((SECONDS - start)) s: $out/shapes.md, $shapes_csv, $out/shapes-*.png"
  exit 0
fi

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
  [[ $plat == calibrated && -n $calibration ]] && xml="$out/calibrated.xml"
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
        read_point "$batch"
        echo "$plat,$alg,$series,$np,$batch,$steps,$sample_us,$step,$comm,$epoch,$((SECONDS - t0))" >>"$csv_out"
      done
      say "$plat $alg $series: done ($((SECONDS - start)) s so far)"
    done
  done
done
rm -f "$out/run.csv" "$out/run.log" "$out/point" "$out/hosts"
report scaling "$csv_out" "$out" "$epoch_images"
# The figures the study used, below its tables.
{
  echo
  echo "## The calibration used"
  echo
  if [[ -n $calibration ]]; then
    echo "From \`$calibration\` (the file is copied to calibration.json here): $sample_us us per"
    echo "sample (the fastest of its compute runs); platform \`calibrated\` built from its"
    echo "$cal_link-node link, $cal_alpha us and $cal_beta MB/s host to host, on a non-blocking switch."
  elif [[ -f $out/calibration.json ]]; then
    echo "Measured on this machine ($(hostname)): $sample_us us per sample, the fastest of 5 runs"
    echo "of lenet-serial at B = 32 (calibration.json: every run and the load average before it)."
  else
    echo "Given: --sample-us $sample_us."
  fi
} >>"$out/report.md"
say "done in $((SECONDS - start)) s: $out/report.md, $out/sim.csv, $out/*.png"
