#!/usr/bin/env bash
# lab.sh: the course lab kit (docs/labs.md), a thin launcher of labkit/lab.py (Python 3, standard
# library only): list, start N DIR, grade N DIR, class N SUBMISSIONS OUT, gradescope N OUT.zip,
# rubric N, flagged N DIR... See --help.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
command -v python3 >/dev/null || { echo "lab.sh: error: python3 not found (apt-get install python3)" >&2; exit 2; }
exec python3 "$root/labkit/lab.py" "$@"
