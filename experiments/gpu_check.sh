#!/usr/bin/env bash
# gpu_check.sh: everything docs/cuda.md asks of the first machine with an NVIDIA GPU, in one
# command, in under 20 minutes on a T4: build lenet-cuda for the GPU present, run the CUDA tests,
# run them under compute-sanitizer (memcheck, racecheck, synccheck), time v1, v2, fused and
# PyTorch on that GPU at B = 1 and 128 (gpu_bench.sh), run docs/colab.ipynb's cells headless
# (tests/docs/notebook_test.py --gpu: its own build, as on Colab, every step on this GPU, the
# executed notebook in OUT/notebook/colab-run.ipynb), and write one Markdown report with the
# device, driver, toolkit, every result and every number, ready for docs/results.md. Every step
# that fails or is skipped says so in the report, with the reason; the exit code is 1 if any
# step failed.
#
#   experiments/gpu_check.sh [--data DIR] [--device N] [--build DIR] [--out DIR] [--dry-run]
#     --build DIR  where to build (default: build-gpu, CMakePresets.json's gpu)
#     --dry-run    print the plan (every command, with its time limit) and exit 0
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="gpu_check.sh"
source "$root/run_scripts/lib.sh"
data="$root/data/fashion" device=0 build="$root/build-gpu" out="" dry=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --data) need "$@"; data=$(realpath -m "$2"); shift 2 ;;
    --device) need "$@"; count --device "$2"; device=$2; shift 2 ;;
    --build) need "$@"; build=$(realpath -m "$2"); shift 2 ;;
    --out) need "$@"; out=$(realpath -m "$2"); shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
out=${out:-$root/results/gpu-check-$(date +%Y%m%d-%H%M%S)}
report="$out/gpu_check.md"
cuda_bin=${CUDA_HOME:-/usr/local/cuda}/bin
export PATH="$PATH:$cuda_bin"
cuda="$build/backend_cuda/lenet-cuda" tests="$build/tests/lenet_cuda_tests"

# The plan: each step a name, a time limit in seconds and a command. The limits add up to 1185 s
# (19.75 minutes); a step that reaches its limit is stopped and reported, and the next one runs.
plan=()
step() { plan+=("$1|$2|$3"); }
arch='$arch'  # filled in from nvidia-smi when the plan runs
step build 180 "cmake --preset gpu -S '$root' -B '$build' -DCMAKE_CUDA_ARCHITECTURES=$arch && cmake --build '$build' -j $(nproc) --target lenet-cuda lenet_cuda_tests lenet-serial"
step tests 60 "CUDA_VISIBLE_DEVICES=$device ctest --test-dir '$build' -L '^cuda\$' --output-on-failure"
for tool in memcheck racecheck synccheck; do
  extra=""
  [[ $tool == memcheck ]] && extra="--leak-check full "
  # The PyTorch vectors (one step at B = 1, 4, 7; 64 steps at B = 8) cover every kernel of every
  # version, and the B = 1 graph; the longer comparisons would take too long under the tools.
  step "$tool" 35 "CUDA_VISIBLE_DEVICES=$device compute-sanitizer --tool $tool ${extra}--error-exitcode 1 '$tests' '[vectors]'"
done
step "bench B=128" 90 "bash '$root/experiments/gpu_bench.sh' --build '$build' --data '$data' --device $device --batches 128 --repeats 3 --out '$out/bench-B128'"
step "bench B=1" 150 "bash '$root/experiments/gpu_bench.sh' --build '$build' --data '$data' --device $device --batches 1 --repeats 1 --out '$out/bench-B1'"
# The notebook's steps as a Colab user runs them: a build of its own for sm_75 (about 4 minutes
# on Colab), the CUDA tests, the four training runs, PyTorch, the table and --timing.
step notebook 600 "CUDA_VISIBLE_DEVICES=$device python3 '$root/tests/docs/notebook_test.py' --gpu --root '$root' --work '$out/notebook' --fashion '$data' --limit 590"

if [[ $dry -eq 1 ]]; then
  echo "gpu_check.sh plan (report: $report):"
  for s in "${plan[@]}"; do
    IFS='|' read -r name limit cmd <<<"$s"
    printf '  %-12s limit %3s s: %s\n' "$name" "$limit" "$cmd"
  done
  exit 0
fi

# A GPU, or nothing to do.
command -v nvidia-smi >/dev/null || die "no nvidia-smi: this machine has no NVIDIA driver"
gpu=$(nvidia-smi -i "$device" --query-gpu=name,memory.total,driver_version,compute_cap \
  --format=csv,noheader 2>&1) || die "no NVIDIA GPU $device: $gpu"
