# tests/cli/expect.sh: the check shared by the command-line error tests (sourced; the caller sets
# tmp, a scratch folder, and failures=0, and ends with `report`).
#
# expect NAME EXPECTED_TEXT COMMAND...: COMMAND must fail (non-zero) and print exactly one line on
# stderr, one that contains EXPECTED_TEXT. How soon is not timed (a busy machine may be slow);
# that an error comes before the work is checked by what the run did (cli_errors.sh's
# before_work). 120 s is only the bound on a hung run, which fails.
expect() {
  local name=$1 want=$2
  shift 2
  local start=$SECONDS
  timeout -k 5 120 "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$? seconds=$((SECONDS - start)) lines
  lines=$(grep -c . "$tmp/err")
  if [[ $code -eq 0 || $code -eq 124 || $code -eq 137 || $lines -ne 1 ]] ||
    ! grep -qF -- "$want" "$tmp/err"; then
    echo "FAIL $name: exit $code after $seconds s, $lines stderr lines, wanted one containing '$want':"
    sed 's/^/    /' "$tmp/err" | head -5
    failures=$((failures + 1))
  else
    echo "ok   $name (exit $code, $seconds s): $(cat "$tmp/err")"
  fi
}

# report: the count of failed checks, and the exit status to match.
report() {
  echo "$failures failed"
  [[ $failures -eq 0 ]]
}
