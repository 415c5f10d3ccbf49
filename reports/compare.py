"""compare.sh's report: its CSV files -> summary.md and PNG plots (also on Colab).

  python3 -m reports compare --runs runs.csv [--timing timing.csv] --out DIR [--title TEXT]

runs.csv holds the timed repeats (the rows the executables append with --csv); the report takes
the median time per configuration and compares it with the serial run of the same batch and
kernels measured in the same session. timing.csv holds one --timing run per configuration
(per-layer seconds), for the breakdown plot. Exits 1 if any run failed verification.
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

from . import runs
from .files import write_text
from .plots import colours, figure, plain_numbers, save

PROG = "reports compare"
# Other libraries' networks (peers/): timed beside the backends, never verified against them.
PEERS = ("tiny-dnn", "dlib")
LAYERS = ["c1_forward", "s1_forward", "f_forward", "f_backward", "s1_backward", "c1_backward",
          "reduce", "update", "comm_seconds"]
# The columns this report reads: a CSV without one is refused, naming it.
COLUMNS = ("backend", "kernels", "strategy", "threads", "ranks", "device", "batch", "epochs",
           "seconds_per_epoch", "images_per_s", "test_accuracy", "verification", "host")


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
    for key, s in summary.items():  # a baseline of other kernels (e.g. PyTorch rows)
        if key[0] == "serial" and key[1] == "ref" and key[6] == batch:
            return s["seconds"]
    return None


def table(summary, title):
    lines = [f"# Comparison: {title}", "",
             "Median seconds per epoch (training loop only) of each configuration's runs (the "
             "runs column; compare.sh's live lines show each run and the same median); speedup "
             "against lenet-serial with "
             "the same kernels and batch, measured in the same session; efficiency = "
             "speedup / (threads x ranks); max |param - serial| against the serial run of the "
             "same batch and kernels (CUDA, PyTorch and the peers tiny-dnn and dlib: the `ref` kernels).",
             "",
             "| backend | configuration | batch | runs | median s/epoch | images/s | speedup | "
             "efficiency | test acc % | max abs diff | bit-identical | verified |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
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
            f"| {key[0]} | {label(key)} | {key[6]} | {s['runs']} | {s['seconds']:.4f} | "
            f"{s['images_per_s']:.0f} | {speedup:.2f} | {speedup / workers:.2f} | "
            f"{s['accuracy']:.2f} | {s['max_abs'] or '-'} | {s['identical'] or '-'} | {status} |")
    return "\n".join(lines) + "\n"


def subtitle(rows, title):
    """What every plot says under its question: the caller's title (data set, epochs) and the
    machine, from the CSV's host column."""
    return f"{title + ', ' if title else ''}on {runs.machine(rows)}"


