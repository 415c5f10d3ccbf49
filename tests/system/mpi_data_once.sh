#!/usr/bin/env bash
# lenet-mpi on 4 ranks of one node reads the data set once (tests/system/system.cmake): strace follows
# every process the launcher starts and logs each file they open; the training and test images must
# each be opened once, by one rank, and the summary must say "1 of 4 ranks". Before the node's
# ranks shared one read (issue 30), each file was opened 4 times. SKIPPED without strace.
# Usage: mpi_data_once.sh LENET_MPI DATA_DIR LAUNCH...   (LAUNCH: run_scripts/mpi_launch.sh BUILD_DIR)
set -u
exe=$1 data=$2
shift 2
launch=("$@")
command -v strace >/dev/null || { echo "SKIPPED: strace not found (apt-get install strace)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! timeout 60 strace -f -qq -e trace=openat -o "$tmp/opens" "${launch[@]}" -n 4 "$exe" \
  --data "$data" --quiet >"$tmp/out" 2>&1; then
  tail -n 5 "$tmp/out"
  echo "FAILED: lenet-mpi on 4 ranks under strace"
  exit 1
fi
failed=0
for file in train-images-idx3-ubyte t10k-images-idx3-ubyte; do
  # Opened, not merely looked for: the loader tries other spellings first (ENOENT).
  opens=$(grep -F "/$file\"" "$tmp/opens" | grep -vc '= -1 ')
  pids=$(grep -F "/$file\"" "$tmp/opens" | grep -v '= -1 ' | cut -d' ' -f1 | paste -sd' ')
  if [[ $opens -ne 1 ]]; then
    echo "FAILED: $file opened $opens times (processes $pids), expected once for the node"
    failed=1
  else
    echo "ok   $file opened once, by process $pids"
  fi
done
line=$(grep -m1 'Data read by' "$tmp/out")
[[ $line == *"= 1 of 4 ranks"* ]] || { echo "FAILED: the summary says '$line'"; failed=1; }
[[ $failed -eq 0 ]] && echo "OK: 4 ranks, one read ($line)"
exit "$failed"
