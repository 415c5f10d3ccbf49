# scale_sim.sh --validate (sourced by it: uses its simulate, median3, epoch_of, $out, $data, $py,
# $build_dir, $sweep, $live_hosts, $live_rate): the simulator configured as a measured set-up
# must predict the measured time.
#   namespace  recorded: a 2-host bandwidth sweep (experiments/bandwidth_sweep.sh, docs/multihost.md:
#              2 network-namespace hosts on this 2-core machine, the link unshaped or shaped by a
#              tc token bucket), the one in namespace_sweep.csv, or --sweep DIR's, converted
#   local      measured now: lenet-mpi-pingpong (alpha, beta) and lenet-serial (t_sample) and
#              lenet-mpi on 2 ranks (shared memory), 3 interleaved repeats, medians
#   live       measured now, as root: H = --hosts namespace hosts of one rank each, joined by
#              multihost.sh's user-space switch, every link of --latency and --rate:
#              lenet-mpi-pingpong (alpha, beta), lenet-mpi (the allreduce per step, its "Comm
#              per step", and the epoch) and lenet-serial (t_sample), 3 interleaved repeats,
#              medians; each H simulated on H hosts
# Each is simulated as hosts joined by one link each (half of alpha on each host's link, no SMPI
# correction factors), at the same data, batch and rank count, with the ping-pong's alpha and
# beta. A shaped recorded link is simulated a second time as what it is: the unshaped wire under
# a token bucket, whose wait per message (token_bucket.py) SimGrid's fluid links cannot model.

# platform FILE HOSTS ALPHA_US BETA_MBPS: hosts whose one-way time is alpha + n / beta.
platform() {
  cat >"$1" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="hosts" prefix="node-" suffix="" radical="0-$(($2 - 1))" speed="1Gf"
           bw="${4}MBps" lat="$(awk -v a="$3" 'BEGIN { printf "%.6g", a / 2 }')us"
           sharing_policy="SPLITDUPLEX"/>
</platform>
EOF
}

# predict ALPHA_US BETA_MBPS BATCH T_SAMPLE_US: sets $predicted, the simulated seconds per epoch
# of 4000 digits.
predict() {
  platform "$out/two.xml" 2 "$1" "$2"
  local ips
  simulate "$out/two.xml" 2 rdb "$(awk -v u="$4" 'BEGIN { printf "%.9g", u * 1e-6 }')" \
    --data "$data" --train-limit 4000 --batch "$3" --lr "$(lr_for "$3")"
  read -r ips _ _ _ <"$out/point"
  predicted=$(awk -v r="$ips" 'BEGIN { printf "%.6f", 4000 / r }')
}

# The namespace side: a sweep directory's runs.csv, network.csv and runs.log (the tc rate and
# burst multihost.sh printed) -> one row per link and batch, medians of the repeats.
sweep_csv="${SCRIPT_DIR}/simgrid/namespace_sweep.csv"
if [[ -n $sweep ]]; then
  sweep_csv="$out/namespace_sweep.csv"
  "$py" - "$sweep" "$sweep_csv" <<'EOF' || die "--sweep: cannot read the bandwidth sweep in $sweep"
import csv, os, re, statistics, sys
src, dst = sys.argv[1], sys.argv[2]
runs = list(csv.DictReader(open(os.path.join(src, "runs.csv"))))
links = {r["link"]: r for r in csv.DictReader(open(os.path.join(src, "network.csv")))}
shaper = {m[1]: (m[2], m[3]) for m in re.finditer(
    r"bandwidth: (\S+) \((\d+) B/s\).*burst (\d+) B", open(os.path.join(src, "runs.log")).read())}
if any(int(r["train_images"]) != 4000 for r in runs) or \
        any(r["ranks"] != "2" for r in runs if r["link"] != "serial"):
    sys.exit("scale_sim.sh: --sweep: the validation needs the sweep's defaults (2 hosts, 4000 images)")
median = lambda link, b: statistics.median(
    float(r["seconds_per_epoch"]) for r in runs if r["link"] == link and int(r["batch"]) == b)
