#!/usr/bin/env bash
# multihost.sh: runs lenet-mpi across several "hosts" on this one machine, each host a Linux
# network namespace with its own address, joined to a switch (a bridge in a namespace of its
# own) by a veth pair, and launched the way a cluster launches it: Open MPI's rsh launcher,
# with experiments/multihost_agent.sh in place of ssh. Checks that the parameters are
# bit-identical to lenet-serial's and always removes everything it made. See --help and
# docs/multihost.md.
set -eEuo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="multihost.sh"
source "${REPO_ROOT}/run_scripts/lib.sh" # say, die, need, positive, csv_get
# Given to mpirun as "sh AGENT" (so it needs no execute bit), which Open MPI splits at spaces.
AGENT="${SCRIPT_DIR}/multihost_agent.sh"
# Every name this script makes starts with this; --cleanup finds leftovers by it. The agent
# accepts only hosts named so.
NAME_BASE="lenet-mh"

usage() {
  cat <<EOF
Usage: bash experiments/multihost.sh [options] [-- lenet-mpi flags...]

Makes --hosts network namespaces ("hosts") joined by a switch, writes a hostfile, runs
  mpirun -np HOSTS*RANKS lenet-mpi --exact FLAGS...
across them over TCP (nothing else: no shared memory between hosts), then runs lenet-serial
with the same FLAGS and checks that the parameter CRC-32s of their CSV rows (param_crc32; --csv
FILE among the FLAGS, else a file of its own) are equal. Must run as root.

  --hosts H             hosts (default: 2)
  --ranks-per-host R    ranks on each host (default: 1)
  --bandwidth RATE      shape every host's link to RATE in each direction with tc's token
                        bucket (tbf), e.g. 1gbit, 100mbit, 10mbit (default: unshaped)
  --latency TIME        one-way latency between hosts, e.g. 1ms, 500us: the switch is then
                        experiments/multihost_wire.py, a user-space switch at a real-time
                        priority, whose links also carry --bandwidth (store and forward, no
                        burst; no tc, no netem needed)
  --no-check            run FLAGS as given: no --exact, no lenet-serial, no comparison
  --build DIR           where lenet-mpi and lenet-serial were built (default: build)
  --mpi EXE             lenet-mpi to run (default: DIR/backend_mpi/lenet-mpi)
  --serial EXE          lenet-serial to compare with (default: DIR/backend_serial/lenet-serial)
  --cleanup             remove what killed runs of this script left behind, then exit
  -h, --help            this help

Without --, FLAGS are: --data data/digits --train-limit 1000 --epochs 1. With --mpi, any MPI
program runs the same way (e.g. --no-check --mpi build/backend_mpi/lenet-mpi-pingpong --).

The test subnet is a 10.x.y.0/24 that exists only inside the namespaces (picked so that it
overlaps none of this machine's addresses); the machine's own interfaces are never touched.
Names: namespaces ${NAME_BASE}PID-sw (the switch) and ${NAME_BASE}PID-h1.. (the hosts, also their
host names), /etc/netns/${NAME_BASE}PID-hN/hosts, and a work folder /tmp/${NAME_BASE}PID.

Exit status: 0 bit-identical (or --no-check and lenet-mpi succeeded); 1 the parameters differ;
2 a usage error; 77 this machine cannot make namespaces (not root, no ip, ip netns add fails)
or lacks mpirun, unshare or tc (reason on one line); else lenet-mpi's own status.
EOF
}

# skip REASON: this machine cannot run the test; CTest reports SKIPPED for 77.
skip() {
  echo "SKIPPED: ${PROG}: $*"
  exit 77
}

hosts=2
ranks_per_host=1
bandwidth=""
latency=""
check=1
build_dir="${REPO_ROOT}/build"
mpi_exe=""
serial_exe=""
cleanup_only=0
lenet_flags=(--data "${REPO_ROOT}/data/digits" --train-limit 1000 --epochs 1)

while [[ $# -gt 0 ]]; do
  case "$1" in
    --hosts) need "$@"; positive "$1" "$2"; hosts=$2; shift 2 ;;
    --ranks-per-host) need "$@"; positive "$1" "$2"; ranks_per_host=$2; shift 2 ;;
    --bandwidth) need "$@"; bandwidth=$2; shift 2 ;;
    --latency) need "$@"; latency=$2; shift 2 ;;
    --no-check) check=0; shift ;;
    --build) need "$@"; build_dir=$2; shift 2 ;;
    --mpi) need "$@"; mpi_exe=$2; shift 2 ;;
    --serial) need "$@"; serial_exe=$2; shift 2 ;;
    --cleanup) cleanup_only=1; shift ;;
    -h | --help) usage; exit 0 ;;
    --) shift; lenet_flags=("$@"); break ;; # exactly these, even none
    *) die "unknown argument '$1' (lenet-mpi's flags go after --; see --help)" ;;
  esac
