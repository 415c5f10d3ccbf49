#!/bin/sh
# multihost_agent.sh: the "rsh agent" that experiments/multihost.sh gives Open MPI's mpirun
# (--mca plm_rsh_agent), in place of ssh. mpirun calls it as it would call ssh:
#
#     multihost_agent.sh HOST WORD...
#
# HOST is a name from the hostfile, and the WORDs are one shell command line (the orted daemon
# and its arguments, quoted for a remote shell, which is why they are joined and given to sh -c).
# multihost.sh names each host after its network namespace, so "logging in" to HOST is entering
# the namespace HOST (ip netns exec, which also puts /etc/netns/HOST/hosts in place of
# /etc/hosts) with a UTS namespace of its own, so that `hostname` there says HOST, as it would on
# a real machine. Like ssh, it exits 255 when it cannot reach the host.
set -eu

prog=multihost_agent.sh
if [ $# -lt 2 ]; then
  echo "$prog: usage: $prog HOST COMMAND... (called by mpirun, see experiments/multihost.sh)" >&2
  exit 255
fi
host=$1
shift

# Only the namespaces multihost.sh made: never run anything anywhere else.
case $host in
  lenet-mh[0-9]*-h[0-9]*) ;;
  *)
    echo "$prog: '$host' is not a host made by multihost.sh (lenet-mhPID-hN)" >&2
    exit 255
    ;;
esac
if ! ip netns list | grep -q "^$host\( \|\$\)"; then
  echo "$prog: no network namespace '$host' (its multihost.sh run has ended?)" >&2
  exit 255
fi

exec ip netns exec "$host" unshare --uts \
  sh -c 'hostname "$0" && exec sh -c "$1"' "$host" "$*"
