#!/usr/bin/env bash
# Every path of the tree that README.md, docs/ (Markdown and the Colab notebook) and the .ci
# script name must exist: after a file moves, a stale name in the docs fails here.
# A path is a word that starts with one of the tree's top-level folders ("run_scripts/main.sh",
# "docs/labs/lab1.md#...", "labkit/labs/labN.json" is a pattern and skipped: it holds N, *, $,
# < or {). Usage: paths.sh ROOT
set -euo pipefail
root=${1:?usage: paths.sh ROOT}
cd "$root"
tops=$(git ls-files 2>/dev/null | cut -d/ -f1 | sort -u | grep -v '\.' | paste -sd'|')
[[ -n $tops ]] || tops=$(find . -mindepth 1 -maxdepth 1 -type d ! -name '.*' -printf '%f\n' | paste -sd'|')
missing=0 checked=0
while IFS=: read -r file path; do
  path=${path%%#*}             # an anchor
  path=${path%[.,:;)\`\'\"]}   # punctuation after the path
  path=${path%[.,:;)\`\'\"]}
  [[ $path == *[N*\$\<\{]* ]] && continue  # a pattern, not a path
  [[ $path =~ ^(build|results)[-/] ]] && continue
  [[ ${path##*/} == lenet[-_]* ]] && continue  # an executable, in a build folder
  [[ $path =~ /[A-Z]+(:|$) ]] && continue      # backend_cuda/FILE:LINE, a placeholder
  checked=$((checked + 1))
  if [[ ! -e $path ]]; then
    echo "FAIL: $file names $path, which does not exist"
    missing=$((missing + 1))
  fi
done < <(grep -oE "(^|[^A-Za-z0-9_./-])($tops)/[A-Za-z0-9_./#*\$<>{}-]*" \
  -r README.md docs .ci/run --include='*.md' --include='*.ipynb' --include=run |
  sed -E 's/^([^:]*):[^A-Za-z0-9_]?/\1:/' | sort -u)
[[ $missing -eq 0 ]] || exit 1
echo "OK: $checked paths named in README.md, docs/ and .ci/run exist"
