#!/usr/bin/env bash
# --list-kernels, the flag made for scripts (run_scripts/lib.sh's kernels_of): exit 0, nothing
# on stderr, one name a line and nothing else, the values --kernels accepts, the default last,
# with or without the other flags (no --data needed, as for --help).
# Usage: list_kernels.sh EXECUTABLE [LAUNCHER...]  (LAUNCHER, e.g. mpi_launch.sh's, goes in front)
set -u
exe=$1
shift
launch=("$@")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

"${launch[@]}" "$exe" --list-kernels >"$tmp/out" 2>"$tmp/err"
code=$?
[[ $code -eq 0 ]] || fail "--list-kernels exited $code"
# Nothing on stderr; with a launcher in front, stderr is also the MPI library's (Open MPI 5's
# TCP notes in the Debian 13 root), so only stdout is checked there.
[[ ${#launch[@]} -gt 0 || ! -s $tmp/err ]] || fail "--list-kernels wrote to stderr: $(head -3 "$tmp/err")"
grep -qvxE '[a-z0-9]+' "$tmp/out" && fail "a line that is not one name: $(grep -vxE '[a-z0-9]+' "$tmp/out" | head -1)"
listed=$(paste -sd, "$tmp/out")
[[ -n $listed ]] || fail "no kernels listed"
echo "listed: $listed"
# The default is the last name listed: a run without --kernels says which one it used. (Not read
# from --help, whose layout changes with CLI11's version: 2.1's "{a,b}=b", 2.4's "{a,b} [b]".)
data="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/vectors/data"
used=$("${launch[@]}" "$exe" --data "$data" --epochs 0 --quiet 2>&1 |
  sed -n 's/^ *Kernels *= *\([a-z0-9]*\).*/\1/p' | head -n 1)
[[ $used == "${listed##*,}" ]] || fail "a run without --kernels used '$used', not the last listed '${listed##*,}'"
"$exe" --kernels no_such_kernels --data "$data" >/dev/null 2>&1 && fail "--kernels no_such_kernels was accepted"
# Each name listed is one --kernels accepts: the parse gets past --kernels to the missing --data.
for k in $(tr , ' ' <<<"$listed"); do
  "$exe" --kernels "$k" 2>"$tmp/err" >/dev/null
  grep -q -- "--data" "$tmp/err" || fail "--kernels $k: $(cat "$tmp/err")"
done
# With other flags, before or after it.
out=$("$exe" --data /nonexistent --batch 4 --list-kernels 2>&1) || fail "with other flags: exit $?"
[[ $(paste -sd, <<<"$out") == "$listed" ]] || fail "with other flags: '$out'"
echo "$failures failed"
[[ $failures -eq 0 ]]
