#!/usr/bin/env bash
# The run CSV is a contract: every reader finds a column by its header name and reads the quoted
# device column as CSV does (commas and doubled quotes inside). A real row from lenet-serial
# --csv gets the device of a GPU whose name holds both (no executable lets one set it), and each
# reader must return that device and the columns after it unchanged: lib.sh's csv_get (the run
# scripts, multihost.sh, the Slurm test) and the reports package (reports/runs.py). (The lab
# kit's grader reads no CSV: it compares the runs' checkpoints itself, docs/labs.md.)
# Usage: csv_readers.sh LENET_SERIAL DATA_DIR
set -u
serial=$1 data=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="csv_readers.sh"
source "$root/run_scripts/lib.sh" # csv_get
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
stop() {
  echo "FAIL: $*"
  exit 1
}

"$serial" --data "$data" --epochs 1 --batch 8 --lr 0.3 --csv "$tmp/real.csv" --quiet >/dev/null ||
  stop "lenet-serial --csv did not run"
# The real row's device is "cpu": no comma, so splitting at commas reads it right, and gives the
# values every reader must find in the altered row.
header=$(head -n 1 "$tmp/real.csv") row=$(tail -n 1 "$tmp/real.csv")
IFS=, read -ra names <<<"$header"
IFS=, read -ra values <<<"$row"
[[ ${#names[@]} -eq ${#values[@]} ]] ||
  stop "the real row has ${#values[@]} fields, the header ${#names[@]}"
declare -A want
for i in "${!names[@]}"; do want[${names[i]}]=${values[i]}; done
[[ ${want[device]} == '"cpu"' ]] ||
  stop "lenet-serial's device field is ${want[device]}, not \"cpu\""
# Columns after the device: the next one, the parameter CRC-32, the time and the last.
checked=(batch param_crc32 seconds_per_epoch hosts)

device='GPU 0: NVIDIA A100, 80GB "SXM"'
quoted='"GPU 0: NVIDIA A100, 80GB ""SXM"""' # RFC 4180: quoted, the inner quotes doubled
{
  echo "$header"
  echo "${row/,\"cpu\",/,$quoted,}"
} >"$tmp/gpu.csv"
grep -qF "$quoted" "$tmp/gpu.csv" || stop "could not put the GPU device into the row"
echo "row: $(tail -n 1 "$tmp/gpu.csv" | cut -c1-110)..."

# check READER COLUMN GOT: GOT must be the real row's value (the device: the GPU's name).
checks=0
check() {
  local expect=${want[$2]}
  checks=$((checks + 1))
  [[ $2 == device ]] && expect=$device
  if [[ $3 == "$expect" ]]; then
    echo "ok   $1: $2 = $3"
  else
    fail "$1: $2 = '$3', expected '$expect'"
  fi
}

for column in device "${checked[@]}"; do
  check "lib.sh csv_get" "$column" "$(csv_get "$tmp/gpu.csv" "$column")"
done

python=$(command -v python3 || echo /usr/bin/python3)
# The Python readers print COLUMN=VALUE lines for the columns asked.
while IFS='=' read -r reader column value; do
  check "$reader" "$column" "$value"
done < <(PYTHONPATH="$root" "$python" - "$tmp/gpu.csv" device "${checked[@]}" <<'EOF'
import sys
from reports import runs
path, columns = sys.argv[1], sys.argv[2:]
row = runs.read(path, columns)[-1]
for c in columns:
    print(f"reports/runs.py read={c}={row[c]}")
EOF
)
# A reader that failed to run printed nothing: count what was checked.
[[ $checks -eq $((2 * (1 + ${#checked[@]}))) ]] ||
  fail "$checks values checked, expected $((2 * (1 + ${#checked[@]}))) (2 readers; see above)"

# A missing column: one line naming the file and the column, from each.
if err=$(csv_get "$tmp/gpu.csv" no_such_column 2>&1 >/dev/null); then
  fail "lib.sh csv_get found a column no_such_column"
elif [[ $err == *"$tmp/gpu.csv"*no_such_column* ]]; then
  echo "ok   lib.sh csv_get: $err"
else
  fail "lib.sh csv_get on a missing column said '$err'"
fi
missing='import sys; from reports import runs; runs.read(sys.argv[1], ["no_such_column"])'
err=$(PYTHONPATH="$root" "$python" -c "$missing" "$tmp/gpu.csv" 2>&1)
status=$?
if [[ $status -ne 0 && $err == *"$tmp/gpu.csv"*no_such_column* && $(wc -l <<<"$err") -eq 1 ]]; then
  echo "ok   reports/runs.py: $err"
else
  fail "reports/runs.py on a missing column: exit $status, '$err'"
fi

[[ $failures -eq 0 ]] || { echo "FAILED: $failures check(s)"; exit 1; }
echo "PASS: every reader reads the GPU's row by column name"