done
[[ "$hosts" -ge 2 && "$hosts" -le 200 ]] || die "--hosts: expected 2 to 200, got $hosts"
# The wire's figures: --latency in microseconds, --bandwidth in bytes/s (tc's units: kbit, mbit
# and gbit are 1000, 10^6 and 10^9 bits per second).
wire_latency_us="" wire_rate=0
if [[ -n $latency ]]; then
  latency_arg --latency "$latency"
  wire_latency_us=$(awk -v t="$latency" 'BEGIN { printf "%.3f", (t ~ /ms$/) ? t * 1000 : t + 0 }')
  if [[ -n $bandwidth ]]; then
    rate_arg --bandwidth "$bandwidth"
    wire_rate=$(awk -v r="${bandwidth,,}" 'BEGIN {
      u = (r ~ /kbit$/) ? 1e3 : (r ~ /mbit$/) ? 1e6 : 1e9; printf "%.0f", r * u / 8 }')
  fi
fi
mpi_exe=$(realpath -m "${mpi_exe:-"${build_dir}/backend_mpi/lenet-mpi"}")
serial_exe=$(realpath -m "${serial_exe:-"${build_dir}/backend_serial/lenet-serial"}")

# --- What this machine must have: otherwise SKIPPED, with the reason. ---
[[ $(id -u) -eq 0 ]] || skip "network namespaces need root (run as root)"
command -v ip >/dev/null || skip "no 'ip' command (Debian: apt-get install iproute2)"

# A run's names: ${NAME_BASE}PID-sw, ${NAME_BASE}PID-h1, ...
prefix="${NAME_BASE}$$"
switch_ns="${prefix}-sw"
host_ns() { echo "${prefix}-h$1"; }
run_dir="/tmp/${prefix}"

# run_alive PID: a multihost.sh with that PID is still running (its names are not leftovers).
run_alive() { grep -qs "$PROG" "/proc/$1/cmdline"; }

