#!/usr/bin/env bash
# run_scripts/mpi_launch.sh gives each MPI family its own flags (no MPI needed: --dry-run
# prints the command, for launchers described by hand-written mpi_launch.env files):
# Open MPI's --oversubscribe, --bind-to and -q, Hydra's -bind-to core[:T] and nothing else,
# FindMPI's rank-count flag and pre-/post-flags in every application of an MPMD launch, no
# binding once the ranks outnumber the cores, and a one-line error for bad use.
# Usage: mpi_launch_test.sh MPI_LAUNCH_SH
set -u
launch=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
source "$(dirname "${BASH_SOURCE[0]}")/expect.sh"  # expect, report

# build FAMILY NUMPROC_FLAG PREFLAGS: a build folder whose launcher is /bin/true of that family.
build() {
  mkdir -p "$tmp/$1"
  printf "mpi_family=%s\nmpiexec=/bin/true\nmpiexec_numproc_flag='%s'\nmpiexec_preflags=(%s)\nmpiexec_postflags=()\n" \
    "$1" "$2" "$3" >"$tmp/$1/mpi_launch.env"
  echo "$tmp/$1"
}
# is NAME WANT ARGS...: mpi_launch.sh --dry-run ARGS... must print exactly WANT.
is() {
  local name=$1 want=$2 got
  shift 2
  got=$(bash "$launch" "$1" --dry-run "${@:2}" 2>&1)
  if [[ $got == "$want " ]]; then
    echo "ok   $name: $got"
  else
    echo "FAIL $name: got '$got', wanted '$want'"
    failures=$((failures + 1))
  fi
}

ompi=$(build openmpi -n "") mpich=$(build mpich -n "") other=$(build other -np "'--pre fix'")
many=$(($(nproc) + 1)) # more ranks than cores

is "Open MPI, no binding" "/bin/true --oversubscribe --bind-to none -n 2 prog a" "$ompi" -n 2 prog a
is "Open MPI, a core each" "/bin/true --oversubscribe --map-by core --bind-to core -n 1 prog" \
  "$ompi" --bind core -n 1 prog
is "Open MPI, T cores each" "/bin/true --oversubscribe --map-by slot:PE=$(nproc) --bind-to core -n 1 prog" \
  "$ompi" --bind "cores:$(nproc)" -n 1 prog
is "Open MPI, more ranks than cores: unbound" "/bin/true --oversubscribe --bind-to none -n $many prog" \
  "$ompi" --bind core -n "$many" prog
is "Open MPI, --quiet" "/bin/true --oversubscribe --bind-to none -q --mca odls_base_sigkill_timeout 0 -n 1 prog" \
  "$ompi" --quiet -n 1 prog
is "Hydra, no binding: no flags" "/bin/true -n 2 prog a" "$mpich" --quiet -n 2 prog a
is "Hydra, a core each" "/bin/true -bind-to core -n 1 prog" "$mpich" --bind core -n 1 prog
is "Hydra, T cores each" "/bin/true -bind-to core:$(nproc) -n 1 prog" "$mpich" --bind "cores:$(nproc)" -n 1 prog
is "Hydra, MPMD" "/bin/true -n 1 a x : -n 1 b y" "$mpich" -n 1 a x : -n 1 b y
is "other, FindMPI's flags in each application" "/bin/true -np 1 --pre\\ fix a : -np 2 --pre\\ fix b" \
  "$other" -n 1 a : -n 2 b

expect "--bind with a bad value" "--bind" bash "$launch" "$mpich" --bind sockets -n 2 prog
expect "no -n" "-n P PROGRAM" bash "$launch" "$mpich" prog
expect "a build without lenet-mpi" "$tmp/none/mpi_launch.env" bash "$launch" "$tmp/none" -n 2 prog
report
