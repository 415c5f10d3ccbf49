"""Turns a scaling sweep's CSV (the rows the executables append with --csv) into a Markdown
table and a speedup plot. Used by omp_sweep.sh (x = threads) and the MPI sweep (x = ranks).

  python3 -m reports sweep --csv runs.csv --x threads|ranks --out PREFIX [--title TEXT]
                           [--cores N]

writes PREFIX.md and PREFIX.png. Rows are grouped by (backend, strategy, kernels, batch) and
the x value; each point is the median time per epoch of its repeats. The baseline of a point
is the median of the serial rows with the same batch, kernels, epochs, images, lr and seed
measured in the same CSV, so speedups compare runs taken side by side. A point is marked
bit-identical when every repeat's parameter CRC-32 equals the serial baseline's. For ranks,
PREFIX.md also splits each point's time into compute and communication.
"""
import argparse
import statistics
import sys
from collections import defaultdict

from . import runs
from .files import write_text

PROG = "reports sweep"
COLUMNS = ("backend", "strategy", "kernels", "threads", "ranks", "batch", "epochs",
           "train_images", "test_images", "lr", "seed", "seconds_per_epoch", "test_accuracy",
           "param_crc32", "comm_seconds", "host")


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", required=True, help="runs.csv written by the executables' --csv")
    p.add_argument("--x", required=True, choices=["threads", "ranks"],
                   help="the column the sweep varies")
    p.add_argument("--out", required=True, help="output prefix: PREFIX.md and PREFIX.png")
    p.add_argument("--title", default="Speedup against lenet-serial", help="plot and table title")
    p.add_argument("--cores", type=int, help="the machine's cores, to mark oversubscribed points")
    return p.parse_args(argv)


# What must agree for two runs to be the same experiment (apart from the parallel setup).
def experiment(r):
    return (int(r["batch"]), r["kernels"], int(r["epochs"]), int(r["train_images"]), r["lr"],
            r["seed"])


def series_key(r):
    return (r["backend"], r["strategy"], r["kernels"], int(r["batch"]))


def series_label(key):
    backend, strategy, kernels, batch = key
    parts = [backend] + ([strategy] if strategy not in ("", "-") else []) + [kernels]
    return f"{' '.join(parts)}, B = {batch}"


def summarise(rows, x):
    """Returns (baselines, points): baselines[experiment] = (median s, crcs, accuracy);
    points[series][x] = dict of the point's numbers."""
    serial = defaultdict(list)
    for r in rows:
        if r["backend"] == "serial":
            serial[experiment(r)].append(r)
    baselines = {
        e: (statistics.median(float(r["seconds_per_epoch"]) for r in rs),
            {r["param_crc32"] for r in rs}, float(rs[0]["test_accuracy"]))
        for e, rs in serial.items()
    }
    grouped = defaultdict(list)
    for r in rows:
        if r["backend"] != "serial":
            grouped[(series_key(r), int(r[x]), experiment(r))].append(r)
    points = defaultdict(dict)
    for (series, xv, exp), rs in grouped.items():
        seconds = [float(r["seconds_per_epoch"]) for r in rs]
        median = statistics.median(seconds)
        base = baselines.get(exp)
        crcs = {r["param_crc32"] for r in rs}
        points[series][xv] = {
            "runs": len(rs),
            "median": median,
            "min": min(seconds),
            "max": max(seconds),
            "accuracy": float(rs[0]["test_accuracy"]),
            "speedup": base[0] / median if base else None,
            "serial": base[0] if base else None,
            # One CRC shared by every repeat and by serial: bit-identical.
            "identical": None if not base else (len(crcs) == 1 and crcs == base[1]),
        }
    return baselines, points


