#!/usr/bin/env bash
# mca.sh: what llvm-mca predicts for the lanes kernels' hot loops on CPUs you are not on (issue
# 42), beside what lenet-bench-layers measures on this one. For each target CPU it compiles
# common/lanes/{c1,s1,f}.cpp with -O3 -S for that CPU, finds each layer function's innermost
# loops in the assembly, and runs llvm-mca on the loop that does the layer's multiply-adds (the
# most FMAs) and on the sigmoid loop (the one with the division). Cycles per iteration, divided
# by the FMAs (or sigmoid vectors) one iteration does, times the layer's per sample, give the
# predicted cycles per sample; %peak = FLOP / (cycles x the CPU's FLOP per cycle).
#
# Usage: bash experiments/mca.sh [--bench BIN|none] [--out DIR] [--timeout S] [--cpus LIST]
#                                [--fpc N]
#   --bench BIN   lenet-bench-layers to measure this machine with (default:
#                 build/bench/lenet-bench-layers; none: predictions only)
#   --out DIR     where the assembly, loop bodies and mca.csv go (default: a new temporary folder)
#   --timeout S   bound on each compile, llvm-mca and benchmark call (default 120)
#   --cpus LIST   comma-separated, of sapphirerapids, znver4, neoverse-v2 (default: all three)
#   --fpc N       this machine's fp32 FLOP per cycle, to turn measured ns into cycles at the
#                 clock its measured peak implies (default 64: two 512-bit FMA units)
# Needs llvm-mca-19 (Debian: apt-get install llvm-19), g++ and python3; neoverse-v2 needs
# aarch64-linux-gnu-g++ (apt-get install g++-aarch64-linux-gnu) and is SKIPPED without it.
# Not modelled: the input's transposes, the softmax (ref's scalar function, lane by lane), the
# chunk's gradient sum and the layers' boundaries; so the sample's predicted %peak is an upper
# bound. The table's rows say which loop each figure comes from.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "mca.sh: error: $*" >&2; exit 1; }
bench="$root/build/bench/lenet-bench-layers"
out=""
limit=120
cpus="sapphirerapids,znver4,neoverse-v2"
fpc=64
while [[ $# -gt 0 ]]; do
  case $1 in
    --bench) [[ -n ${2:-} ]] || die "--bench needs a program or 'none'"; bench=$2; shift 2 ;;
    --out) [[ -n ${2:-} ]] || die "--out needs a directory"; out=$2; shift 2 ;;
    --timeout) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--timeout needs seconds, got '${2:-}'"; limit=$2; shift 2 ;;
    --cpus) [[ -n ${2:-} ]] || die "--cpus needs a list"; cpus=$2; shift 2 ;;
    --fpc) [[ ${2:-} =~ ^[0-9]+$ ]] || die "--fpc needs a number, got '${2:-}'"; fpc=$2; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
command -v llvm-mca-19 >/dev/null || die "llvm-mca-19 not found (Debian: apt-get install llvm-19)"
command -v python3 >/dev/null || die "python3 not found"
command -v g++ >/dev/null || die "g++ not found"
[[ -n $out ]] || out=$(mktemp -d /tmp/lenet-mca.XXXXXX)
mkdir -p "$out"

# Each target: compiler, its flags, llvm-mca's flags, vector lanes, FLOP per cycle (2 x the FMA
# units' lanes). GCC 12 has no -march=znver4: Zen 3 plus Zen 4's AVX-512 subsets, which is the
# instruction set of -march=znver4; Zen 4 runs a 512-bit FMA as two 256-bit halves on its two
# FMA pipes (32 FLOP a cycle). Neoverse V2 (NVIDIA Grace): four 128-bit FMA pipes, NEON 4 lanes.
znver4_flags="-march=znver4"
if ! echo 'int x;' | g++ -march=znver4 -x c++ -S -o /dev/null - 2>/dev/null; then
  znver4_flags="-march=znver3 -mavx512f -mavx512cd -mavx512bw -mavx512dq -mavx512vl -mavx512ifma"
  znver4_flags+=" -mavx512vbmi -mavx512vbmi2 -mavx512vnni -mavx512bitalg -mavx512vpopcntdq"
  znver4_flags+=" -mavx512bf16 -mtune=znver3"
fi
# GCC 12 knows Neoverse V2 by its code name, demeter.
v2_flags="-mcpu=neoverse-v2"
if command -v aarch64-linux-gnu-g++ >/dev/null &&
  ! echo 'int x;' | aarch64-linux-gnu-g++ -mcpu=neoverse-v2 -x c++ -S -o /dev/null - 2>/dev/null; then
  v2_flags="-mcpu=demeter"
fi
declare -A cxx=([sapphirerapids]=g++ [znver4]=g++ [neoverse-v2]=aarch64-linux-gnu-g++)
declare -A flags=([sapphirerapids]="-march=sapphirerapids" [znver4]="$znver4_flags"
                  [neoverse-v2]="$v2_flags")
declare -A triple=([sapphirerapids]=x86_64-linux-gnu [znver4]=x86_64-linux-gnu
                   [neoverse-v2]=aarch64-linux-gnu)
