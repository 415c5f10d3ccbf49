#!/usr/bin/env bash
# lenet-bench-layers reports what docs/performance.md reads from it: the CPU and the peak it
# measured (the header's context), the sigmoids' time and the ceiling they put on the sample
# (0 < ceiling < 100), and the whole sample for every kernels the build lists, each with a
# %peak and its share of the ceiling measured at start (%ceiling = %peak / the header's
# ceiling). Checks what is printed, not how fast: speed lives in docs/performance.md.
# Usage: bench_layers.sh LENET_BENCH_LAYERS LENET_SERIAL (the second for --list-kernels)
set -u
bench=$1
serial=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

kernels=$(timeout 60 "$serial" --list-kernels) || { echo "FAIL: $serial --list-kernels"; exit 1; }
timeout 300 "$bench" --benchmark_filter='^(sigmoids|sample/.*)$' --benchmark_format=json \
  >"$tmp/out.json" 2>"$tmp/err" || {
  echo "FAIL: $bench exited $?: $(head -3 "$tmp/err")"
  exit 1
}
python3 - "$tmp/out.json" $kernels <<'PY'
import json, sys

report = json.load(open(sys.argv[1]))
failures = []
context = report["context"]
if "family" not in context.get("cpu", "") and "implementer" not in context.get("cpu", ""):
    failures.append(f"the header's cpu does not name family/model or implementer/part: {context.get('cpu')!r}")
if "GFLOP/s measured at start" not in context.get("peak", ""):
    failures.append(f"the header's peak is not the measured one: {context.get('peak')!r}")
try:
    at_start = float(context.get("ceiling", "").split()[0])
except (IndexError, ValueError):
    at_start = -1
if not 0 < at_start < 100:
    failures.append(f"the header's ceiling is not a measured %peak: {context.get('ceiling')!r}")
rows = {b["name"]: b for b in report["benchmarks"]}
sig = rows.get("sigmoids")
if sig is None:
    failures.append("no sigmoids row")
else:
    ceiling = sig.get("ceiling %peak", -1)
    if not 0 < ceiling < 100:
        failures.append(f"sigmoids' ceiling %peak is {ceiling}, not in (0, 100)")
    if not sig.get("ns/sample", 0) > 0:
        failures.append(f"sigmoids' ns/sample is {sig.get('ns/sample')}")
    print(f"sigmoids: {sig.get('ns/sample', 0):.0f} ns a sample, ceiling {ceiling:.1f}% of the peak")
for k in sys.argv[2:]:
    row = rows.get(f"sample/{k}")
    if row is None:
        failures.append(f"no sample/{k} row")
    elif not 0 < row.get("%peak", 0) < 100:
        failures.append(f"sample/{k}'s %peak is {row.get('%peak')}")
    elif abs(row.get("%ceiling", -1) - 100 * row["%peak"] / at_start) > row["%peak"] / at_start:
        failures.append(f"sample/{k}'s %ceiling is {row.get('%ceiling')}, not its %peak "
                        f"{row['%peak']:.2f} over the header's ceiling {at_start}")
    else:
        print(f"sample/{k}: {row['ns/sample']:.0f} ns, {row['%peak']:.1f}% of the peak, "
              f"{row['%ceiling']:.1f}% of the ceiling")
for f in failures:
    print("FAIL:", f)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
PY
