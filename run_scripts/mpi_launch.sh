#!/usr/bin/env bash
# mpi_launch.sh: starts MPI ranks the way this build's MPI wants; every test, script and lab
# launches through it, never through a bare mpirun. The launcher and its family come from
# BUILD_DIR/mpi_launch.env (cmake/mpi_launch.cmake, from FindMPI); this file holds each
# family's flags:
#   Open MPI's mpirun   --oversubscribe (it refuses more ranks than cores), --bind-to,
#                       -q and --mca (--quiet, --yield, --eager-limit), OMPI_ALLOW_RUN_AS_ROOT*
#                       (it refuses root); the one place these are set, but for ranks not
#                       started through here (tests/system/slurm_test.sh's srun and sbatch jobs)
#   Hydra's mpiexec     (MPICH, Intel MPI, MVAPICH) oversubscribes and runs as root as it
#                       is, binds nothing by default, spells binding -bind-to core[:T]
#   other               FindMPI's flags only (MPIEXEC_NUMPROC_FLAG, _PREFLAGS, _POSTFLAGS)
#
# Usage: mpi_launch.sh BUILD_DIR [OPTIONS] -n P PROGRAM [ARGS...] [: -n P PROGRAM [ARGS...]]...
#        mpi_launch.sh BUILD_DIR --family     print openmpi, mpich or other
#        mpi_launch.sh BUILD_DIR --launcher   print the launcher's path
#        mpi_launch.sh BUILD_DIR --exec ARGS...
#                         run the launcher with ARGS as they are, in the environment its family
#                         needs (for a script that needs one family's own options, as
#                         multihost.sh: Open MPI's rsh agent and --mca settings)
#   --bind none       no binding (the default): the ranks may share cores
#   --bind core       each rank on a core of its own while the ranks fit, else none
#   --bind cores:T    T cores per rank (hybrid, --threads T) while they fit, else none
#   --quiet           only the program's output: no launcher notes on a failure, and the
#                     job ends at once when a rank exits non-zero
#   --yield           a rank waiting for a message gives up its core instead of spinning (the
#                     tests, which check bits, not speed, on a machine busy with other work):
#                     Open MPI's mpi_yield_when_idle (unless OMPI_MCA_mpi_yield_when_idle is
#                     set already); Hydra's ranks are left as they are
#   --eager-limit B   Open MPI's shared-memory eager limit in bytes (btl_vader_eager_limit,
#                     experiments/mpi_sweep.sh); an error for other families
#   --dry-run         print the command instead of running it
# Errors: one line "mpi_launch.sh: error: ...", exit 2.
set -euo pipefail
die() {
  echo "mpi_launch.sh: error: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || die "usage: mpi_launch.sh BUILD_DIR [OPTIONS] -n P PROGRAM [ARGS...]"
env_file="$1/mpi_launch.env"
# An install prefix (cmake --install) keeps the file with the scripts.
[[ -f $env_file || ! -f $1/share/lenet-parallel/mpi_launch.env ]] || env_file="$1/share/lenet-parallel/mpi_launch.env"
shift
[[ -f $env_file ]] || die "$env_file not found: $(dirname "$env_file") is not a build with lenet-mpi"
mpi_family="" mpi_launcher_major="" mpiexec="" mpiexec_numproc_flag="" mpiexec_preflags=() mpiexec_postflags=()
source "$env_file"
command -v "$mpiexec" >/dev/null || die "$mpiexec ($env_file) not found or not executable"

# The environment the family's launcher needs: Open MPI's refuses to run as root unless told.
if [[ $mpi_family == openmpi && $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

bind=none quiet=0 dry_run=0 yield=0 eager_limit=""
while [[ $# -gt 0 && $1 != -n ]]; do
  case $1 in
    --family)
      echo "$mpi_family"
      exit 0
      ;;
    --launcher)
      echo "$mpiexec"
      exit 0
      ;;
    --exec)
      shift
      exec "$mpiexec" "$@"
      ;;
    --bind)
      [[ $# -ge 2 && $2 =~ ^(none|core|cores:[1-9][0-9]*)$ ]] ||
        die "--bind: expected none, core or cores:T, got '${2:-}'"
      bind=$2
      shift
      ;;
    --quiet) quiet=1 ;;
    --yield) yield=1 ;;
    --eager-limit)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] ||
        die "--eager-limit: expected a positive number of bytes, got '${2:-}'"
      [[ $mpi_family == openmpi ]] ||
        die "--eager-limit is Open MPI's (btl_vader_eager_limit); this build's MPI is $mpi_family"
      eager_limit=$2
      shift
      ;;
    --dry-run) dry_run=1 ;;
    *) die "unknown option '$1': expected options, then -n P PROGRAM" ;;
  esac
  shift
done
[[ $# -ge 3 ]] || die "expected -n P PROGRAM after the options"

# The applications: "-n P PROGRAM ARGS..." blocks separated by ":" (an MPMD launch), each
# rewritten with the launcher's own rank-count flag and FindMPI's pre- and post-flags.
apps=() ranks=0
while [[ $# -gt 0 ]]; do
  [[ $1 == -n && $# -ge 3 && $2 =~ ^[1-9][0-9]*$ ]] || die "expected -n P PROGRAM, got '$*'"
  ranks=$((ranks + $2))
  apps+=("$mpiexec_numproc_flag" "$2" "${mpiexec_preflags[@]}" "$3" "${mpiexec_postflags[@]}")
  shift 3
  while [[ $# -gt 0 && $1 != : ]]; do
    apps+=("$1")
    shift
  done
  if [[ $# -gt 0 ]]; then
    apps+=(:)
    shift
  fi
done

# Binding: only while every rank (and its threads) has cores of its own.
per_rank=1
[[ $bind == cores:* ]] && per_rank=${bind#cores:}
((ranks * per_rank <= $(nproc))) || bind=none

flags=()
case $mpi_family in
  openmpi)
    flags+=(--oversubscribe)
    case $bind in
      none) flags+=(--bind-to none) ;;
      core) flags+=(--map-by core --bind-to core) ;;
      cores:*) flags+=(--map-by "slot:PE=$per_rank" --bind-to core) ;;
    esac
    # odls_base_sigkill_timeout: after a rank's non-zero exit, Open MPI 4.1 waits 1 to 2 s
    # before ending the others, though they have exited (docs/reliability.md). -q: 4.1's only
    # (Open MPI 5's mpirun rejects it, exit 213, and prints its notes on a failure anyway).
    if ((quiet)); then
      [[ ${mpi_launcher_major:-0} -ge 5 ]] || flags+=(-q)
      flags+=(--mca odls_base_sigkill_timeout 0)
    fi
    if ((yield)) && [[ -z ${OMPI_MCA_mpi_yield_when_idle:-} ]]; then
      flags+=(--mca mpi_yield_when_idle 1)
    fi
    [[ -z $eager_limit ]] || flags+=(--mca btl_vader_eager_limit "$eager_limit")
    ;;
  mpich)
    case $bind in
      core) flags+=(-bind-to core) ;;
      cores:*) flags+=(-bind-to "core:$per_rank") ;;
    esac
    ;;
esac

if ((dry_run)); then
  printf '%q ' "$mpiexec" "${flags[@]}" "${apps[@]}"
  echo
  exit 0
fi
exec "$mpiexec" "${flags[@]}" "${apps[@]}"
