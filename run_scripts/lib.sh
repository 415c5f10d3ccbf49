# run_scripts/lib.sh: what the run scripts share. Sourced, not run:
#   PROG="omp_sweep.sh"; source "$SCRIPT_DIR/../run_scripts/lib.sh"
# Errors go to stderr as one line "PROG: error: ..." with exit code 2, like the executables'.

LIB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd) # the repository

die() {
  echo "${PROG}: error: $*" >&2
  exit 2
}
say() { echo "${PROG}: $*"; }

# Argument checks for the option loops. need FLAG [VALUE]: the flag must have a value.
need() { [[ $# -ge 2 && -n "$2" ]] || die "$1 needs a value (see --help)"; }
positive() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "$1: expected a positive integer, got '$2'"; }
count() { [[ "$2" =~ ^[0-9]+$ ]] || die "$1: expected a whole number, got '$2'"; }
# The links of multihost.sh --latency: a one-way latency (1ms, 500us) and a rate in tc's bit
# units, any case (10mbit, 500kbit, 1Gbit), above zero.
latency_arg() {
  [[ "$2" =~ ^[0-9]+(\.[0-9]+)?(ms|us)$ ]] || die "$1: expected a time such as 1ms or 500us, got '$2'"
}
rate_arg() {
  [[ "${2,,}" =~ ^([0-9]+(\.[0-9]+)?)(kbit|mbit|gbit)$ ]] &&
    awk -v n="${BASH_REMATCH[1]}" 'BEGIN { exit !(n > 0) }' ||
    die "$1: expected a rate such as 10mbit, 500kbit or 1gbit, got '$2'"
}

# median: the median of the numbers on stdin, one a line (of two middle ones, their mean).
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# lr_for B: docs/network.md's learning rate for batch B (1: 0.05, 8: 0.3, 32: 0.5, 128: 1.0);
# between those, the rate of the next smaller batch of the table: too large a rate kills
# training, a smaller one only slows it.
lr_for() {
  if (($1 >= 128)); then
    echo 1.0
  elif (($1 >= 32)); then
    echo 0.5
  elif (($1 >= 8)); then
    echo 0.3
  else
    echo 0.05
  fi
}

# kernels_of EXE: the kernels an executable was built with, comma-separated, the default last,
# from its --list-kernels (one name a line, made for scripts); empty if it has no such flag.
kernels_of() { "$1" --list-kernels 2>/dev/null | paste -sd, - || true; }

# require_built EXE...: each must exist, or the user is told to build first.
require_built() {
  local exe
  for exe in "$@"; do
    [[ -x "$exe" ]] || die "$exe not found: build first (bash run_scripts/setup.sh)"
  done
}

# A source tree or an installed copy: `cmake --install build --prefix P` puts the sweep scripts,
# this file and reports/ in P/share/lenet-parallel, and the programs in P/bin.
# default_build: the sweeps' --build default, ROOT/build in a source tree, P in an installed copy.
# program DIR NAME: executable NAME of DIR, a build folder (DIR/backend_X/NAME) or a prefix
# (DIR/bin/NAME).
# results_dir NAME: a new results folder's path, under ROOT/results in a source tree, under
# ./results in an installed copy (whose folder may be read-only).
installed_copy() { [[ ! -f $LIB_ROOT/CMakeLists.txt ]]; }
default_build() {
  if installed_copy; then (cd "$LIB_ROOT/../.." && pwd); else echo "$LIB_ROOT/build"; fi
}
program() {
  local sub=${2#lenet-}
  sub=${sub%%-*}
  if [[ -x $1/bin/$2 && ! -e $1/backend_$sub/$2 ]]; then echo "$1/bin/$2"; else echo "$1/backend_$sub/$2"; fi
}
results_dir() {
  if installed_copy; then echo "$PWD/results/$1"; else echo "$LIB_ROOT/results/$1"; fi
}

# build_dir_for ROOT [COMPILER]: setup.sh's and test.sh's build directory: ROOT/build, or one of
# its own per compiler (ROOT/build-clang++ for clang++): CMake cannot change a build's compiler.
build_dir_for() { echo "$1/build${2:+-$(basename "$2")}"; }

# programs_of BUILD_DIR: the lenet-* executables that BUILD_DIR is configured to build (not
# whatever an earlier configuration left there), space-separated.
programs_of() {
  local available t found=()
  available=$(cmake --build "$1" --target help)
  for t in lenet-serial lenet-openmp lenet-mpi lenet-cuda; do
    grep -qE "(^|\.\.\. )$t(:|\$)" <<<"$available" && found+=("$t")
  done
  echo "${found[*]}"
}

# python_with MODULE: the first python3 that can import MODULE: the one on PATH (a virtual
# environment's, pyenv's), then Debian's /usr/bin/python3, which has the python3-* packages.
python_with() {
  local py
  for py in "$(command -v python3)" /usr/bin/python3; do
    if [[ -x $py ]] && "$py" -c "import $1" 2>/dev/null; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

# plot_python: the python3 that writes the reports and plots, or exit 2 saying how to get one.
#   python=$(plot_python)
plot_python() {
  python_with matplotlib || die "no python3 that can import matplotlib (tried" \
    "$(command -v python3 || echo "python3 on PATH"), /usr/bin/python3): apt-get install python3-matplotlib"
}

# report NAME ARGS...: one of the reports of reports/ (python3 -m reports NAME ARGS), run by
# plot_python's python3. Call plot_python once before a long sweep, so that a missing
# matplotlib stops it before the runs rather than after.
report() {
  local python
  python=$(plot_python) || exit 2
  PYTHONPATH="$LIB_ROOT${PYTHONPATH:+:$PYTHONPATH}" "$python" -m reports "$@"
}

# require_data DIR: the --data directory must exist.
require_data() {
  [[ -d "$1" ]] || die "--data: no directory $1 (bash run_scripts/get_data.sh)"
}

# load_note: the load average, printed before and after a sweep: other work on the machine
# skews timings, and this says how much there was.
load_note() { echo "load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"; }

# open_out NAME: the sweep's output folder (--out, else results/NAME-date-time) with an empty
# runs.csv and runs.log; sets out_dir, csv and log.
open_out() {
  out_dir=${out_dir:-"$(results_dir "$1-$(date +%Y%m%d-%H%M%S)")"}
  mkdir -p "$out_dir"
  csv="${out_dir}/runs.csv"
  log="${out_dir}/runs.log"
  rm -f "$csv" "$log"
}

# csv_get FILE COLUMN...: the COLUMNs' values in the last row of a CSV file that the executables
# wrote (--csv), separated by spaces (only the last may hold spaces: read -r a b). csv_rows FILE COLUMN...: the named COLUMNs of every row of FILE, a line per row, the
# values separated by spaces (for columns whose values hold none: numbers, names of links or
# platforms). Both read the file with reports/runs.py (python3 -m reports column), the one CSV
# reader of the project: columns by header name, the quoted device column as RFC 4180 reads it.
# Errors: one line "PROG: error: FILE has no column ...", status 1.
csv_get() { csv_reader --last "$@"; }
csv_rows() { csv_reader "$@"; }
csv_reader() {
  local python
  python=$(command -v python3 || echo /usr/bin/python3)
  [[ -x $python ]] || die "no python3 to read the CSV with (apt-get install python3)"
  PYTHONPATH="$LIB_ROOT${PYTHONPATH:+:$PYTHONPATH}" "$python" -m reports column --prog "${PROG:-lib.sh}" "$@"
}

# run LABEL COMMAND...: one run of an executable given --csv "$csv"; its output goes to the log,
# and the time per epoch of the row it added is printed after LABEL.
run() {
  local label=$1
  shift
  "$@" >>"$log" 2>&1 || die "failed: $* (see $log)"
  printf '  %-36s %s s/epoch\n' "$label" "$(csv_get "$csv" seconds_per_epoch)"
}
