#!/usr/bin/env bash
# The lab kit's own test (tests/labs.cmake), through run_scripts/lab.sh as a student and a TA
# would use it.
#   labkit_test.sh ROOT N                  the solution (ROOT) passes lab N's checks; a starter
#                                          copy builds, hides the solution, and fails them
#   labkit_test.sh ROOT 1 race-and-solved  a race in lab 1's reduction is caught as not
#                                          bit-identical; the starter solved by hand (the
#                                          solution's region copied back) gets full points
# Exit 0: passed; 1: failed; 77: SKIPPED (a lab's checks could not run here). Lab 5 without a GPU
# is graded on the CPU emulation: the same verdicts, and the report must say EMULATED.
set -euo pipefail
root=$1 n=$2 mode=${3:-solution-and-starter}
lab=(bash "$root/run_scripts/lab.sh")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAILED: $*"
  exit 1
}

# grade N DIR [options]: runs the grader; sets rc and json (the report's path).
grade() {
  local dir=$2
  rc=0
  "${lab[@]}" grade "$@" || rc=$?
  json=$dir/grade-$1.json
  [[ $rc != 2 && -s "$json" ]] || fail "lab.sh grade $* wrote no report (exit $rc)"
  echo "--- grade-$1.md of $dir:"
  cat "$dir/grade-$1.md"
}

# count STATUS: how many checks of the last report have that status.
count() { grep -c "\"status\": \"$1\"" "$json" || true; }

# region FILE: lab N's regions of FILE (the lines between BEGIN and END).
region() { awk -v b="LAB $n BEGIN" -v e="LAB $n END" 'index($0, e) { r = 0 } r { print } index($0, b) { r = 1 }' "$1"; }

# put_region FILE TEXTFILE: lab N's (single) region of FILE replaced by TEXTFILE.
put_region() {
  awk -v b="LAB $n BEGIN" -v e="LAB $n END" -v f="$2" '
    index($0, b) { print; while ((getline l < f) > 0) print l; skip = 1; next }
    index($0, e) { skip = 0 }
    !skip { print }' "$1" >"$1.new"
  mv "$1.new" "$1"
}

lab_files() { "${lab[@]}" list | awk -v n="$n" '$1 == n { getline; if ($1 == "edit:") { $1 = ""; print } }'; }