batches = sorted({int(r["batch"]) for r in runs if r["link"] == "serial"})
with open(dst, "w") as f:
    f.write("link,rate_Bps,burst_B,alpha_us,beta_MBps,allreduce_us,batch,t_sample_us,serial_s,measured_s\n")
    for link, net in links.items():
        rate, burst = shaper.get(link, (0, 0))
        for b in batches:
            serial = median("serial", b)
            f.write(f"{link},{rate},{burst},{float(net['alpha_us']):.1f},"
                    f"{float(net['beta_MBps']):.2f},{float(net['allreduce_us']):.1f},{b},"
                    f"{serial / 4000 * 1e6:.2f},{serial:.6f},{median(link, b):.6f}\n")
EOF
fi
read -r wire_alpha wire_beta < <(csv_rows "$sweep_csv" link alpha_us beta_MBps |
  awk '$1 == "unshaped" { print $2, $3; exit }')
[[ -n ${wire_alpha:-} ]] || die "$sweep_csv: no row for the unshaped link (the wire under the bucket)"

vcsv="$out/validation.csv"
echo "setup,link,batch,t_sample_us,measured_s,alpha_us,beta_MBps,predicted_s,residual,bucket_wait_us,beta_bucket_MBps,predicted_bucket_s,residual_bucket" >"$vcsv"
residual() { awk -v m="$1" -v p="$2" 'BEGIN { printf "%+.1f%%", 100 * (p - m) / m }'; }

say "validation 1/3: the namespace hosts of a bandwidth sweep ($sweep_csv), simulated"
sweep_rows=$(csv_rows "$sweep_csv" link rate_Bps burst_B alpha_us beta_MBps batch t_sample_us \
  measured_s) || die "$sweep_csv: not a sweep's rows (see the line above)"
while read -r link rate burst alpha beta batch tsample measured; do
  predict "$alpha" "$beta" "$batch" "$tsample"
  row="namespace (recorded),$link,$batch,$tsample,$measured,$alpha,$beta,$predicted,$(residual "$measured" "$predicted")"
  if ((rate > 0)); then  # between two allreduces a rank computes B/2 samples
    read -r wait beta_bucket < <("$py" "${SCRIPT_DIR}/simgrid/token_bucket.py" "$rate" "$burst" \
      "$(awk -v b="$batch" -v t="$tsample" 'BEGIN { print b / 2 * t }')" "$wire_alpha" "$wire_beta")
    [[ -n ${beta_bucket:-} ]] || die "token_bucket.py failed for link $link"
    predict "$wire_alpha" "$beta_bucket" "$batch" "$tsample"
    row+=",$wait,$beta_bucket,$predicted,$(residual "$measured" "$predicted")"
  else
    row+=",,,,"
  fi
  echo "$row" >>"$vcsv"
done <<<"$sweep_rows"

mpi_exe="${build_dir}/backend_mpi/lenet-mpi"
if [[ -x $mpi_exe ]]; then
  say "validation 2/3: this machine, 2 ranks over shared memory: measuring (3 batch sizes x 3 repeats, seconds)"
  mpirun=(bash "$LIB_ROOT/run_scripts/mpi_launch.sh" "$build_dir" -n 2)
  link=$("${mpirun[@]}" "${build_dir}/backend_mpi/lenet-mpi-pingpong" --seconds 0.5)
  alpha=$(sed -n 's/^alpha_us = //p' <<<"$link")
  beta=$(sed -n 's/^beta_MBps = //p' <<<"$link")
  for batch in 32 128 512; do
    serial=() mpi=()
    for _ in 1 2 3; do  # interleaved, so that a burst of load hits both alike
      serial+=("$(nice "$serial_exe" --data "$data" --train-limit 4000 --batch "$batch" \
        --lr "$(lr_for "$batch")" --quiet | epoch_of)")
      mpi+=("$(nice "${mpirun[@]}" "$mpi_exe" --data "$data" --train-limit 4000 \
        --batch "$batch" --lr "$(lr_for "$batch")" --quiet | epoch_of)")
    done
    tsample=$(awk -v s="$(median3 "${serial[@]}")" 'BEGIN { printf "%.2f", s / 4000 * 1e6 }')
    measured=$(median3 "${mpi[@]}")
    predict "$alpha" "$beta" "$batch" "$tsample"
    echo "local,shared-memory,$batch,$tsample,$measured,$alpha,$beta,$predicted,$(residual "$measured" "$predicted"),,,," >>"$vcsv"
  done