# stop_pids PID...: TERM, up to 3 s to exit, then KILL (pids that are ours only: our children,
# or processes inside our own namespaces).
stop_pids() {
  [[ $# -gt 0 ]] || return 0
  kill -TERM "$@" 2>/dev/null || true
  for _ in $(seq 30); do
    kill -0 "$@" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$@" 2>/dev/null || true
}

# remove_namespace NS: ends the processes still inside it (orted, lenet-mpi of a killed run),
# then deletes it; its interfaces (veths, bridge) and their qdiscs go with it.
remove_namespace() {
  local ns=$1 pids
  pids=$(ip netns pids "$ns" 2>/dev/null || true)
  # shellcheck disable=SC2086 # one word per pid
  stop_pids $pids
  ip netns del "$ns" 2>/dev/null || true
  rm -rf "/etc/netns/${ns}"
}

# --cleanup: every name with the prefix whose run is no longer alive.
if [[ $cleanup_only -eq 1 ]]; then
  removed=0
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep "^${NAME_BASE}[0-9]*-" || true); do
    pid=${ns#"${NAME_BASE}"}
    pid=${pid%%-*}
    if run_alive "$pid"; then
      say "keeping $ns: its run (pid $pid) is still going"
      continue
    fi
    remove_namespace "$ns"
    say "removed namespace $ns"
    removed=$((removed + 1))
  done
  for path in /etc/netns/"${NAME_BASE}"[0-9]*-* /tmp/"${NAME_BASE}"[0-9]* /tmp/ompi."${NAME_BASE}"[0-9]*; do
    [[ -e "$path" ]] || continue
    pid=${path##*"${NAME_BASE}"}
    pid=${pid%%-*}
    run_alive "$pid" && continue
    rm -rf "$path"
    say "removed $path"
    removed=$((removed + 1))
  done
  say "cleanup: $removed leftover(s) removed"
  exit 0
fi

command -v unshare >/dev/null || skip "no 'unshare' command (Debian: apt-get install util-linux)"
# The hosts are wired up through Open MPI's rsh agent and MCA parameters: Open MPI only.
family=$(bash "$REPO_ROOT/run_scripts/mpi_launch.sh" "$build_dir" --family 2>&1) || skip "${family#*error: }"
[[ $family == openmpi ]] ||
  skip "the hosts are started by Open MPI's mpirun (rsh agent, --mca); $build_dir's MPI is $family"
if [[ -n $latency ]]; then
  command -v python3 >/dev/null || skip "--latency needs python3 (Debian: apt-get install python3)"
  [[ -c /dev/net/tun ]] || skip "--latency needs TUN devices (/dev/net/tun; modprobe tun)"
elif [[ -n "$bandwidth" ]]; then
  command -v tc >/dev/null || skip "--bandwidth needs 'tc' (Debian: apt-get install iproute2)"
fi
[[ "$AGENT" != *[[:space:]]* ]] || die "the path $AGENT has a space, which mpirun's plm_rsh_agent cannot take"
[[ -x "$mpi_exe" ]] || die "$mpi_exe not found: build it (cmake --build $build_dir --target lenet-mpi) or give --mpi"
if [[ $check -eq 1 ]]; then
  [[ -x "$serial_exe" ]] || die "$serial_exe not found: build it or give --serial"
fi
ranks=$((hosts * ranks_per_host))

# --- The test subnet: 10.x.y.0/24, from the PID, overlapping none of the machine's subnets. ---
ip_to_int() {
  local a b c d
  IFS=. read -r a b c d <<<"$1"
  echo $(((a << 24) | (b << 16) | (c << 8) | d))
}
# overlaps_machine NET/24: true if it overlaps an address or route of the machine's own
# namespace (read only; the default route, 0.0.0.0/0, overlaps everything and is left out).
overlaps_machine() {
  local lo=$(($(ip_to_int "${1%/*}"))) hi cidr net len mask
  hi=$((lo + 255))
  for cidr in $(ip -4 -o addr show | awk '{print $4}') $(ip -4 route show | awk '$1 ~ /\// {print $1}'); do
    net=$(ip_to_int "${cidr%/*}")
    len=${cidr#*/}
    mask=$(((0xffffffff << (32 - len)) & 0xffffffff))
    net=$((net & mask))
    ((net <= hi && (net | (~mask & 0xffffffff)) >= lo)) && return 0
  done
  return 1
}
subnet=""
for ((try = 0; try < 256; ++try)); do
  n=$(($$ + try))
  candidate="10.$((100 + n % 100)).$(((n / 100) % 256))"
  if ! overlaps_machine "${candidate}.0/24"; then
    subnet=$candidate
    break
  fi
done
[[ -n "$subnet" ]] || skip "no free 10.x.y.0/24 subnet for the test network"
cidr="${subnet}.0/24"

# --- Teardown, whatever happens from here on. ---
made=()  # namespaces made by this run, in order
child="" # the running mpirun or lenet-serial
teardown() {
  local status=$?
  trap - EXIT ERR
  trap '' INT TERM # a second Ctrl-C must not cut the teardown short
  [[ -z "$child" ]] || stop_pids "$child"
  [[ -z "${wire_pid:-}" ]] || stop_pids "$wire_pid"
  local i
  for ((i = ${#made[@]} - 1; i >= 0; --i)); do remove_namespace "${made[i]}"; done
  rm -rf "$run_dir"
  # Say what is left, if anything (nothing, unless a kernel or tool failed).
  local left
  left=$(
    ip netns list | grep "^${prefix}-" || true
    ls -d /etc/netns/"${prefix}"-* "$run_dir" 2>/dev/null || true
  )
  if [[ -n "$left" ]]; then
    echo "${PROG}: teardown: left behind (remove with --cleanup):" $left >&2
    [[ $status -ne 0 ]] || status=1
  elif [[ ${#made[@]} -gt 0 ]]; then
    say "teardown: removed ${#made[@]} namespaces (with their links, switch and qdiscs)," \
      "nothing left"
  fi
  exit "$status"
}
trap teardown EXIT
trap 'say "interrupted (SIGINT): stopping mpirun, removing the hosts"; exit 130' INT
trap 'say "terminated (SIGTERM): stopping mpirun, removing the hosts"; exit 143' TERM
trap 'echo "${PROG}: error: line $LINENO: $BASH_COMMAND failed" >&2' ERR

# --- The switch, in a namespace of its own: a kernel bridge, or with --latency the user-space
# switch, which makes one TUN device per host (h1, h2, ...) and says "ready". ---
mkdir -p "$run_dir"
if ! err=$(ip netns add "$switch_ns" 2>&1); then
  skip "cannot make network namespaces here (ip netns add: ${err//$'\n'/ })"
fi
made+=("$switch_ns")
wire_log="${run_dir}/wire.log" wire_pid=""
if [[ -n $latency ]]; then
  ports=()
  for ((i = 1; i <= hosts; ++i)); do ports+=("h${i}=${subnet}.${i}"); done
  # A real-time priority, so that ranks busy-waiting on the same cores cannot delay a packet.
  priority=(chrt --fifo 20)
  chrt --fifo 20 true 2>/dev/null || priority=()
  ip netns exec "$switch_ns" "${priority[@]}" python3 "${SCRIPT_DIR}/multihost_wire.py" \
    "$wire_rate" "$wire_latency_us" "${ports[@]}" >"$wire_log" 2>&1 &
  wire_pid=$!
  until grep -qs '^ready$' "$wire_log"; do  # the TUN devices exist once it says so
    kill -0 "$wire_pid" 2>/dev/null ||
      die "--latency: the user-space switch failed: $(tail -n 1 "$wire_log")"
    sleep 0.05
  done
else
  ip -n "$switch_ns" link add br0 type bridge
  ip -n "$switch_ns" link set br0 up
fi

# netem (added delay) is what one would use for latency; many kernels lack it. Probe it on a
# scratch veth pair inside the switch namespace.
netem="not available on this kernel (sch_netem): --latency uses the user-space switch instead"
if command -v tc >/dev/null; then
  ip -n "$switch_ns" link add probe0 type veth peer name probe1
  if tc -n "$switch_ns" qdisc add dev probe0 root netem delay 1ms 2>/dev/null; then
    netem="available (this script does not use it: --latency uses its user-space switch)"
  fi
  ip -n "$switch_ns" link del probe0
else
  netem="unknown (no tc)"
fi

# --- The hosts: a namespace each, with one link to the switch, eth0: the switch's TUN device
# hN moved in and renamed (--latency), or one end of a veth pair whose other end hN is a port
# of the bridge. Their names resolve through /etc/netns/NS/hosts, which ip netns exec puts in
# place of /etc/hosts inside the namespace. ---
hosts_file="${run_dir}/hosts"
hostfile="${run_dir}/hostfile"
echo "127.0.0.1 localhost" >"$hosts_file"
: >"$hostfile"
for ((i = 1; i <= hosts; ++i)); do
  echo "${subnet}.${i} $(host_ns "$i")" >>"$hosts_file"
  echo "$(host_ns "$i") slots=${ranks_per_host}" >>"$hostfile"
done
for ((i = 1; i <= hosts; ++i)); do
  ns=$(host_ns "$i")
  ip netns add "$ns"
  made+=("$ns")
  if [[ -n $latency ]]; then
    ip -n "$switch_ns" link set "h${i}" netns "$ns"
    ip -n "$ns" link set "h${i}" name eth0
    # The switch carries IPv4 only: no IPv6 chatter on the link.
    ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 2>/dev/null || true
  else
    ip -n "$switch_ns" link add "h${i}" type veth peer name eth0 netns "$ns"
    ip -n "$switch_ns" link set "h${i}" master br0 up
  fi
  ip -n "$ns" addr add "${subnet}.${i}/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  mkdir -p "/etc/netns/${ns}"
  cp "$hosts_file" "/etc/netns/${ns}/hosts"
done

# --- Bandwidth: a token bucket (tbf) on both ends of each host's link: eth0 shapes what the
# host sends, hN (its port on the switch) what it receives. The bucket's size (burst) is what
# may pass at once at full speed: one 4 KiB page (32 kbit), so that a 9 KB message already
# waits for the rate, but at least 0.25 ms of the rate, since tbf refills on timer ticks and
# a busy machine fires them late (1gbit with 4 KiB reached 7 MB/s here). ---
burst_bytes=0
if [[ -n "$bandwidth" && -z $latency ]]; then
  # Probe on br0 (no traffic there): first whether the kernel has tbf, then the rate, read back
  # in bytes/s from tc's own parser.
  tbf() { tc -n "$switch_ns" qdisc add dev "$1" root tbf rate "$2" burst "$3" latency 400ms; }
  tbf br0 1mbit 32kbit 2>/dev/null || skip "--bandwidth: the kernel has no tbf qdisc (sch_tbf)"
  tc -n "$switch_ns" qdisc del dev br0 root
  if ! err=$(tbf br0 "$bandwidth" 32kbit 2>&1); then
    die "--bandwidth: tc does not take '$bandwidth' as a rate (e.g. 100mbit, 1gbit): ${err//$'\n'/ }"
  fi
  rate_bytes=$(tc -n "$switch_ns" -j qdisc show dev br0 | sed -n 's/.*"rate":\([0-9]*\).*/\1/p')
  tc -n "$switch_ns" qdisc del dev br0 root
  burst_bytes=$((rate_bytes / 4000 > 4096 ? rate_bytes / 4000 : 4096))
  for ((i = 1; i <= hosts; ++i)); do
    tc -n "$(host_ns "$i")" qdisc add dev eth0 root tbf rate "$bandwidth" burst "$burst_bytes" latency 400ms
    tbf "h${i}" "$bandwidth" "$burst_bytes"
  done
fi

# --- The launch. mpirun runs on host 1 (as on a cluster's first node), with its own host name;
# it starts an orted on every other host through the agent, which enters that host's namespace.
mca=(
  --mca plm rsh                          # launch daemons the ssh way...
  --mca plm_rsh_agent "sh $AGENT"        # ...with the agent instead of ssh
  --mca plm_rsh_no_tree_spawn 1          # mpirun starts every orted itself
  --mca oob_tcp_if_include "$cidr"       # Open MPI's own wire-up: the test subnet only
  --mca pml ob1                          # point-to-point through the BTLs below (not UCX)
  --mca btl tcp,self                     # TCP between ranks, never shared memory
  --mca btl_tcp_if_include "$cidr"       # and TCP on the test subnet only
  --mca mpi_yield_when_idle 1            # a waiting rank lets the kernel's network work run
  --mca orte_tmpdir_base "$run_dir"      # session files in the work folder, gone at teardown
)
# mpi_launch.sh --exec: Open MPI's mpirun with these options as they are, in the environment it
# needs (as root: OMPI_ALLOW_RUN_AS_ROOT*).
launch=(bash "$REPO_ROOT/run_scripts/mpi_launch.sh" "$build_dir" --exec
  --hostfile "$hostfile" -np "$ranks" --bind-to none "${mca[@]}")
mpi_flags=("${lenet_flags[@]}")
# The check reads each run's parameter CRC-32 from its CSV row (param_crc32): the --csv FILE of
# the flags, else one of its own.
csv="" own_csv=()
for ((i = 0; i < ${#lenet_flags[@]}; ++i)); do
  case "${lenet_flags[i]}" in
    --csv) csv=${lenet_flags[i + 1]:-} ;;
    --csv=*) csv=${lenet_flags[i]#--csv=} ;;
  esac
done
if [[ $check -eq 1 ]]; then
  mpi_flags+=(--exact)
  [[ -n $csv ]] || { csv="${run_dir}/runs.csv"; own_csv=(--csv "$csv"); }
  mpi_flags+=("${own_csv[@]}")
fi

say "hosts: $hosts namespaces, $ranks_per_host rank(s) each, switch $switch_ns, subnet $cidr"
for ((i = 1; i <= hosts; ++i)); do say "  $(host_ns "$i")  ${subnet}.${i}"; done
if [[ -n $latency ]]; then
  say "links: user-space switch (multihost_wire.py${priority[*]:+, ${priority[*]}}), one-way latency" \
    "$latency, bandwidth ${bandwidth:-unlimited}${bandwidth:+ ($wire_rate B/s)} per host link and direction"
elif [[ -n "$bandwidth" ]]; then
  say "bandwidth: $bandwidth ($rate_bytes B/s) per host link and direction, tc tbf burst $burst_bytes B"
else
  say "bandwidth: unshaped (veth pairs: no limit but the CPU's)"
fi
say "netem: $netem"
say "mpirun runs on $(host_ns 1):"
echo "  ${launch[*]} $mpi_exe ${mpi_flags[*]}"

# Background + wait: a signal to this script interrupts `wait` at once (a foreground child
# would delay the trap until it ended); $! is tee, and wait gives the pipeline's status
# (pipefail). mpirun itself lives in host 1's namespace, so teardown finds it there.
mpi_log="${run_dir}/mpi.log"
ip netns exec "$(host_ns 1)" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$(host_ns 1)" \
  "${launch[@]}" "$mpi_exe" "${mpi_flags[@]}" 2>&1 | tee "$mpi_log" &
child=$!
mpi_status=0
if [[ -n $wire_pid ]]; then
  # Whichever ends first: a switch that died would leave mpirun waiting on links that are gone.
  ended=""
  wait -n -p ended "$child" "$wire_pid" || mpi_status=$?
  if [[ $ended == "$wire_pid" ]]; then
    wire_pid=""
    detail=$(grep -v '^ready$' "$wire_log" | tail -n 1) || true
    die "the user-space switch stopped during the run${detail:+: $detail}"
  fi
else
  wait "$child" || mpi_status=$?
fi
child=""

# What crossed each host's link (the namespaces' own counters).
for ((i = 1; i <= hosts; ++i)); do
  stats=$(ip netns exec "$(host_ns "$i")" cat /sys/class/net/eth0/statistics/tx_bytes \
    /sys/class/net/eth0/statistics/rx_bytes | tr '\n' ' ')
  read -r tx rx <<<"$stats"
  say "$(host_ns "$i") eth0: sent $((tx / 1000)) kB, received $((rx / 1000)) kB"
done
if [[ -n $wire_pid ]]; then  # the switch's own account: what it carried, the longest queue
  stop_pids "$wire_pid"
  wait "$wire_pid" 2>/dev/null || true
  wire_pid=""
  sed "/^ready$/d; s/^/${PROG}: switch: /" "$wire_log"
fi
[[ $mpi_status -eq 0 ]] || {
  say "lenet-mpi failed (status $mpi_status)"
  exit "$mpi_status"
}
[[ $check -eq 1 ]] || exit 0

# --- The check: lenet-serial, same flags (but not --threads, an MPI flag), same CRC-32. ---
mpi_crc=$(csv_get "$csv" param_crc32) || true
serial_flags=("${own_csv[@]}")
for ((i = 0; i < ${#lenet_flags[@]}; ++i)); do
  case "${lenet_flags[i]}" in
    --threads) i=$((i + 1)) ;;
    --threads=*) ;;
    *) serial_flags+=("${lenet_flags[i]}") ;;
  esac
done
serial_log="${run_dir}/serial.log"
"$serial_exe" "${serial_flags[@]}" >"$serial_log" 2>&1 &
child=$!
serial_status=0
wait "$child" || serial_status=$?
child=""
[[ $serial_status -eq 0 ]] || {
  cat "$serial_log" >&2
  say "lenet-serial failed (status $serial_status)"
  exit "$serial_status"
}
serial_crc=$(csv_get "$csv" param_crc32) || true
if [[ -n "$mpi_crc" && "$mpi_crc" == "$serial_crc" ]]; then
  say "PASS: Param CRC-32 $mpi_crc on $hosts hosts x $ranks_per_host rank(s) = lenet-serial's (bit-identical)"
  exit 0
fi
say "FAIL: Param CRC-32 ${mpi_crc:-(none)} on $hosts hosts, lenet-serial ${serial_crc:-(none)}"
exit 1
