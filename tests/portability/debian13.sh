#!/usr/bin/env bash
# The project on the newest Debian (13, trixie) and on ARM64, in a Debian 13 root made with
# debootstrap from Debian's registry (docs/portability.md). One leg a run:
#   native  builds with the root's GCC 14, CMake 3.31, Catch2 3 and Open MPI 5 (CUDA and peers
#           off) and runs the serial, OpenMP and MPI tests, the lab kit's own checks and the
#           reports' CSV reader there;
#   arm64   cross-builds the CPU programs and their tests with cmake/toolchains/
#           aarch64-linux-gnu.cmake (MPI off) and runs them through CTest under the root's
#           qemu-aarch64 (QEMU 10): the PyTorch vectors, serial, checkpoints, reliability, OpenMP.
# The root is made once and kept in $LENET_ROOT_CACHE (default /var/cache/lenet-parallel), used
# only when complete (its stamp is written last); each run works in an overlay over it that is
# thrown away, so the root stays as made. Every mount is made in a private mount namespace and
# every process runs in a private PID namespace, so that nothing stays mounted or running
# however the test ends. Prints each stage and its time.
#
# Usage: debian13.sh native|arm64 SOURCE_DIR
#   LENET_PORTABILITY=1  required: without it the test says SKIPPED (it downloads about 400 MB
#                        and takes minutes; .ci/run sets it)
#   LENET_ROOT_CACHE     where the root is kept; `rm -rf` it to free its 1.8 GB
# SKIPPED (77): not asked for, not root, no debootstrap or unshare, too little space, or Debian's
# registry unreachable while the root must be made.
set -euo pipefail

suite=trixie
source "$(dirname "${BASH_SOURCE[0]}")/debian_mirror.sh"
mirror=$(debian_mirror) || mirror=""
cache=${LENET_ROOT_CACHE:-/var/cache/lenet-parallel}
# The root's packages: what the build and the tests use, nothing more (docs/portability.md).
# Debian 13's Catch2 is libcatch2-dev (catch2 is a transitional name). Its amd64 and arm64
# packages cannot be installed together: the root keeps the arm64 one's .deb in
# /var/cache/lenet, and the arm64 leg swaps it in, in its overlay.
native_packages="g++ make cmake libcatch2-dev libcli11-dev zlib1g-dev libopenmpi-dev openmpi-bin
  python3 procps strace"
arm64_packages="crossbuild-essential-arm64 qemu-user zlib1g-dev:arm64"
arm64_swapped=libcatch2-dev:arm64
# The most a stage may take, in seconds (a loaded 2-core machine builds in 7 minutes); CTest's
# TIMEOUT (tests/portability/portability.cmake) bounds the whole test.
stage_limit=1500

skip() { echo "SKIPPED: $*"; exit 77; }
fail() { echo "FAILED: $*"; exit 1; }
# stage (tests/portability/lib.sh) with --foreground: COMMAND stays in the test's process group,
# which CTest kills on its timeout; each COMMAND here that starts others is the first process of
# a PID namespace, whose end ends them all. A build's long output goes to a log, shown on failure.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---- Inside the namespaces (the script calls itself): mount the root and run a leg there ----
# inside prepare ROOT: make a root's packages (debootstrap has made its base)
# inside run LEG ROOT WORK SOURCE: mount an overlay of ROOT in WORK, run the leg in it
# chroot ROOT "${clean_env[@]}" COMMAND...: runs COMMAND in ROOT with nothing of this environment
# (Open MPI's permission to run as root included: the tests launch through mpi_launch.sh, which
# gives it, the lab kit's sandbox its own).
clean_env=(/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8
  DEBIAN_FRONTEND=noninteractive)
