#!/usr/bin/env bash
# lenet-cuda through its command line. Usage: test_cuda_cli.sh MODE LENET_CUDA LENET_SERIAL DATA_DIR
#   MODE no-gpu: on a machine without a usable GPU, a run must fail the documented way: exit
#                code 2 and a single stderr line: "lenet-cuda: error: no CUDA GPU found ..." where
#                the machine has no NVIDIA GPU at all, "lenet-cuda: error: no CUDA device:
#                <CUDA's reason>" where it has one that CUDA cannot use.
#   MODE train:  each kernel version trains one epoch at B = 1 and 32, and --verify finds its
#                parameters within the driver's tolerance of lenet-serial's.
# Each mode needs its own kind of machine; on the other kind it says SKIPPED and exits 77.
set -u
mode=$1 cuda=$2 serial=$3 data=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$cuda" --data "$data" --epochs 0 --quiet >"$tmp/out" 2>"$tmp/err"
code=$?
if [[ $mode == no-gpu ]]; then
  if [[ $code -eq 0 ]]; then
    echo "SKIPPED: a GPU is present ($(grep -m1 Device "$tmp/out" | sed 's/  */ /g'))"
    exit 77
  fi
  # The same test as lenet-cuda's: the driver's device node, or NVIDIA's (0x10de) display or 3D
  # controller (class 0x03...) on the PCI bus.
  want="no CUDA GPU found"
  [[ -e /dev/nvidia0 ]] && want="no CUDA device: "
  for d in /sys/bus/pci/devices/*; do
    [[ $(cat "$d/vendor" 2>/dev/null) == 0x10de && $(cat "$d/class" 2>/dev/null) == 0x03* ]] &&
      want="no CUDA device: "
  done
  lines=$(grep -c . "$tmp/err")
  if [[ $code -eq 2 && $lines -eq 1 ]] && grep -q "^lenet-cuda: error: $want" "$tmp/err"; then
    echo "ok: $(cat "$tmp/err")"
    exit 0
  fi
  echo "FAIL: exit $code with $lines stderr lines, wanted 2 and one '$want' line:"
  sed 's/^/    /' "$tmp/err" | head -5
  exit 1
fi

if [[ $code -ne 0 ]]; then
  echo "SKIPPED: $(head -1 "$tmp/err")"
  exit 77
fi
failures=0
for kernels in v1 v2 fused; do
  for batch in 1 32; do
    lr=$([[ $batch -eq 1 ]] && echo 0.05 || echo 0.5)
    "$serial" --data "$data" --epochs 1 --quiet --batch "$batch" --lr "$lr" \
      --save "$tmp/serial.ck" >/dev/null || exit 1
    out=$("$cuda" --data "$data" --epochs 1 --quiet --kernels "$kernels" --batch "$batch" \
      --lr "$lr" --verify "$tmp/serial.ck" 2>&1)
    if grep -q "Verification *= SUCCESSFUL" <<<"$out"; then
      echo "ok   $kernels B=$batch: $(grep -E 'Verification' <<<"$out" | sed 's/  */ /g')"
    else
      echo "FAIL $kernels B=$batch:"
      sed 's/^/    /' <<<"$out"
      failures=$((failures + 1))
    fi
  done
done
grep -E "Device|Compute|CUDA" "$tmp/out"
[[ $failures -eq 0 ]]
