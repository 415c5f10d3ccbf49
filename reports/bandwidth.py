"""Turns bandwidth_sweep.sh's measurements into a Markdown table and a plot, with the cost
model of docs/multihost.md beside each measured point.

  python3 -m reports bandwidth --runs runs.csv --network network.csv --hosts P --out PREFIX

writes PREFIX.md and PREFIX.png. runs.csv: the executables' --csv rows with the link in front
("serial" for lenet-serial); network.csv: the ping-pong's latency, bandwidth and allreduce time
per link. Each point is the median of its repeats.

The model, per training step of a global batch B on P ranks (one per host):
  compute  = (B / P) * t_sample            t_sample = serial seconds per epoch / images
  allreduce = 2 log2(P) * alpha + 2 (P - 1) / P * n / beta      n = (2343 + 1) * 4 bytes
and an epoch is ceil(images / B) steps. alpha and beta are the link's, from the ping-pong.
"""
import argparse
import math
import statistics
import sys
from collections import defaultdict

from . import runs as run_csv
from .files import write_text
from .plots import colours, figure, plain_numbers, save

PROG = "reports bandwidth"
RUN_COLUMNS = ("link", "batch", "train_images", "epochs", "seconds_per_epoch", "comm_seconds",
               "host")
NETWORK_COLUMNS = ("link", "alpha_us", "beta_MBps", "allreduce_bytes", "allreduce_us")


