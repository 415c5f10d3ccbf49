#!/usr/bin/env bash
# run_scripts/mpi_launch.sh gives each MPI family its own flags (no MPI needed: --dry-run
# prints the command, for launchers described by hand-written mpi_launch.env files):
# Open MPI's --oversubscribe, --bind-to, -q and --mca (--yield, --eager-limit), Hydra's -bind-to core[:T] and nothing else,
# FindMPI's rank-count flag and pre-/post-flags in every application of an MPMD launch, no
# binding once the ranks outnumber the cores, --exec's launcher with its family's environment,
# and a one-line error for bad use.
# Usage: mpi_launch_test.sh MPI_LAUNCH_SH
set -u
launch=$1
unset OMPI_MCA_mpi_yield_when_idle  # --yield adds its flag only where it is not set
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
is "Open MPI, --yield" "/bin/true --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -n 1 prog" \
  "$ompi" --yield -n 1 prog
OMPI_MCA_mpi_yield_when_idle=0 is "Open MPI, --yield where the variable is set: it stays" \
  "/bin/true --oversubscribe --bind-to none -n 1 prog" "$ompi" --yield -n 1 prog
is "Open MPI, --eager-limit" "/bin/true --oversubscribe --bind-to none --mca btl_vader_eager_limit 16384 -n 1 prog" \
  "$ompi" --eager-limit 16384 -n 1 prog
is "Hydra, --yield: no flags" "/bin/true -n 1 prog" "$mpich" --yield -n 1 prog
is "Hydra, no binding: no flags" "/bin/true -n 2 prog a" "$mpich" --quiet -n 2 prog a
is "Hydra, a core each" "/bin/true -bind-to core -n 1 prog" "$mpich" --bind core -n 1 prog
is "Hydra, T cores each" "/bin/true -bind-to core:$(nproc) -n 1 prog" "$mpich" --bind "cores:$(nproc)" -n 1 prog
is "Hydra, MPMD" "/bin/true -n 1 a x : -n 1 b y" "$mpich" -n 1 a x : -n 1 b y
is "other, FindMPI's flags in each application" "/bin/true -np 1 --pre\\ fix a : -np 2 --pre\\ fix b" \
  "$other" -n 1 a : -n 2 b

# --exec: the launcher (here env, which prints its environment before running ARGS) with ARGS
# as they are, and Open MPI's permission to run as root where this runs as root.
mkdir -p "$tmp/exec"
printf "mpi_family=openmpi\nmpiexec=/usr/bin/env\nmpiexec_numproc_flag=-n\nmpiexec_preflags=()\nmpiexec_postflags=()\n" \
  >"$tmp/exec/mpi_launch.env"
got=$(bash "$launch" "$tmp/exec" --exec printf '<%s>' a 'b c' | tail -n 1)
root_env=$(bash "$launch" "$tmp/exec" --exec | grep -c '^OMPI_ALLOW_RUN_AS_ROOT')
want_root=0
[[ $(id -u) -ne 0 ]] || want_root=2
if [[ $got == *"<a><b c>" && $root_env -eq $want_root ]]; then
  echo "ok   --exec: ARGS as given ('$got'), $root_env OMPI_ALLOW_RUN_AS_ROOT* variable(s) as uid $(id -u)"
else
  echo "FAIL --exec: got '$got' and $root_env OMPI_ALLOW_RUN_AS_ROOT* variable(s) as uid $(id -u), wanted $want_root"
  failures=$((failures + 1))
fi

expect "--eager-limit on Hydra" "--eager-limit is Open MPI's" bash "$launch" "$mpich" --eager-limit 100 -n 1 prog
expect "--bind with a bad value" "--bind" bash "$launch" "$mpich" --bind sockets -n 2 prog
expect "no -n" "-n P PROGRAM" bash "$launch" "$mpich" prog
expect "a build without lenet-mpi" "$tmp/none/mpi_launch.env" bash "$launch" "$tmp/none" -n 2 prog
report