def markdown(title, x, rows, baselines, points):
    out = [f"# {title}", ""]
    first = rows[0]
    out.append(f"Data: {int(first['train_images'])} training images, "
               f"{int(first['test_images'])} test images, {first['epochs']} epoch(s) per run. "
               "Time: median seconds per epoch over the repeats (min to max in brackets). "
               "Speedup and efficiency against lenet-serial with the same batch and kernels, "
               "measured in the same sweep.")
    out.append("")
    out.append("| series | " + x + " | runs | s/epoch | serial s/epoch | speedup | efficiency "
               "| test acc (%) | params = serial |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    for series in sorted(points):
        for xv in sorted(points[series]):
            p = points[series][xv]
            speedup = f"{p['speedup']:.2f}" if p["speedup"] else "-"
            eff = f"{100 * p['speedup'] / xv:.0f}%" if p["speedup"] else "-"
            serial = f"{p['serial']:.3f}" if p["serial"] else "no baseline"
            same = {True: "bit-identical", False: "differs", None: "-"}[p["identical"]]
            out.append(f"| {series_label(series)} | {xv} | {p['runs']} | {p['median']:.3f} "
                       f"({p['min']:.3f} to {p['max']:.3f}) | {serial} | {speedup} | {eff} "
                       f"| {p['accuracy']:.2f} | {same} |")
    out.append("")
    out.append("Serial baselines: " + "; ".join(
        f"{kernels} B = {batch}: {s:.3f} s/epoch, {acc:.2f}%"
        for (batch, kernels, *_), (s, _, acc) in sorted(baselines.items())) + ".")
    out.append("")
    return "\n".join(out)


def communication(rows, cores):
    """The ranks sweep's compute and communication per point, median over the repeats.
    comm_seconds is the slowest rank's time inside the step's collective (waiting included),
    over all epochs; seconds_per_epoch is the wall time of an epoch."""
    points = defaultdict(list)
    for r in rows:
        if r["backend"] == "mpi":
            key = (r["strategy"], r["kernels"], int(r["batch"]), int(r["ranks"]), int(r["threads"]))
            points[key].append(r)
    out = ["", "## Compute and communication", "",
           "Per epoch, median over the repeats. Communication: the slowest rank's time inside the "
           "step's collective, waiting for the other ranks included.", "",
           "| mode | kernels | B | ranks | threads | s/epoch | compute s | comm s | comm share | "
           "note |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for (strategy, kernels, batch, ranks, threads), rs in sorted(points.items()):
        total = statistics.median(float(r["seconds_per_epoch"]) for r in rs)
        comm = statistics.median(float(r["comm_seconds"]) / int(r["epochs"]) for r in rs)
        note = "oversubscribed" if cores and ranks * threads > cores else ""
        out.append(f"| {strategy} | {kernels} | {batch} | {ranks} | {threads} | {total:.3f} | "
                   f"{total - comm:.3f} | {comm:.3f} | {100 * comm / total:.0f}% | {note} |")
    return "\n".join(out) + "\n"


def plot(path, title, x, rows, points):
    from .plots import figure, save  # matplotlib: only the plot needs it (record does not)
    fig, ax = figure()
    xs_all = sorted({xv for series in points.values() for xv in series})
    for series in sorted(points):
        xs = [xv for xv in sorted(points[series]) if points[series][xv]["speedup"]]
        if xs:
            ax.plot(xs, [points[series][xv]["speedup"] for xv in xs], marker="o",
                    label=series_label(series))
    if xs_all:
        ax.plot(xs_all, xs_all, linestyle="--", color="grey", label=f"ideal (speedup = {x})")
        ax.axhline(1.0, linestyle=":", color="black", linewidth=1, label="serial")
        ax.set_xticks(xs_all)
    repeats = max(p["runs"] for series in points.values() for p in series.values())
    first = rows[0]
    ax.set_xlabel(f"{x} (count)")
    ax.set_ylabel("speedup vs lenet-serial (time ratio, x)")
    ax.set_title(f"{title}\n{int(first['train_images'])} training images, {first['epochs']} "
                 f"epoch(s); on {runs.machine(rows)}; median of {repeats} repeat(s)",
                 fontsize=11)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, path)


def main(argv=None):
    args = parse_args(argv)
    rows = runs.read(args.csv, COLUMNS, prog=PROG)
    baselines, points = summarise(rows, args.x)
    if not points:
        sys.exit(f"{PROG}: error: {args.csv} has only serial runs")
    md = markdown(args.title, args.x, rows, baselines, points)
    if args.x == "ranks":
        md += communication(rows, args.cores)
    write_text(args.out + ".md", md)
    plot(args.out + ".png", args.title, args.x, rows, points)
    print(f"{PROG}: wrote {args.out}.md and {args.out}.png")
    return 0
