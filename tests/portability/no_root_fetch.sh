#!/usr/bin/env bash
# A cluster user's build (docs/cluster.md, "Without root"): no root, no network, and neither
# CLI11 nor Catch2 installed, so that CMake builds them from the copies handed to its fetch
# (cmake/dependencies.cmake). It runs as an unprivileged user (nobody, where it is started as
# root) with a HOME of its own, every stage but the first in a network namespace of its own:
#   sources    Debian 13's source archives of Catch2 and CLI11, through apt with a private list
#              (the machine's apt set-up is left alone); SKIPPED where Debian is unreachable
#   attack     a Catch2 archive with one byte changed stops the configure (CMake's hash check)
#   configure  CLI11 and Catch2 hidden from find_package; serial and OpenMP, no MPI or CUDA
#   build      all of it, the compile lines taking the handed copies
#   test       ctest -L "serial|openmp"
#   install    cmake --install --prefix ~/lenet: the programs, nothing of CLI11 or Catch2
#   run        ~/lenet/bin/lenet-serial and lenet-openmp on tests/vectors/data, --verify
#              --identical against the build tree's lenet-serial
# Each stage prints its time; all is made in one temporary folder, removed at the end.
# Usage: no_root_fetch.sh SOURCE_DIR [CXX_COMPILER]
#   LENET_PORTABILITY=1  required: without it the test says SKIPPED (a second build, minutes;
#                        .ci/run sets it)
set -uo pipefail
[[ ${LENET_PORTABILITY:-0} == 1 ]] ||
  { echo "SKIPPED: set LENET_PORTABILITY=1 to run it (a second build: minutes)"; exit 77; }
src=$(realpath "$1")
cxx=${2:-c++}
pins=$src/cmake/dependencies.cmake
pin() { sed -n "s/^set(LENET_$1_VERSION \(.*\))$/\1/p" "$pins"; }
catch2_version=$(pin CATCH2)
cli11_version=$(pin CLI11)
[[ -n $catch2_version && -n $cli11_version ]] || { echo "FAIL: no pinned versions in $pins"; exit 1; }

