#!/usr/bin/env bash
# lenet-cuda on the CPU emulation (tests/cuda_emu/) against lenet-serial: one kernel version
# trains one epoch at B = 1, 7, 33, 100, 128 and 499 on B + 1 images, so that every run ends with
# a batch of one sample, and --verify compares its parameters with serial's within the driver's
# per-tensor tolerance (common/verify.hpp): not bit-identical, the kernels sum in other orders. Each run uses another schedule seed; at B = 33 the same run in
# four schedules (in order, reversed, two shuffles) must give the same bits.
#   train_check.sh LENET_SERIAL VECTOR_DATA pass|fail LENET_CUDA_EMU VERSION
# pass: exit 0 when every check passes. fail: for a deliberately broken build (mutants.cmake),
# exit 0 when some check fails (a wrong result, a divergent barrier, NaN) and 1 when all pass.
set -u
serial=$1 vectors=$2 expect=$3 cuda=$4 version=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PROG=train_check.sh
source "$(dirname "$0")/../../run_scripts/lib.sh"  # lr_for

# 512 training images: the 128 of the test vectors, four times (IDX: a 16- or 8-byte header,
# the count big-endian at bytes 4-7).
data=$tmp/data
mkdir -p "$data"
cp "$vectors"/t10k-* "$data"/
{
  printf '\x00\x00\x08\x03\x00\x00\x02\x00\x00\x00\x00\x1c\x00\x00\x00\x1c'
  for _ in 1 2 3 4; do tail -c +17 "$vectors/train-images-idx3-ubyte"; done
} >"$data/train-images-idx3-ubyte"
{
  printf '\x00\x00\x08\x01\x00\x00\x02\x00'
  for _ in 1 2 3 4; do tail -c +9 "$vectors/train-labels-idx1-ubyte"; done
} >"$data/train-labels-idx1-ubyte"

echo "EMULATED: lenet-cuda --kernels $version on the CPU (tests/cuda_emu), not on a GPU"
failures=0
seed=2
for batch in 1 7 33 100 128 499; do
  run=(--data "$data" --train-limit $((batch + 1)) --batch "$batch" --lr "$(lr_for "$batch")"
    --quiet)
  "$serial" "${run[@]}" --save "$tmp/serial.ck" >/dev/null || exit 2
  seeds=$seed
  [[ $batch -eq 33 ]] && seeds="$seed 0 1 $((seed + 1))"
  for s in $seeds; do
    out=$(CUDA_EMU_SEED=$s "$cuda" "${run[@]}" --kernels "$version" --verify "$tmp/serial.ck" \
      --save "$tmp/seed$s.ck" 2>&1)
    line="B=$batch (steps of $batch and 1) seed $s"
    if grep -q "Verification *= SUCCESSFUL" <<<"$out"; then
      echo "ok   $line: $(grep -m1 Verification <<<"$out" | sed 's/  */ /g')"
    else
      echo "FAIL $line:"
      grep -E "Verification|cuda_emu|error" <<<"$out" | head -n 3 | sed "s/^/    /"
      failures=$((failures + 1))
    fi
    if [[ $s != "$seed" && -f $tmp/seed$seed.ck && -f $tmp/seed$s.ck ]]; then
      if cmp -s "$tmp/seed$seed.ck" "$tmp/seed$s.ck"; then
        echo "ok   B=$batch seeds $seed and $s: bit-identical parameters"
      else
        echo "FAIL B=$batch seeds $seed and $s: the parameters differ"
        failures=$((failures + 1))
      fi
    fi
  done
  seed=$((seed + 2))
done

if [[ $expect == fail ]]; then
  if [[ $failures -gt 0 ]]; then
    echo "ok: the deliberately broken build failed $failures checks"
    exit 0
  fi
  echo "FAIL: the deliberately broken build passed every check"
  exit 1
fi
[[ $failures -eq 0 ]]
