# tests/cli/expect.sh: the check shared by the command-line error tests (sourced; the caller sets
# tmp, a scratch folder, and failures=0, and ends with `report`).
#
# expect NAME EXPECTED_TEXT COMMAND...: COMMAND must fail (non-zero, not a 30 s timeout) within
# 20 s and print exactly one line on stderr, one that contains EXPECTED_TEXT.
expect() {
  local name=$1 want=$2
  shift 2
  local start=$SECONDS
  timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
  local code=$? seconds=$((SECONDS - start)) lines
  lines=$(grep -c . "$tmp/err")
  if [[ $code -eq 0 || $code -eq 124 || $seconds -gt 20 || $lines -ne 1 ]] ||
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
