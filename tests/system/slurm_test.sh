#!/usr/bin/env bash
# The Slurm batch scripts of experiments/slurm/, submitted for real: a Slurm cluster on this
# machine (munged, slurmctld and three slurmd with a private state folder and key), lenet-parallel
# installed with `cmake --install`, every script submitted with sbatch, and every run checked: the
# job COMPLETED, its per-job folder holds the CSV and the summary, the trained parameters are
# bit-identical to lenet-serial's, and the CSV names the host, the job, its node count and the
# hosts the ranks ran on. The cluster lives in network namespaces joined by a bridge: slurmctld
# and the one-node jobs' node (this machine's host name) in one, and two more nodes, each a
# slurmd in a namespace of its own with its own address and host name (a UTS namespace), for the
# two-node jobs (srun --mpi=pmix across slurmd daemons). Then the lab kit's `lab.sh class --slurm`
# times a class of two lab 1 submissions as a job array on the same cluster (its first grading
# builds the kit's starter and reference where this checkout has no build cache yet: minutes).
# Then everything is stopped and removed, also when the test is interrupted (a trap on EXIT,
# reached from SIGINT and SIGTERM too), and the test fails if a process of its cluster or a
# namespace is left.
#
# Usage: slurm_test.sh BUILD_DIR
# Exit status: 0 passed, 1 failed, 77 SKIPPED (not root, Slurm, munge or iproute2 not installed,
# or no network namespaces here).
set -uo pipefail

build=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG="slurm_test.sh"
source "$here/../../run_scripts/lib.sh" # csv_rows: the jobs' CSVs by column name
scripts=$(cd "$here/../../experiments/slurm" && pwd)
# The 128 real images of the test vectors: each run takes about a second.
run_args=(--data "$here/../vectors/data" --batch 16 --epochs 2)

skip() {
  echo "SKIPPED: $*"
  exit 77
}
[[ $(id -u) -eq 0 ]] ||
  skip "needs root (it starts munged, slurmctld and slurmd, and makes network namespaces)"
for c in munged mungekey munge slurmctld slurmd sbatch srun scontrol squeue sinfo scancel; do
  command -v "$c" >/dev/null ||
    skip "$c not found (Debian: apt-get install slurmctld slurmd slurm-client munge)"
done
for c in ip nsenter unshare; do
  command -v "$c" >/dev/null || skip "$c not found (Debian: apt-get install iproute2 util-linux)"
done
# Open MPI refuses to run as root unless told. Set here, not by mpi_launch.sh: the jobs' ranks are
# started by srun and the installed sbatch scripts' mpirun, which inherit this environment.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds (polled every 0.2 s), saying each
# minute that it still waits; false, with a message, when SECONDS pass first.
wait_for() {
  local limit=$1 what=$2 t0=$SECONDS end=$((SECONDS + $1)) told=$SECONDS
  shift 2
  until "$@"; do
    if ((SECONDS >= end)); then
      echo "FAIL: $what: not after $limit s"
      return 1
    fi
    if ((SECONDS - told >= 60)); then
      told=$SECONDS
      echo "waiting for $what: $((SECONDS - t0)) s so far"
    fi
    sleep 0.2
  done
}

# ---- Teardown: always, once -------------------------------------------------------------------
tmp="" conf=""
names=lenet-slurm$$  # the network namespaces' names start with this (below)
daemons=()  # munged, slurmctld, the slurmd: children of this script (run in the foreground)
namespaces=()  # the network namespaces made, in order (the switch first)
jobs_submitted=()
# cluster_processes: PIDs of every process started by this cluster (the daemons, slurmstepd,
# the jobs and their ranks): those whose environment holds our SLURM_CONF.
cluster_processes() {
  grep -lsF "SLURM_CONF=$conf" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}
# stopped PID: the process has exited (gone, or a zombie not yet reaped).
stopped() { [[ ! -e /proc/$1 ]] || [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) == Z ]]; }

