#!/usr/bin/env bash
# lab.sh: the course lab kit (docs/labs.md). Labs are cut from the real code: each lab's region
# is marked in the source with "LAB N BEGIN" / "LAB N END" comments, and a starter copy is the
# project with each region replaced by its stub (run_scripts/lab/stubs/labN/FILE.K: the K-th
# region of FILE), which compiles and runs but leaves the lab's work undone. See --help.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="lab.sh"
source "${SCRIPT_DIR}/lib.sh"
STUBS="${SCRIPT_DIR}/lab/stubs"
LABS="1 2 3 4 5 6 7"

usage() {
  cat <<EOF
Usage: bash run_scripts/lab.sh list
       bash run_scripts/lab.sh start N DIR
       bash run_scripts/lab.sh grade N DIR [--reps R] [--no-timing | --force-timing]

  list          the labs, with their handouts (docs/labs/labN.md)
  start N DIR   write a starter copy of the project for lab N into DIR (new or empty): the
                lab's regions replaced by stubs (a TODO and the function's contract)
  grade N DIR   grade the copy in DIR (DIR = the project root grades the solution): a Release
                build, the lab's correctness checks (ctest -L labN, and bit-identity checks
                through the executables), then the copy's and the reference solution's
                executables timed side by side, interleaved, R runs each (default 5), medians.
                Writes DIR/grade-N.md and DIR/grade-N.json. Exit code 0: every correctness check
                passed; 1: the report says which did not (or could not run); 2: no report.

  --reps R      timed runs per executable (default 5)
  --no-timing   correctness only; performance is "not measured"
  --force-timing  time even on a busy machine: the report shows the numbers, scores none

Builds are kept in \$LAB_CACHE (default: $REPO_ROOT/build-lab): one source mirror and one build
of it, into which the reference and each graded copy are copied in turn, so that a grading
recompiles only the files that differ. Timing data: $REPO_ROOT/data/digits
(bash run_scripts/get_data.sh).
EOF
}

# ---- The labs -----------------------------------------------------------------------------
# lab_def N sets: TITLE; FILES (the files with the lab's regions); TARGETS (what to build);
# NEEDS ("cuda" or "mpi" or ""); TIMED and BASE (the timed command and the serial baseline, with
# BIN standing for the folder of the executables); THREADS (cores a timed run uses).
lab_def() {
  NEEDS="" THREADS=2
  local D="--data DATA --epochs 1 --quiet"
  case $1 in
    1)
      TITLE="OpenMP batch: the parallel region and the deterministic reduction"
      FILES=(backend_openmp/batch.cpp)
      TARGETS="lenet-serial lenet-openmp lenet_openmp_tests"
      TIMED="BIN/lenet-openmp --threads 2 $D"
      BASE="BIN/lenet-serial $D"
      ;;
    2)
      TITLE="OpenMP layer: share C1's loops among the threads"
      FILES=(backend_openmp/layer_kernels.cpp)
      TARGETS="lenet-serial lenet-openmp lenet_openmp_tests"
      TIMED="BIN/lenet-openmp --strategy layer --threads 2 --train-limit 2000 $D"
      BASE="BIN/lenet-serial --kernels ref --train-limit 2000 $D"
      ;;
    3)
      TITLE="MPI: split each batch over the ranks, one allreduce (and --exact)"
      FILES=(backend_mpi/allreduce.cpp backend_mpi/exact.cpp)
      TARGETS="lenet-serial lenet-mpi lenet_mpi_tests"
      NEEDS=mpi
      TIMED="MPIRUN BIN/lenet-mpi $D"
      BASE="BIN/lenet-serial $D"
      ;;
    4)
      TITLE="Vectorise S1 forward of the simd tier"
      FILES=(common/simd/s1.cpp)
      TARGETS="lenet-serial lenet_tests"
      THREADS=1
      TIMED="BIN/lenet-serial --kernels simd $D"
      BASE="BIN/lenet-serial --kernels ref $D"
      ;;
    5)
      TITLE="CUDA: the C1 forward kernel of v1"
      FILES=(backend_cuda/v1/c1.cu)
      TARGETS="lenet-serial lenet-cuda lenet_cuda_tests"
      NEEDS=cuda
      THREADS=1
      TIMED="BIN/lenet-cuda --kernels v1 $D"
      BASE="BIN/lenet-serial $D"
      ;;
    6)
      TITLE="Predict the MPI speedup from the cost model, then measure (no code)"
      FILES=()
      ;;
    7)
      TITLE="Scaling to 1024 ranks: model, simulator (SimGrid), 2 hosts (no code)"
      FILES=()
      ;;
    *) die "no lab '$1' (labs: $LABS; bash run_scripts/lab.sh list)" ;;
  esac
}

