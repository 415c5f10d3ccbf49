#!/usr/bin/env bash
# The run CSV is a contract, and the project has one reader of it: reports/runs.py (Python's csv
# module), which the reports use and the bash scripts reach through lib.sh's csv_get and csv_rows
# (python3 -m reports column). This checks that reader, through lib.sh as the scripts call it, on
# what a hand-written splitter gets wrong: a real lenet-serial --csv row given the device of a GPU
# whose name holds a comma and quotes (RFC 4180: quoted, inner quotes doubled; no executable lets
# one set it), empty fields, CRLF line ends, a header without rows, a missing column, a missing
# file. (The lab kit's grader reads no CSV: it compares the runs' checkpoints, docs/labs.md.)
# Usage: csv_reader.sh LENET_SERIAL DATA_DIR
set -u
serial=$1 data=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PROG="csv_reader.sh"
source "$root/run_scripts/lib.sh" # csv_get, csv_rows
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
# same WHAT GOT EXPECTED: one check of a value read.
same() {
  if [[ $2 == "$3" ]]; then
    echo "ok   $1 = '$2'"
  else
    fail "$1 = '$2', expected '$3'"
  fi
}
# one_error WHAT NEEDLE COMMAND...: COMMAND must fail with one line on stderr, "csv_reader.sh:
# error: ..." holding NEEDLE, and print nothing on stdout.
one_error() {
  local what=$1 needle=$2 out err status=0
  shift 2
  out=$("$@" 2>"$tmp/err") || status=$?
  err=$(<"$tmp/err")
  if [[ $status -ne 0 && -z $out && $err == "$PROG: error: "*"$needle"* && $(wc -l <<<"$err") -eq 1 ]]; then
    echo "ok   $what: $err"
  else
    fail "$what: exit $status, stdout '$out', stderr '$err'"
  fi
}

"$serial" --data "$data" --epochs 1 --batch 8 --lr 0.3 --csv "$tmp/real.csv" --quiet >/dev/null ||
  stop "lenet-serial --csv did not run"
# The real row's device is "cpu": no comma, so splitting at commas reads it right, and gives the
# values the reader must find in the altered row.
header=$(head -n 1 "$tmp/real.csv") row=$(tail -n 1 "$tmp/real.csv")
IFS=, read -ra names <<<"$header"
IFS=, read -ra values <<<"$row"
[[ ${#names[@]} -eq ${#values[@]} ]] ||
  stop "the real row has ${#values[@]} fields, the header ${#names[@]}"
declare -A want
for i in "${!names[@]}"; do want[${names[i]}]=${values[i]}; done
[[ ${want[device]} == '"cpu"' ]] ||
  stop "lenet-serial's device field is ${want[device]}, not \"cpu\""

device='GPU 0: NVIDIA A100, 80GB "SXM"'
quoted='"GPU 0: NVIDIA A100, 80GB ""SXM"""' # RFC 4180: quoted, the inner quotes doubled
{
  echo "$header"
  echo "$row"
  echo "${row/,\"cpu\",/,$quoted,}"
} >"$tmp/gpu.csv"
grep -qF "$quoted" "$tmp/gpu.csv" || stop "could not put the GPU device into the row"
echo "row: $(tail -n 1 "$tmp/gpu.csv" | cut -c1-110)..."

# The last row by column name: the device, then the columns after it (the next one, the
# parameter CRC-32, the time and the last).
same "csv_get device" "$(csv_get "$tmp/gpu.csv" device)" "$device"
for column in batch param_crc32 seconds_per_epoch hosts; do
  same "csv_get $column" "$(csv_get "$tmp/gpu.csv" "$column")" "${want[$column]}"
done
# Several columns of the last row in one call, the one with spaces last (read -r a b).
read -r crc dev < <(csv_get "$tmp/gpu.csv" param_crc32 device)
same "csv_get param_crc32 device: param_crc32" "$crc" "${want[param_crc32]}"
same "csv_get param_crc32 device: device" "$dev" "$device"
# Every row: a line each.
same "csv_rows batch param_crc32" "$(csv_rows "$tmp/gpu.csv" batch param_crc32 | paste -sd '|')" \
  "${want[batch]} ${want[param_crc32]}|${want[batch]} ${want[param_crc32]}"

# Odd but valid CSV: CRLF line ends, empty fields (kept: the spaces stay in place), a quoted
# field with a comma, a doubled quote alone.
printf 'link,alpha_us,note,beta\r\n10mbit,,"a, b",5\r\nfast,25,"""",\r\n' >"$tmp/odd.csv"
same "csv_rows (CRLF, empty fields) link alpha_us beta" \
  "$(csv_rows "$tmp/odd.csv" link alpha_us beta | paste -sd '|')" "10mbit  5|fast 25 "
same "csv_rows note" "$(csv_rows "$tmp/odd.csv" note | paste -sd '|')" 'a, b|"'
same "csv_get link" "$(csv_get "$tmp/odd.csv" link)" fast

# A header without rows: no rows (a sweep that ran nothing), but no last row to read.
head -n 1 "$tmp/real.csv" >"$tmp/empty.csv"
out=$(csv_rows "$tmp/empty.csv" device 2>&1) && [[ -z $out ]] &&
  echo "ok   csv_rows on a header without rows: nothing" ||
  fail "csv_rows on a header without rows: exit $?, '$out'"
one_error "csv_get on a header without rows" "$tmp/empty.csv has no rows" \
  csv_get "$tmp/empty.csv" device

# Errors: one line naming the file and what is wrong, from both entry points.
one_error "csv_get, a missing column" "$tmp/gpu.csv has no column no_such_column" \
  csv_get "$tmp/gpu.csv" no_such_column
one_error "csv_rows, a missing column" "$tmp/gpu.csv has no column no_such_column" \
  csv_rows "$tmp/gpu.csv" batch no_such_column
one_error "csv_get, a missing file" "cannot read $tmp/none.csv" csv_get "$tmp/none.csv" device

[[ $failures -eq 0 ]] || { echo "FAILED: $failures check(s)"; exit 1; }
echo "PASS: reports/runs.py, through lib.sh, reads the run CSV by column name"