torn_down=0
teardown() {
  ((torn_down)) && return
  torn_down=1
  trap - INT TERM
  if ((${#jobs_submitted[@]})); then
    slurm scancel "${jobs_submitted[@]}" 2>/dev/null
    wait_for 30 "cancelled jobs leave the queue" queue_empty
  fi
  local i pid left
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do  # the slurmd, slurmctld, then munged
    kill -TERM "${daemons[i]}" 2>/dev/null
    wait_for 20 "pid ${daemons[i]} stops on SIGTERM" stopped "${daemons[i]}" ||
      kill -KILL "${daemons[i]}" 2>/dev/null
    wait "${daemons[i]}" 2>/dev/null
  done
  [[ -n $tmp ]] || return  # interrupted before the cluster had its folder
  left=$(cluster_processes)
  if [[ -n $left ]]; then
    fail "processes of the test cluster were left running, killed now:" \
      "$(ps -o pid=,args= -p "${left//$'\n'/,}" 2>/dev/null)"
    for pid in $left; do kill -KILL "$pid" 2>/dev/null; done
  fi
  # The namespaces: their veths and the bridge go with them.
  for ((i = ${#namespaces[@]} - 1; i >= 0; i--)); do
    ip netns del "${namespaces[i]}" 2>/dev/null
  done
  left=$(ip netns list | grep -o "^$names-[a-z0-9]*")
  [[ -z $left ]] || fail "network namespaces left: ${left//$'\n'/ }"
  rm -rf "$tmp"
}
queue_empty() { [[ -z $(slurm squeue -h -o %i 2>/dev/null) ]]; }
trap 'status=$?; teardown; ((failures && status == 0)) && status=1; exit $status' EXIT
trap 'echo "interrupted: tearing the cluster down"; exit 130' INT
trap 'echo "terminated: tearing the cluster down"; exit 143' TERM

# ---- The cluster's private world: one folder, its own network --------------------------------
tmp=$(mktemp -d /tmp/lenet-slurm.XXXXXX)
chmod 755 "$tmp"
conf=$tmp/slurm.conf
# Namespaces NAMES-sw (the switch), NAMES-ctl (slurmctld and the one-node jobs' node), NAMES-n1
# and NAMES-n2 (the two-node jobs' nodes, also their host names and Slurm node names).
ctl_ns=$names-ctl
pair=("$names-n1" "$names-n2")
# Every Slurm command of this test reads our slurm.conf (and only they: the test's own
# environment has no SLURM_CONF, so the processes that do are the cluster's), in the network
# namespace of slurmctld.
slurm() { SLURM_CONF=$conf nsenter --net="/run/netns/$ctl_ns" "$@"; }

# ---- Install, as a cluster user would (docs/cluster.md) -----------------------------------------
prefix=$tmp/prefix
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  fail "cmake --install $build --prefix $prefix"
  exit 1
fi
for exe in lenet-serial lenet-openmp lenet-mpi; do
  [[ -x $prefix/bin/$exe ]] || skip "$exe is not built (the Slurm test needs OpenMP and MPI)"
done
for s in "$scripts"/*.sbatch; do
  cmp -s "$s" "$prefix/share/lenet-parallel/slurm/$(basename "$s")" ||
    fail "cmake --install did not install $s to $prefix/share/lenet-parallel/slurm"
done

# The reference: lenet-serial outside Slurm. Every job below must reproduce its bits.
mkdir -p "$tmp/submit" "$tmp/results"
serial_ck=$tmp/submit/serial.ck
"$prefix/bin/lenet-serial" "${run_args[@]}" --quiet --save "$serial_ck" >"$tmp/serial.txt" ||
  {
    cat "$tmp/serial.txt"
    fail "lenet-serial failed"
    exit 1
  }
crc=$(sed -n 's/^ *Param CRC-32 *= *//p' "$tmp/serial.txt")
echo "lenet-serial (outside Slurm): Param CRC-32 = $crc"

# ---- The network: a bridge in a namespace of its own (the switch), and a veth pair from it to
# each of the cluster's namespaces. The subnet 10.x.y.0/24 (from the PID) exists only inside
# them: this machine's own interfaces, routes and ports are never touched, so Slurm keeps its
# usual ports 6817 and 6818, and concurrent runs of this test have networks of their own.
start=$SECONDS
node=$(hostname -s)
subnet=10.$((100 + $$ % 100)).$((($$ / 100) % 256))
if ! err=$(ip netns add "$names-sw" 2>&1); then
  skip "cannot make network namespaces here (ip netns add: ${err//$'\n'/ })"
fi
namespaces+=("$names-sw")
# attach NAMESPACE ADDRESS PORT: a new namespace whose eth0 has ADDRESS, cabled to the bridge's
# port PORT.
attach() {
  ip netns add "$1" && namespaces+=("$1") &&
    ip -n "$names-sw" link add "$3" type veth peer name eth0 netns "$1" &&
    ip -n "$names-sw" link set "$3" master br0 up &&
    ip -n "$1" addr add "$2/24" dev eth0 && ip -n "$1" link set eth0 up &&
    ip -n "$1" link set lo up
}
if ! { ip -n "$names-sw" link add br0 type bridge && ip -n "$names-sw" link set br0 up &&
  attach "$ctl_ns" "$subnet.254" p0 && attach "${pair[0]}" "$subnet.1" p1 &&
  attach "${pair[1]}" "$subnet.2" p2; }; then
  fail "cannot make the test network (bridge, veth pairs) in namespaces $names-*"
  exit 1
fi

# ---- The cluster: munge's key and socket, slurmctld and three slurmd ---------------------------
# One munged: its socket is a file, which every namespace sees (they separate the network only).
mkdir -p "$tmp/munge" "$tmp/ctld" "$tmp/log"
for n in "$node" "${pair[@]}"; do mkdir -p "$tmp/spool/$n" "$tmp/nodetmp/$n"; done
mungekey --create --keyfile="$tmp/munge/munge.key" || exit 1
munged --foreground --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" \
  --log-file="$tmp/log/munged.log" >"$tmp/log/munged.out" 2>&1 &
daemons+=($!)
wait_for 30 "munged's socket $tmp/munge/socket" test -S "$tmp/munge/socket" || exit 1

# Partition test (the default): this machine's host name, in slurmctld's namespace, reached at
# 127.0.0.1; it offers 4 CPUs whatever this machine has (config_overrides), so that the 2-rank x
# 2-thread and 4-rank jobs fit: they are checked for their results, not timed. Partition pair:
# the two namespace nodes, 2 CPUs each, for the two-node jobs. The nodes share one file system:
# each slurmd has its own spool, PID file, log and TmpFS (%n, its node name), where Slurm's PMIx
# plugin makes its per-step folders (/tmp/spmix_appdir_* otherwise, the same name on both
# nodes). Job ids start from the PID, 100 for each (PIDs one apart gave adjacent ranges of 10
# when a run had 10 jobs), below Slurm's MaxJobId (67043328): Open MPI names its session files
# and shared memory after the job, and concurrent runs of this test must not meet there.
cat >"$conf" <<EOF
ClusterName=lenet-test
SlurmctldHost=$node($subnet.254)
SlurmctldPort=6817
SlurmdPort=6818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool/%n
TmpFS=$tmp/nodetmp/%n
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd-%n.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd-%n.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
FirstJobId=$(($$ % 670000 * 100 + 1))
MinJobAge=3600
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
NodeName=${pair[0]} NodeAddr=$subnet.1 CPUs=2 State=UNKNOWN
NodeName=${pair[1]} NodeAddr=$subnet.2 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
PartitionName=pair Nodes=${pair[0]},${pair[1]} MaxTime=INFINITE State=UP
EOF
# $! must be the daemon's own PID: nsenter and unshare (without --fork) exec, and so does sh.
# A slurmd knows its node by its host name: each pair node's is set in a UTS namespace.
SLURM_CONF=$conf nsenter --net="/run/netns/$ctl_ns" slurmctld -D -f "$conf" \
  >"$tmp/log/slurmctld.out" 2>&1 &
daemons+=($!)
SLURM_CONF=$conf nsenter --net="/run/netns/$ctl_ns" slurmd -D -f "$conf" \
  >"$tmp/log/slurmd-$node.out" 2>&1 &
daemons+=($!)
for n in "${pair[@]}"; do
  # shellcheck disable=SC2016 # $0 and $1 are sh's
  SLURM_CONF=$conf nsenter --net="/run/netns/$n" unshare --uts \
    sh -c 'hostname "$0" && exec slurmd -D -f "$1"' "$n" "$conf" >"$tmp/log/slurmd-$n.out" 2>&1 &
  daemons+=($!)
done
nodes_idle() { [[ $(slurm sinfo -h -N -o %T 2>/dev/null | grep -c '^idle$') -eq 3 ]]; }
if ! wait_for 60 "nodes $node, ${pair[*]} idle in the test cluster" nodes_idle; then
  slurm sinfo -N
  tail -n 20 "$tmp"/log/*
  exit 1
fi
echo "cluster up in $((SECONDS - start)) s: slurmctld at $subnet.254 and node $node (127.0.0.1)" \
  "in namespace $ctl_ns, nodes ${pair[0]} at $subnet.1 and ${pair[1]} at $subnet.2 in their own"
slurm srun --mpi=list 2>&1 | grep -qw pmix || {
  fail "this Slurm has no pmix MPI plugin (srun --mpi=list): the MPI scripts need it"
  exit 1
}

# ---- Submit every script ----------------------------------------------------------------------
# submit NAME RANKS THREADS ROWS SCRIPT [SBATCH_OPTION...] -- [PROGRAM_ARGUMENT...]: sbatch
# SCRIPT with the test's sizes in place of its cluster-sized #SBATCH lines; the run must have
# RANKS ranks of THREADS threads each and write ROWS CSV rows. LENET_REPEATS is $repeats
# (default 1). One node (this machine's host name) unless $nodes is 2: then on partition pair,
# rank 0 on its first node.
declare -A expect_ranks expect_threads expect_rows expect_nodes expect_host job_name
submit() {
  local name=$1 ranks=$2 threads=$3 rows=$4 script=$5 options=() id
  shift 5
  while [[ $1 != -- ]]; do
    options+=("$1")
    shift
  done
  shift
  id=$(slurm sbatch --parsable --chdir="$tmp/submit" --output="$tmp/submit/%x-%j.out" \
    --export="ALL,LENET_PREFIX=$prefix,LENET_RESULTS=$tmp/results,LENET_REPEATS=${repeats:-1}" \
    "${options[@]}" ${nodes:+--partition=pair} "$scripts/$script" "$@") || {
    fail "sbatch $script"
    return
  }
  id=${id%%;*}
  jobs_submitted+=("$id")
  job_name[$id]=$name expect_ranks[$id]=$ranks expect_threads[$id]=$threads
  expect_rows[$id]=$rows expect_nodes[$id]=${nodes:-1} expect_host[$id]=$host
  [[ -n ${nodes:-} ]] && expect_host[$id]=${pair[0]}
  echo "submitted $script as job $id${nodes:+ (on the $nodes nodes of partition pair)}"
}
check=("${run_args[@]}" --verify "$serial_ck" --identical)
host=$(hostname)
start=$SECONDS
submit lenet-serial 1 1 1 lenet-serial.sbatch -- "${check[@]}"
submit lenet-openmp 1 2 1 lenet-openmp.sbatch --cpus-per-task=2 -- "${check[@]}"
submit lenet-mpi 2 1 1 lenet-mpi.sbatch --nodes=1 --ntasks-per-node=2 -- --exact "${check[@]}"
submit lenet-mpirun 2 1 1 lenet-mpi-mpirun.sbatch --nodes=1 --ntasks-per-node=2 -- \
  --exact "${check[@]}"
submit lenet-hybrid 2 2 1 lenet-hybrid.sbatch --nodes=1 --ntasks-per-node=2 --cpus-per-task=2 \
  -- --exact "${check[@]}"
# The sweep: 1, 2 and 4 ranks, one run each (LENET_REPEATS=1); ranks "sweep" means P = 2^row.
submit lenet-sweep sweep 1 3 lenet-sweep.sbatch --nodes=1 --ntasks-per-node=4 -- \
  --exact "${check[@]}"
# A sweep whose last point fails (B = 3 is smaller than its 4 ranks), twice: both failures
# recorded in failed.txt, the second tried after the first, the other points' rows written,
# and the job FAILED at the end. Checked apart from the others, below.
repeats=2 submit lenet-sweep sweep 1 4 lenet-sweep.sbatch --nodes=1 --ntasks-per-node=4 -- \
  --data "$here/../vectors/data" --batch 3 --epochs 1
failing_sweep=${jobs_submitted[-1]}
# The calibration on the one node (the test's cluster has one): checked apart, below.
LENET_IMAGES=128 repeats=2 submit lenet-calibrate calibration 1 0 lenet-calibrate.sbatch --nodes=1 \
  --ntasks-per-node=2 --exclusive=user -- --data "$here/../vectors/data"
calibrate_job=${jobs_submitted[-1]}
# Two nodes, one rank each: srun --mpi=pmix starts a rank on each pair node's slurmd, and the
# ranks talk over the test network (TCP: to Open MPI, different host names are different hosts).
nodes=2 submit lenet-mpi 2 1 1 lenet-mpi.sbatch --nodes=2 --ntasks-per-node=1 -- \
  --exact "${check[@]}"
pair_mpi_job=${jobs_submitted[-1]}
# mpirun inside the two-node allocation: it starts its daemon (orted) on the second node with
# srun, and the ranks talk over the test network.
nodes=2 submit lenet-mpirun 2 1 1 lenet-mpi-mpirun.sbatch --nodes=2 --ntasks-per-node=1 -- \
  --exact "${check[@]}"
pair_mpirun_job=${jobs_submitted[-1]}
# The calibration on both: it also measures the link between them. --exclusive, as in the
# script: the two jobs above end before it starts, and do not disturb its figures.
LENET_IMAGES=128 repeats=2 nodes=2 submit lenet-calibrate calibration 1 0 \
  lenet-calibrate.sbatch --nodes=2 --ntasks-per-node=2 --exclusive -- \
  --data "$here/../vectors/data"
pair_calibrate_job=${jobs_submitted[-1]}
((failures == 0)) || exit 1

# ---- Wait for every job to end ----------------------------------------------------------------
job_state() {
  slurm scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2
}
all_ended() {
  local id
  for id in "${jobs_submitted[@]}"; do
    case $(job_state "$id") in
      COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL) ;;
      DEADLINE) ;;
      *) return 1 ;;
    esac
  done
}
# The jobs took 100 s on a quiet machine and over 240 s beside CI's other tests; Slurm's own
# --time ends a job that runs away. The bound only catches a cluster that stopped scheduling,
# within CTest's TIMEOUT of 3600 s.
wait_for 1800 "all ${#jobs_submitted[@]} jobs ended" all_ended || exit 1
echo "all ${#jobs_submitted[@]} jobs ended $((SECONDS - start)) s after the first sbatch"

# ---- Check each job's results -----------------------------------------------------------------
for id in "${jobs_submitted[@]}"; do
  name=${job_name[$id]}
  info=$(slurm scontrol show job -o "$id")
  dir=$tmp/results/$name-$id
  [[ ${expect_ranks[$id]} == calibration || $id == "$failing_sweep" ]] && continue
  if [[ $info != *JobState=COMPLETED* || $info != *" ExitCode=0:0"* ]]; then
    fail "job $id ($name): $(grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' <<<"$info" | cut -c1-80)"
    sed 's/^/    /' "$tmp/submit/$name-$id.out" 2>/dev/null | tail -n 15
    continue
  fi
  if [[ ! -s $dir/runs.csv || ! -s $dir/summary.txt ]]; then
    fail "job $id ($name): no runs.csv or summary.txt in $dir"
    continue
  fi
  rows=$(csv_rows "$dir/runs.csv" verification bit_identical param_crc32 ranks threads \
    host slurm_job_id slurm_nnodes hosts)
  if [[ $(grep -c . <<<"$rows") -ne ${expect_rows[$id]} ]]; then
    fail "job $id ($name): $(grep -c . <<<"$rows") CSV rows, expected ${expect_rows[$id]}"
  fi
  ranks=${expect_ranks[$id]}
  [[ $ranks == sweep ]] && ranks=1
  while read -r verification identical row_crc row_ranks threads row_host job nnodes hosts; do
    want="SUCCESSFUL yes $crc $ranks ${expect_threads[$id]} ${expect_host[$id]} $id"
    want+=" ${expect_nodes[$id]} ${expect_nodes[$id]}"
    got="$verification $identical $row_crc $row_ranks $threads $row_host $job $nnodes $hosts"
    if [[ $got != "$want" ]]; then
      fail "job $id ($name): CSV row '$got', expected" \
        "'$want' (verification bit_identical param_crc32 ranks threads host slurm_job_id" \
        "slurm_nnodes hosts)"
    else
      echo "ok   job $id ($name, $row_ranks rank(s) x $threads thread(s)): bit-identical to" \
        "lenet-serial, CRC-32 $row_crc; CSV: host $row_host, job $job, $nnodes node(s)," \
        "$hosts host(s)"
    fi
    [[ ${expect_ranks[$id]} == sweep ]] && ranks=$((ranks * 2))
  done <<<"$rows"
  summaries=$(grep -c '^ *Verification *= SUCCESSFUL' "$dir/summary.txt")
  [[ $summaries -eq ${expect_rows[$id]} ]] ||
    fail "job $id ($name): $summaries successful verifications in summary.txt," \
      "expected ${expect_rows[$id]}"
done

# The failing sweep: P = 1 and 2 ran twice each, P = 4 failed twice and both are recorded.
id=$failing_sweep dir=$tmp/results/lenet-sweep-$failing_sweep
info=$(slurm scontrol show job -o "$id")
failed_runs=$(grep -sc 'FAILED: 4 rank(s) on 1 node(s), repeat [12] of 2: exit [1-9]' \
  "$dir/failed.txt")
failed_runs=${failed_runs:-0}  # no failed.txt
row_ranks=$(csv_rows "$dir/runs.csv" ranks 2>/dev/null | tr '\n' ' ')
if [[ $info != *JobState=FAILED* || $info != *" ExitCode=1:0"* || $failed_runs -ne 2 ||
  $row_ranks != "1 1 2 2 " ]]; then
  fail "job $id (lenet-sweep with a failing point): $(grep -o 'JobState=[A-Z_]*' <<<"$info")," \
    "$failed_runs of 2 failures in failed.txt, CSV rows for ranks '$row_ranks' (want '1 1 2 2 ')"
  sed 's/^/    /' "$tmp/submit/lenet-sweep-$id.out" 2>/dev/null | tail -n 15
else
  echo "ok   job $id (lenet-sweep, 4 ranks too many for --batch 3): FAILED at the end, both" \
    "failures in failed.txt, rows for 1 1 2 2 ranks"
fi

# The calibrations: a file with 2 compute runs, the job's nodes and its links.
calibration=(python3 "$prefix/share/lenet-parallel/slurm/calibration.py")
# calibration_ok ID LINK HOSTS: job ID COMPLETED and wrote a calibration.json that
# calibration.py show accepts, with 2 compute runs, the nodes HOSTS (comma-separated) and LINK
# (intra, or inter: then the intra-node link too) as the link the simulation builds from.
calibration_ok() {
  local id=$1 link=$2 hosts=$3 info figures="" got
  file=$tmp/results/lenet-calibrate-$id/calibration.json
  info=$(slurm scontrol show job -o "$id")
  got=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(len(d["compute"]["runs_us"]), ",".join(d["hosts"]))' "$file" 2>/dev/null)
  if [[ $info != *JobState=COMPLETED* ]] || ! figures=$("${calibration[@]}" show "$file") ||
    [[ $got != "2 $hosts" || $figures != *" $link" ]] ||
    { [[ $link == inter ]] && [[ $("${calibration[@]}" show "$file" intra) != *" intra" ]]; }; then
    fail "job $id (lenet-calibrate): $(grep -o 'JobState=[A-Z_]*' <<<"$info"), figures" \
      "'$figures', runs and hosts '$got' (want 2 compute runs, hosts $hosts and the $link-node" \
      "link in $file)"
    sed 's/^/    /' "$tmp/submit/lenet-calibrate-$id.out" 2>/dev/null | tail -n 15
    return 1
  fi
  echo "ok   job $id (lenet-calibrate on $hosts) wrote $file: $figures (us per sample," \
    "alpha us, MB/s, link)"
}
# The one on one node, which scale_sim.sh takes (where lenet-mpi-smpi is built: the study on 4
# simulated ranks).
if calibration_ok "$calibrate_job" intra "$node" &&
  [[ -x $build/backend_mpi/lenet-mpi-smpi ]] && command -v smpirun >/dev/null; then
  if timeout 120 bash "$here/../../experiments/scale_sim.sh" --build "$build" \
    --data "$here/../vectors/data" --calibration "$file" --max-ranks 4 --algorithms rdb --steps 2 \
    --out "$tmp/study" \
    >"$tmp/study.log" 2>&1 && grep -q "platform \`calibrated\`" "$tmp/study/report.md"; then
    echo "ok   scale_sim.sh --calibration $file: $(grep -c '^calibrated,' \
      "$tmp/study/sim.csv") points on the calibrated platform"
  else
    fail "scale_sim.sh --calibration $file"
    tail -n 5 "$tmp/study.log"
  fi
fi
# The one on the two pair nodes: the link between them too.
calibration_ok "$pair_calibrate_job" inter "${pair[0]},${pair[1]}"

# The two-node jobs ran on both pair nodes: Slurm allocated both (NodeList), and a step of the
# job (an srun inside it: lenet-mpi.sbatch's one, step 0; lenet-calibrate.sbatch's inter-node
# pingpong) was launched by each pair node's slurmd, as its log says. mpirun runs the first
# node's rank itself and starts its orted on the second with srun: step 0 there only.
# steps_on NODE ID: the steps of job ID that NODE's slurmd launched, one a line.
steps_on() {
  grep -F "launch task StepId=$2." "$tmp/log/slurmd-$1.log" | grep -o 'StepId=[0-9]*\.[0-9]*' |
    cut -d= -f2 | sort -u
}
for id in "$pair_mpi_job" "$pair_calibrate_job"; do
  list=$(slurm scontrol show job -o "$id" | grep -o ' NodeList=[^ ]*')
  both=$(comm -12 <(steps_on "${pair[0]}" "$id") <(steps_on "${pair[1]}" "$id") | paste -sd' ')
  if [[ $list != " NodeList=$names-n[1-2]" || -z $both ||
    ($id == "$pair_mpi_job" && $both != "$id.0") ]]; then
    fail "job $id (${job_name[$id]}):$list, steps launched by both slurmd: '$both'" \
      "(want NodeList=$names-n[1-2], and step $id.0 for lenet-mpi)"
  else
    echo "ok   job $id (${job_name[$id]}):$list, step(s) $both launched by the slurmd of both" \
      "${pair[*]}"
  fi
done
id=$pair_mpirun_job
list=$(slurm scontrol show job -o "$id" | grep -o ' NodeList=[^ ]*')
steps=()
for n in "${pair[@]}"; do steps+=("$(steps_on "$n" "$id" | paste -sd' ')"); done
if [[ $list != " NodeList=$names-n[1-2]" || ${steps[0]} != "" || ${steps[1]} != "$id.0" ]]; then
  fail "job $id (lenet-mpirun):$list, steps launched by ${pair[0]}: '${steps[0]}', by" \
    "${pair[1]}: '${steps[1]}' (want NodeList=$names-n[1-2], none and $id.0)"
else
  echo "ok   job $id (lenet-mpirun):$list, mpirun's orted started on ${pair[1]} as step $id.0"
fi

# Pinning in the jobs' .out files: each OpenMP thread's CPUs (OMP_DISPLAY_AFFINITY), each
# mpirun rank's binding (--report-bindings). (srun's --cpu-bind=verbose prints nothing here:
# task/none binds nothing.)
# pinning NAME PATTERN COUNT: job NAME's .out file has at least COUNT lines that match PATTERN.
pinning() {
  local id file lines
  for id in "${jobs_submitted[@]}"; do [[ ${job_name[$id]} == "$1" ]] && break; done
  file=$tmp/submit/$1-$id.out
  lines=$(grep -cE "$2" "$file")
  if [[ $lines -lt $3 ]]; then
    fail "job $id ($1): $lines lines in its .out file match '$2', expected $3 or more"
    sed 's/^/    /' "$file" | head -n 10
  else
    echo "ok   job $id ($1) shows its pinning: $(grep -m1 -E "$2" "$file")"
  fi
}
pinning lenet-openmp '^lenet: host .* thread [01] of 2 on CPU' 2
pinning lenet-hybrid '^lenet: host .* thread [01] of 2 on CPU' 4
pinning lenet-mpirun 'MCW rank [01] bound to' 2

# ---- lab.sh class --slurm: the lab kit's timing pass as a job array (docs/instructors.md) ----
# A class of two lab 1 submissions: ada holds the solution's LAB 1 region, bob the unchanged
# starter (its checks fail: it needs no timing). The correctness pass runs here, the timing pass
# is an array of one task on the test partition's node, held exclusively. The command runs in
# slurmctld's namespace, with our slurm.conf, as a login node's user would. The kit's build
# cache is per project: in a clean checkout the first grading builds the starter and the
# reference (minutes), hence the command's long limit. A second run submits nothing; a result
# copied by hand into bob's timing folder is not taken as bob's; a SIGTERM cancels the job;
# after a SIGKILL, the next run cancels the killed run's job and submits its own.
root=$(cd "$here/../.." && pwd)
class=$tmp/class
lab=(python3 "$root/labkit/lab.py")
# class_run LIMIT: the command, bounded by LIMIT seconds.
class_run() {
  slurm timeout "$1" "${lab[@]}" class 1 "$class/subs" "$class/out" --slurm --reps 1
}
start=$SECONDS
# The solution's LAB 1 region in ada's copy of the starter.
solve() {
  python3 - "$root" "$1" <<'EOF'
import os, sys
root, dst = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "labkit"))
from kit import manifest, regions, tree
m = manifest.load(1)
for f, bodies in tree.solution(root, m).items():
    path = os.path.join(dst, f)
    text = regions.replace(tree.read(path), 1, bodies)
    with open(path, "w") as out:
        out.write(text)
EOF
}
# class_csv STUDENT: the STUDENT's total and verdict in grades.csv ("total verdict").
class_csv() {
  python3 -c 'import csv, sys
rows = {r["student"]: r for r in csv.DictReader(open(sys.argv[1]))}
r = rows.get(sys.argv[2], {})
print(*[v for k, v in r.items() if k.startswith("total")], r.get("verdict"))' \
    "$class/out/grades.csv" "$1" 2>/dev/null
}
if ! { "${lab[@]}" start 1 "$class/subs/ada" && "${lab[@]}" start 1 "$class/subs/bob" &&
  solve "$class/subs/ada"; } >"$tmp/class-start.log" 2>&1; then
  cat "$tmp/class-start.log"
  fail "lab.sh start 1, twice, and the solution's region in one copy"
else
  class_run 1500 >"$tmp/class-1.log" 2>&1
  rc=$?
  sed 's/^/    /' "$tmp/class-1.log"
  job=$(cat "$class/out/.slurm/job" 2>/dev/null)
  tasks=$(slurm scontrol show job -o "$job" 2>/dev/null | grep -c 'ArrayTaskId=')
  completed=$(slurm scontrol show job -o "$job" 2>/dev/null | grep -c 'JobState=COMPLETED')
  # The timed result: ada's, from this job's task 0, and its performance measured or why not.
  perf=$(python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
x = r["extra_data"]
t = [t for t in r["tests"] if t["name"].startswith("performance:")]
out = (t[0].get("output") or "").strip().splitlines() if t else []
ok = (x["class"]["slurm"]["job"] == sys.argv[2] and x["submission"].endswith("/ada") and
      bool(t) and (x["performance"]["status"] == "measured" or
                   bool(out) and out[0].startswith("not measured: ")))
print("ok" if ok else "no", x["performance"]["status"], "|", out[0] if out else "")' \
    "$class/out/students/ada/timing/grade-1.json" "$job" 2>&1 | tail -n 1)
  ada=$(class_csv ada) bob=$(class_csv bob)
  if [[ $rc -ne 0 || -z $job || $tasks -ne 1 || $completed -ne 1 || $perf != ok* ||
    $ada != *" CORRECT" || $bob != *" WRONG" || -e $class/out/students/bob/timing ]]; then
    fail "lab.sh class 1 SUBS OUT --slurm: exit $rc, job '$job' with $tasks array task(s)," \
      "$completed COMPLETED (want 1 and 1); ada's timing result: '$perf'; grades.csv: ada" \
      "'$ada', bob '$bob' (want CORRECT and WRONG, and no timing for bob)"
    tail -n 20 "$class/out/.slurm/"timing-*.out 2>/dev/null | sed 's/^/    /'
  else
    echo "ok   lab.sh class 1 SUBS OUT --slurm in $((SECONDS - start)) s: job $job, one array" \
      "task, COMPLETED; ada timed on Slurm (performance: ${perf#ok }); grades.csv: ada $ada," \
      "bob $bob"
  fi
  # Again: nothing left to time, nothing submitted.
  start=$SECONDS
  class_run 300 >"$tmp/class-2.log" 2>&1
  rc=$?
  if [[ $rc -ne 0 || $(cat "$class/out/.slurm/job" 2>/dev/null) != "$job" ]] ||
    ! grep -q 'timing on Slurm: 0 to time (1 of 1 timed by an earlier run: kept)' \
      "$tmp/class-2.log"; then
    fail "lab.sh class --slurm, run again: exit $rc, or it submitted a job (want '0 to time')"
    sed 's/^/    /' "$tmp/class-2.log"
  else
    echo "ok   run again ($((SECONDS - start)) s): $(grep -o 'timing on Slurm: 0 to time.*' \
      "$tmp/class-2.log")"
  fi
  # A result planted by hand: ada's timing copied into bob's timing folder is not bob's.
  if [[ -d $class/out/students/ada/timing ]]; then
    cp -r "$class/out/students/ada/timing" "$class/out/students/bob/timing"
    class_run 300 >"$tmp/class-3.log" 2>&1
    rc=$?
    if [[ $rc -ne 0 || $(class_csv bob) != "$bob" ]]; then
      fail "ada's timing result copied to bob's folder: exit $rc, bob in grades.csv" \
        "'$(class_csv bob)', want '$bob' as before"
      sed 's/^/    /' "$tmp/class-3.log"
    else
      echo "ok   ada's timing result copied into bob's folder: not taken (bob: $(class_csv bob))"
    fi
  fi
  # SIGTERM while the array runs: the command cancels the job (scancel), its task ends the
  # grading, and no timing result is left for ada. (timeout's child gets the signal it gets.)
  rm -rf "$class/out/students/ada/timing" "$class/out/students/bob/timing"
  SLURM_CONF=$conf nsenter --net="/run/netns/$ctl_ns" timeout 300 \
    "${lab[@]}" class 1 "$class/subs" "$class/out" --slurm --reps 1 >"$tmp/class-4.log" 2>&1 &
  pid=$!
  new_job() {
    job4=$(cat "$class/out/.slurm/job" 2>/dev/null)
    [[ $job4 != "$job" ]] && grep -qs 'timing ada' "$class/out/.slurm/timing-${job4}_0.out"
  }
  if wait_for 120 "a new job's task grading ada" new_job; then
    kill -TERM "$pid"
    wait "$pid"
    rc=$?
    job_gone() { [[ -z $(slurm squeue -h -j "$job4" 2>/dev/null) ]]; }
    wait_for 60 "job $job4 leaves the queue" job_gone
    state=$(job_state "$job4")
    if [[ $rc -ne 143 || $state != CANCELLED || -e $class/out/students/ada/timing ]] ||
      ! grep -q "job $job4 cancelled" "$tmp/class-4.log"; then
      fail "SIGTERM during the array: exit $rc (want 143), job $job4 $state (want CANCELLED)," \
        "ada's timing result $([[ -e $class/out/students/ada/timing ]] || echo "not ")there" \
        "(want none)"
      sed 's/^/    /' "$tmp/class-4.log" "$class/out/.slurm/timing-${job4}_0.out"
    else
      echo "ok   SIGTERM while job $job4 ran: exit $rc, the job CANCELLED, no result for ada;" \
        "its task: $(grep -m1 'stopped by signal' "$class/out/.slurm/timing-${job4}_0.out")"
    fi
  else
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    sed 's/^/    /' "$tmp/class-4.log"
  fi
  # SIGKILL while the array runs (no handler: the job stays), then the same command again: it
  # cancels the earlier run's job and times ada in a job of its own.
  job=$job4
  SLURM_CONF=$conf nsenter --net="/run/netns/$ctl_ns" timeout 300 \
    "${lab[@]}" class 1 "$class/subs" "$class/out" --slurm --reps 1 >"$tmp/class-5.log" 2>&1 &
  pid=$!
  if wait_for 120 "a new job's task grading ada" new_job; then
    job5=$job4
    kill -KILL "$(pgrep -P "$pid")"  # lab.py, timeout's child
    wait "$pid" 2>/dev/null
    start=$SECONDS
    class_run 300 >"$tmp/class-6.log" 2>&1
    rc=$?
    job6=$(cat "$class/out/.slurm/job" 2>/dev/null)
    by=$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["extra_data"]["class"]["slurm"]["job"])' \
      "$class/out/students/ada/timing/grade-1.json" 2>/dev/null)
    if [[ $rc -ne 0 || $(job_state "$job5") != CANCELLED || $job6 == "$job5" ||
      $by != "$job6" ]] || ! grep -q "job $job5 of an earlier run is still in the queue" \
      "$tmp/class-6.log"; then
      fail "after a SIGKILL, run again: exit $rc, the killed run's job $job5" \
        "$(job_state "$job5") (want CANCELLED), ada's timing result from job '$by' (want the" \
        "new job $job6)"
      sed 's/^/    /' "$tmp/class-5.log" "$tmp/class-6.log"
    else
      echo "ok   SIGKILL while job $job5 ran, then run again ($((SECONDS - start)) s): job $job5" \
        "cancelled, ada timed by job $job6"
    fi
  else
    kill -TERM "$pid" 2>/dev/null
    wait "$pid"
    sed 's/^/    /' "$tmp/class-5.log"
  fi
fi

start=$SECONDS
teardown
echo "cluster stopped and removed in $((SECONDS - start)) s"
if ((failures)); then
  echo "$failures failed"
  exit 1
fi
echo "OK: ${#jobs_submitted[@]} Slurm jobs from experiments/slurm/ as expected (bit-identical to" \
  "lenet-serial, or the sweep's failed point recorded), pinning shown, two of them on two" \
  "slurmd nodes; nothing of the test cluster is left"