declare -A lanes=([sapphirerapids]=16 [znver4]=16 [neoverse-v2]=4)
declare -A target_fpc=([sapphirerapids]=64 [znver4]=32 [neoverse-v2]=32)

targets=()
IFS=, read -ra wanted <<<"$cpus"
for cpu in "${wanted[@]}"; do
  [[ -n ${cxx[$cpu]:-} ]] || die "--cpus: unknown CPU '$cpu' (sapphirerapids, znver4, neoverse-v2)"
  if ! command -v "${cxx[$cpu]}" >/dev/null; then
    echo "mca.sh: $cpu SKIPPED: ${cxx[$cpu]} not found (apt-get install g++-aarch64-linux-gnu)"
    continue
  fi
  mkdir -p "$out/$cpu"
  for f in c1 s1 f; do
    # shellcheck disable=SC2086
    timeout "$limit" "${cxx[$cpu]}" -O3 -DNDEBUG -std=c++20 ${flags[$cpu]} -I"$root/common" \
      -S -o "$out/$cpu/$f.s" "$root/common/lanes/$f.cpp" ||
      die "compiling common/lanes/$f.cpp for $cpu failed (or took over ${limit} s)"
  done
  targets+=("$cpu:${triple[$cpu]}:${lanes[$cpu]}:${target_fpc[$cpu]}")