lab_user_uid() {  # a uid that neither this machine nor the root at $1 has
  local uid
  for ((uid = 65000; uid > 60000; --uid)); do
    if ! getent passwd "$uid" >/dev/null && ! grep -q "^[^:]*:[^:]*:$uid:" "$1/etc/passwd"; then
      echo "$uid"
      return
    fi
  done
  fail "no free uid between 60001 and 65000 for the root's lab user"
}
mount_system() {  # proc, sys and dev of a root; shared memory of its own (Open MPI's)
  mount -t proc proc "$1/proc"
  mount -t sysfs -o ro sysfs "$1/sys"
  mount --rbind /dev "$1/dev"
  mount -t tmpfs -o size=1g tmpfs "$1/dev/shm"
}
if [[ ${1:-} == --inside ]]; then
  what=$2
  if [[ $what == prepare ]]; then
    root=$3
    mount_system "$root"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # No service may start while packages install (policy-rc.d's 101: "action forbidden").
    printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    chroot "$root" "${clean_env[@]}" dpkg --add-architecture arm64
    chroot "$root" "${clean_env[@]}" apt-get update -qq
    # shellcheck disable=SC2086 # the lists are words
    chroot "$root" "${clean_env[@]}" apt-get install -y -qq --no-install-recommends \
      $native_packages $arm64_packages >/dev/null
    mkdir -p "$root/var/cache/lenet"
    chroot "$root" "${clean_env[@]}" sh -c "cd /var/cache/lenet &&
      apt-get download -qq -o APT::Sandbox::User=root $arm64_swapped"
    chroot "$root" "${clean_env[@]}" apt-get clean
    exit 0
  fi
  leg=$3 root=$4 work=$5 src=$6
  start=$SECONDS
  # What the leg writes lives in memory and goes with the namespace (a build takes 30 MB).
  mount -t tmpfs -o size=2g tmpfs "$work"
  m=$work/merged
  mkdir -p "$work/upper" "$work/ovl" "$m"
  mount -t overlay overlay -o "lowerdir=$root,upperdir=$work/upper,workdir=$work/ovl" "$m"
  mount_system "$m"
  mkdir -p "$m/src"
  mount --bind "$src" "$m/src"
  mount -o remount,bind,ro "$m/src"  # the build must not write into the sources
  # data/fashion links to Debian's dataset-fashion-mnist, where the machine has it.
  if [[ -d /usr/share/datasets ]]; then
    mkdir -p "$m/usr/share/datasets"
    mount --bind -o ro /usr/share/datasets "$m/usr/share/datasets"
  fi
  run=(chroot "$m" "${clean_env[@]}")
  off=(-DLENET_CUDA=OFF -DLENET_TINYDNN=OFF -DLENET_DLIB=OFF)
  if [[ $leg == native ]]; then
    # shellcheck disable=SC2016 # expanded in the root
    "${run[@]}" sh -c 'echo "in the root: $(. /etc/os-release; echo "$PRETTY_NAME")"
      g++ --version | head -n 1; cmake --version | head -n 1
      echo "Open MPI $(ompi_info --version | sed -n "s/^Open MPI v//p"), Catch2 $(dpkg-query -W \
        -f="\${Version}" libcatch2-dev), $(python3 --version)"'
    stage --foreground "configure (native)" "$stage_limit" \
      "${run[@]}" cmake -S /src -B /build "${off[@]}"
    # What the tests below run, not every program (the benchmarks, the emulated CUDA): the
    # whole build took 309 s of a 655 s leg on a loaded machine.
    mapfile -t targets < <(for labels in "-L ^(serial|openmp|mpi)$ -LE ^launcher-quiet$" \
      "-L ^(labkit-kit|csv-reader)$"; do
      # shellcheck disable=SC2086 # the options are words
      test_targets /build "${run[@]}" ctest --test-dir /build $labels
    done | sort -u)
    ((${#targets[@]} > 0)) || fail "no test names a program of /build"
    echo "targets: ${targets[*]}"
    stage --foreground --log "$work/build-native.log" "build (native)" "$stage_limit" \
      "${run[@]}" cmake --build /build -j 2 --target "${targets[@]}"
    # The tests labelled launcher-quiet check that a failing run prints one error line and
    # nothing of mpirun's own: Open MPI 5's mpirun (PRRTE) has no -q (mpi_launch.sh leaves it
    # out there) and prints its notes on a rank's non-zero exit whatever it is told: left out,
    # and said (docs/portability.md).
    "${run[@]}" ctest --test-dir /build -N -L '^launcher-quiet$' |
      sed -n 's/^ *Test *#[0-9]*: /NOT RUN (Open MPI 5 has no mpirun -q, notes on every failure): /p'
    stage --foreground "tests: serial, openmp, mpi" "$stage_limit" \
      "${run[@]}" ctest --test-dir /build --output-on-failure \
      -j 2 --no-tests=error -L '^(serial|openmp|mpi)$' -LE '^launcher-quiet$'
    # Of the lab kit, its own checks (lab.sh on Python 3.13), not the gradings: each builds the
    # project once more (lab 1's took 6 minutes here); of the reports, the run CSV's reader.
    # Student code runs as a user of the root's own, not nobody: a uid's keyring is one on the
    # whole machine, and the machine's gradings beside this test (as nobody, locked in the
    # machine's /run, not the root's) would take this test's evidence, and it theirs.
    lab_uid=$(lab_user_uid "$m")
    "${run[@]}" useradd --system --uid "$lab_uid" --no-create-home --shell /usr/sbin/nologin \
      lenet-lab
    echo "student code runs as lenet-lab (uid $lab_uid, a uid the machine does not have)"
    stage --foreground "tests: lab kit (kit), reports' CSV reader" "$stage_limit" \
      "${run[@]}" LAB_USER=lenet-lab ctest --test-dir /build \
      --output-on-failure --no-tests=error -L '^(labkit-kit|csv-reader)$'
  else
    "${run[@]}" aarch64-linux-gnu-g++ --version | head -n 1
    "${run[@]}" qemu-aarch64 --version | head -n 1
    "${run[@]}" sh -c 'dpkg --purge libcatch2-dev >/dev/null &&
      dpkg -i /var/cache/lenet/*.deb >/dev/null' || fail "could not swap in the arm64 Catch2"
    stage --foreground "configure (arm64)" "$stage_limit" \
      "${run[@]}" cmake -S /src -B /build-arm64 "${off[@]}" \
      -DLENET_MPI=OFF --toolchain /src/cmake/toolchains/aarch64-linux-gnu.cmake
    stage --foreground --log "$work/build-arm64.log" "build (arm64)" "$stage_limit" \
      "${run[@]}" cmake --build /build-arm64 -j 2 \
      --target lenet-serial lenet-openmp lenet_tests lenet_openmp_tests
    # An ARM64 program, whose simd kernels take NEON's 128-bit vectors (common/vec/vec.hpp:
    # 4 floats on aarch64) and compile to NEON's 4-float multiply-adds (fmla ... .4s).
    exe=/build-arm64/backend_serial/lenet-serial
    "${run[@]}" readelf -h "$exe" | grep -q 'Machine: *AArch64' ||
      fail "$exe is not an AArch64 program"
    printf '#include "vec/vec.hpp"\nusing namespace lenet::simd;\n%s\n' \
      'static_assert(kLanes == 4 && sizeof(vfloat) == 16);' |
      "${run[@]}" aarch64-linux-gnu-g++ -std=c++20 -I/src/common -fsyntax-only -x c++ - ||
      fail "common/vec/vec.hpp does not take 4-float vectors on aarch64"
    fmla=$("${run[@]}" sh -c 'aarch64-linux-gnu-objdump -d --no-show-raw-insn \
      /build-arm64/common/CMakeFiles/lenet_common.dir/simd/*.o' |
      grep -c 'fmla.*v[0-9]*\.4s' || true)
    echo "lenet-serial: AArch64; simd kernels: 4-float vectors, $fmla NEON 4-float multiply-adds"
    ((fmla > 0)) || fail "the simd kernels hold no NEON vector multiply-add"
    # Not the accuracy runs (epochs over the real data sets, the code that the PyTorch vectors
    # check), nor the tests labelled thread-sweep, which train the batch strategy at 1 to 4
    # threads (442 s under QEMU on a loaded machine, 3 s natively): the layer strategy's runs.
    # Reliability on 1,000 images instead of 20,000: under QEMU, 4,000 took 174 s serial and
    # 147 s at 2 threads on a loaded machine, and the kill lands between two checkpoints at any
    # count (tests/cli/reliability.sh).
    stage --foreground "tests under qemu-aarch64: serial, openmp" "$stage_limit" \
      "${run[@]}" RELIABILITY_IMAGES=1000 ctest \
      --test-dir /build-arm64 --output-on-failure --no-tests=error -j 2 -L '^(serial|openmp)' \
      -LE '^(accuracy|thread-sweep)$'
  fi
  echo "passed: the $leg leg in $((SECONDS - start)) s"
  exit 0
fi

# ---- Outside: can it run, the root (made once), then the leg in the namespaces ----------------
usage() { echo "debian13.sh: error: $*" >&2; exit 2; }
[[ $# -eq 2 && $1 =~ ^(native|arm64)$ ]] || usage "usage: debian13.sh native|arm64 SOURCE_DIR"
leg=$1
src=$(realpath "$2")
[[ -f $src/CMakeLists.txt ]] || usage "SOURCE_DIR $2 holds no CMakeLists.txt"
[[ ${LENET_PORTABILITY:-} == 1 ]] ||
  skip "set LENET_PORTABILITY=1 to build in a Debian 13 root (downloads about 400 MB, minutes)"
[[ $(id -u) -eq 0 ]] || skip "debootstrap, chroot and mounts need root"
for tool in debootstrap unshare chroot; do
  command -v "$tool" >/dev/null || skip "no $tool (Debian: apt-get install $tool)"
done
mkdir -p "$cache"
# The root (1.8 GB), with room to spare.
free_kb=$(df -Pk "$cache" | awk 'NR == 2 { print $4 }')
((free_kb > 4 * 1024 * 1024)) || skip "under 4 GB free in $cache ($((free_kb / 1024)) MB)"

# A root is named after what it holds, so that a changed list of packages makes a new one.
key=$(printf '%s\n' "$suite" "$native_packages" "$arm64_packages" "$arm64_swapped" |
  sha256sum | cut -c1-12)
root=$cache/debian13-$key
stamp=$root/.lenet-complete
# One run makes the root, with the lock held alone; a run that uses it holds it shared to its
# end (the leg inherits it), so that no run removes a root under another.
exec 9>"$cache/lock"
if [[ ! -f $stamp ]]; then
  timeout 1800 flock 9 || fail "waited 30 minutes for other runs in $cache"
fi
if [[ -f $stamp ]]; then
  echo "root: $root (made $(cat "$stamp"), reused)"
else
  [[ -n $mirror ]] ||
    skip "apt's sources name no Debian archive to make the root from (LENET_DEBIAN_MIRROR=URL)"
  # Can the registry be reached (a TCP connection to its host's port 80, 15 s at most)?
  host=$(sed -E 's|^https?://([^/:]+).*|\1|' <<<"$mirror")
  timeout 15 bash -c "exec 3<>/dev/tcp/$host/80" 2>/dev/null ||
    skip "Debian's registry ($mirror) unreachable, and no complete root in $cache"
  # An incomplete root (a run killed while making it) and roots of other package lists go.
  rm -rf --one-file-system "$cache"/debian13-*
  echo "root: making $root (Debian 13 from $mirror)"
  # debootstrap only makes the base: its resolver misses alternatives (automake | automaken)
  # that libopenmpi-dev needs; apt-get, in the root, installs the rest.
  stage --foreground --log "$cache/debootstrap.log" "debootstrap (minbase)" "$stage_limit" \
    unshare --mount --pid --fork --kill-child \
    --propagation private debootstrap --variant=minbase "$suite" "$root" "$mirror"
  stage --foreground --log "$cache/packages.log" \
    "packages (build, tests, arm64 cross compiler, qemu-user)" "$stage_limit" \
    unshare --mount --pid --fork --kill-child --propagation private \
    bash "$0" --inside prepare "$root"
  date -u +%FT%TZ >"$stamp"
  echo "root: $(du -sh --one-file-system "$root" | cut -f1)"
fi
timeout 1800 flock -s 9 || fail "waited 30 minutes for the run making the root in $cache"

# The leg, in namespaces that end with unshare: its end ends every process and every mount of
# the leg, and the memory it wrote in ($cache/work is only where it mounts that). unshare
# ignores SIGTERM: this script passes it on as SIGKILL.
mkdir -p "$cache/work"
unshare --mount --pid --fork --kill-child --propagation private \
  bash "$0" --inside run "$leg" "$root" "$cache/work" "$src" &
leg_pid=$!
# (|| true: under set -e, the failed kill of a leg already ended would be the exit status)
trap 'kill -KILL "$leg_pid" 2>/dev/null || true' EXIT
trap 'exit 143' TERM INT HUP
wait "$leg_pid"
