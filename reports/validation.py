"""scale_sim.sh --validate's live points: validation-live.csv -> validation-live.md, for each
number of namespace hosts the measured allreduce per step and epoch beside the simulated ones,
with the residual (simulated - measured) / measured and how many points are within 25%.

  python3 -m reports validation LIVE_CSV OUT_MD NOTE
"""
import argparse

from . import runs
from .files import write_text

PROG = "reports validation"
COLUMNS = ("hosts", "rate", "latency", "algorithm", "batch", "images", "t_sample_us", "alpha_us",
           "beta_MBps", "measured_comm_ms", "simulated_comm_ms", "residual_comm",
           "measured_epoch_s", "simulated_epoch_s", "residual_epoch")
WITHIN = 25  # percent


def within(residual):
    return abs(float(residual.rstrip("%"))) <= WITHIN


def main(argv=None):
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    ap.add_argument("live_csv", help="validate.sh's validation-live.csv")
    ap.add_argument("out", help="the Markdown file to write")
    ap.add_argument("note", help="when and where it was measured, for the text")
    a = ap.parse_args(argv)
    rows = runs.read(a.live_csv, COLUMNS, prog=PROG)
    first = rows[0]
    lines = [
        f"Live points ({a.note}): lenet-mpi on H namespace hosts of one rank each, joined by "
        f"a user-space switch (experiments/multihost_wire.py) whose every link has a one-way "
        f"latency of {first['latency']} host to host and "
        f"{'no bandwidth limit' if first['rate'] == 'none' else 'a bandwidth of ' + first['rate']}, "
        f"B = {first['batch']}, {first['images']} images, "
        f"t_sample {first['t_sample_us']} us; the ping-pong, lenet-mpi and lenet-serial each "
        f"measured 3 times, interleaved, medians. Simulated on H hosts with the ping-pong's "
        f"alpha and beta over the same links.", "",
        "| hosts | SMPI allreduce | alpha (us) | beta (MB/s) | allreduce per step, measured (ms) "
        "| simulated (ms) | residual | epoch, measured (s) | simulated (s) | residual |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['hosts']} | {r['algorithm']} | {float(r['alpha_us']):.1f} "
            f"| {float(r['beta_MBps']):.3f} | {float(r['measured_comm_ms']):.2f} "
            f"| {float(r['simulated_comm_ms']):.2f} | {r['residual_comm']} "
            f"| {float(r['measured_epoch_s']):.3f} | {float(r['simulated_epoch_s']):.3f} "
            f"| {r['residual_epoch']} |")
    comm = sum(within(r["residual_comm"]) for r in rows)
    epoch = sum(within(r["residual_epoch"]) for r in rows)
    lines += ["", f"Within {WITHIN}%: {comm} of {len(rows)} points for the allreduce per step, "
              f"{epoch} of {len(rows)} for the epoch."]
    write_text(a.out, "\n".join(lines) + "\n")
    print("\n".join(lines))
