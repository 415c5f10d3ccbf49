#!/usr/bin/env bash
# GCC 11, the compiler of Ubuntu 22.04 (Colab's pinned runtime), with Debian's g++-11: it must
# honour every OpenMP pragma of the project, and the OpenMP suite must pass there.
#   GCC 11 implements OpenMP up to 5.0. It ignores a 5.1 construct such as `#pragma omp masked`
#   with a warning only (-Wunknown-pragmas), so a block meant for one thread runs on every
#   thread: a data race that gives the same bits, which no output test can see. The test looks
#   for that warning, so such a pragma fails it by construction.
# Stages (each timed, in a temporary folder removed at the end):
#   configure  g++-11 with -Wunknown-pragmas; serial and OpenMP only (no MPI, CUDA, peers)
#   pragmas    every source file of the build that holds a `#pragma omp`, compiled with
#              -fsyntax-only (seconds): fails on any pragma g++-11 ignores, naming it
#   build      lenet-serial, lenet-openmp and their Catch2 tests
#   test       ctest -L '^openmp$' (every OpenMP test, the thread sweeps included)
# Usage: gcc11.sh SOURCE_DIR
#   LENET_PORTABILITY=1  required: without it the test says SKIPPED (a second build, minutes;
#                        .ci/run sets it)
# Without g++-11 it installs Debian's package (as root, with a reachable registry), else SKIPPED.
set -euo pipefail
source_dir=$(realpath "$1")

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
[[ ${LENET_PORTABILITY:-0} == 1 ]] || skip "set LENET_PORTABILITY=1 to run it (a second build: minutes)"
if ! command -v g++-11 >/dev/null; then
  [[ $(id -u) -eq 0 ]] || skip "no g++-11, and not root to install it (apt-get install g++-11)"
  echo "== installing Debian's g++-11 (the compiler of Ubuntu 22.04)"
  timeout -k 10 600 env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-11 >/dev/null </dev/null ||
    skip "apt-get install g++-11 failed (no registry?)"
fi
echo "compiler: $(g++-11 --version | head -n 1)"

work=$(mktemp -d "${TMPDIR:-/tmp}/gcc11.XXXXXX")
build="$work/build"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # stage, stage_pid
trap 'rm -rf "$work"; [[ -z $stage_pid ]] || kill -KILL -- "-$stage_pid" 2>/dev/null' EXIT

stage --log "$work/configure.log" "1/4 configure with g++-11 -Wunknown-pragmas" 300 \
  cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++-11 \
  -DCMAKE_CXX_FLAGS=-Wunknown-pragmas -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DLENET_OPENMP=ON \
  -DLENET_MPI=OFF -DLENET_CUDA=OFF -DLENET_TINYDNN=OFF -DLENET_DLIB=OFF -DLENET_SMPI=OFF
grep -E "^-- lenet: (LENET_OPENMP|tests)" "$work/configure.log"

# The compile commands of the files with a `#pragma omp`, each with -fsyntax-only: g++-11 says
# "ignoring '#pragma omp ...'", with the file and line, for each pragma it does not honour.
pragma_check=$(cat <<'PY'
import json, subprocess, sys
status = 0
for entry in json.load(open(sys.argv[1])):
    with open(entry["file"], encoding="utf-8") as f:
        if "#pragma omp" not in f.read():
            continue
    out = subprocess.run(entry["command"] + " -fsyntax-only", shell=True, cwd=entry["directory"],
                         capture_output=True, text=True)
    print(f"{entry['file']}: exit {out.returncode}")
    sys.stdout.write(out.stderr)
    status |= out.returncode
sys.exit(status)
PY
)
stage --log "$work/pragmas.log" "2/4 each file with a #pragma omp, compiled by g++-11" 600 \
  python3 -c "$pragma_check" "$build/compile_commands.json"
echo "$(grep -c ': exit 0$' "$work/pragmas.log") files with a #pragma omp compiled"
if grep -a "ignoring [^ ]*#pragma omp" "$work/pragmas.log" | sort -u | grep .; then
  fail "g++-11 ignores the OpenMP pragma above: its block runs on every thread"
fi

stage --log "$work/build.log" "3/4 build lenet-serial, lenet-openmp and their tests" 1800 \
  nice cmake --build "$build" -j "$(nproc)" --target lenet-serial lenet-openmp lenet_openmp_tests

cd "$build"
stage --log "$work/ctest.log" "4/4 ctest -L '^openmp\$'" 900 \
  ctest -L '^openmp$' --output-on-failure --timeout 300
grep -E "tests passed" "$work/ctest.log"
echo "OK: with g++-11 every OpenMP pragma is honoured and the OpenMP suite passes"