else
  say "validation 2/3 skipped: no $mpi_exe"
fi

"$py" - "$vcsv" "$out/validation.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
num = lambda x, f: format(float(x), f) if x else "-"
out = ["| set-up | link | B | t_sample (us) | measured (s/epoch) | alpha (us) | beta (MB/s) "
       "| simulated (s/epoch) | residual | bucket wait per message (us) | simulated, token bucket "
       "| residual |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    out.append(f"| {r['setup']} | {r['link']} | {r['batch']} | {num(r['t_sample_us'], '.2f')} "
               f"| {num(r['measured_s'], '.4f')} | {num(r['alpha_us'], '.1f')} "
               f"| {num(r['beta_MBps'], '.2f')} | {num(r['predicted_s'], '.4f')} "
               f"| {r['residual']} | {num(r['bucket_wait_us'], '.0f')} "
               f"| {num(r['predicted_bucket_s'], '.4f')} | {r['residual_bucket'] or '-'} |")
ok = lambda x: abs(float(x.rstrip("%"))) <= 15
best = [r["residual_bucket"] or r["residual"] for r in rows]
out += ["", f"With the ping-pong's alpha and beta: {sum(ok(r['residual']) for r in rows)} of "
        f"{len(rows)} points within 15%. With the shaped links as the wire under a token bucket: "
        f"{sum(map(ok, best))} of {len(rows)}."]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
# Live: H namespace hosts over links of $live_latency and $live_rate, measured now and simulated.
# smpi_allreduce H: the SMPI algorithm that sends what Open MPI 4.1's coll tuned sends for
# lenet-mpi's 9,376-byte allreduce (its fixed decision: recursive doubling at 2 and 3 ranks,
# Rabenseifner at 4 to 7; docs/scaling.md shows how this was checked).
smpi_allreduce() { if (($1 < 4)); then echo rdb; else echo rab_rdb; fi; }
# summary_ms KEY: the number after "KEY (ms) =" in a summary block on stdin.
summary_ms() { sed -n "s/^ *$1 (ms) *= *\([0-9.]*\).*/\1/p"; }
# on_hosts H EXE ARGS...: EXE on H namespace hosts over the shaped links (stdout: its output).
# A run takes seconds; one bound at 120 s is run once more, saying so. (Open MPI 4.1 hung twice
# in CI runs after the ping-pong printed its last line: in MPI_Finalize, not in what it measures.)
live_links=(--latency "$live_latency")
[[ $live_rate == none ]] || live_links+=(--bandwidth "$live_rate")
on_hosts() {
  local h=$1 exe=$2 text status try
  shift 2
  for try in 1 2; do
    status=0
    text=$(timeout 120 bash "${SCRIPT_DIR}/multihost.sh" --hosts "$h" "${live_links[@]}" \
      --build "$build_dir" --no-check --mpi "$exe" -- "$@" 2>&1) || status=$?
    ((status == 124 && try == 1)) || break
    echo "$PROG: warning: ${exe##*/} on $h hosts still ran after 120 s (last lines:" \
      "$(tail -n 3 <<<"$text" | paste -sd '|')): stopped, run once more" >&2
  done
  printf '%s\n' "$text"
  return "$status"
}
live_csv="$out/validation-live.csv"
IFS=, read -ra host_list <<<"$live_hosts"
live_batch=48 live_images=960  # 16 to 24 samples per rank per step, 20 steps
live_run=(--data "$data" --train-limit "$live_images" --test-limit 100 --batch "$live_batch"
          --lr "$(lr_for "$live_batch")")
