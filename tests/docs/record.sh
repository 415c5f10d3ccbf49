#!/usr/bin/env bash
# compare.sh --record's step (python3 -m reports record) on a copy of the docs: verified runs of
# lenet-serial and lenet-openmp become rows of docs/data/epoch_times.csv with date, machine,
# cores, command and commit; the generated tables are rendered again and pass
# `reports tables --check`, and the README's table shows the new run. The same runs as a thread
# sweep's (--sweep threads) become a point of docs/data/sweeps.csv. A run that failed
# verification is refused, with the CSV left as it was.
# Usage: record.sh ROOT SERIAL_EXE OPENMP_EXE DATA
set -uo pipefail
root=$1 serial=$2 openmp=$3 data=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "FAIL: $*"
  exit 1
}
copy=$tmp/docs-copy
mkdir -p "$copy/docs"
cp "$root/README.md" "$copy/"
cp "$root"/docs/*.md "$copy/docs/"
cp -r "$root/docs/data" "$copy/docs/"
record() { PYTHONPATH="$root" timeout -k 5 120 python3 -m reports record "$@"; }

# Two verified repeats of each backend, as compare.sh runs them.
common=(--data "$data" --batch 32 --lr 0.5 --quiet)
timeout -k 5 60 "$serial" "${common[@]}" --save "$tmp/serial.ck" >/dev/null || fail "lenet-serial did not run"
for r in 1 2; do
  timeout -k 5 60 "$serial" "${common[@]}" --verify "$tmp/serial.ck" --identical \
    --csv "$tmp/runs.csv" >/dev/null || fail "lenet-serial failed verification"
  timeout -k 5 60 "$openmp" "${common[@]}" --threads 2 --verify "$tmp/serial.ck" --identical \
    --csv "$tmp/runs.csv" >/dev/null || fail "lenet-openmp failed verification"
done
before=$(wc -l <"$copy/docs/data/epoch_times.csv")
command="bash run_scripts/compare.sh --data data/fashion --record"
record --runs "$tmp/runs.csv" --command "$command" --root "$copy" || fail "reports record failed"
added=$(($(wc -l <"$copy/docs/data/epoch_times.csv") - before))
[[ $added -eq 2 ]] || fail "expected 2 rows added (serial, openmp), got $added"
today=$(date -u +%F)
row=$(tail -n 1 "$copy/docs/data/epoch_times.csv")
for want in "$today," ",$(nproc)," ",$command," "commit " ",lenet-openmp," ",2," "verified against serial"; do
  [[ $row == *"$want"* ]] || fail "the recorded row lacks '$want': $row"
done
echo "ok: 2 rows recorded: $row"
PYTHONPATH="$root" python3 -m reports tables --root "$copy" --check || fail "the tables differ from the CSVs after record"
grep -q "^Seconds per 60k Fashion-MNIST epoch, $today, " "$copy/README.md" ||
  fail "README.md's table does not show the recorded run"
echo "ok: the generated tables render the recorded run (README.md's table included)"

# The same runs as an OpenMP sweep's (omp_sweep.sh --record): one point, 2 threads, in sweeps.csv.
before=$(wc -l <"$copy/docs/data/sweeps.csv")
sweep_command="bash experiments/omp_sweep.sh --data data/fashion --record"
record --sweep threads --runs "$tmp/runs.csv" --command "$sweep_command" --root "$copy" ||
  fail "reports record --sweep failed"
added=$(($(wc -l <"$copy/docs/data/sweeps.csv") - before))
[[ $added -eq 1 ]] || fail "expected 1 sweep point added (openmp, 2 threads), got $added"
row=$(tail -n 1 "$copy/docs/data/sweeps.csv")
for want in "$today," ",$sweep_command," "commit " ",lenet-openmp,batch," ",32,2," ",bit-identical,"; do
  [[ $row == *"$want"* ]] || fail "the recorded sweep row lacks '$want': $row"
done
PYTHONPATH="$root" python3 -m reports tables --root "$copy" --check || fail "the tables differ from the CSVs after record --sweep"
grep -q "$sweep_command" "$copy/docs/results.md" || fail "docs/results.md's sweeps table does not show the recorded sweep"
echo "ok: the sweep point recorded and rendered: $row"

# A run that failed verification: refused, the CSV unchanged.
sed '2s/SUCCESSFUL/UNSUCCESSFUL/' "$tmp/runs.csv" >"$tmp/failed.csv"
grep -q UNSUCCESSFUL "$tmp/failed.csv" || fail "could not plant a failed verification"
cp "$copy/docs/data/epoch_times.csv" "$tmp/kept.csv"
if record --runs "$tmp/failed.csv" --command "$command" --root "$copy" 2>"$tmp/err"; then
  fail "a CSV with a failed verification was recorded"
fi
cmp -s "$tmp/kept.csv" "$copy/docs/data/epoch_times.csv" || fail "the refused record changed the CSV"
echo "ok: refused: $(cat "$tmp/err")"