def parse_args(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", required=True, help="runs.csv of bandwidth_sweep.sh")
    p.add_argument("--network", required=True, help="network.csv of bandwidth_sweep.sh")
    p.add_argument("--hosts", type=int, required=True, help="hosts (= ranks) of the runs")
    p.add_argument("--out", required=True, help="output prefix: PREFIX.md and PREFIX.png")
    p.add_argument("--note", default="", help="a line under the title (the machine, its load)")
    return p.parse_args(argv)


def allreduce_model(p, n_bytes, alpha, beta):
    """Seconds for one allreduce of n_bytes on p ranks (alpha in s, beta in bytes/s)."""
    return 2 * math.log2(p) * alpha + 2 * (p - 1) / p * n_bytes / beta


def break_even(p, n_bytes, alpha, compute_saved):
    """The bandwidth (bytes/s) below which p hosts lose to one: where the allreduce costs
    what splitting the batch saves; None if the latency alone costs more."""
    room = compute_saved - 2 * math.log2(p) * alpha
    return 2 * (p - 1) / p * n_bytes / room if room > 0 else None


def summarise(runs, links, p):
    """points[(link, B)] = dict of measured and modelled numbers; serial[B] = median s."""
    by_point = defaultdict(list)
    for r in runs:
        by_point[(r["link"], int(r["batch"]))].append(r)
    serial = {b: statistics.median(float(r["seconds_per_epoch"]) for r in rs)
              for (link, b), rs in by_point.items() if link == "serial"}
    points = {}
    for (link, b), rs in by_point.items():
        if link == "serial" or link not in links or b not in serial:
            continue
        net = links[link]
        images = int(rs[0]["train_images"])
        epochs = int(rs[0]["epochs"])
        steps = math.ceil(images / b)
        seconds = statistics.median(float(r["seconds_per_epoch"]) for r in rs)
        comm = statistics.median(float(r["comm_seconds"]) / epochs for r in rs)
        t_sample = serial[b] / images
        compute = b / p * t_sample
        alpha, beta = net["alpha_us"] * 1e-6, net["beta_MBps"] * 1e6
        comm_model = allreduce_model(p, net["allreduce_bytes"], alpha, beta)
        model = steps * (compute + comm_model)
        # The same, with the allreduce the ping-pong timed instead of its alpha-beta estimate.
        model_measured = steps * (compute + net["allreduce_us"] * 1e-6)
        points[(link, b)] = dict(
            link=link, b=b, steps=steps, seconds=seconds, serial=serial[b],
            speedup=serial[b] / seconds, comm_share=comm / seconds,
            comm_step_us=1e6 * comm / steps, model_comm_step_us=1e6 * comm_model, model=model,
            error=(model - seconds) / seconds, model_speedup=serial[b] / model,
            model_measured=model_measured, error_measured=(model_measured - seconds) / seconds,
            t_sample=t_sample, bandwidth=net["beta_MBps"])
    return serial, points


def write_markdown(path, note, p, links, serial, points, link_order):
    lines = [f"# lenet-mpi on {p} hosts (network namespaces) against lenet-serial", ""]
    if note:
        lines += [note, ""]
    lines += ["Links, as lenet-mpi-pingpong measured them (backend_mpi/pingpong.cpp):", "",
              "| link | latency alpha (us) | bandwidth beta (MB/s) | allreduce of "
              f"{int(next(iter(links.values()))['allreduce_bytes'])} B (us) |",
              "|---|---|---|---|"]
    for link in link_order:
        n = links[link]
        lines.append(f"| {link} | {n['alpha_us']:.1f} | {n['beta_MBps']:.2f} | "
                     f"{n['allreduce_us']:.1f} |")
    lines += ["", "Training, median of the repeats. Model (alpha-beta) = steps x ((B/P) t_sample + "
              "2 log2(P) alpha + 2 (P-1)/P n / beta); model (allreduce) = steps x ((B/P) "
              "t_sample + the ping-pong's allreduce time); speedups are over serial; comm share "
              "= lenet-mpi's communication seconds / epoch seconds.", "",
              "| link | b per rank | B | serial (s) | measured (s) | model alpha-beta (s) | error | "
              "model allreduce (s) | error | speedup | model speedup | comm share | "
              "comm per step, measured / alpha-beta (us) |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for link in link_order:
        for b in sorted(serial):
            q = points.get((link, b))
            if q is None:
                continue
            lines.append(
                f"| {link} | {b // p} | {b} | {q['serial']:.3f} | {q['seconds']:.3f} | "
                f"{q['model']:.3f} | {100 * q['error']:+.0f}% | {q['model_measured']:.3f} | "
                f"{100 * q['error_measured']:+.0f}% | {q['speedup']:.2f} | "
                f"{q['model_speedup']:.2f} | {100 * q['comm_share']:.0f}% | "
                f"{q['comm_step_us']:.0f} / {q['model_comm_step_us']:.0f} |")
    # The lab question: below which bandwidth do P hosts lose to one?
    base = links[link_order[0]]
    lines += ["", f"Predicted break-even bandwidth (below it {p} hosts lose to 1), with the "
              f"latency of link '{link_order[0]}' ({base['alpha_us']:.1f} us):", "",
              "| B | t_sample (us) | compute saved per step (us) | break-even (MB/s) |",
              "|---|---|---|---|"]
    for b in sorted(serial):
        q = next((q for q in points.values() if q["b"] == b), None)
        if q is None:
            continue
        saved = b * q["t_sample"] * (1 - 1 / p)  # a step's compute on 1 host minus on p hosts
        even = break_even(p, base["allreduce_bytes"], base["alpha_us"] * 1e-6, saved)
        lines.append(f"| {b} | {1e6 * q['t_sample']:.2f} | {1e6 * saved:.0f} | "
                     + (f"{even / 1e6:.2f} |" if even else "never: the latency alone costs more |"))
    write_text(path, "\n".join(lines) + "\n")


def plot(path, p, serial, points, machine):
    fig, (left, right) = figure(2, width=14)
    colors = colours()
    for i, b in enumerate(sorted(serial)):
        qs = sorted((q for q in points.values() if q["b"] == b), key=lambda q: q["bandwidth"])
        if not qs:
            continue
        c = colors[i % len(colors)]
        x = [q["bandwidth"] for q in qs]
        label = f"b = {b // p} per rank (B = {b})"
        left.plot(x, [q["seconds"] for q in qs], "o-", color=c, label=f"{label}, measured")
        left.plot(x, [q["model"] for q in qs], "x--", color=c, label=f"{label}, model")
        left.axhline(serial[b], color=c, linestyle=":", linewidth=1)
        right.plot(x, [q["speedup"] for q in qs], "o-", color=c, label=f"{label}, measured")
        right.plot(x, [q["model_speedup"] for q in qs], "x--", color=c)
        for q in qs:  # name the links once
            if i == 0:
                right.annotate(q["link"], (q["bandwidth"], q["speedup"]),
                               textcoords="offset points", xytext=(4, 6), fontsize=8)
    right.axhline(1, color="black", linewidth=1)
    right.text(0.01, 1, f"serial; below this line {p} hosts lose to 1", va="bottom", fontsize=8,
               transform=right.get_yaxis_transform())  # x in axes units, y in data units
    for ax in (left, right):
        ax.set_xscale("log")
        plain_numbers(ax.xaxis)
        ax.set_xlabel("link bandwidth measured by the ping-pong (MB/s)")
        ax.grid(True, which="both", alpha=0.3)
    left.set_yscale("log")
    plain_numbers(left.yaxis)
    left.set_ylabel("seconds per epoch (dotted: serial)")
    left.set_title(f"Time per epoch, {p} hosts x 1 rank")
    right.set_ylabel("speedup over lenet-serial")
    right.set_title("Speedup: measured (o) and model (x)")
    left.legend(fontsize=9)
    fig.suptitle(f"How slow a link can {p} hosts afford? lenet-mpi against lenet-serial, "
                 f"on {machine}; median of the repeats", fontsize=11)
    save(fig, path)


def main(argv=None):
    args = parse_args(argv)
    runs = run_csv.read(args.runs, RUN_COLUMNS, prog=PROG)
    network = run_csv.read(args.network, NETWORK_COLUMNS, prog=PROG)
    links = {r["link"]: {k: float(v) for k, v in r.items() if k != "link"} for r in network}
    link_order = [r["link"] for r in network]
    serial, points = summarise(runs, links, args.hosts)
    if not points:
        sys.exit(f"{PROG}: error: {args.runs}: no lenet-mpi run has a serial baseline")
    write_markdown(args.out + ".md", args.note, args.hosts, links, serial, points, link_order)
    plot(args.out + ".png", args.hosts, serial, points, run_csv.machine(runs))
    return 0