# Who builds: this user where it is not root, else nobody (util-linux's setpriv).
user=()
if [[ $(id -u) -eq 0 ]]; then
  command -v setpriv >/dev/null && id nobody >/dev/null 2>&1 ||
    { echo "SKIPPED: running as root and cannot become nobody (no setpriv or no user nobody)"; exit 77; }
  user=(setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups --)
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/no-root-fetch.XXXXXX")
chmod 755 "$tmp"
home=$tmp/home
mkdir -p "$home/tmp"
[[ ${#user[@]} -eq 0 ]] || chown -R nobody "$home"

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" # stage, stage_time, stage_pid, test_targets
# On any way out: the running stage's process group (timeout leads one), then the folder.
cleanup() {
  [[ -z $stage_pid ]] || kill -KILL -- "-$stage_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

# as_user SECONDS COMMAND...: COMMAND as the build's user, in a clean environment, bounded;
# offline (set below) puts it in a network namespace with no interface but loopback.
offline=()
as_user() {
  local limit=$1 status=0
  shift
  timeout -k 10 "$limit" "${user[@]}" "${offline[@]}" env -i HOME="$home" PATH="$PATH" \
    LANG=C.UTF-8 TMPDIR="$home/tmp" "$@" &
  stage_pid=$!
  wait "$stage_pid" || status=$?
  stage_pid=""
  return $status
}

# user_stage NAME SECONDS COMMAND...: lib.sh's stage for COMMAND as as_user runs it, its output
# in $tmp/NAME.log (shown at its end if it fails, which stops the test).
user_stage() {
  stage --log "$tmp/$1.log" "$1" "$2" "${user[@]}" "${offline[@]}" env -i HOME="$home" \
    PATH="$PATH" LANG=C.UTF-8 TMPDIR="$home/tmp" "${@:3}"
}
# check WHAT CONDITION...: one assertion on what a stage made.
check() {
  local what=$1
  shift
  if "$@"; then echo "  ok   $what"; else echo "  FAIL $what"; exit 1; fi
}

# ---- sources: apt's own signed lists of Debian 13, kept in this folder ----------------------
command -v apt-get >/dev/null ||
  { echo "SKIPPED: no apt-get here, to take CLI11's and Catch2's sources from Debian"; exit 77; }
apt_dir=$home/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
source "$(dirname "${BASH_SOURCE[0]}")/debian_mirror.sh"
mirror=$(debian_mirror) ||
  { echo "SKIPPED: apt's sources name no Debian archive (LENET_DEBIAN_MIRROR=URL names one)"; exit 77; }
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
  "$mirror trixie main" >"$apt_dir/sources.list"
[[ ${#user[@]} -eq 0 ]] || chown -R nobody "$apt_dir"
apt=(apt-get -o Dir::Etc::SourceList="$apt_dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache")
start=$SECONDS
if ! as_user 120 "${apt[@]}" update >"$tmp/sources.log" 2>&1 ||
  grep -q '^\(Err\|W: Failed\)' "$tmp/sources.log"; then
  echo "SKIPPED: Debian's registry is unreachable ($(grep -m1 -E '^(Err|E:|W:)' "$tmp/sources.log"))"
  exit 77
fi
# Only the upstream archives (.orig): each downloaded by apt, which checks it against the
# SHA256 of the signed list.
as_user 60 "${apt[@]}" source --print-uris catch2 cli11 >"$tmp/uris" 2>>"$tmp/sources.log"
while read -r uri file _ hash; do
  as_user 120 /usr/lib/apt/apt-helper download-file "${uri//\'/}" "$home/$file" "$hash" \
    >>"$tmp/sources.log" 2>&1 || { echo "SKIPPED: cannot download $uri from Debian"; exit 77; }
done < <(grep "\.orig\.tar" "$tmp/uris")
catch2_archive=$home/catch2_$catch2_version.orig.tar.gz
cli11_archive=$(ls "$home"/cli11_"$cli11_version"*.orig.tar.* 2>/dev/null)
if [[ ! -f $catch2_archive || -z $cli11_archive ]]; then
  echo "SKIPPED: Debian 13 no longer has Catch2 $catch2_version and CLI11 $cli11_version, the" \
    "pinned versions (it has: $(grep -o '[a-z0-9]*_[^ ]*orig[^ ]*' "$tmp/uris" | tr '\n' ' '))"
  exit 77
fi
# Debian's CLI11 is a repack (cmake/dependencies.cmake): handed over as a source tree.
as_user 60 tar -xf "$cli11_archive" -C "$home" || { echo "FAIL: cannot unpack $cli11_archive"; exit 1; }
cli11_dir=$home/CLI11-$cli11_version
stage_time sources "$start" "(Debian 13: ${catch2_archive##*/}, ${cli11_archive##*/})"

# ---- the project: its files as git knows them (a clone's), copied into the user's home -----
mkdir -p "$home/lenet-parallel"
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  (cd "$src" && git ls-files -z -co --exclude-standard | tar --null -T - --ignore-failed-read -cf -)
else
  tar -C "$src" --exclude='./build*' --exclude=./data --exclude=./.git -cf - .
fi | tar -C "$home/lenet-parallel" -xf - || { echo "FAIL: cannot copy $src"; exit 1; }
[[ ${#user[@]} -eq 0 ]] || chown -R nobody "$home"
project=$home/lenet-parallel

# From here on, no network where a namespace can be made (unprivileged user namespaces).
if as_user 10 unshare --user --map-current-user --net true 2>/dev/null; then
  offline=(unshare --user --map-current-user --net)
  interfaces=$(as_user 10 awk 'NR > 2 { printf "%s", $1 }' /proc/net/dev)
  check "no network: interfaces $interfaces" test "$interfaces" = "lo:"
else
  echo "  note: no network namespace here (user namespaces off): every source is a local file"
fi
uid=$(as_user 10 id -u)
check "the build's user is not root (uid $uid, $(as_user 10 id -un))" test "$uid" -ne 0

configure=(cmake -S "$project" -DCMAKE_CXX_COMPILER="$cxx" -DLENET_MPI=OFF -DLENET_CUDA=OFF
  -DLENET_TINYDNN=OFF -DLENET_DLIB=OFF -DLENET_SMPI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_CLI11=ON -DCMAKE_DISABLE_FIND_PACKAGE_Catch2=ON
  -DFETCHCONTENT_SOURCE_DIR_CLI11="$cli11_dir")

# ---- attack: Catch2's archive with one byte changed ----------------------------------------
cp "$catch2_archive" "$home/changed.tar.gz"
printf 'X' | dd of="$home/changed.tar.gz" bs=1 seek=100000 conv=notrunc status=none
start=$SECONDS
if as_user 300 "${configure[@]}" -B "$home/attack" -DLENET_CATCH2_URL="$home/changed.tar.gz" \
  >"$tmp/attack.log" 2>&1; then
  echo "FAIL attack: a changed Catch2 archive was accepted"
  exit 1
fi
stage_time attack "$start"
check "configure stopped at Catch2's hash: $(grep -m1 -o 'does not match expected value' "$tmp/attack.log")" \
  grep -q "does not match expected value" "$tmp/attack.log"
rm -rf "$home/attack" "$home/changed.tar.gz"

# ---- the user's build: configure, build, test, install, run ---------------------------------
build=$home/build
user_stage configure 300 "${configure[@]}" -B "$build" -DLENET_CATCH2_URL="$catch2_archive"
said() { grep -m1 "lenet: $1" "$tmp/configure.log" | sed 's/^-- //'; }
check "CLI11 from the handed copy: $(said CLI11)" \
  grep -q "lenet: CLI11 not found: using CLI11 $cli11_version from $cli11_dir" "$tmp/configure.log"
check "Catch2 from the handed copy: $(said Catch2)" \
  grep -q "lenet: Catch2 not found: using Catch2 $catch2_version from $catch2_archive" \
  "$tmp/configure.log"

# What the tests below run (and install copies), not every program.
mapfile -t targets < <(test_targets "$build" as_user 60 ctest --test-dir "$build" -L "serial|openmp")
check "targets: ${targets[*]}" test "${#targets[@]}" -gt 0
user_stage build 1200 cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
check "the programs include the handed CLI11 ($cli11_dir/include)" \
  grep -qE -- "(-I|-isystem )$cli11_dir/include" "$build/compile_commands.json"
check "the tests include the fetched Catch2 ($build/_deps/catch2-src/src)" \
  grep -qE -- "(-I|-isystem )$build/_deps/catch2-src/src" "$build/compile_commands.json"

user_stage test 600 ctest --test-dir "$build" -L "serial|openmp" --no-tests=error -j "$(nproc)"
check "ctest: $(grep -m1 'tests passed' "$tmp/test.log")" grep -q '100% tests passed' "$tmp/test.log"

prefix=$home/lenet
user_stage install 120 cmake --install "$build" --prefix "$prefix"
check "installed: $(ls "$prefix/bin" | tr '\n' ' ')" \
  test -x "$prefix/bin/lenet-serial" -a -x "$prefix/bin/lenet-openmp"
check "nothing of CLI11 or Catch2 installed" \
  test -z "$(find "$prefix" -ipath '*cli11*' -o -ipath '*catch2*' -o -name '*.hpp')"

# The build tree's lenet-serial saves its parameters; both installed programs must give the same
# bits.
user_stage run 120 bash -c '"$1" --data "$4" --quiet --save "$5" &&
  "$2" --data "$4" --quiet --verify "$5" --identical &&
  "$3" --data "$4" --quiet --threads 2 --verify "$5" --identical' _ \
  "$build/backend_serial/lenet-serial" "$prefix/bin/lenet-serial" "$prefix/bin/lenet-openmp" \
  "$project/tests/vectors/data" "$home/build.ck"
check "both installed programs verified: $(grep -c 'Verification *= SUCCESSFUL' "$tmp/run.log") of 2" \
  test "$(grep -c 'Verification *= SUCCESSFUL' "$tmp/run.log")" -eq 2
echo "no-root build from local copies of CLI11 $cli11_version and Catch2 $catch2_version: passed"
