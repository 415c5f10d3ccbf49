"""scale_sim.sh's report: sim.csv -> report.md (one table per platform and series) and one PNG
per series (speedup against P, every platform and allreduce algorithm).

Usage: report.py SIM_CSV OUT_DIR EPOCH_IMAGES
Speedup is against P = 1 of the same platform, algorithm and series: for strong scaling the
ratio of seconds per epoch, for weak scaling the ratio of images per second (B grows with P).
"""
import csv
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = {
    "strong32": "strong scaling, B = 32",
    "strong1024": "strong scaling, B = 1024",
    "weak": "weak scaling, B = 32 x P",
}


def main(path, out, epoch_images):
    rows = list(csv.DictReader(open(path)))
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
    open(f"{out}/report.md", "w").write("\n".join(lines))

    for series, title in SERIES.items():
        fig, ax = plt.subplots(figsize=(6.4, 4.4))
        top = 1
        for key in sorted(k for k in curves if k[2] == series):
            ps = sorted(curves[key])
            top = max(top, ps[-1])
            ax.plot(ps, [speedup(key, p) for p in ps], marker="o", ms=3,
                    label=f"{key[0]}, {key[1]}")
        ax.plot([1, top], [1, top], "k:", lw=1, label="ideal")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("ranks P")
        ax.set_ylabel("speedup over 1 rank")
        ax.set_title(f"lenet-mpi, simulated (SMPI): {title}")
        ax.grid(True, which="both", lw=0.3)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(f"{out}/speedup-{series}.png", dpi=80)
        plt.close(fig)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
