# tests/portability/lib.sh: the stage helper of the portability tests (mpich.sh, debian13.sh,
# no_root_fetch.sh). Sourced, not run:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# stage [--foreground] [--log FILE] NAME SECONDS COMMAND...: prints "== NAME", runs COMMAND under
# `timeout -k 10 SECONDS`, prints "== NAME: N s". --log FILE: COMMAND's output goes to FILE (kept
# for the caller to read), whose last 40 lines are shown if it fails; else it goes where the
# script's does. A failure ends the test: "FAILED: NAME (exit S)", or "FAILED: NAME: still
# running after SECONDS s", exit 1.
#   timeout leads a process group of its own, so that it ends all COMMAND started; its process
#   id is in stage_pid while it runs, for an EXIT trap to kill that group (kill -- -$stage_pid).
#   --foreground: timeout stays in the test's process group, which CTest kills on its TIMEOUT
#   (for a COMMAND that ends what it starts itself, as the first process of a PID namespace).
# COMMAND runs in the background, waited for, so that a signal to the script runs its trap at
# once; its standard input is /dev/null.
stage_pid=""
stage() {
  local foreground=() log="" name limit t0=$SECONDS status=0
  while [[ $1 == --* ]]; do
    case $1 in
      --foreground) foreground=(--foreground); shift ;;
      --log) log=$2; shift 2 ;;
      *) echo "FAILED: stage: unknown option $1"; exit 1 ;;
    esac
  done
  name=$1 limit=$2
  shift 2
  echo "== $name"
  if [[ -n $log ]]; then
    timeout "${foreground[@]}" -k 10 "$limit" "$@" >"$log" 2>&1 </dev/null &
  else
    timeout "${foreground[@]}" -k 10 "$limit" "$@" </dev/null &
  fi
  stage_pid=$!
  wait "$stage_pid" || status=$?
  stage_pid=""
  stage_time "$name" "$t0"
  if [[ $status -ne 0 ]]; then
    [[ -z $log ]] || tail -n 40 "$log"
    [[ $status -ne 124 ]] || { echo "FAILED: $name: still running after $limit s"; exit 1; }
    echo "FAILED: $name (exit $status)"
    exit 1
  fi
}

# stage_time NAME START [NOTE]: "== NAME: N s [NOTE]", N the seconds since START ($SECONDS then),
# for a step timed without stage (one expected to fail, one of several commands).
stage_time() { echo "== $1: $((SECONDS - $2)) s${3:+ $3}"; }

# test_targets BUILD_IN CTEST...: the targets whose programs the tests picked by CTEST... (a
# ctest command with its label options; -N -V are added) start: each executable under BUILD_IN
# (the build folder as those commands name it) that a test command names, by its file name,
# which is its target's name. A leg then builds what it tests rather than every program.
test_targets() {
  local build=$1
  shift
  "$@" -N -V | sed -n 's/^[0-9]*: Test command: //p' | tr ' ' '\n' | tr -d '"' |
    sed -n "s|^$build/.*/\([A-Za-z0-9_-]*\)\$|\1|p" | sort -u
}
