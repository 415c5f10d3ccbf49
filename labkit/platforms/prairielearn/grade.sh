#!/usr/bin/env bash
# PrairieLearn's external grader for lab N: `grade.sh N`, in a container that holds this project
# (the course's copy, with the solutions) and the build's packages. PrairieLearn puts the
# student's files in $PL_ROOT/student (default /grade/student) and reads
# $PL_ROOT/results/results.json: score in [0, 1] over the autograded points.
set -uo pipefail
lab=${1:?usage: grade.sh N}
root=${PL_ROOT:-/grade}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
mkdir -p "$root/results"
python3 "$here/../../lab.py" grade "$lab" "$root/student" --platform PrairieLearn --no-timing \
  --out "$root/results" --prairielearn "$root/results/results.json"
status=$?
if [[ ! -s $root/results/results.json ]]; then
  printf '{"gradable": false, "score": 0, "message": "The grader failed (exit %s): tell the course staff."}\n' "$status" >"$root/results/results.json"
fi
exit 0
