#!/usr/bin/env python3
"""Turns compare.sh's CSV files into summary.md and PNG plots (matplotlib, also on Colab).

  reports/compare.py --runs runs.csv [--timing timing.csv] --out DIR [--title TEXT]

runs.csv holds the timed repeats (the rows the executables append with --csv); the report takes
the median time per configuration and compares it with the serial run of the same batch and
kernel tier measured in the same session. timing.csv holds one --timing run per configuration
(per-layer seconds), for the breakdown plot. Exits 1 if any run failed verification.
"""
import argparse
import csv
import os
import statistics
import sys
from collections import defaultdict

try:
    import matplotlib
except ImportError:
    sys.exit(f"reports/compare.py: error: {sys.executable} cannot import matplotlib"
             " (apt-get install python3-matplotlib, or run it with a python3 that can)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Other libraries' networks (peers/): timed beside the backends, never verified against them.
PEERS = ("tiny-dnn", "dlib")
LAYERS = ["c1_forward", "s1_forward", "f_forward", "f_backward", "s1_backward", "c1_backward",
          "reduce", "update", "comm_seconds"]


def read_rows(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def config_key(r):
    return (r["backend"], r["kernels"], r["strategy"], int(r["threads"]), int(r["ranks"]),
            r["device"], int(r["batch"]))


def label(key):
    backend, kernels, strategy, threads, ranks, device, _ = key
    parts = [backend]
    if strategy not in ("-", ""):
        parts.append(strategy)
    parts.append(kernels)
    if backend == "mpi":
        parts.append(f"{ranks} ranks x {threads} thr")
    elif backend in ("openmp", "pytorch") + PEERS:
        parts.append(f"{threads} thr")
    if device != "cpu":
        parts.append(device)
    return " ".join(parts)


def summarise(rows):
    """One entry per configuration: median time and the values of its runs."""
    groups = defaultdict(list)
    for r in rows:
        groups[config_key(r)].append(r)
    out = {}
    for key, rs in groups.items():
        out[key] = dict(
            seconds=statistics.median(float(r["seconds_per_epoch"]) for r in rs),
            images_per_s=statistics.median(float(r["images_per_s"]) for r in rs),
            accuracy=float(rs[-1]["test_accuracy"]),
            max_abs=rs[-1].get("max_abs_diff", ""),
            identical=rs[-1].get("bit_identical", ""),
            verified=all(r["verification"] != "UNSUCCESSFUL" for r in rs),
            checked=all(r["verification"] != "NOT PERFORMED" for r in rs),
            runs=len(rs))
    return out


def serial_time(summary, kernels, batch):
    for key, s in summary.items():
        if key[0] == "serial" and key[1] == kernels and key[6] == batch:
            return s["seconds"]
    for key, s in summary.items():  # a baseline of another tier (e.g. PyTorch rows)
        if key[0] == "serial" and key[1] == "ref" and key[6] == batch:
            return s["seconds"]
    return None


def table(summary, title):
    lines = [f"# Comparison: {title}", "",
             "Median seconds per epoch (training loop only); speedup against lenet-serial with "
             "the same kernel tier and batch, measured in the same session; efficiency = "
             "speedup / (threads x ranks); max |param - serial| against the serial run of the "
             "same batch and tier (CUDA, PyTorch and the peers tiny-dnn and dlib: the `ref` tier).",
             "",
             "| backend | configuration | batch | s/epoch | images/s | speedup | efficiency | "
             "test acc % | max abs diff | bit-identical | verified |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(summary, key=lambda k: (k[6], k[0] != "serial", k[0], k[1], k[2], k[4],
                                              k[3])):
        s = summary[key]
        base = serial_time(summary, key[1], key[6])
        workers = key[3] * key[4]
        speedup = base / s["seconds"] if base and s["seconds"] > 0 else float("nan")
        status = "VERIFIED" if s["verified"] and s["checked"] else (
            "FAILED" if not s["verified"] else "not checked")
        if key[0] in PEERS:
            status = "not comparable bit for bit"
        lines.append(
            f"| {key[0]} | {label(key)} | {key[6]} | {s['seconds']:.4f} | "
            f"{s['images_per_s']:.0f} | {speedup:.2f} | {speedup / workers:.2f} | "
            f"{s['accuracy']:.2f} | {s['max_abs'] or '-'} | {s['identical'] or '-'} | {status} |")
    return "\n".join(lines) + "\n"


def speedup_plot(summary, backend, axis, path, title):
    """Speedup vs threads (OpenMP) or ranks (MPI), one line per strategy/tier/batch."""
    series = defaultdict(list)
    for key, s in summary.items():
        if key[0] != backend:
            continue
        base = serial_time(summary, key[1], key[6])
        if base:
            x = key[3] if axis == "threads" else key[4]
            series[(key[2], key[1], key[6])].append((x, base / s["seconds"]))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.5))
    xmax = max(x for pts in series.values() for x, _ in pts)
    ax.plot([1, xmax], [1, xmax], "k--", lw=1, label="ideal")
    # One colour per batch size, one line style and marker per strategy and tier: with a dozen
    # lines, colours alone repeat.
    batches = sorted({b for _, _, b in series})
    variants = sorted({(st, t) for st, t, _ in series})
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles = ["o-", "s--", "^:", "D-.", "v-", "x--"]
    for (strategy, tier, b), pts in sorted(series.items(), key=lambda kv: (kv[0][2], kv[0][:2])):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts],
                styles[variants.index((strategy, tier)) % len(styles)],
                color=colours[batches.index(b) % len(colours)],
                label=f"{strategy} {tier}, B={b}")
    if axis == "threads":  # the peers' single-thread points (a marker each), same baseline
        for key, s in sorted(summary.items()):
            base = serial_time(summary, key[1], key[6])
            if key[0] in PEERS and base:
                ax.plot([key[3]], [base / s["seconds"]], "*P"[PEERS.index(key[0])], ms=10,
                        color=colours[batches.index(key[6]) % len(colours)]
                        if key[6] in batches else "k", label=f"{key[0]} (ref baseline), B={key[6]}")
    ax.set_xlabel(f"{axis}")
    ax.set_ylabel("speedup over lenet-serial (same tier, same batch)")
    ax.set_title(f"lenet-{backend}: speedup vs {axis}\n{title}", fontsize=10)
    ax.set_xticks(sorted({p[0] for pts in series.values() for p in pts}))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def breakdown_plot(timing_rows, path, title, batch):
    """Stacked per-layer seconds per epoch, one bar per configuration (one --timing run)."""
    rows = [r for r in timing_rows if int(r["batch"]) == batch and r["backend"] != "pytorch"]
    if not rows:
        return False
    latest = {config_key(r): r for r in rows}
    keys = sorted(latest, key=lambda k: (k[0] != "serial", k[0], k[1], k[2], k[4], k[3]))
    fig, ax = plt.subplots(figsize=(max(7, 0.6 * len(keys) + 3), 5))
    bottom = [0.0] * len(keys)
    for layer in LAYERS:
        vals = [float(latest[k].get(layer) or 0) for k in keys]
        if layer == "comm_seconds":  # the CSV holds the total over epochs
            vals = [v / max(1, int(latest[k]["epochs"])) for v, k in zip(vals, keys)]
        ax.bar(range(len(keys)), vals, bottom=bottom,
               label=layer.replace("_seconds", "").replace("_", " "))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([label(k) for k in keys], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("seconds per epoch (--timing run)")
    ax.set_title(f"Where the time goes, batch {batch}\n{title}", fontsize=10)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def batch_plot(summary, path, title):
    """Time per epoch and test accuracy vs batch size, for the serial baselines and the best
    configuration of each backend."""
    best = defaultdict(dict)
    for key, s in summary.items():
        name = key[0] if key[0] != "serial" else f"serial {key[1]}"
        b = key[6]
        if b not in best[name] or s["seconds"] < best[name][b]["seconds"]:
            best[name][b] = s
    if not any(len(v) > 1 for v in best.values()):
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.5))
    for name, pts in sorted(best.items()):
        bs = sorted(pts)
        ax1.plot(bs, [pts[b]["seconds"] for b in bs], "o-", label=name)
        ax2.plot(bs, [pts[b]["accuracy"] for b in bs], "o-", label=name)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("batch size B (lr from docs/network.md's table)")
        ax.grid(alpha=0.3)
    ax1.set_yscale("log")
    ax1.set_ylabel("seconds per epoch (fastest configuration)")
    ax2.set_ylabel("test accuracy after the run (%)")
    ax1.set_title("speed", fontsize=10)
    ax2.set_title("accuracy", fontsize=10)
    ax1.legend(fontsize=8)
    fig.suptitle(f"Batch size trades speed for accuracy\n{title}", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", required=True)
    ap.add_argument("--timing")
    ap.add_argument("--out", required=True)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = read_rows(a.runs)
    if not rows:
        sys.exit(f"reports/compare.py: error: --runs: no rows in {a.runs}")
    summary = summarise(rows)
    md = table(summary, a.title)
    plots = []
    if speedup_plot(summary, "openmp", "threads", f"{a.out}/speedup_threads.png", a.title):
        plots.append("speedup_threads.png")
    if speedup_plot(summary, "mpi", "ranks", f"{a.out}/speedup_ranks.png", a.title):
        plots.append("speedup_ranks.png")
    timing_rows = read_rows(a.timing)
    for b in sorted({int(r["batch"]) for r in timing_rows}):
        if breakdown_plot(timing_rows, f"{a.out}/breakdown_B{b}.png", a.title, b):
            plots.append(f"breakdown_B{b}.png")
    if batch_plot(summary, f"{a.out}/batch.png", a.title):
        plots.append("batch.png")
    md += "\n" + "\n".join(f"![{p}]({p})" for p in plots) + "\n"
    tmp = f"{a.out}/summary.md.tmp"
    with open(tmp, "w") as f:
        f.write(md)
    os.replace(tmp, f"{a.out}/summary.md")
    print(md)
    failed = [label(k) for k, s in summary.items() if not s["verified"]]
    if failed:
        print("FAILED verification: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
