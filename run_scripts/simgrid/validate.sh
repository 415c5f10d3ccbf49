# scale_sim.sh --validate (sourced by it: uses its simulate, $out, $data, $py, $build_dir): the
# simulator configured as a measured 2-rank set-up must predict the measured time per epoch.
#   namespace  docs/multihost.md's bandwidth sweep (2026-11-23, this machine type: 2 network-
#              namespace hosts on one 2-core machine, tc-shaped link), from namespace_sweep.csv:
#              the link's alpha and beta, lenet-serial's t_sample and lenet-mpi's epoch time
#   local      measured now: lenet-mpi-pingpong (alpha, beta) and lenet-serial (t_sample) and
#              lenet-mpi on 2 ranks (shared memory), 3 interleaved repeats, medians
# Each is simulated as 2 hosts joined by the measured link (half of alpha on each host's link,
# no SMPI correction factors), at the same data, batch and rank count. The namespace points are
# simulated a second time with the bandwidth calibrated on the ping-pong's own 9376-byte
# allreduce (beta' = n / (t_allreduce - alpha)): the tc token bucket lets a message of that size
# through faster than its long-run rate beta (docs/multihost.md, "What the token bucket does").

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

epoch_of() { sed -n 's/^ *Time per epoch (s) *= *//p'; }

vcsv="$out/validation.csv"
echo "setup,link,batch,alpha_us,beta_MBps,t_sample_us,measured_s,predicted_s,residual,beta_allreduce_MBps,predicted_allreduce_s,residual_allreduce" >"$vcsv"
residual() { awk -v m="$1" -v p="$2" 'BEGIN { printf "%+.1f%%", 100 * (p - m) / m }'; }
row() {  # setup link batch alpha beta t_sample measured predicted [beta' predicted']
  local extra=",,"
  [[ -n ${10:-} ]] && extra="$9,${10},$(residual "$7" "${10}")"
  echo "$1,$2,$3,$4,$5,$6,$7,$8,$(residual "$7" "$8"),$extra" >>"$vcsv"
}

say "validation 1/2: docs/multihost.md's namespace sweep (recorded 2026-11-23), simulated"
while IFS=, read -r link alpha beta allreduce batch tsample _ measured; do
  [[ $link == link ]] && continue
  predict "$alpha" "$beta" "$batch" "$tsample"
  plain=$predicted
  beta2=$(awk -v a="$alpha" -v t="$allreduce" 'BEGIN { printf "%.2f", 9376 / (t - a) }')
  predict "$alpha" "$beta2" "$batch" "$tsample"
  row namespace "$link" "$batch" "$alpha" "$beta" "$tsample" "$measured" "$plain" "$beta2" "$predicted"
done <"${SCRIPT_DIR}/simgrid/namespace_sweep.csv"

mpi_exe="${build_dir}/backend_mpi/lenet-mpi"
if command -v mpirun >/dev/null && [[ -x $mpi_exe ]]; then
  say "validation 2/2: this machine, 2 ranks over shared memory: measuring (about a minute)"
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
    tsample=$(awk -v s="$(median3 "${serial[@]}")" 'BEGIN { printf "%.4f", s / 4000 * 1e6 }')
    measured=$(median3 "${mpi[@]}")
    predict "$alpha" "$beta" "$batch" "$tsample"
    row local shared-memory "$batch" "$alpha" "$beta" "$tsample" "$measured" "$predicted"
  done
else
  say "validation 2/2 skipped: no mpirun or no $mpi_exe"
fi

"$py" - "$vcsv" "$out/validation.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
seconds = lambda x: f"{float(x):.4f}" if x else "-"
out = ["| set-up | link | B | alpha (us) | beta (MB/s) | t_sample (us) | measured (s/epoch) "
       "| simulated (s/epoch) | residual | beta' from the allreduce (MB/s) | simulated with beta' "
       "| residual |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    out.append(f"| {r['setup']} | {r['link']} | {r['batch']} | {r['alpha_us']} | "
               f"{r['beta_MBps']} | {r['t_sample_us']} | {r['measured_s']} | "
               f"{seconds(r['predicted_s'])} | {r['residual']} | {r['beta_allreduce_MBps'] or '-'} | "
               f"{seconds(r['predicted_allreduce_s'])} | "
               f"{r['residual_allreduce'] or '-'} |")
ok = lambda x: abs(float(x.rstrip("%"))) <= 15
within = sum(ok(r["residual"]) for r in rows)
cal = [r for r in rows if r["residual_allreduce"]]
out += ["", f"alpha-beta: {within} of {len(rows)} within 15%; namespace points with beta': "
        f"{sum(ok(r['residual_allreduce']) for r in cal)} of {len(cal)} within 15%."]
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
rm -f "$out/run.csv" "$out/run.log" "$out/two.xml" "$out/point" "$out/hosts"
say "validation written: $out/validation.md, $vcsv"
