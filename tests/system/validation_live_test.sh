#!/usr/bin/env bash
# scale_sim.sh --validate --hosts 2,3 (tests/system/system.cmake): the live stage measures lenet-mpi
# on 2 and 3 namespace hosts through multihost.sh's user-space switch (links of 1 ms and
# 10 Mbit/s), simulates each, and writes one row per point with a residual for the allreduce
# per step and for the epoch. No timing threshold: the
# residuals of a busy machine are whatever they are; the pipeline must produce them.
# Usage: validation_live_test.sh BUILD_DIR   (SKIPPED: not root, no SimGrid, no data/digits)
set -uo pipefail
build=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "the live points need root (network namespaces)"
[[ -c /dev/net/tun ]] || skip "the live points need TUN devices (/dev/net/tun) for their switch"
[[ -x $build/backend_mpi/lenet-mpi-smpi ]] || skip "lenet-mpi-smpi not built"
command -v smpirun >/dev/null || skip "smpirun not found (libsimgrid-dev)"
[[ -f $root/data/digits/train-images-idx3-ubyte ]] || skip "no data/digits (run_scripts/get_data.sh)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

timeout 500 bash "$root/experiments/scale_sim.sh" --validate --hosts 2,3 --build "$build" \
  --out "$tmp" >"$tmp/log" 2>&1 || { tail -n 20 "$tmp/log"; echo "FAIL: scale_sim.sh --validate"; exit 1; }
csv="$tmp/validation-live.csv"
[[ -f $csv && -f $tmp/validation-live.md ]] || { echo "FAIL: no validation-live.csv or .md"; exit 1; }
python3 - "$csv" <<'PY' || exit 1
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
pct = re.compile(r"^[+-][0-9]+\.[0-9]%$")
hosts = [r["hosts"] for r in rows]
bad = [r for r in rows if not (pct.match(r["residual_comm"]) and pct.match(r["residual_epoch"])
                               and float(r["measured_comm_ms"]) > 0)]
if hosts != ["2", "3"] or bad:
    sys.exit(f"FAIL: expected hosts 2 and 3, each with residuals; got {hosts}, bad rows {bad}")
for r in rows:
    print(f"OK {r['hosts']} hosts ({r['algorithm']}): allreduce per step measured "
          f"{r['measured_comm_ms']} ms, simulated {r['simulated_comm_ms']} ms, {r['residual_comm']}")
PY