if [[ $mode == solution-and-starter ]]; then
  # 1. The solution: every check passes (or, where one cannot run here, it is "not graded").
  timing=(--no-timing)
  [[ $n == 1 ]] && timing=(--reps 1)  # the timing code runs once in the kit's tests
  grade "$n" "$root" "${timing[@]}"
  solution_ungraded=0
  if [[ $rc != 0 ]]; then
    [[ $(count failed) == 0 && $(count "not graded") -gt 0 ]] ||
      fail "the solution fails lab $n's checks (exit $rc)"
    solution_ungraded=1
    echo "lab $n's solution: not graded here ($(grep -o 'not graded: [^"]*' "$json" | head -1))"
  fi
  if [[ $n == 5 ]] && ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; }; then
    grep -q '"emulated": true' "$json" && grep -q 'EMULATED' "$root/grade-$n.md" ||
      fail "lab 5 was graded without a GPU, and the report does not say EMULATED"
  fi
  grep -q '"performance"' "$json" || fail "the report has no performance part"
  rm -f "$root/grade-$n.md" "$root/grade-$n.json" "$root/grade-$n.log"

  # 2. The starter: it builds, holds none of the solution's code lines, and fails.
  "${lab[@]}" start "$n" "$tmp/s"
  # The answer: the region's code lines (indented, not comments) that are neither in the stubs
  # nor elsewhere in the solution's file. None of them may be in the starter's file.
  for f in $(lab_files); do
    awk -v b="LAB $n BEGIN" -v e="LAB $n END" 'index($0, b) { r = 1 } !r { print } index($0, e) { r = 0 }' \
      "$root/$f" >"$tmp/outside"
    cat "$root/run_scripts/lab/stubs/lab$n/$(basename "$f")".* >>"$tmp/outside"
    while IFS= read -r line; do
      [[ ${#line} -ge 20 && "$line" =~ ^[[:space:]] && ! "$line" =~ ^[[:space:]]*// ]] || continue
      grep -qxF -- "$line" "$tmp/outside" && continue
      if grep -qxF -- "$line" "$tmp/s/$f"; then
        fail "the starter's $f still holds a line of the solution: $line"
      fi
      answer_lines=$((${answer_lines:-0} + 1))
    done < <(region "$root/$f")
  done
  [[ ${answer_lines:-0} -gt 0 ]] || fail "lab $n: found no line of the solution to look for"
  grade "$n" "$tmp/s" --no-timing
  [[ $rc == 1 ]] || fail "the starter of lab $n passes its own checks (exit $rc): a broken lab"
  grep -q '"name": "Release build of the copy", "status": "passed"' "$json" ||
    fail "the starter of lab $n does not build"
  if [[ $solution_ungraded == 1 ]]; then
    [[ $(count passed) == 1 ]] || fail "lab $n: a check other than the build passed where the solution's could not run"
    echo "SKIPPED: lab $n's checks cannot run here; its starter builds and is reported not graded"
    exit 77
  fi
  [[ $(count failed) -gt 0 ]] || fail "the starter of lab $n failed no check"
  echo "lab $n: the solution passes, the starter builds and fails $(count failed) checks"
  exit 0
fi

[[ $mode == race-and-solved && $n == 1 ]] || fail "unknown mode '$mode' for lab $n"
# 3. A race: each thread adds its chunks into G with atomics, in whatever order the threads
# get there, not in chunk order.
"${lab[@]}" start 1 "$tmp/race"
cat >"$tmp/race.txt" <<'EOF'
  const auto racy = [&] {
    chunk_sums(workers_, params_.v, *train_, order_, first, first + count, count, chunks_.data(),
               timing_);
#pragma omp single
    std::fill(batch_grad_.v, batch_grad_.v + kParamCount, 0.0f);
    const int me = omp_get_thread_num(), members = omp_get_num_threads();
    for (int c = me; c < n_chunks; c += members) {
      for (int i = 0; i < kParamCount; ++i) {
#pragma omp atomic
        batch_grad_.v[i] += chunks_[c].grad[i];
      }
    }
#pragma omp barrier
#pragma omp single
    sgd_update(params_.v, batch_grad_.v, lr, count);
  };
  if (team > 1) {
#pragma omp parallel num_threads(team)
    racy();
  } else {
    racy();
  }
EOF
put_region "$tmp/race/backend_openmp/batch.cpp" "$tmp/race.txt"
grade 1 "$tmp/race" --no-timing
[[ $rc == 1 ]] || fail "the race passed lab 1's checks"
grep '"status": "failed"' "$json" | grep -q 'bit' ||
  fail "the race was not reported as not bit-identical"
echo "the race: caught, $(count failed) checks failed"

# 4. Solved by hand: the solution's region copied into a fresh starter.
"${lab[@]}" start 1 "$tmp/solved"
region "$root/backend_openmp/batch.cpp" >"$tmp/solution.txt"
put_region "$tmp/solved/backend_openmp/batch.cpp" "$tmp/solution.txt"
cmp -s "$root/backend_openmp/batch.cpp" "$tmp/solved/backend_openmp/batch.cpp" ||
  fail "copying the region back did not restore batch.cpp"
grade 1 "$tmp/solved" --no-timing
[[ $rc == 0 ]] || fail "the hand-solved starter did not pass (exit $rc)"
read -r points max < <(sed -n 's/.*"correctness": {.*"points": \([0-9.]*\), "max": \([0-9]*\)[,}].*/\1 \2/p' "$json")
awk -v p="${points:-0}" -v m="${max:-1}" 'BEGIN { exit !(p == m) }' ||
  fail "the hand-solved starter got ${points:-no} of ${max:-?} correctness points"
echo "hand-solved: full correctness points"
