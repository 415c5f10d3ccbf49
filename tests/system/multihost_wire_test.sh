#!/usr/bin/env bash
# multihost.sh --latency: the user-space switch (experiments/multihost_wire.py) must give its
# links the latency and bandwidth asked for. lenet-mpi-pingpong over 2 hosts at 2 ms and
# 10 Mbit/s (1.25 MB/s): an 8-byte message must take at least 2 ms one way, and a 64 KiB message
# cannot beat 1.25 MB/s. Both are bounds a busy machine cannot break (load only adds time), so
# they fail only when the switch does not delay or does not limit. The switch's own account must
# show the traffic. Bad --latency and --bandwidth values must stop it with one line, exit 2.
# Usage: multihost_wire_test.sh MULTIHOST_TEST_SH MULTIHOST_SH BUILD_DIR PINGPONG
# (SKIPPED through multihost.sh where namespaces or TUN devices cannot be made.)
set -uo pipefail
wrapper=$1 multihost=$2 build=$3 pingpong=$4
fail() { echo "FAIL: $*"; exit 1; }

# Each case: the flag at fault, then the flags.
for case in "--latency --latency 1s" "--bandwidth --latency 1ms --bandwidth 10mbps" \
  "--latency --latency fast"; do
  flag=${case%% *} bad=${case#* }
  # shellcheck disable=SC2086 # the flags of one case, split at spaces
  err=$(bash "$multihost" $bad --no-check 2>&1)
  status=$?
  [[ $status -eq 2 && $(wc -l <<<"$err") -eq 1 && $err == *"error: $flag:"* ]] ||
    fail "'$bad': expected one line naming $flag and exit 2, got $status: $err"
  echo "OK: '$bad' -> $err"
done

out=$(bash "$wrapper" "$multihost" --hosts 2 --latency 2ms --bandwidth 10mbit --no-check \
  --build "$build" --mpi "$pingpong" -- --seconds 0.5 2>&1)
status=$?
echo "$out"
[[ $status -eq 77 ]] && exit 77
[[ $status -eq 0 ]] || fail "multihost.sh --latency exited $status"
alpha=$(sed -n 's/^alpha_us = //p' <<<"$out")
mbps=$(awk '$1 == 65536 { print $4 }' <<<"$out")
[[ -n $alpha && -n $mbps ]] || fail "no alpha_us or 64 KiB row in the ping-pong's output"
awk -v a="$alpha" 'BEGIN { exit !(a >= 2000) }' || fail "alpha $alpha us < the 2 ms asked for"
awk -v b="$mbps" 'BEGIN { exit !(b <= 1.25) }' || fail "64 KiB at $mbps MB/s > 10 Mbit/s"
grep -q "switch: h1: sent [1-9][0-9]* packets" <<<"$out" || fail "no traffic in the switch's account"
echo "OK: one way 8 B in $alpha us (>= 2000), 64 KiB at $mbps MB/s (<= 1.25)"
