"""scale_sim.sh's report: sim.csv -> report.md (one table per platform and series) and one PNG
per series (speedup against P, every platform and allreduce algorithm).

  python3 -m reports scaling SIM_CSV OUT_DIR EPOCH_IMAGES

Speedup is against P = 1 of the same platform, algorithm and series: for strong scaling the
ratio of seconds per epoch, for weak scaling the ratio of images per second (B grows with P).
"""
import argparse
import math
import os
from collections import defaultdict

from . import runs
from .files import write_text
from .plots import colours, figure, plain_numbers, save

PROG = "reports scaling"
COLUMNS = ("platform", "algorithm", "series", "ranks", "batch", "steps", "sample_us",
           "seconds_per_step", "comm_ms_per_step", "seconds_per_epoch")

SERIES = {
    "strong32": "strong scaling, B = 32",
    "strong1024": "strong scaling, B = 1024",
    "weak": "weak scaling, B = 32 x P",
}


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("sim_csv", help="scale_sim.sh's sim.csv")
    ap.add_argument("out", help="folder for report.md and the plots")
    ap.add_argument("epoch_images", type=int, help="images per epoch of the predictions")
    a = ap.parse_args(argv)
    out, epoch_images = a.out, a.epoch_images
    rows = runs.read(a.sim_csv, COLUMNS, prog=PROG)
    os.makedirs(out, exist_ok=True)
    curves = defaultdict(dict)  # (platform, algorithm, series) -> {P: row}
    for r in rows:
        curves[(r["platform"], r["algorithm"], r["series"])][int(r["ranks"])] = r

    def speedup(key, p):
        base, r = curves[key][1], curves[key][p]
        rate = lambda x: int(x["batch"]) / float(x["seconds_per_step"])  # images per second
        return rate(r) / rate(base)

    platforms = sorted({k[0] for k in curves})
    algorithms = sorted({k[1] for k in curves})
    lines = [f"Predicted seconds per epoch of {epoch_images} images (the simulated time per step "
             f"x steps per epoch), speedup over 1 rank and efficiency; compute per sample "
             f"{rows[0]['sample_us']} us, {rows[0]['steps']} simulated steps per point.", ""]
    for plat in platforms:
        for series, title in SERIES.items():
            keys = [(plat, a, series) for a in algorithms if (plat, a, series) in curves]
            if not keys:
                continue
            lines += [f"### {plat}: {title}", ""]
            head = "| P | B |" + "".join(f" {k[1]}: s/epoch | speedup | eff. | comm/step (us) |"
                                         for k in keys) + " fastest |"
            lines += [head, "|---|---|" + "---|---|---|---|" * len(keys) + "---|"]
            for p in sorted(curves[keys[0]]):
                cells, best, slowest = [], None, 0.0
                for k in keys:
                    r = curves[k].get(p)
                    if r is None:
                        cells.append(" - | - | - | - |")
                        continue
                    s = speedup(k, p)
                    cells.append(f" {float(r['seconds_per_epoch']):.4g} | {s:.2f} | "
                                 f"{100 * s / p:.0f}% | {1e3 * float(r['comm_ms_per_step']):.1f} |")
                    t = float(r["seconds_per_step"])
                    slowest = max(slowest, t)
                    if best is None or t < best[0]:
                        best = (t, k[1])
                b = curves[keys[0]][p]["batch"]
                fastest = best[1] if slowest > 1.01 * best[0] else "(all within 1%)"
                lines.append(f"| {p} | {b} |" + "".join(cells) + f" {fastest} |")
            lines.append("")
    write_text(f"{out}/report.md", "\n".join(lines))

    # One colour per platform, one line style and marker per allreduce algorithm.
    palette = colours()
    styles = ["o-", "s--", "^-.", "D:", "v-", "x--"]
    for series, title in SERIES.items():
        keys = sorted(k for k in curves if k[2] == series)
        if not keys:
            continue
        fig, ax = figure()
        top = 1
        for key in keys:
            ps = sorted(curves[key])
            top = max(top, ps[-1])
            ax.plot(ps, [speedup(key, p) for p in ps],
                    styles[algorithms.index(key[1]) % len(styles)], ms=4,
                    color=palette[platforms.index(key[0]) % len(palette)])
        handles = [ax.plot([], [], "k:", lw=1, label="ideal (speedup = P)")[0]]
        handles += [ax.plot([], [], "-", lw=3, color=palette[i % len(palette)], label=plat)[0]
                    for i, plat in enumerate(platforms) if any(k[0] == plat for k in keys)]
        handles += [ax.plot([], [], styles[i % len(styles)], color="grey",
                            label=f"allreduce {alg}")[0]
                    for i, alg in enumerate(algorithms) if any(k[1] == alg for k in keys)]
        ax.plot([1, top], [1, top], "k:", lw=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ticks = sorted({p for k in keys for p in curves[k]})
        ax.set_xticks(ticks)
        low, high = ax.get_ylim()  # every power of 2 on the speedup axis too
        ax.set_yticks([2.0 ** k for k in range(math.floor(math.log2(low)),
                                               math.ceil(math.log2(high)) + 1)])
        ax.set_ylim(low, high)
        plain_numbers(ax.xaxis)
        plain_numbers(ax.yaxis)
        ax.set_xlabel("ranks P (simulated hosts, one rank each)")
        ax.set_ylabel("speedup over 1 rank (images per second)")
        ax.set_title(f"lenet-mpi simulated by SMPI: {title}\n"
                     f"compute {float(rows[0]['sample_us']):g} us per sample, "
                     f"{rows[0]['steps']} simulated steps per point", fontsize=12)
        ax.grid(True, which="both", lw=0.3)
        ax.legend(handles=handles, fontsize=10, loc="upper left")
        save(fig, f"{out}/speedup-{series}.png")
    return 0
