#!/usr/bin/env bash
# lenet-mpi-smpi on 4 ranks of simulated clusters (tests/system/system.cmake):
#   1. --exact gives lenet-serial's parameters bit for bit (the real arithmetic runs in SMPI);
#   2. the simulated time per epoch is positive, and larger over a slower link;
#   3. --threads 2 is refused with one line (SMPI grants only MPI_THREAD_SINGLE), exit 2.
# Usage: simgrid_test.sh SMPI_EXE SERIAL_EXE DATA_DIR     (SMPI_EXE empty: not built: SKIPPED)
set -uo pipefail
smpi=$1 serial=$2 data=$3
if [[ -z $smpi ]]; then
  echo "SKIPPED: lenet-mpi-smpi not built (SimGrid not found: apt-get install libsimgrid-dev)"
  exit 77
fi
command -v smpirun >/dev/null || { echo "SKIPPED: smpirun not found (libsimgrid-dev)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

# platform NAME BANDWIDTH LATENCY: 4 hosts on one switch.
platform() {
  cat >"$tmp/$1.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="$1" prefix="node-" suffix="" radical="0-3" speed="1Gf" bw="$2" lat="$3"/>
</platform>
XML
}
platform fast 10Gbps 1us
platform slow 100Mbps 50us
printf 'node-%d\n' 0 1 2 3 >"$tmp/hosts"
# --kernels simd on both sides: under smpirun the lanes kernels' --exact run ends a few bits
# from lenet-serial's (found 2026-11-27, when lanes became the AVX-512 default; real MPI's
# --exact with lanes is bit-identical at 2 to 4 ranks), an SMPI matter still to explain.
run=(--data "$data" --train-limit 96 --batch 32 --kernels simd --sim-sample-seconds 1e-5 --quiet)
# sim PLATFORM ARGS...: lenet-mpi-smpi on 4 simulated ranks; its output in $tmp/out.
sim() {
  local xml=$1
  shift
  smpirun -np 4 -platform "$tmp/$xml.xml" -hostfile "$tmp/hosts" --log=root.thres:critical \
    --cfg=smpi/simulate-computation:no "$smpi" "$@" >"$tmp/out" 2>&1
}
epoch() { sed -n 's/^ *Time per epoch (s) *= *//p' "$tmp/out"; }

"$serial" --data "$data" --train-limit 96 --batch 32 --kernels simd --quiet --save "$tmp/serial.ck" >/dev/null ||
  fail "lenet-serial"
sim fast "${run[@]}" --exact --save "$tmp/smpi.ck" || { cat "$tmp/out"; fail "smpirun --exact"; }
cmp -s "$tmp/serial.ck" "$tmp/smpi.ck" || fail "--exact on 4 simulated ranks: parameters differ from lenet-serial's"
echo "ok: --exact on 4 simulated ranks is bit-identical to lenet-serial"

sim fast "${run[@]}" || { cat "$tmp/out"; fail "smpirun on the fast link"; }
fast=$(epoch)
sim slow "${run[@]}" || { cat "$tmp/out"; fail "smpirun on the slow link"; }
slow=$(epoch)
awk -v f="$fast" -v s="$slow" 'BEGIN { exit !(f > 0 && s > f) }' ||
  fail "simulated seconds per epoch: fast link $fast, slow link $slow (want 0 < fast < slow)"
echo "ok: simulated seconds per epoch: fast link $fast < slow link $slow"

sim fast "${run[@]}" --threads 2
code=$?
[[ $code -eq 2 ]] && grep -q -- "--threads: this MPI library allows no threads" "$tmp/out" ||
  { cat "$tmp/out"; fail "--threads 2 under SMPI: exit $code, want 2 and the --threads error"; }
echo "ok: --threads 2 refused under SMPI (MPI_THREAD_SINGLE)"
