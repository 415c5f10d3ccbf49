# scale_sim.sh --validate (sourced by it: uses its simulate, median3, epoch_of, $out, $data, $py,
# $build_dir, $sweep): the simulator configured as a measured 2-rank set-up must predict the
# measured time per epoch.
#   namespace  a bandwidth sweep (experiments/bandwidth_sweep.sh, docs/multihost.md: 2 network-
#              namespace hosts on this 2-core machine, the link unshaped or shaped by a tc token
#              bucket): the recorded one in namespace_sweep.csv, or --sweep DIR's, converted
#   local      measured now: lenet-mpi-pingpong (alpha, beta) and lenet-serial (t_sample) and
#              lenet-mpi on 2 ranks (shared memory), 3 interleaved repeats, medians
# Each is simulated as 2 hosts joined by one link (half of alpha on each host's link, no SMPI
# correction factors), at the same data, batch and rank count, with the ping-pong's alpha and
# beta. A shaped link is simulated a second time as what it is: the unshaped wire under a
# token bucket, whose wait per message (token_bucket.py) SimGrid's fluid links cannot model.

# platform2 FILE ALPHA_US BETA_MBPS: two hosts whose one-way time is alpha + n / beta.
platform2() {
  cat >"$1" <<EOF
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="two" prefix="node-" suffix="" radical="0-1" speed="1Gf"
           bw="${3}MBps" lat="$(awk -v a="$2" 'BEGIN { printf "%.6g", a / 2 }')us"
           sharing_policy="SPLITDUPLEX"/>
</platform>
EOF
}

# predict ALPHA_US BETA_MBPS BATCH T_SAMPLE_US: sets $predicted, the simulated seconds per epoch
# of 4000 digits.
predict() {
  platform2 "$out/two.xml" "$1" "$2"
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
read -r wire_alpha wire_beta < <(awk -F, '$1 == "unshaped" { print $4, $5; exit }' "$sweep_csv")
[[ -n ${wire_alpha:-} ]] || die "$sweep_csv: no row for the unshaped link (the wire under the bucket)"

vcsv="$out/validation.csv"
echo "setup,link,batch,t_sample_us,measured_s,alpha_us,beta_MBps,predicted_s,residual,bucket_wait_us,beta_bucket_MBps,predicted_bucket_s,residual_bucket" >"$vcsv"
residual() { awk -v m="$1" -v p="$2" 'BEGIN { printf "%+.1f%%", 100 * (p - m) / m }'; }

say "validation 1/2: the namespace hosts of a bandwidth sweep ($sweep_csv), simulated"
while IFS=, read -r link rate burst alpha beta _ batch tsample _ measured; do
  [[ $link == link ]] && continue
  predict "$alpha" "$beta" "$batch" "$tsample"
  row="namespace,$link,$batch,$tsample,$measured,$alpha,$beta,$predicted,$(residual "$measured" "$predicted")"
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
done <"$sweep_csv"

mpi_exe="${build_dir}/backend_mpi/lenet-mpi"
if command -v mpirun >/dev/null && [[ -x $mpi_exe ]]; then
  say "validation 2/2: this machine, 2 ranks over shared memory: measuring (3 batch sizes x 3 repeats, seconds)"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpirun=(mpirun -np 2 --oversubscribe --bind-to none)
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
  say "validation 2/2 skipped: no mpirun or no $mpi_exe"
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
rm -f "$out/run.csv" "$out/run.log" "$out/two.xml" "$out/point" "$out/hosts"
say "validation written: $out/validation.md, $vcsv"
