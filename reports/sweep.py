#!/usr/bin/env python3
"""Turns a scaling sweep's CSV (the rows the executables append with --csv) into a Markdown
table and a speedup plot. Used by omp_sweep.sh (x = threads) and the MPI sweep (x = ranks).

  reports/sweep.py --csv runs.csv --x threads|ranks --out PREFIX [--title TEXT]

writes PREFIX.md and PREFIX.png. Rows are grouped by (backend, strategy, kernels, batch) and
the x value; each point is the median time per epoch of its repeats. The baseline of a point
is the median of the serial rows with the same batch, kernels, epochs, images, lr and seed
measured in the same CSV, so speedups compare runs taken side by side. A point is marked
bit-identical when every repeat's parameter CRC-32 equals the serial baseline's.
"""
import argparse
import csv
import statistics
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit(f"reports/sweep.py: error: {sys.executable} cannot import matplotlib"
             " (apt-get install python3-matplotlib, or run it with a python3 that can)")

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", required=True, help="runs.csv written by the executables' --csv")
    p.add_argument("--x", required=True, choices=["threads", "ranks"],
                   help="the column the sweep varies")
    p.add_argument("--out", required=True, help="output prefix: PREFIX.md and PREFIX.png")
    p.add_argument("--title", default="Speedup against lenet-serial", help="plot and table title")
    return p.parse_args()


def read_rows(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"reports/sweep.py: error: cannot read {path}: {e.strerror}")
    if not rows:
        sys.exit(f"reports/sweep.py: error: {path} has no runs")
    return rows


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


def plot(path, title, x, points):
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
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
    ax.set_xlabel(f"{x} (count)")
    ax.set_ylabel("speedup vs lenet-serial (time ratio, x)")
    ax.set_title(title)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)


def main():
    args = parse_args()
    rows = read_rows(args.csv)
    baselines, points = summarise(rows, args.x)
    if not points:
        sys.exit(f"reports/sweep.py: error: {args.csv} has only serial runs")
    with open(args.out + ".md", "w") as f:
        f.write(markdown(args.title, args.x, rows, baselines, points))
    plot(args.out + ".png", args.title, args.x, points)
    print(f"reports/sweep.py: wrote {args.out}.md and {args.out}.png")


if __name__ == "__main__":
    main()