arch=$(cut -d, -f4 <<<"$gpu" | tr -d ' .')
[[ $arch =~ ^[0-9]+$ ]] || die "could not read the GPU's compute capability from: $gpu"
command -v nvcc >/dev/null || die "no nvcc on PATH or in $cuda_bin: install the CUDA toolkit"
mkdir -p "$out"
log="$out/gpu_check.log"
: >"$log"
{
  echo "# gpu_check.sh on $(cut -d, -f1 <<<"$gpu"), $(date -u +%Y-%m-%d)"
  echo
  echo "| | |"
  echo "|---|---|"
  echo "| GPU $device | $(cut -d, -f1,2 <<<"$gpu"), compute capability $(cut -d, -f4 <<<"$gpu" | tr -d ' ') |"
  echo "| driver | $(cut -d, -f3 <<<"$gpu" | tr -d ' ') |"
  echo "| toolkit | $(nvcc --version | grep -o 'release [^,]*, V[0-9.]*') |"
  echo "| host | $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') |"
  echo "| commit | $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) |"
  echo
  echo "| step | result | seconds | command |"
  echo "|---|---|---|---|"
} >"$report"

failed=0 skipped=()
for s in "${plan[@]}"; do
  IFS='|' read -r name limit cmd <<<"$s"
  cmd=${cmd//\$arch/$arch}
  result=""
  case $name in
    memcheck|racecheck|synccheck)
      command -v compute-sanitizer >/dev/null || result="SKIPPED: no compute-sanitizer in the CUDA toolkit"
      [[ -x $tests ]] || result="SKIPPED: lenet_cuda_tests was not built" ;;
    bench*)
      [[ -d $data ]] || result="SKIPPED: no data set at $data (run_scripts/get_data.sh)"
      [[ -x $cuda ]] || result="SKIPPED: lenet-cuda was not built" ;;
    notebook)
      [[ -d $data ]] || result="SKIPPED: no data set at $data (run_scripts/get_data.sh)" ;;
  esac
  start=$SECONDS
  if [[ -z $result ]]; then
    echo "gpu_check.sh: $name (at most $limit s)"
    echo "=== $name: $cmd" >>"$log"
    timeout --kill-after=10 "$limit" bash -c "$cmd" >>"$log" 2>&1
    code=$?
    case $code in
      0) result="passed" ;;
      77) result="SKIPPED: $(grep '^SKIPPED' "$log" | tail -n 1)"; skipped+=("$name") ;;
      124|137) result="FAILED: stopped at its $limit s limit"; failed=1 ;;
      *) result="FAILED (exit $code, see gpu_check.log)"; failed=1 ;;
    esac
  else
    skipped+=("$name")
  fi
  echo "gpu_check.sh: $name: $result"
  echo "| $name | $result | $((SECONDS - start)) | \`${cmd//|/\\|}\` |" >>"$report"
done

{
  echo
  echo "## CUDA tests"
  echo
  echo '```'
  grep -E "tests passed|Test +#|SKIPPED|FAILED" "$log" | grep -v "^===" | head -n 40
  echo '```'
  echo
  echo "## The notebook's cells"
  echo
  echo '```'
  sed -n '/^=== notebook/,$p' "$log" | grep -E "^(ok  |FAIL|OK:|SKIPPED)" | head -n 20
  echo '```'
  echo
  echo "## compute-sanitizer"
  echo
  echo '```'
  grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|^=== (memcheck|racecheck|synccheck)" "$log"
  echo '```'
  for b in B128 B1; do
    echo
    echo "## gpu_bench.sh, $b"
    echo
    if [[ -s $out/bench-$b/summary.md ]]; then
      cat "$out/bench-$b/summary.md"
    elif [[ -s $out/bench-$b/runs.csv ]]; then
      # Stopped before its report (its time limit): the runs that did finish.
      echo "PARTIAL: the step did not finish; the runs that did:"
      echo
      report compare --runs "$out/bench-$b/runs.csv" \
        --out "$out/bench-$b" --title "partial" >>"$log" 2>&1
      cat "$out/bench-$b/summary.md" 2>/dev/null || echo "(no report could be made)"
    else
      echo "No results: see the bench step above."
    fi
  done
  echo
  echo "Skipped: ${skipped[*]:-nothing}. Full output: gpu_check.log beside this file."
} >>"$report"
say "wrote $report"
exit $failed
