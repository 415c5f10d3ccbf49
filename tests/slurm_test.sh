#!/usr/bin/env bash
# The Slurm batch scripts of experiments/slurm/, submitted for real: a single-node Slurm cluster
# on this machine (munged, slurmctld and slurmd with a private state folder, key and ports),
# lenet-parallel installed with `cmake --install`, every script submitted with sbatch, and every
# run checked: the job COMPLETED, its per-job folder holds the CSV and the summary, the trained
# parameters are bit-identical to lenet-serial's, and the CSV names the host, the job, its node
# count and the hosts the ranks ran on. Then everything is stopped and removed, also when the
# test is interrupted (a trap on EXIT, reached from SIGINT and SIGTERM too), and the test fails
# if a process of its cluster is left.
#
# Usage: slurm_test.sh BUILD_DIR
# Exit status: 0 passed, 1 failed, 77 SKIPPED (not root, or Slurm or munge not installed).
set -uo pipefail

build=$(realpath "$1")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG="slurm_test.sh"
source "$here/../run_scripts/lib.sh" # csv_column, csv_split
scripts=$(cd "$here/../experiments/slurm" && pwd)
# The 128 real images of the test vectors: each run takes about a second.
run_args=(--data "$here/vectors/data" --batch 16 --epochs 2)

skip() {
  echo "SKIPPED: $*"
  exit 77
}
[[ $(id -u) -eq 0 ]] || skip "needs root (it starts munged, slurmctld and slurmd)"
for c in munged mungekey munge slurmctld slurmd sbatch srun scontrol squeue sinfo scancel; do
  command -v "$c" >/dev/null ||
    skip "$c not found (Debian: apt-get install slurmctld slurmd slurm-client munge)"
done
# Open MPI refuses to run as root unless told; the jobs inherit this environment.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# wait_for SECONDS WHAT COMMAND...: until COMMAND succeeds (polled every 0.2 s); false, with a
# message, when SECONDS pass first.
wait_for() {
  local limit=$1 what=$2 end=$((SECONDS + $1))
  shift 2
  until "$@"; do
    if ((SECONDS >= end)); then
      echo "FAIL: $what: not after $limit s"
      return 1
    fi
    sleep 0.2
  done
}

# ---- Teardown: always, once -------------------------------------------------------------------
tmp="" conf=""
daemons=()  # munged, slurmctld, slurmd: children of this script (run in the foreground)
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
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do  # slurmd, slurmctld, then munged
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
  rm -rf "$tmp"
}
queue_empty() { [[ -z $(slurm squeue -h -o %i 2>/dev/null) ]]; }
trap 'status=$?; teardown; ((failures && status == 0)) && status=1; exit $status' EXIT
trap 'echo "interrupted: tearing the cluster down"; exit 130' INT
trap 'echo "terminated: tearing the cluster down"; exit 143' TERM

# ---- The cluster's private world: one folder, two free ports --------------------------------
tmp=$(mktemp -d /tmp/lenet-slurm.XXXXXX)
chmod 755 "$tmp"
conf=$tmp/slurm.conf
# Every Slurm command of this test reads our slurm.conf (and only they: the test's own
# environment has no SLURM_CONF, so the processes that do are the cluster's).
slurm() { SLURM_CONF=$conf "$@"; }

# port_free PORT: nothing listens on PORT (TCP, IPv4 or IPv6).
port_free() {
  ! awk -v p="$(printf ':%04X' "$1")" 'substr($2, length($2) - 4) == p { f = 1 } END { exit !f }' \
    /proc/net/tcp /proc/net/tcp6 2>/dev/null
}
# Not Slurm's 6817/6818: two ports from the PID, so that concurrent runs differ.
port=$((20000 + ($$ % 20000) * 2))
until port_free "$port" && port_free $((port + 1)); do port=$((port + 2)); done

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

# ---- The cluster: munge's key and socket, slurmctld and slurmd on 127.0.0.1 ----------------
start=$SECONDS
node=$(hostname -s)
mkdir -p "$tmp/munge" "$tmp/ctld" "$tmp/spool" "$tmp/log"
mungekey --create --keyfile="$tmp/munge/munge.key" || exit 1
munged --foreground --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" \
  --log-file="$tmp/log/munged.log" >"$tmp/log/munged.out" 2>&1 &
daemons+=($!)
wait_for 30 "munged's socket $tmp/munge/socket" test -S "$tmp/munge/socket" || exit 1