def speedup_plot(summary, backend, axis, path, subtitle):
    """Speedup vs threads (OpenMP) or ranks (MPI): a colour per batch size, a line style per
    strategy and kernels; the legend names each once (a dozen lines would need a dozen entries)."""
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
    fig, ax = figure()
    xs = sorted({p[0] for pts in series.values() for p in pts})
    ax.plot([1, xs[-1]], [1, xs[-1]], "k--", lw=1)
    batches = sorted({b for _, _, b in series})
    variants = sorted({(st, t) for st, t, _ in series})
    palette = colours()
    styles = ["o-", "s--", "^:", "D-.", "v-", "x--"]
    for (strategy, kernels, b), pts in sorted(series.items()):
        pts.sort()
        ax.plot([p[0] for p in pts], [p[1] for p in pts],
                styles[variants.index((strategy, kernels)) % len(styles)],
                color=palette[batches.index(b) % len(palette)])
    handles = [ax.plot([], [], "k--", lw=1, label=f"ideal (speedup = {axis})")[0]]
    handles += [ax.plot([], [], "-", color=palette[i % len(palette)], lw=3, label=f"B = {b}")[0]
                for i, b in enumerate(batches)]
    handles += [ax.plot([], [], styles[i % len(styles)], color="grey",
                        label=f"{st} {t}" if st not in ("", "-") else t)[0]
                for i, (st, t) in enumerate(variants)]
    ax.set_xlabel(f"{axis} ({'lenet-openmp --threads' if axis == 'threads' else 'mpirun -np'})")
    ax.set_ylabel("speedup over lenet-serial (same kernels, same batch; time ratio)")
    ax.set_title(f"lenet-{backend}: how much faster with more {axis}?\n{subtitle}",
                 fontsize=11)
    ax.set_xticks(xs)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(handles=handles, fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    save(fig, path)
    return True


def breakdown_plot(timing_rows, path, subtitle, batch):
    """Stacked per-layer seconds per epoch, one bar per configuration (one --timing run)."""
    rows = [r for r in timing_rows if int(r["batch"]) == batch and r["backend"] != "pytorch"]
    if not rows:
        return False
    latest = {config_key(r): r for r in rows}
    keys = sorted(latest, key=lambda k: (k[0] != "serial", k[0], k[1], k[2], k[4], k[3]))
    fig, ax = figure(width=max(10, 0.6 * len(keys) + 4))
    bottom = [0.0] * len(keys)
    for layer in LAYERS:
        vals = [float(latest[k].get(layer) or 0) for k in keys]
        if layer == "comm_seconds":  # the CSV holds the total over epochs
            vals = [v / max(1, int(latest[k]["epochs"])) for v, k in zip(vals, keys)]
        if not any(vals):  # the legend lists only what is drawn
            continue
        ax.bar(range(len(keys)), vals, bottom=bottom,
               label=layer.replace("_seconds", "").replace("_", " "))
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax.set_ylim(0, 1.08 * max(bottom))  # room above the tallest bar
    ax.set_xticks(range(len(keys)))
    ax.set_xticklabels([label(k) for k in keys], rotation=40, ha="right", fontsize=8)
    ax.set_ylabel("seconds per epoch (one --timing run)")
    ax.set_title(f"Where does an epoch's time go? Batch {batch}, per layer\n{subtitle}",
                 fontsize=11)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.grid(axis="y", alpha=0.3)
    save(fig, path)
    return True


def batch_plot(summary, path, subtitle, epochs):
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
    fig, (ax1, ax2) = figure(2, width=14)
    for name, pts in sorted(best.items()):
        bs = sorted(pts)
        ax1.plot(bs, [pts[b]["seconds"] for b in bs], "o-", label=name)
        ax2.plot(bs, [pts[b]["accuracy"] for b in bs], "o-", label=name)
    for ax in (ax1, ax2):
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({b for pts in best.values() for b in pts}))
        plain_numbers(ax.xaxis)
        ax.set_xlabel("batch size B (lr from docs/network.md's table)")
        ax.grid(alpha=0.3)
    ax1.set_yscale("log")
    plain_numbers(ax1.yaxis)
    ax1.set_ylabel("seconds per epoch (each backend's fastest configuration)")
    ax2.set_ylabel(f"test accuracy after {epochs} epoch(s) (%)")
    ax1.set_title("speed", fontsize=10)
    ax2.set_title(f"accuracy after {epochs} epoch(s); verified backends' lines overlap",
                  fontsize=10)
    ax1.legend(fontsize=9)
    fig.suptitle(f"What does a larger batch cost in accuracy, and save in time?\n{subtitle}",
                 fontsize=11)
    save(fig, path)
    return True


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", required=True, help="the timed repeats' CSV")
    ap.add_argument("--timing", help="the --timing runs' CSV (breakdown plots)")
    ap.add_argument("--out", required=True, help="folder for summary.md and the plots")
    ap.add_argument("--title", default="", help="what was run (data set, epochs), for the titles")
    a = ap.parse_args(argv)
    rows = runs.read(a.runs, COLUMNS, prog=PROG)
    os.makedirs(a.out, exist_ok=True)
    summary = summarise(rows)
    md = table(summary, a.title)
    sub = subtitle(rows, a.title)
    medians = f"{sub}; median of {max(s['runs'] for s in summary.values())} run(s) a point"
    plots = []
    if speedup_plot(summary, "openmp", "threads", f"{a.out}/speedup_threads.png", medians):
        plots.append("speedup_threads.png")
    if speedup_plot(summary, "mpi", "ranks", f"{a.out}/speedup_ranks.png", medians):
        plots.append("speedup_ranks.png")
    timing_rows = []  # none where every point was untimed (the peers)
    if a.timing and os.path.exists(a.timing):
        timing_rows = runs.read(a.timing, COLUMNS, prog=PROG, allow_empty=True)
    for b in sorted({int(r["batch"]) for r in timing_rows}):
        if breakdown_plot(timing_rows, f"{a.out}/breakdown_B{b}.png",
                          f"{sub}; one --timing run a configuration", b):
            plots.append(f"breakdown_B{b}.png")
    epochs = "/".join(sorted({r["epochs"] for r in rows}, key=int))
    if batch_plot(summary, f"{a.out}/batch.png", medians, epochs):
        plots.append("batch.png")
    md += "\n" + "\n".join(f"![{p}]({p})" for p in plots) + "\n"
    write_text(f"{a.out}/summary.md", md)
    print(md)
    failed = [label(k) for k, s in summary.items() if not s["verified"]]
    if failed:
        print("FAILED verification: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0
