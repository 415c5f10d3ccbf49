#!/usr/bin/env bash
# Every timing figure of the README ("167 s", "0.135 to 0.160 s", "15 minutes") must be one of
# docs/results.md's, the one home of the project's measurements, each with its date and machine:
# a figure changed in one place only is caught here. A number with decimals must appear in
# docs/results.md as that number, a whole number with its unit (s, min, minutes).
# Usage: figures.sh README RESULTS
set -u
readme=$1 results=$2
failures=0 figures=0
while read -r figure; do
  figures=$((figures + 1))
  for number in $(grep -oE '[0-9]+(\.[0-9]+)?' <<<"$figure"); do
    if [[ $number == *.* ]]; then
      pattern="(^|[^0-9.])${number//./\\.}([^0-9]|$)"
    else
      pattern="(^|[^0-9.])$number ?(s|min|minutes)([^a-z]|$)"
    fi
    if ! grep -qE "$pattern" "$results"; then
      echo "FAIL: the README's '$figure': $number is not in $results"
      failures=$((failures + 1))
    fi
  done
done < <(grep -oE '[0-9]+(\.[0-9]+)?( to [0-9]+(\.[0-9]+)?)? ?(s|min|minutes)([^a-z/]|$)' "$readme" |
  sed -E 's/[^a-z]$//')
echo "$figures timing figures in $readme, $failures not in $results"
[[ $figures -gt 0 && $failures -eq 0 ]]