# The node offers 4 CPUs whatever this machine has (config_overrides), so that the 2-rank x
# 2-thread and 4-rank jobs fit: they are checked for their results, not timed. Job ids start
# from the PID: Open MPI names its session files and shared memory after the job, and
# concurrent runs of this test must not meet there.
cat >"$conf" <<EOF
ClusterName=lenet-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/ctld
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
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
FirstJobId=$(($$ * 10))
MinJobAge=3600
KillWait=5
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Not through slurm(): $! must be the daemon's own PID.
SLURM_CONF=$conf slurmctld -D -f "$conf" >"$tmp/log/slurmctld.out" 2>&1 &
daemons+=($!)
SLURM_CONF=$conf slurmd -D -f "$conf" >"$tmp/log/slurmd.out" 2>&1 &
daemons+=($!)
node_idle() { [[ $(slurm sinfo -h -n "$node" -o %T 2>/dev/null) == idle ]]; }
if ! wait_for 60 "node $node idle in the test cluster" node_idle; then
  tail -n 20 "$tmp"/log/*
  exit 1
fi
echo "cluster up in $((SECONDS - start)) s: slurmctld on port $port, slurmd on $((port + 1))"
slurm srun --mpi=list 2>&1 | grep -qw pmix || {
  fail "this Slurm has no pmix MPI plugin (srun --mpi=list): the MPI scripts need it"
  exit 1
}

# ---- Submit every script ----------------------------------------------------------------------
# submit NAME RANKS THREADS ROWS SCRIPT [SBATCH_OPTION...] -- [PROGRAM_ARGUMENT...]: sbatch
# SCRIPT with the test's sizes (one node) in place of its cluster-sized #SBATCH lines; the run
# must have RANKS ranks of THREADS threads each and write ROWS CSV rows. LENET_REPEATS is
# $repeats (default 1).
declare -A expect_ranks expect_threads expect_rows job_name
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
    "${options[@]}" "$scripts/$script" "$@") || {
    fail "sbatch $script"
    return
  }
  id=${id%%;*}
  jobs_submitted+=("$id")
  job_name[$id]=$name expect_ranks[$id]=$ranks expect_threads[$id]=$threads
  expect_rows[$id]=$rows
  echo "submitted $script as job $id"
}
check=("${run_args[@]}" --verify "$serial_ck" --identical)
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
  --data "$here/vectors/data" --batch 3 --epochs 1
failing_sweep=${jobs_submitted[-1]}
# The calibration on the one node (the test's cluster has one): checked apart, below.
LENET_IMAGES=128 repeats=2 submit lenet-calibrate calibration 1 0 lenet-calibrate.sbatch --nodes=1 \
  --ntasks-per-node=2 --exclusive=user -- --data "$here/vectors/data"
calibrate_job=${jobs_submitted[-1]}
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
wait_for 240 "all ${#jobs_submitted[@]} jobs ended" all_ended || exit 1
echo "all ${#jobs_submitted[@]} jobs ended $((SECONDS - start)) s after the first sbatch"

# ---- Check each job's results -----------------------------------------------------------------
# csv_columns FILE COLUMN...: those columns of every row, space-separated, found by the header's
# names and read by lib.sh's CSV reader (a quoted field may hold commas).
csv_columns() {
  local file=$1 name line i
  local -a cols=() out
  shift
  for name in "$@"; do
    i=$(csv_column "$file" "$name") || return 1
    cols+=("$i")
  done
  while IFS= read -r line; do
    csv_split "$line" || { echo "malformed row: $line"; continue; }
    out=()
    for i in "${cols[@]}"; do out+=("${csv_fields[i]}"); done
    echo "${out[*]}"
  done < <(tail -n +2 "$file")
}
host=$(hostname)
for id in "${jobs_submitted[@]}"; do
  name=${job_name[$id]}
  info=$(slurm scontrol show job -o "$id")
  dir=$tmp/results/$name-$id
  [[ $id == "$failing_sweep" || $id == "$calibrate_job" ]] && continue
  if [[ $info != *JobState=COMPLETED* || $info != *" ExitCode=0:0"* ]]; then
    fail "job $id ($name): $(grep -o 'JobState=[A-Z_]* .*ExitCode=[0-9:]*' <<<"$info" | cut -c1-80)"
    sed 's/^/    /' "$tmp/submit/$name-$id.out" 2>/dev/null | tail -n 15
    continue
  fi
  if [[ ! -s $dir/runs.csv || ! -s $dir/summary.txt ]]; then
    fail "job $id ($name): no runs.csv or summary.txt in $dir"
    continue
  fi
  rows=$(csv_columns "$dir/runs.csv" verification bit_identical param_crc32 ranks threads \
    host slurm_job_id slurm_nnodes hosts)
  if [[ $(grep -c . <<<"$rows") -ne ${expect_rows[$id]} ]]; then
    fail "job $id ($name): $(grep -c . <<<"$rows") CSV rows, expected ${expect_rows[$id]}"
  fi
  ranks=${expect_ranks[$id]}
  [[ $ranks == sweep ]] && ranks=1
  while read -r verification identical row_crc row_ranks threads row_host job nnodes hosts; do
    want="SUCCESSFUL yes $crc $ranks ${expect_threads[$id]} $host $id 1 1"
    got="$verification $identical $row_crc $row_ranks $threads $row_host $job $nnodes $hosts"
    if [[ $got != "$want" ]]; then
      fail "job $id ($name): CSV row '$got', expected" \
        "'$want' (verification bit_identical param_crc32 ranks threads host slurm_job_id" \
        "slurm_nnodes hosts)"
    else
      echo "ok   job $id ($name, $row_ranks rank(s) x $threads thread(s)): bit-identical to" \
        "lenet-serial, CRC-32 $row_crc; CSV: host $row_host, job $job, $nnodes node, $hosts host"
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
row_ranks=$(csv_columns "$dir/runs.csv" ranks 2>/dev/null | tr '\n' ' ')
if [[ $info != *JobState=FAILED* || $info != *" ExitCode=1:0"* || $failed_runs -ne 2 ||
  $row_ranks != "1 1 2 2 " ]]; then
  fail "job $id (lenet-sweep with a failing point): $(grep -o 'JobState=[A-Z_]*' <<<"$info")," \
    "$failed_runs of 2 failures in failed.txt, CSV rows for ranks '$row_ranks' (want '1 1 2 2 ')"
  sed 's/^/    /' "$tmp/submit/lenet-sweep-$id.out" 2>/dev/null | tail -n 15
else
  echo "ok   job $id (lenet-sweep, 4 ranks too many for --batch 3): FAILED at the end, both" \
    "failures in failed.txt, rows for 1 1 2 2 ranks"
fi

# The calibration: a file with 2 compute runs and the intra-node link, which scale_sim.sh takes
# (where lenet-mpi-smpi is built: the study on 4 simulated ranks).
id=$calibrate_job file=$tmp/results/lenet-calibrate-$calibrate_job/calibration.json figures=""
info=$(slurm scontrol show job -o "$id")
calibration=(python3 "$prefix/share/lenet-parallel/slurm/calibration.py")
if [[ $info != *JobState=COMPLETED* ]] || ! figures=$("${calibration[@]}" show "$file") ||
  [[ $(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["compute"]["runs_us"]))' \
    "$file") != 2 || $figures != *" intra" ]]; then
  fail "job $id (lenet-calibrate): $(grep -o 'JobState=[A-Z_]*' <<<"$info"), figures '$figures'" \
    "(want 2 compute runs and the intra-node link in $file)"
  sed 's/^/    /' "$tmp/submit/lenet-calibrate-$id.out" 2>/dev/null | tail -n 15
else
  echo "ok   job $id (lenet-calibrate) wrote $file: $figures (us per sample, alpha us, MB/s," \
    "link)"
  if [[ -x $build/backend_mpi/lenet-mpi-smpi ]] && command -v smpirun >/dev/null; then
    if timeout 120 bash "$here/../experiments/scale_sim.sh" --build "$build" \
      --calibration "$file" --max-ranks 4 --algorithms rdb --steps 2 --out "$tmp/study" \
      >"$tmp/study.log" 2>&1 && grep -q "platform \`calibrated\`" "$tmp/study/report.md"; then
      echo "ok   scale_sim.sh --calibration $file: $(grep -c '^calibrated,' \
        "$tmp/study/sim.csv") points on the calibrated platform"
    else
      fail "scale_sim.sh --calibration $file"
      tail -n 5 "$tmp/study.log"
    fi
  fi
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

start=$SECONDS
teardown
echo "cluster stopped and removed in $((SECONDS - start)) s"
if ((failures)); then
  echo "$failures failed"
  exit 1
fi
echo "OK: ${#jobs_submitted[@]} Slurm jobs from experiments/slurm/ as expected (bit-identical to" \
  "lenet-serial, or the sweep's failed point recorded), pinning shown; nothing of the test" \
  "cluster is left"
