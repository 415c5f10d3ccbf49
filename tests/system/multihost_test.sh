#!/usr/bin/env bash
# Runs experiments/multihost.sh (lenet-mpi across network-namespace "hosts", checked against
# lenet-serial), then checks that the run left nothing behind: none of its namespaces, hosts
# files or work folder, and the machine's own interfaces and qdiscs as they were.
# Usage: multihost_test.sh MULTIHOST_SH [multihost.sh arguments...]
# Exit status: multihost.sh's (77 = SKIPPED where namespaces cannot be made), or 1 if it passed
# but left something behind.
set -uo pipefail

script=$1
shift

# The machine's own network, before: interface names and qdiscs (multihost.sh must not touch
# them; everything it makes lives in its namespaces).
machine_state() {
  ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sort
  tc qdisc show 2>/dev/null | sort
}
before=$(machine_state)

# Background, so that $! is multihost.sh's PID, which names everything it makes.
bash "$script" "$@" &
pid=$!
wait "$pid"
status=$?
[[ $status -eq 0 ]] || exit "$status"

prefix="lenet-mh${pid}-"
left=$(
  ip netns list 2>/dev/null | grep "^${prefix}"
  ls -d /etc/netns/"${prefix}"* "/tmp/lenet-mh${pid}" 2>/dev/null
)
if [[ -n "$left" ]]; then
  echo "FAIL: multihost.sh left behind: $left"
  exit 1
fi
if [[ "$(machine_state)" != "$before" ]]; then
  echo "FAIL: the machine's interfaces or qdiscs changed:"
  diff <(echo "$before") <(machine_state)
  exit 1
fi
echo "OK: no namespace, veth, bridge, qdisc, hosts file or work folder of run ${prefix%-} is left"