pingpong="${build_dir}/backend_mpi/lenet-mpi-pingpong"
if [[ $(id -u) -ne 0 ]] || [[ ! -x $mpi_exe ]] ||
  [[ $(bash "$LIB_ROOT/run_scripts/mpi_launch.sh" "$build_dir" --family 2>/dev/null) != openmpi ]] ||
  [[ ! -c /dev/net/tun ]]; then
  say "validation 3/3 skipped: the live points need root (network namespaces), Open MPI," \
    "$mpi_exe and TUN devices (/dev/net/tun, for multihost.sh --latency)"
else
  say "validation 3/3: live, ${host_list[*]} namespace hosts, links of $live_latency and $live_rate:" \
    "the ping-pong and lenet-mpi (B = $live_batch, $live_images images), 3 repeats"
  declare -A alpha_of beta_of comm_of epoch_of_h
  serial=()
  for _ in 1 2 3; do  # interleaved: a burst of load hits every point alike
    serial+=("$(timeout 300 "$serial_exe" "${live_run[@]}" --quiet | epoch_of)")
    for h in "${host_list[@]}"; do
      # (exit 124: on_hosts' bound, twice; the last lines say where it stopped)
      link=$(on_hosts "$h" "$pingpong" --seconds 0.5) ||
        die "lenet-mpi-pingpong failed on $h hosts (exit $?): $(tail -n 6 <<<"$link" | paste -sd '|')"
      alpha_of[$h]+=" $(sed -n 's/^alpha_us = //p' <<<"$link")"
      beta_of[$h]+=" $(sed -n 's/^beta_MBps = //p' <<<"$link")"
      run=$(on_hosts "$h" "$mpi_exe" "${live_run[@]}" --quiet) ||
        die "lenet-mpi failed on $h hosts (exit $?): $(tail -n 6 <<<"$run" | paste -sd '|')"
      comm=$(summary_ms "Comm per step" <<<"$run")
      [[ -n $comm ]] || die "no 'Comm per step' in lenet-mpi's summary on $h hosts"
      comm_of[$h]+=" $comm"
      epoch_of_h[$h]+=" $(epoch_of <<<"$run")"
    done
  done
  tsample=$(awk -v s="$(median3 "${serial[@]}")" -v n="$live_images" \
    'BEGIN { printf "%.2f", s / n * 1e6 }')
  echo "hosts,rate,latency,algorithm,batch,images,t_sample_us,alpha_us,beta_MBps,measured_comm_ms,simulated_comm_ms,residual_comm,measured_epoch_s,simulated_epoch_s,residual_epoch" >"$live_csv.tmp"
  for h in "${host_list[@]}"; do
    alg=$(smpi_allreduce "$h")
    # shellcheck disable=SC2086 # three numbers, one word each
    alpha=$(median3 ${alpha_of[$h]}) beta=$(median3 ${beta_of[$h]})
    # shellcheck disable=SC2086
    comm=$(median3 ${comm_of[$h]}) epoch=$(median3 ${epoch_of_h[$h]})
    platform "$out/live.xml" "$h" "$alpha" "$beta"
    simulate "$out/live.xml" "$h" "$alg" \
      "$(awk -v u="$tsample" 'BEGIN { printf "%.9g", u * 1e-6 }')" "${live_run[@]}"
    read -r ips _ sim_comm <"$out/point"
    sim_epoch=$(awk -v r="$ips" -v n="$live_images" 'BEGIN { printf "%.6f", n / r }')
    echo "$h,$live_rate,$live_latency,$alg,$live_batch,$live_images,$tsample,$alpha,$beta,$comm,$sim_comm,$(residual "$comm" "$sim_comm"),$epoch,$sim_epoch,$(residual "$epoch" "$sim_epoch")" >>"$live_csv.tmp"
  done
  mv "$live_csv.tmp" "$live_csv"
  report validation "$live_csv" "$out/validation-live.md" "$(date -u '+%Y-%m-%d %H:%M UTC'), \
$(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg), \
$(ompi_info --version | head -n 1)"
  say "live points written: $out/validation-live.md, $live_csv"
fi
rm -f "$out/run.csv" "$out/run.log" "$out/two.xml" "$out/live.xml" "$out/point" "$out/hosts"
say "validation written: $out/validation.md, $vcsv"
