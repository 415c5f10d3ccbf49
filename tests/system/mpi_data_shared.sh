#!/usr/bin/env bash
# lenet-mpi on 4 ranks of one node holds one copy of the images, not four (tests/system/system.cmake):
# MpiComm::load puts them in an MPI shared-memory window that the node's ranks all read.
# How it knows: the job runs in a memory cgroup of its own, whose peak usage counts a shared
# page once and a private copy once per rank. Two runs, the same but for the data: the 128
# test images, then D bytes of images (100,000 random ones, 78 MB). The second may use at most
# 3 D more than the first: one copy per node needs about 2 D at its peak (the reader's copy
# as it reads, and the window it copies it into), four private copies 4 D. The data files are
# read once before the runs, so that the page cache charges them to no job.
# Usage: mpi_data_shared.sh LENET_MPI SMALL_DATA_DIR LAUNCH...
#   (LAUNCH: run_scripts/mpi_launch.sh BUILD_DIR)
# SKIPPED: not root, no memory cgroup that can be made (v1 memory.max_usage_in_bytes, v2
# memory.peak), or too little room in /dev/shm for the window (lenet-mpi then gives every rank
# a copy, and says so).
set -u
exe=$1 small=$2
shift 2
launch=("$@")
skip() { echo "SKIPPED: $*"; exit 77; }
[[ $(id -u) -eq 0 ]] || skip "a memory cgroup of its own needs root"
if [[ -f /sys/fs/cgroup/memory/memory.max_usage_in_bytes ]]; then
  parent=/sys/fs/cgroup/memory peak_file=memory.max_usage_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
  parent=/sys/fs/cgroup peak_file=memory.peak
else
  skip "no memory cgroup here (v1 memory controller or v2 with memory enabled)"
fi
group="$parent/lenet-data-shared-$$"
mkdir "$group" 2>/dev/null || skip "cannot make a cgroup in $parent (read-only?)"
[[ -r $group/$peak_file ]] || { rmdir "$group"; skip "no $peak_file (cgroup v2 before Linux 5.19)"; }
rmdir "$group"
bytes=$((100000 * 784))
free=$(df -B1 --output=avail /dev/shm 2>/dev/null | tail -n 1) || free=0
((free > 2 * bytes)) || skip "/dev/shm has ${free} bytes free, under 2 x $bytes for the window"
tmp=$(mktemp -d)
cleanup() { rmdir "$group" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

# The big data set: IDX files of random pixels and labels (and a small test set).
python3 - "$tmp/big" <<'EOF' || { echo "FAIL: cannot write the test data"; exit 1; }
import os, random, struct, sys
d = sys.argv[1]
os.makedirs(d)
for prefix, n in (("train", 100000), ("t10k", 100)):
    with open(f"{d}/{prefix}-images-idx3-ubyte", "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, 28, 28) + os.urandom(n * 784))
    with open(f"{d}/{prefix}-labels-idx1-ubyte", "wb") as f:
        f.write(struct.pack(">II", 2049, n) + bytes(random.randrange(10) for _ in range(n)))
EOF
cat "$tmp"/big/* "$small"/* >/dev/null

# peak DATA_DIR: the job's peak memory in bytes, in a fresh cgroup.
peak() {
  mkdir "$group" || { echo "FAIL: cannot make the cgroup $group"; exit 1; }
  # The subshell moves itself into the cgroup, then becomes the launcher: the job and only the job.
  if ! (echo "$BASHPID" >"$group/cgroup.procs" &&
    exec timeout 45 "${launch[@]}" -n 4 "$exe" --data "$1" \
      --train-limit 64 --test-limit 32 --epochs 1 --quiet >"$tmp/out" 2>&1); then
    tail -n 5 "$tmp/out"
    echo "FAIL: lenet-mpi on 4 ranks with --data $1"
    exit 1
  fi
  local bytes_used
  bytes_used=$(cat "$group/$peak_file")
  rmdir "$group"
  [[ $bytes_used =~ ^[0-9]+$ ]] || { echo "FAIL: $group/$peak_file read '$bytes_used'"; exit 1; }
  echo "$bytes_used"
}
base=$(peak "$small") || { echo "$base"; exit 1; }
big=$(peak "$tmp/big") || { echo "$big"; exit 1; }
grep -q 'Data read by *= 1 of 4 ranks' "$tmp/out" || { echo "FAIL: $(grep 'Data read by' "$tmp/out")"; exit 1; }
extra=$((big - base))
mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }
echo "peak of the job: $(mb "$base") with 128 images, $(mb "$big") with 100,000 ($(mb "$bytes")):" \
  "$(awk -v e="$extra" -v d="$bytes" 'BEGIN { printf "%.2f", e / d }') times the images more"
if ((extra >= 3 * bytes)); then
  echo "FAIL: $(mb "$extra") more is 3 copies of the images or more: the ranks hold their own"
  exit 1
fi
echo "OK: under 3 copies of the images for 4 ranks (one copy per node, in a shared-memory window)"
