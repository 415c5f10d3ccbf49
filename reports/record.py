"""compare.sh --record and the sweeps' --record: their measurements into the docs.

  python3 -m reports record --runs RUNS_CSV --command TEXT [--sweep threads|ranks] [--root DIR]

RUNS_CSV holds the rows the runs appended with --csv. Without --sweep (compare.sh's), one row of
ROOT/docs/data/epoch_times.csv per CPU configuration: lenet-serial, lenet-openmp and lenet-mpi
with one thread a rank, each with its median seconds per epoch. With --sweep (omp_sweep.sh's
threads, mpi_sweep.sh's ranks), one row of docs/data/sweeps.csv per point of the sweep report:
median, range, serial's median, speedup and whether the parameters are serial's bits. Every row
names its date (UTC), this machine and its cores, the command and the commit it measured. Then
it renders the docs' generated tables again, as `python3 -m reports tables --write` does. A CSV
with a run that failed verification, or with nothing to record, is refused and nothing is
written: the docs hold only verified figures.
"""
import argparse
import csv
import datetime
import io
import os
import statistics
import subprocess
import sys

from . import runs, tables
from .files import write_text

PROG = "reports record"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLUMNS = ("backend", "kernels", "strategy", "threads", "ranks", "device", "batch",
           "seconds_per_epoch", "verification", "train_images")


def machine():
    """The CPU's model name and widest vectors, from /proc/cpuinfo: "AMD EPYC 9B14 (AVX-512)"."""
    model, flags = "unknown CPU", set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and model == "unknown CPU":
                    model = value.strip()
                elif key.strip() in ("flags", "Features") and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    vectors = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else ""
    return f"{model} ({vectors})" if vectors else model


def commit(root):
    """The commit measured, "commit abc1234", with "+ local changes" where the tree differs."""
    def git(*args):
        return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    head = git("rev-parse", "--short", "HEAD")
    if head.returncode != 0:
        return "no git commit (not a clone)"
    dirty = git("status", "--porcelain", "--untracked-files=no").stdout.strip()
    return f"commit {head.stdout.strip()}" + (" + local changes" if dirty else "")


def rows_of(measured, command, source, today, host, cores):
    """epoch_times.csv's rows for the CPU configurations of the run rows MEASURED."""
    groups = {}
    for r in measured:
        if r["device"] not in ("", "cpu") or r["backend"] not in ("serial", "openmp", "mpi"):
            continue  # GPU, PyTorch and peer rows go elsewhere (peers.csv)
        if r["backend"] == "mpi" and int(r["threads"]) != 1:
            continue  # hybrid points: not a column of this table
        workers = r["ranks"] if r["backend"] == "mpi" else r["threads"]
        key = (f"lenet-{r['backend']}", r["kernels"], workers,
               "-" if r["backend"] == "serial" else r["strategy"], r["batch"])
        groups.setdefault(key, []).append(r)
    out = []
    for (backend, kernels, workers, strategy, batch), rs in groups.items():
        median = statistics.median(float(r["seconds_per_epoch"]) for r in rs)
        checked = ("verified against serial" if all(r["verification"] == "SUCCESSFUL" for r in rs)
                   else "not verified")
        note = (f"medians of {len(rs)} interleaved repeats, {checked}; "
                f"{rs[0]['train_images']} training images")
        out.append([today, host, cores, command, source, backend, kernels, workers, strategy,
                    batch, f"{median:.3f}", note])
    return out


def sweep_rows_of(measured, x, command, source, today, host, cores):
    """sweeps.csv's rows for the points of a sweep's run rows MEASURED (reports/sweep.py's)."""
    from . import sweep
    _, points = sweep.summarise(measured, x)
    out = []
    for (backend, strategy, kernels, batch), by_x in sorted(points.items()):
        for xv, p in sorted(by_x.items()):
            if p["speedup"] is None:
                continue  # no serial baseline in the same CSV: no speedup to record
            same = {True: "bit-identical", False: "differs", None: ""}[p["identical"]]
            out.append([today, host, cores, command, source, f"lenet-{backend}", strategy,
                        kernels, str(batch), str(xv), f"{p['median']:.3f}",
                        f"{p['min']:.3f} to {p['max']:.3f}", f"{p['serial']:.3f}",
                        f"{p['speedup']:.2f}", same, f"medians of {p['runs']}"])
    return out


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--runs", required=True, help="compare.sh's runs.csv")
    p.add_argument("--command", required=True, help="the command that measured them")
    p.add_argument("--sweep", choices=["threads", "ranks"],
                   help="RUNS_CSV is a sweep's, varying this column: rows go to sweeps.csv")
    p.add_argument("--root", default=ROOT, help="the repository whose docs to update")
    a = p.parse_args(argv)
    measured = runs.read(a.runs, COLUMNS + (("epochs", "lr", "seed", "param_crc32")
                                            if a.sweep else ()), prog=PROG)
    failed = [r for r in measured if r["verification"] == "UNSUCCESSFUL"]
    if failed:
        sys.exit(f"{PROG}: error: {a.runs}: {len(failed)} run(s) failed verification: "
                 "nothing recorded")
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    where = (a.command, commit(ROOT), today, machine(), str(os.cpu_count()))
    if a.sweep:
        new, name = sweep_rows_of(measured, a.sweep, *where), "sweeps.csv"
    else:
        new, name = rows_of(measured, *where), "epoch_times.csv"
    if not new:
        sys.exit(f"{PROG}: error: {a.runs} has no "
                 + ("point with a serial baseline" if a.sweep else "CPU backend's row")
                 + ": nothing recorded")
    path = os.path.join(a.root, "docs", "data", name)
    if not os.path.isfile(path):
        sys.exit(f"{PROG}: error: {path} not found: --record writes the docs of a source tree")
    with open(path, newline="", encoding="utf-8") as f:
        text = f.read()
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(new)
    write_text(path, text + ("" if text.endswith("\n") else "\n") + buf.getvalue())
    print(f"{PROG}: {len(new)} rows added to {path}")
    return tables.main(["--root", a.root, "--write"])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