done
[[ ${#targets[@]} -gt 0 ]] || die "no target CPU left to analyse"

measured="$out/bench.json"
if [[ $bench != none ]]; then
  [[ -x $bench ]] || die "$bench not found (build it: cmake --build build --target lenet-bench-layers, or --bench none)"
  echo "mca.sh: measuring this machine: $bench (the lanes layers, 3 repetitions, medians)" >&2
  timeout "$limit" "$bench" --benchmark_filter='/lanes$' --benchmark_repetitions=3 \
    --benchmark_report_aggregates_only=true --benchmark_format=json >"$measured" 2>/dev/null ||
    die "$bench failed (or took over ${limit} s)"
else
  measured=""
fi

python3 - "$out" "$limit" "$fpc" "$measured" "${targets[@]}" <<'PY'
import csv, json, re, subprocess, sys

out, limit, local_fpc, measured = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
targets = [t.split(':') for t in sys.argv[5:]]

# Per sample (docs/performance.md): multiply-adds of each layer's loop, and sigmoids.
# (layer, loop, what one unit of work is, units per sample, file, function, FLOP counted)
PARTS = [
    ('C1 forward', 'convolution', 'fma', 86400, 'c1', 'c1_forward', 172800),
    ('C1 forward', 'sigmoids', 'div', 3456, 'c1', 'c1_forward', 0),
    ('S1 forward', 'pooling', 'fma', 3456, 's1', 's1_forward', 6912),
    ('S1 forward', 'sigmoids', 'div', 216, 's1', 's1_forward', 0),
    ('F forward', 'logits', 'fma', 2160, 'f', 'f_forward', 4320),
    ('F backward', 'g2', 'fma', 2160, 'f', 'f_backward', 4320),
    ('S1 backward', 'dW2', 'fma', 3456, 's1', 's1_backward', 6912),
    ('C1 backward', 'dW1', 'fma', 86400, 'c1', 'c1_backward', 172800),
]
SAMPLE_FLOP = 372384
FMA = re.compile(r'\b(v?f n?m(add|sub)\w*|fmla|fmls)\b'.replace(' ', ''))
DIV = re.compile(r'\b(vdivps|fdiv)\b')

def functions(path):
    funcs, cur = {}, None
    for line in open(path):
        m = re.match(r'^_ZN5lenet5lanes\d+(\w+?)E\w*:', line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
        elif cur is not None:
            if line.startswith('\t.size') or line.startswith('\t.cfi_endproc'):
                cur = None
            else:
                funcs[cur].append(line.rstrip('\n'))
    return funcs

def innermost_loops(lines):
    # A loop: a jump back to a label above it. Innermost: no other loop lies inside it.
    labels = {m.group(1): i for i, l in enumerate(lines) if (m := re.match(r'^(\.L\w+):', l))}
    loops = []
    for i, l in enumerate(lines):
        m = re.match(r'^\s+(j\w+|b\.?\w*|cbn?z|tbn?z)\s+(?:.*,\s*)?(\.L\w+)\s*$', l)
        if m and labels.get(m.group(2), i) < i:
            loops.append((labels[m.group(2)], i))
    inner = [a for a in loops if not any(b != a and a[0] <= b[0] and b[1] <= a[1] for b in loops)]
    return [[l for l in lines[a:b + 1] if l.startswith('\t') and not l.startswith('\t.')]
            for a, b in inner]

def mca(body, triple, cpu, path):
    with open(path, 'w') as f:
        f.write('\n'.join(body) + '\n')
    r = subprocess.run(['llvm-mca-19', f'-mtriple={triple}', f'-mcpu={cpu}', '-iterations=200',
                        path], capture_output=True, text=True, timeout=limit)
    if r.returncode != 0:
        sys.exit(f'mca.sh: error: llvm-mca-19 failed on {path}: {r.stderr.strip()[:300]}')
    cycles = int(re.search(r'Total Cycles:\s+(\d+)', r.stdout).group(1))
    iterations = int(re.search(r'Iterations:\s+(\d+)', r.stdout).group(1))
    return cycles / iterations

# The model's own peak: eight independent multiply-adds of the target's vectors. LLVM 19's
# sapphirerapids model (like its icelake-server) issues a 512-bit FMA on port 0 only, as on a
# Xeon with one 512-bit FMA unit: half the peak of the two-unit parts.
FMA8 = {'x86_64-linux-gnu': 'vfmadd231ps %zmm1, %zmm2, %zmm{}',
        'aarch64-linux-gnu': 'fmla v{}.4s, v1.4s, v2.4s'}

def model_fpc(cpu, triple, lanes):
    body = [FMA8[triple].format(r) for r in range(3, 11)]
    return 8 * 2 * lanes / mca(body, triple, cpu, f'{out}/{cpu}/fma8.s')

pred = {}  # (cpu, part index) -> cycles per sample
notes = []
model = {}
for cpu, triple, lanes, fpc in targets:
    lanes, fpc = int(lanes), int(fpc)
    model[cpu] = model_fpc(cpu, triple, lanes)
    funcs = {f: functions(f'{out}/{cpu}/{f}.s') for f in ('c1', 's1', 'f')}
    for k, (layer, loop, unit, per_sample, f, func, _) in enumerate(PARTS):
        loops = innermost_loops(funcs[f].get(func, []))
        if unit == 'div':
            cands = [b for b in loops if any(DIV.search(l) for l in b)]
            count = lambda b: sum(bool(DIV.search(l)) for l in b)
        else:
            cands = [b for b in loops if not any(DIV.search(l) for l in b)]
            count = lambda b: sum(bool(FMA.search(l)) for l in b)
        cands = [b for b in cands if count(b) > 0]
        if not cands:
            notes.append(f'{cpu}: {func} {loop}: no such loop found (unrolled?), not modelled')
            continue
        body = max(cands, key=count)
        per_iter = mca(body, triple, cpu, f'{out}/{cpu}/{func}_{unit}.s')
        pred[cpu, k] = per_iter / count(body) * per_sample / lanes

meas, peak = {}, None
if measured:
    d = json.load(open(measured))
    peak = float(d['context']['peak'].split()[0])
    for b in d['benchmarks']:
        if b.get('aggregate_name') == 'median':
            meas[b['run_name'].split('/')[0]] = b['ns/sample']
bench_name = {'C1 forward': 'c1_forward', 'S1 forward': 's1_forward', 'F forward': 'f_forward',
              'F backward': 'f_backward', 'S1 backward': 's1_backward',
              'C1 backward': 'c1_backward'}
ghz = peak / local_fpc if peak else None

cpus = [t[0] for t in targets]
fpcs = {t[0]: int(t[3]) for t in targets}
head = ['layer', 'loop'] + [f'{c} cycles' for c in cpus]
if meas:
    head += ['measured here ns', f'measured here cycles (at {ghz:.2f} GHz)']
rows = []
for k, (layer, loop, unit, per_sample, f, func, flop) in enumerate(PARTS):
    row = [layer, loop] + [f'{pred[c, k]:.0f}' if (c, k) in pred else '-' for c in cpus]
    if meas:
        first = k == 0 or PARTS[k - 1][0] != layer
        ns = meas.get(bench_name[layer]) if first else None
        row += [f'{ns:.0f} (whole layer)' if ns else '', f'{ns * ghz:.0f}' if ns else '']
    rows.append(row)
total = ['modelled loops', ''] + [f'{sum(v for (c, _), v in pred.items() if c == cpu):.0f}'
                                  for cpu in cpus]
cycles = {c: sum(v for (x, _), v in pred.items() if x == c) for c in cpus}
pct = ["%peak of the CPU's FLOP/cycle", ''] + [
    f'{100 * SAMPLE_FLOP / (fpcs[c] * cycles[c]):.0f}% of {fpcs[c]}' for c in cpus]
pct_model = ["%peak of the model's FLOP/cycle", ''] + [
    f'{100 * SAMPLE_FLOP / (model[c] * cycles[c]):.0f}% of {model[c]:.0f}' for c in cpus]
if meas:
    ns = meas.get('sample')
    total += [f'{ns:.0f} (whole sample)', f'{ns * ghz:.0f}']
    pct += [f'{100 * SAMPLE_FLOP / ns / peak:.0f}% of the measured {peak:.0f} GFLOP/s', '']
    pct_model += ['', '']
rows += [total, pct, pct_model]
print('| ' + ' | '.join(head) + ' |')
print('|' + '---|' * len(head))
for r in rows:
    print('| ' + ' | '.join(r) + ' |')
for n in notes:
    print(n)
with open(f'{out}/mca.csv', 'w', newline='') as f:
    w = csv.writer(f)
    w.writerow(head)
    w.writerows(rows)
print(f'(assembly, loop bodies and mca.csv in {out})')
PY
