#!/usr/bin/env bash
# Installs the Debian packages the build needs (only those missing), then configures and builds
# every backend this machine can compile into build/ (CUDA compiles wherever nvcc is found, with
# or without a GPU).
#
# Usage: run_scripts/setup.sh [--build-dir DIR] [--no-install] [-- EXTRA_CMAKE_ARGS...]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build_dir="$root/build"
install=1
cmake_args=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) build_dir=$(realpath -m "$2"); shift 2 ;;
    --no-install) install=0; shift ;;
    --) shift; cmake_args=("$@"); break ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup.sh: error: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

# What the build, the tests and the scripts use (README: "Packages").
packages=(cmake g++ make zlib1g-dev libcli11-dev catch2 libopenmpi-dev openmpi-bin
          libbenchmark-dev python3-matplotlib nodejs npm slurmctld slurmd slurm-client munge)

if [[ $install -eq 1 ]]; then
  missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  # node and npm may come from elsewhere than Debian (e.g. a preinstalled toolchain).
  if command -v node >/dev/null && command -v npm >/dev/null; then
    missing=("${missing[@]/nodejs/}") && missing=("${missing[@]/npm/}")
    read -ra missing <<<"${missing[*]}"
  fi
  if [[ ${#missing[@]} -gt 0 ]]; then
    sudo=()
    if [[ $(id -u) -ne 0 ]]; then
      command -v sudo >/dev/null || { echo "setup.sh: error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
      sudo=(sudo)
    fi
    echo "setup.sh: installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup.sh: all packages present"
  fi
fi

echo "setup.sh: configuring $build_dir"
mkdir -p "$build_dir"
if ! cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]}" >"$build_dir/configure.log" 2>&1; then
  tail -n 40 "$build_dir/configure.log" >&2
  echo "setup.sh: error: cmake configure failed (full log: $build_dir/configure.log)" >&2
  exit 1
fi
grep -E "^-- lenet" "$build_dir/configure.log" || true
echo "setup.sh: building with $(nproc) jobs"
if ! cmake --build "$build_dir" -j "$(nproc)" >"$build_dir/build.log" 2>&1; then
  tail -n 40 "$build_dir/build.log" >&2
  echo "setup.sh: error: build failed (full log: $build_dir/build.log)" >&2
  exit 1
fi
echo "setup.sh: built:" $(cd "$build_dir" && ls backend_*/lenet-* 2>/dev/null | xargs -n1 basename)
