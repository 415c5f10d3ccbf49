"""scale_sim.sh --shapes' report: shapes.csv -> shapes.md (per batch size, the seconds per epoch
of every shape: nodes x ranks per node x threads per rank, the fastest per node count marked,
and where adding nodes stops paying) and shapes-B.png (seconds per epoch against nodes, one line
per ranks-per-node).

  python3 -m reports shapes SHAPES_CSV OUT_DIR EPOCH_IMAGES INTRA_NODE_SOURCE
"""
import argparse
import os
from collections import defaultdict

from . import runs
from .files import write_text
from .plots import figure, plain_numbers, save

PROG = "reports shapes"
COLUMNS = ("platform", "algorithm", "batch", "nodes", "ranks_per_node", "threads", "sample_us",
           "seconds_per_epoch")

# Doubling the nodes "pays" while it cuts the epoch's time by at least this factor.
PAYS = 1.1
# "Close to the fastest", for the cheapest allocation worth having.
CLOSE = 1.2


def shape(r):
    return f"{r['ranks_per_node']} x {r['threads']}"


def ranks_x_threads(ranks, threads):
    return (f"{ranks} rank{'s' if ranks > 1 else ''} x {threads} "
            f"thread{'s' if threads > 1 else ''}")


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("shapes_csv", help="scale_sim.sh --shapes' shapes.csv")
    ap.add_argument("out", help="folder for shapes.md and the plots")
    ap.add_argument("epoch_images", type=int, help="images per epoch of the predictions")
    ap.add_argument("intra", help="where the intra-node figures came from, for the text")
    a = ap.parse_args(argv)
    out, epoch_images, intra = a.out, a.epoch_images, a.intra
    rows = runs.read(a.shapes_csv, COLUMNS, prog=PROG)
    os.makedirs(out, exist_ok=True)
    by_batch = defaultdict(list)
    for r in rows:
        by_batch[int(r["batch"])].append(r)
    first = rows[0]
    cores = int(first["ranks_per_node"]) * int(first["threads"])
    lines = [
        "# Which allocation shape: nodes x ranks per node x threads per rank", "",
        f"lenet-mpi ({first['algorithm']} allreduce), simulated with SimGrid SMPI on platform "
        f"`{first['platform']}`, nodes of {cores} cores, every shape filling them (ranks per "
        f"node x threads per rank = {cores}). Predicted seconds per epoch of {epoch_images} "
        f"images. Compute: {first['sample_us']} us per sample; threads share a rank's samples in "
        f"chunks of 16 (charged, not simulated: SMPI runs no threads). Inside a node the ranks "
        f"talk through its loopback at the intra-node figures of {intra}; between nodes, the "
        f"platform's links.", ""]
    for batch, rs in sorted(by_batch.items()):
        nodes = sorted({int(r["nodes"]) for r in rs})
        shapes = sorted({(int(r["ranks_per_node"]), int(r["threads"])) for r in rs})
        cell = {(int(r["nodes"]), int(r["ranks_per_node"])): r for r in rs}
        best = {n: min((r for r in rs if int(r["nodes"]) == n),
                       key=lambda r: float(r["seconds_per_epoch"])) for n in nodes}
        lines += [f"## B = {batch}", "",
                  "| nodes | " + " | ".join(ranks_x_threads(rp, t) for rp, t in shapes) +
                  " | fastest | speedup over 1 node |",
                  "|---|" + "---|" * (len(shapes) + 2)]
        t1 = float(best[nodes[0]]["seconds_per_epoch"])
        for n in nodes:
            cells = []
            for rp, _ in shapes:
                r = cell.get((n, rp))
                if r is None:
                    cells.append("-")  # more ranks than samples in a batch, or than 1024
                    continue
                v = f"{float(r['seconds_per_epoch']):.4g}"
                cells.append(f"**{v}**" if r is best[n] else v)
            b = best[n]
            lines.append(f"| {n} | " + " | ".join(cells) +
                         f" | {shape(b)} | {t1 / float(b['seconds_per_epoch']):.2f}x |")
        fastest = min(rs, key=lambda r: float(r["seconds_per_epoch"]))
        # Where adding nodes stops paying: the first node count that no larger one beats by
        # more than PAYS (a single doubling may gain nothing while a larger one gains again).
        t = {n: float(best[n]["seconds_per_epoch"]) for n in nodes}
        stop = next((n for i, n in enumerate(nodes[:-1])
                     if t[n] <= PAYS * min(t[m] for m in nodes[i + 1:])), None)
        lines += ["", f"Fastest: {fastest['nodes']} node(s) x "
                      f"{ranks_x_threads(int(fastest['ranks_per_node']), int(fastest['threads']))}"
                      f" per node, {float(fastest['seconds_per_epoch']):.4g} s per epoch. " +
                  (f"Adding nodes stops paying at {stop} node(s): no larger allocation is more "
                   f"than {round((PAYS - 1) * 100)}% faster." if stop else
                   f"Larger allocations still paid at the largest simulated ({nodes[-1]} "
                   f"node(s)): more than {round((PAYS - 1) * 100)}% faster than "
                   f"{nodes[-2] if len(nodes) > 1 else nodes[-1]}."), ""]
        cheap = next(n for n in nodes if t[n] <= CLOSE * float(fastest["seconds_per_epoch"]))
        shape_of = ranks_x_threads(int(best[cheap]["ranks_per_node"]), int(best[cheap]["threads"]))
        lines[-2] += (f" The fewest nodes within {round((CLOSE - 1) * 100)}% of the fastest: "
                      f"{cheap} ({shape_of} per node, {t[cheap]:.4g} s).")
        plot(batch, rs, nodes, shapes, best, out, first, cores, epoch_images)
    write_text(os.path.join(out, "shapes.md"), "\n".join(lines) + "\n")


def plot(batch, rs, nodes, shapes, best, out, first, cores, epoch_images):
    fig, ax = figure()
    for rp, t in shapes:
        pts = sorted((int(r["nodes"]), float(r["seconds_per_epoch"])) for r in rs
                     if int(r["ranks_per_node"]) == rp)
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                label=f"{ranks_x_threads(rp, t)} per node")
    ax.plot(nodes, [float(best[n]["seconds_per_epoch"]) for n in nodes], linestyle="none",
            marker="*", markersize=22, markerfacecolor="none", markeredgecolor="black",
            label="fastest shape per node count")
    ax.set_xscale("log", base=2)
    ax.set_xticks(nodes, [str(n) for n in nodes])
    ax.set_yscale("log")
    plain_numbers(ax.yaxis)
    ax.set_xlabel("nodes")
    ax.set_ylabel(f"seconds per epoch of {epoch_images} images (simulated)")
    ax.set_title(f"lenet-mpi, B = {batch}: allocation shapes on {first['platform']} "
                 f"(nodes of {cores} cores, SimGrid SMPI)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=10)
    save(fig, os.path.join(out, f"shapes-{batch}.png"))