# Timed MPI runs: 2 ranks, one per core, the same for the reference and the copy. Open MPI
# refuses root without the two variables (a container's root), and --oversubscribe lets 2 ranks
# start where fewer cores are free.
MPIRUN="mpirun -np 2 --oversubscribe --bind-to core --map-by core"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

cmd_list() {
  local n
  for n in $LABS; do
    lab_def "$n"
    printf '%s  %-68s docs/labs/lab%s.md\n' "$n" "$TITLE" "$n"
    [[ ${#FILES[@]} -gt 0 ]] && printf '   edit: %s\n' "${FILES[*]}"
  done
  echo "Start a lab:  bash run_scripts/lab.sh start N DIR     grade it:  bash run_scripts/lab.sh grade N DIR"
}

# ---- Copies of the project -----------------------------------------------------------------

# project_files DIR: the project's files under DIR, relative, one per line: no build folders,
# data, results, grade reports or version control.
project_files() {
  (cd "$1" && find . \( -name .git -o -path './build*' -o -path ./data -o -path ./results \
    -o -path ./.whl -o -name __pycache__ \) -prune -o \( -type f -o -type l \) \
    ! -name 'grade-*.md' ! -name 'grade-*.json' ! -name 'grade-*.log' ! -name '*.tmp' \
    ! -name .lab-origin \
    -print | sed 's|^\./||' | LC_ALL=C sort)
}

# sync_tree SRC DST: make DST's project files equal to SRC's. Files whose contents differ are
# copied with a new time stamp, the others left alone, so that make rebuilds exactly what
# changed.
sync_tree() {
  local src=$1 dst=$2 f
  mkdir -p "$dst"
  project_files "$src" >"$dst.want"
  while IFS= read -r f; do
    if [[ -L "$src/$f" || ! -e "$dst/$f" ]] || ! cmp -s "$src/$f" "$dst/$f"; then
      mkdir -p "$(dirname "$dst/$f")"
      rm -f "$dst/$f"
      cp -P "$src/$f" "$dst/$f"
    fi
  done <"$dst.want"
  project_files "$dst" | LC_ALL=C comm -13 "$dst.want" - | while IFS= read -r f; do
    rm -f "$dst/$f"
  done
  rm -f "$dst.want"
}

# regions FILE N: how many "LAB N BEGIN" regions FILE has (each closed by "LAB N END").
regions() {
  awk -v b="LAB $2 BEGIN" -v e="LAB $2 END" '
    index($0, b) { if (open) bad = 1; open = 1; n++ }
    index($0, e) { if (!open) bad = 1; open = 0 }
    END { if (open || bad) print -1; else print n + 0 }' "$1"
}

# replace_regions FILE N STUBDIR: each region of lab N in FILE replaced by STUBDIR/NAME.K (K = 1,
# 2, ...: the region's place in the file); the BEGIN and END lines stay.
replace_regions() {
  local file=$1 n=$2 dir=$3
  awk -v b="LAB $n BEGIN" -v e="LAB $n END" -v stub="$dir/$(basename "$file")" '
    index($0, b) { print; k++; f = stub "." k
                   while ((getline line < f) > 0) print line
                   close(f); skip = 1; next }
    index($0, e) { skip = 0 }
    !skip { print }' "$file" >"$file.tmp"
  mv "$file.tmp" "$file"
}

cmd_start() {
  local n=$1 dir=$2 f k count
  lab_def "$n"
  if [[ -e "$dir" && -n "$(ls -A "$dir" 2>/dev/null)" ]]; then
    die "start: $dir exists and is not empty: give a new folder"
  fi
  for f in "${FILES[@]}"; do
    count=$(regions "$REPO_ROOT/$f" "$n")
    [[ $count -gt 0 ]] || die "lab $n: $f has no well-formed LAB $n BEGIN/END region"
    for ((k = 1; k <= count; k++)); do
      [[ -f "$STUBS/lab$n/$(basename "$f").$k" ]] ||
        die "lab $n: no stub $STUBS/lab$n/$(basename "$f").$k for region $k of $f"
    done
  done
  mkdir -p "$dir"
  sync_tree "$REPO_ROOT" "$dir"
  for f in "${FILES[@]}"; do
    replace_regions "$dir/$f" "$n" "$STUBS/lab$n"
  done
  printf 'lab=%s\nproject=%s\n' "$n" "$REPO_ROOT" >"$dir/.lab-origin"
  # The data sets are large and shared: a link to the project's.
  [[ -e "$REPO_ROOT/data" ]] && ln -s "$(cd "$REPO_ROOT/data" && pwd -P)" "$dir/data"
  say "lab $n starter in $dir: $TITLE"
  if [[ ${#FILES[@]} -gt 0 ]]; then
    say "edit: ${FILES[*]} (the TODO between the LAB $n BEGIN/END lines)"
  else
    say "lab $n has no code: the copy is the whole project; follow docs/labs/lab$n.md"
  fi
  say "handout: docs/labs/lab$n.md; grade: bash run_scripts/lab.sh grade $n $dir"
}

# ---- Grading ------------------------------------------------------------------------------

# cpu_ticks: busy and total jiffies of all cores so far (/proc/stat).
cpu_ticks() { awk '/^cpu /{ print $2 + $3 + $4 + $7 + $8 + $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat; }

# others_busy SECONDS: how many cores other processes kept busy during SECONDS of sleep.
others_busy() {
  local b0 t0 b1 t1
  read -r b0 t0 < <(cpu_ticks)
  sleep "$1"
  read -r b1 t1 < <(cpu_ticks)
  awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v n="$(nproc)" 'BEGIN { printf "%.2f", t ? n * b / t : 0 }'
}

# json_str TEXT: TEXT as a JSON string.
json_str() {
  local s=${1//\\/\\\\}
  s=${s//\"/\\\"}
  s=${s//$'\t'/ }
  printf '"%s"' "${s//$'\n'/ }"
}

# Checks: parallel arrays, filled by add_check NAME STATUS DETAIL (STATUS: passed, failed,
# skipped, "not graded").
CHECK_NAMES=() CHECK_STATUS=() CHECK_DETAIL=()
add_check() {
  CHECK_NAMES+=("$1")
  CHECK_STATUS+=("$2")
  CHECK_DETAIL+=("$3")
}

# summary_value FILE KEY: the value of "KEY = value" in a run's summary block.
summary_value() { sed -n "s/^ *$2 *= *//p" "$1" | head -1; }

# same_bits NAME WANT_CMD GOT_CMD: a check that two runs end with the same Param CRC-32. The
# commands are split into words (no spaces in their paths).
same_bits() {
  local name=$1 want=$2 got=$3 tmp=$WORK/bits
  # shellcheck disable=SC2086
  if ! $want >"$tmp.want" 2>&1; then
    add_check "$name" failed "the reference run failed: $(tail -1 "$tmp.want")"
    return
  fi
  # shellcheck disable=SC2086
  if ! $got >"$tmp.got" 2>&1; then
    add_check "$name" failed "your run failed: $(tail -1 "$tmp.got")"
    return
  fi
  local w g
  w=$(summary_value "$tmp.want" "Param CRC-32")
  g=$(summary_value "$tmp.got" "Param CRC-32")
  if [[ -n "$w" && "$w" == "$g" ]]; then
    add_check "$name" passed "Param CRC-32 $g, as the reference's"
  else
    add_check "$name" failed "Param CRC-32 ${g:-none}, the reference's $w: not bit-identical"
  fi
}

# run_ctest LABEL: the lab's CTest tests in the graded build, one check each.
run_ctest() {
  local log=$WORK/ctest.log line name status secs
  (cd "$CACHE/build" && ctest -L "$1\$" --output-on-failure --timeout 600 >"$log" 2>&1) || true
  cat "$log" >>"$GRADE_LOG"
  local found=0
  while IFS= read -r line; do
    # "  3/12 Test  #7: openmp: batch: ... ....   Passed    1.23 sec"
    [[ "$line" =~ Test\ +#[0-9]+:\ (.*[^ .])\ \.+\ *(\*\*\*)?([^0-9]*[^0-9 ])\ +([0-9.]+)\ sec ]] || continue
    name=${BASH_REMATCH[1]}
    status=${BASH_REMATCH[3]}
    secs=${BASH_REMATCH[4]}
    found=1
    case $status in
      Passed) add_check "$name" passed "ctest, ${secs} s" ;;
      Skipped | "Not Run"*)
        local why
        why=$(grep -m1 -o 'SKIPPED[^"]*' "$log" || true)
        add_check "$name" "not graded" "skipped: ${why:-the test could not run here}"
        ;;
      *) add_check "$name" failed "ctest: $status after ${secs} s (grade-$N.log has its output)" ;;
    esac
  done <"$log"
  if [[ $found == 0 ]]; then
    add_check "ctest -L $1" failed "no test ran (see grade-$N.log)"
  fi
}

# The lab's checks through the executables, beyond its CTest tests.
cli_checks() {
  local V="--data $REPO_ROOT/tests/vectors/data --epochs 2 --quiet" R=$REF_BIN S=$STU_BIN
  case $N in
    1)
      local t
      for t in 2 4; do
        same_bits "lenet-openmp --threads $t --batch 100 is lenet-serial, bit for bit (7 chunks)" \
          "$R/lenet-serial $V --batch 100" "$S/lenet-openmp --threads $t $V --batch 100"
      done
      ;;
    2)
      local t
      for t in 2 3; do
        same_bits "lenet-openmp --strategy layer --threads $t is lenet-serial --kernels ref, bit for bit" \
          "$R/lenet-serial --kernels ref $V" "$S/lenet-openmp --strategy layer --threads $t $V"
      done
      ;;
    3)
      if ! command -v mpirun >/dev/null; then
        add_check "mpirun -np 2 lenet-mpi --exact is lenet-serial" "not graded" "no mpirun here"
        return
      fi
      same_bits "mpirun -np 2 lenet-mpi --exact is lenet-serial, bit for bit" \
        "$R/lenet-serial $V --batch 100" "$MPIRUN $S/lenet-mpi --exact $V --batch 100"
      ;;
  esac
}

# median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# epoch_time COMMAND: the run's time per epoch (s), or nothing if it failed.
epoch_time() {
  local out=$WORK/timed
  "$@" >"$out" 2>&1 || return 0
  summary_value "$out" "Time per epoch (s)"
}

# timing: fills PERF_NOTE and, when measured, T_BASE, T_REF, T_STU (medians).
timing() {
  PERF_NOTE="" T_BASE="" T_REF="" T_STU="" SCORED=0
  local data=$REPO_ROOT/data/digits
  if [[ $EMULATED == 1 ]]; then
    PERF_NOTE="not measured: no GPU on this machine (the emulation checks results, not speed): grade again on a GPU, e.g. Colab's T4 (docs/colab.md)"
    return
  fi
  if [[ $NO_TIMING == 1 ]]; then
    PERF_NOTE="not measured: --no-timing"
    return
  fi
  if [[ $CORRECT != all ]]; then
    PERF_NOTE="not measured: the correctness checks did not all pass"
    return
  fi
  if [[ ! -d "$data" ]]; then
    PERF_NOTE="not measured: no $data (bash run_scripts/get_data.sh)"
    return
  fi
  local free busy_before
  busy_before=$BUSY
  free=$(awk -v n="$(nproc)" -v b="$busy_before" 'BEGIN { printf "%.2f", n - b }')
  if [[ $FORCE_TIMING == 0 ]] && awk -v f="$free" -v t="$THREADS" 'BEGIN { exit !(f < t - 0.3) }'; then
    PERF_NOTE="not measured: machine busy (other processes kept $busy_before of $(nproc) cores busy; load average $(cut -d' ' -f1 /proc/loadavg)); this run needs $THREADS free: grade again on a quiet machine"
    return
  fi
  # The same pinning and wait policy for every timed run (docs/labs.md, "Timing").
  export OMP_PLACES=cores OMP_PROC_BIND=close
  local base=${BASE//DATA/$data} timed=${TIMED//DATA/$data} r t
  timed=${timed//MPIRUN/$MPIRUN}
  local b0 t0 b1 t1 c0 c1
  read -r b0 t0 < <(cpu_ticks)
  c0=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  rm -f "$WORK/t.base" "$WORK/t.ref" "$WORK/t.stu"
  touch "$WORK/t.base" "$WORK/t.ref" "$WORK/t.stu"
  # shellcheck disable=SC2086  # the commands are split into words
  for ((r = 1; r <= REPS; r++)); do
    epoch_time ${base//BIN/$REF_BIN} >>"$WORK/t.base"
    epoch_time ${timed//BIN/$REF_BIN} >>"$WORK/t.ref"
    epoch_time ${timed//BIN/$STU_BIN} >>"$WORK/t.stu"
  done
  read -r b1 t1 < <(cpu_ticks)
  c1=$(awk '{ print $14 + $15 + $16 + $17 }' /proc/$$/stat)
  unset OMP_PLACES OMP_PROC_BIND
  # Cores that others used while we timed: all busy time less ours (children included).
  local others
  others=$(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) -v c=$((c1 - c0)) -v n="$(nproc)" \
    'BEGIN { x = t ? n * (b - c) / t : 0; printf "%.2f", x < 0 ? 0 : x }')
  T_BASE=$(median <"$WORK/t.base")
  T_REF=$(median <"$WORK/t.ref")
  T_STU=$(median <"$WORK/t.stu")
  TIMES_BASE=$(tr '\n' ' ' <"$WORK/t.base")
  TIMES_REF=$(tr '\n' ' ' <"$WORK/t.ref")
  TIMES_STU=$(tr '\n' ' ' <"$WORK/t.stu")
  if [[ $(wc -l <"$WORK/t.stu") -lt $REPS || $(wc -l <"$WORK/t.ref") -lt $REPS ]]; then
    PERF_NOTE="not measured: a timed run failed (grade-$N.log)"
    T_STU="" T_REF=""
    return
  fi
  if awk -v o="$others" -v n="$(nproc)" -v t="$THREADS" 'BEGIN { exit !(n - o < t - 0.3) }'; then
    # --force-timing shows the numbers, but a busy machine's numbers earn no points.
    PERF_NOTE="measured on a busy machine (others used $others of $(nproc) cores while timing): for information, not scored; grade again on a quiet machine"
    SCORED=0
    [[ $FORCE_TIMING == 1 ]] || T_STU="" T_REF=""
    return
  fi
  PERF_NOTE="measured: $REPS runs each, interleaved, medians; others used $others of $(nproc) cores meanwhile"
  SCORED=1
}

# rubric_points PART: the points of PART in the handout's rubric table ("| correctness | 60 |").
rubric_points() {
  awk -F'|' -v part="$1" '{ gsub(/^ +| +$/, "", $2); gsub(/ /, "", $3) }
    tolower($2) == part && $3 ~ /^[0-9]+$/ { print $3; exit }' "$REPO_ROOT/docs/labs/lab$N.md"
}

write_report() {
  local md=$DIR/grade-$N.md json=$DIR/grade-$N.json i
  local pc pp pw
  pc=$(rubric_points correctness)
  pp=$(rubric_points performance)
  pw=$(rubric_points "written answers")
  [[ -n "$pc" && -n "$pp" ]] || die "docs/labs/lab$N.md: no rubric table with correctness and performance points"
  local passed=0 failed=0 ungraded=0
  for i in "${!CHECK_STATUS[@]}"; do
    case ${CHECK_STATUS[$i]} in
      passed) passed=$((passed + 1)) ;;
      failed) failed=$((failed + 1)) ;;
      *) ungraded=$((ungraded + 1)) ;;
    esac
  done
  local total=$((passed + failed + ungraded)) c_points="null" p_points="null" ratio="null"
  local c_text p_text
  if [[ $ungraded -gt 0 && $failed == 0 ]]; then
    c_text="not graded: ${ungraded} of ${total} checks could not run here (see below)"
  else
    c_points=$(awk -v p="$pc" -v a="$passed" -v t="$total" 'BEGIN { printf "%.1f", t ? p * a / t : 0 }')
    c_text="$c_points / $pc ($passed of $total checks passed)"
    [[ $EMULATED == 1 ]] && c_text+=", EMULATED on the CPU: no GPU ran the kernels"
  fi
  if [[ -n "$T_STU" && -n "$T_REF" ]]; then
    ratio=$(awk -v r="$T_REF" -v s="$T_STU" 'BEGIN { printf "%.3f", r / s }')
  fi
  if [[ $SCORED == 1 ]]; then
    p_points=$(awk -v p="$pp" -v x="$ratio" 'BEGIN { f = (x - 0.5) / 0.4; f = f < 0 ? 0 : f > 1 ? 1 : f; printf "%.1f", p * f }')
    p_text="$p_points / $pp"
  else
    p_text="pending: $PERF_NOTE"
  fi
  local speed_stu="" speed_ref=""
  if [[ -n "$T_STU" && -n "$T_BASE" ]]; then
    speed_stu=$(awk -v b="$T_BASE" -v s="$T_STU" 'BEGIN { printf "%.2f", b / s }')
    speed_ref=$(awk -v b="$T_BASE" -v s="$T_REF" 'BEGIN { printf "%.2f", b / s }')
  fi
  {
    echo "# Grade report: lab $N, $TITLE"
    echo
    echo "- Graded copy: \`$DIR\`"
    echo "- Reference: \`$REPO_ROOT\` ($REF_VERSION)"
    echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC'); machine: $(nproc) cores, $CPU_MODEL"
    echo "- Load before grading: other processes kept $BUSY of $(nproc) cores busy (load average $LOAD_AVG)"
    echo
    echo "## Correctness: $c_text"
    echo
    echo "| check | result | numbers |"
    echo "|---|---|---|"
    for i in "${!CHECK_NAMES[@]}"; do
      echo "| ${CHECK_NAMES[$i]//|/\\|} | ${CHECK_STATUS[$i]} | ${CHECK_DETAIL[$i]//|/\\|} |"
    done
    echo
    echo "## Performance: $p_text"
    echo
    if [[ -n "$T_STU" ]]; then
      echo "Time per epoch (s), median of $REPS runs, interleaved (each round: baseline, reference, yours):"
      echo
      echo "| run | command | median | runs |"
      echo "|---|---|---|---|"
      local shown_base=${BASE//BIN\//} shown_timed=${TIMED//BIN\//}
      shown_base=${shown_base//DATA/data\/digits}
      shown_timed=${shown_timed//DATA/data\/digits}
      shown_timed=${shown_timed//MPIRUN/$MPIRUN}
      echo "| baseline | \`$shown_base\` | $T_BASE | $TIMES_BASE |"
      echo "| reference solution | \`$shown_timed\` | $T_REF | $TIMES_REF |"
      echo "| your copy | the same, your build | $T_STU | $TIMES_STU |"
      echo
      echo "Speedup over the baseline: yours ${speed_stu}x, the reference's ${speed_ref}x. Your speed"
      echo "as a fraction of the reference's: $ratio (full points from 0.9, none at 0.5 or below)."
      echo "$PERF_NOTE."
    else
      echo "$PERF_NOTE."
    fi
    echo
    echo "## Written answers: ${pw:-0} points, graded by the teaching assistant (docs/labs/lab$N.md)"
  } >"$md.tmp"
  {
    echo "{"
    echo "  \"lab\": $N,"
    echo "  \"title\": $(json_str "$TITLE"),"
    echo "  \"copy\": $(json_str "$DIR"),"
    echo "  \"reference\": $(json_str "$REF_VERSION"),"
    echo "  \"date\": $(json_str "$(date -u '+%Y-%m-%dT%H:%M:%SZ')"),"
    echo "  \"machine\": {\"cores\": $(nproc), \"cpu\": $(json_str "$CPU_MODEL"), \"others_busy_cores\": $BUSY, \"load_average\": $LOAD_AVG},"
    echo "  \"checks\": ["
    for i in "${!CHECK_NAMES[@]}"; do
      local sep=","
      [[ $i == $((${#CHECK_NAMES[@]} - 1)) ]] && sep=""
      echo "    {\"name\": $(json_str "${CHECK_NAMES[$i]}"), \"status\": $(json_str "${CHECK_STATUS[$i]}"), \"detail\": $(json_str "${CHECK_DETAIL[$i]}")}$sep"
    done
    echo "  ],"
    echo "  \"correctness\": {\"passed\": $passed, \"failed\": $failed, \"not_graded\": $ungraded, \"points\": $c_points, \"max\": $pc, \"emulated\": $([[ $EMULATED == 1 ]] && echo true || echo false)},"
    echo "  \"performance\": {\"baseline_s\": ${T_BASE:-null}, \"reference_s\": ${T_REF:-null}, \"yours_s\": ${T_STU:-null}, \"ratio\": $ratio, \"points\": $p_points, \"max\": $pp, \"note\": $(json_str "$PERF_NOTE")},"
    echo "  \"written\": {\"points\": null, \"max\": ${pw:-0}}"
    echo "}"
  } >"$json.tmp"
  mv "$md.tmp" "$md"
  mv "$json.tmp" "$json"
  say "lab $N: correctness $c_text; performance $p_text"
  say "report: $md and $json"
  [[ $failed == 0 && $ungraded == 0 ]]
}

# build_lab SRC BIN_OUT: mirror SRC into the cache, build the lab's targets, copy the
# executables to BIN_OUT. Returns non-zero when the build failed (its log in $GRADE_LOG).
has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }
has_nvcc() { command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; }

build_lab() {
  local src=$1 out=$2 t exe
  sync_tree "$src" "$CACHE/src"
  local cuda=OFF arch=() targets=$TARGETS cuda_object=""
  if [[ $NEEDS == cuda ]]; then
    if has_gpu; then
      cuda=ON arch=(-DCMAKE_CUDA_ARCHITECTURES=native)
    else
      # No GPU to run it on: the kernels run on the CPU emulation (tests/cuda_emu), which needs
      # no nvcc; where nvcc is found it also compiles the lab's file for the T4 (sm_75), to catch
      # what only nvcc rejects.
      cuda=AUTO targets="lenet-serial lenet-cuda-emu lenet_cuda_emu_tests"
      if has_nvcc; then
        arch=(-DCMAKE_CUDA_ARCHITECTURES=75)
        cuda_object=${FILES[0]#backend_cuda/}.o
      fi
    fi
  fi
  {
    echo "== build of $src ($(date -u '+%H:%M:%S'))"
    # shellcheck disable=SC2086  # targets is a list of words
    cmake -S "$CACHE/src" -B "$CACHE/build" -DCMAKE_BUILD_TYPE=Release -DLENET_CUDA=$cuda \
      "${arch[@]}" >/dev/null &&
      cmake --build "$CACHE/build" -j "$(nproc)" --target $targets &&
      if [[ -n $cuda_object ]]; then make -C "$CACHE/build/backend_cuda" "$cuda_object"; fi
  } >>"$GRADE_LOG" 2>&1 || return 1
  rm -rf "$out"
  mkdir -p "$out"
  for exe in lenet-serial lenet-openmp lenet-mpi lenet-cuda; do
    for t in $TARGETS; do
      [[ $t == "$exe" && -n $(find "$CACHE/build" -name "$exe" -type f) ]] || continue
      cp "$(find "$CACHE/build" -name "$exe" -type f -perm -u+x | head -1)" "$out/"
    done
  done
}

# tree_stamp DIR: a hash of DIR's project files, names and contents.
tree_stamp() {
  (cd "$1" && project_files . | tr '\n' '\0' | xargs -0 md5sum | md5sum | cut -c1-16)
}

cmd_grade() {
  N=$1 DIR=$2
  lab_def "$N"
  [[ -d "$DIR" ]] || die "grade: no folder $DIR"
  DIR=$(cd "$DIR" && pwd)
  if [[ ${#FILES[@]} == 0 ]]; then
    say "lab $N has no code to grade: its rubric (docs/labs/lab$N.md) is scored by the teaching assistant"
    exit 0
  fi
  local f
  for f in "${FILES[@]}"; do
    [[ -f "$DIR/$f" ]] || die "grade: $DIR/$f not found: is $DIR a copy of the project (lab.sh start $N DIR)?"
    [[ $(regions "$DIR/$f" "$N") -gt 0 ]] ||
      die "grade: $DIR/$f has lost its LAB $N BEGIN/END lines: put them back around your work"
  done
  CACHE=${LAB_CACHE:-$REPO_ROOT/build-lab}
  mkdir -p "$CACHE"
  GRADE_LOG=$DIR/grade-$N.log
  : >"$GRADE_LOG"
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  CPU_MODEL=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo | head -1)
  REF_VERSION=$(git -C "$REPO_ROOT" describe --always --dirty 2>/dev/null || echo "not a git checkout")

  # The load first: timing on a busy machine would be unfair to someone.
  LOAD_AVG=$(cut -d' ' -f1 /proc/loadavg)
  BUSY=$(others_busy 2)
  say "lab $N: other processes keep $BUSY of $(nproc) cores busy (load average $LOAD_AVG)"

  # One grading at a time per cache: the mirror holds one tree at a time.
  exec 9>"$CACHE/lock"
  flock 9
  REF_BIN=$CACHE/reference-lab$N
  STU_BIN=$CACHE/copy-lab$N
  local stamp
  stamp=$(tree_stamp "$REPO_ROOT")
  if [[ "$(cat "$REF_BIN/stamp" 2>/dev/null)" != "$stamp" ]]; then
    say "building the reference solution (once per change of $REPO_ROOT) ..."
    build_lab "$REPO_ROOT" "$REF_BIN" || die "the reference solution does not build (see $GRADE_LOG)"
    echo "$stamp" >"$REF_BIN/stamp"
  fi
  say "building $DIR ..."
  local built=1
  build_lab "$DIR" "$STU_BIN" || built=0

  EMULATED=0
  if [[ $built == 0 ]]; then
    add_check "Release build of the copy" failed "the build failed: its errors are in grade-$N.log"
  else
    if [[ $NEEDS == cuda ]] && ! has_gpu; then
      local compiled="no nvcc here: compiled by the host compiler only"
      has_nvcc && compiled="nvcc compiled ${FILES[0]} for sm_75"
      add_check "Release build of the copy" passed "$compiled; the kernels run EMULATED on the CPU (no GPU here)"
      # Correctness on the emulation (docs/cuda.md, "Tests without a GPU"): every CUDA thread a
      # fiber, in shuffled orders. It says nothing about speed, which waits for a GPU.
      say "correctness, EMULATED on the CPU: ctest -L lab$N-emulated ..."
      run_ctest "lab$N-emulated"
      EMULATED=1
    else
      add_check "Release build of the copy" passed "targets: $TARGETS"
      say "correctness: ctest -L lab$N ..."
      run_ctest "lab$N"
      cli_checks
    fi
  fi
  flock -u 9

  CORRECT=all
  local i
  for i in "${!CHECK_STATUS[@]}"; do
    [[ ${CHECK_STATUS[$i]} == passed ]] || CORRECT=some
  done
  timing
  write_report
}

# ---- Command line ---------------------------------------------------------------------------
# A starter copy holds this script too, but its lab regions are stubs: it is no reference. Its
# .lab-origin (written by start) names the project it came from, whose lab.sh does the work.
if [[ -f "$REPO_ROOT/.lab-origin" && ${1:-} != list && ${1:-} != -h && ${1:-} != --help ]]; then
  origin=$(sed -n 's/^project=//p' "$REPO_ROOT/.lab-origin")
  [[ -x "$origin/run_scripts/lab.sh" || -f "$origin/run_scripts/lab.sh" ]] ||
    die "this is a starter copy, not the course's project ($origin is gone): run lab.sh from the project"
  exec bash "$origin/run_scripts/lab.sh" "$@"
fi
[[ $# -ge 1 ]] || {
  usage >&2
  exit 2
}
case $1 in
  -h | --help) usage ;;
  list) cmd_list ;;
  start)
    [[ $# == 3 ]] || die "start needs N and DIR: bash run_scripts/lab.sh start N DIR"
    cmd_start "$2" "$3"
    ;;
  grade)
    [[ $# -ge 3 ]] || die "grade needs N and DIR: bash run_scripts/lab.sh grade N DIR"
    n=$2 d=$3
    shift 3
    REPS=5 NO_TIMING=0 FORCE_TIMING=0
    while [[ $# -gt 0 ]]; do
      case $1 in
        --reps)
          need "$@"
          positive "$1" "$2"
          REPS=$2
          shift 2
          ;;
        --no-timing)
          NO_TIMING=1
          shift
          ;;
        --force-timing)
          FORCE_TIMING=1
          shift
          ;;
        *) die "grade: unknown option '$1' (see --help)" ;;
      esac
    done
    cmd_grade "$n" "$d"
    ;;
  *) die "unknown command '$1' (list, start, grade; see --help)" ;;
esac
