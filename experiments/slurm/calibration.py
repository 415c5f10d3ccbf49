#!/usr/bin/env python3
"""The calibration file: what the scaling study (experiments/scale_sim.sh) needs to know about a
cluster, measured on that cluster (docs/cluster.md, "Size an allocation"). Standard library only,
so that it runs on any cluster's python3.

  calibration.py write --out FILE --compute CSV [--loads FILE] [--intra TXT] [--inter TXT]
                       [--job ID] [--hosts LIST] [--note TEXT]...
      CSV: the lenet-serial --csv rows of the compute runs (batch 32); --loads: one
      /proc/loadavg line per run, taken before it; TXT: lenet-mpi-pingpong's output at 2 ranks
      inside one node (--intra) and between two nodes (--inter).
  calibration.py show FILE [intra]
      the figures scale_sim.sh uses, as shell words: sample_us alpha_us beta_MBps link
      (link: "inter" or "intra", the pair the platform is built from; "- - none" without
      network figures), after checking the file. With "intra": the intra-node link's.
  calibration.py platform FILE OUT.xml
      a SimGrid platform of 1024 hosts on one non-blocking switch whose links give the measured
      host-to-host latency and bandwidth.

Errors: one line "calibration.py: error: ..." naming the file, exit code 2.
"""
import argparse
import csv
import json
import os
import platform
import re
import statistics
import sys
import tempfile
import time

VERSION = 1
PROG = "calibration.py"


def die(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_text(path, what):
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        die(f"{what} {path}: {e.strerror}")


def pingpong(path):
    """alpha_us, beta_MBps, allreduce_us (mean) and allreduce_median_us of a 2-rank run."""
    text = read_text(path, "ping-pong output")
    found = dict(re.findall(r"^(\w+) = ([0-9.]+)$", text, re.M))
    keys = ("alpha_us", "beta_MBps", "allreduce_us", "allreduce_median_us")
    missing = [k for k in keys if k not in found]
    if missing:
        die(f"{path}: no {', '.join(missing)} line (a lenet-mpi-pingpong run that ended?)")
    if found.get("ranks") != "2":
        die(f"{path}: a run on {found.get('ranks', '?')} ranks, expected 2")
    return {k: float(found[k]) for k in keys}


def compute(path, loads_path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"--compute {path}: {e.strerror}")
    if not rows or "seconds_per_epoch" not in rows[0]:
        die(f"--compute {path}: no lenet-serial --csv rows (no seconds_per_epoch column)")
    images = int(rows[0]["train_images"])
    runs = [float(r["seconds_per_epoch"]) / images * 1e6 for r in rows]
    loads = []
    if loads_path:
        loads = [float(line.split()[0]) for line in read_text(loads_path, "--loads").splitlines()
                 if line.strip()]
    return {"sample_us_min": round(min(runs), 4), "sample_us_median": round(
        statistics.median(runs), 4), "runs_us": [round(x, 4) for x in runs],
            "batch": int(rows[0]["batch"]), "images": images, "kernels": rows[0]["kernels"],
            "load_average_before": loads}


def cpu_model():
    try:
        text = open("/proc/cpuinfo").read()
        m = re.search(r"^model name\s*:\s*(.+)$", text, re.M)
        return m.group(1).strip() if m else platform.processor()
    except OSError:
        return platform.processor()


def write(a):
    data = {
        "calibration": VERSION,
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "job": a.job,
        "hosts": [h for h in a.hosts.split(",") if h],
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "compute": compute(a.compute, a.loads),
        "intra_node": pingpong(a.intra) if a.intra else None,
        "inter_node": pingpong(a.inter) if a.inter else None,
        "notes": a.note,
    }
    out = a.out
    folder = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".calibration-")
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)
    c = data["compute"]
    print(f"{PROG}: wrote {out}: {c['sample_us_min']} us per sample (min of {len(c['runs_us'])}"
          f", median {c['sample_us_median']})" +
          "".join(f"; {k.replace('_', '-')}: alpha {v['alpha_us']} us, beta {v['beta_MBps']} MB/s"
                  f", allreduce {v['allreduce_median_us']} us"
                  for k, v in (("intra_node", data["intra_node"]),
                               ("inter_node", data["inter_node"])) if v))


def load(path, want=None):
    try:
        data = json.loads(read_text(path, "--calibration"))
    except json.JSONDecodeError as e:
        die(f"--calibration {path}: not JSON ({e.msg}, line {e.lineno})")
    if not isinstance(data, dict) or data.get("calibration") != VERSION:
        die(f"--calibration {path}: not a calibration file of version {VERSION} "
            f"(experiments/slurm/lenet-calibrate.sbatch writes one)")
    try:
        sample = float(data["compute"]["sample_us_min"])
        link_name = want or ("inter" if data.get("inter_node") else "intra" if data.get(
            "intra_node") else None)
        if not data.get(f"{link_name}_node"):
            link_name = None
        alpha = beta = None
        if link_name:
            link = data[f"{link_name}_node"]
            alpha, beta = float(link["alpha_us"]), float(link["beta_MBps"])
    except (KeyError, TypeError, ValueError):
        die(f"--calibration {path}: needs compute.sample_us_min, and alpha_us and beta_MBps in "
            f"inter_node or intra_node")
    if not (sample > 0 and (link_name is None or (alpha > 0 and beta > 0))):
        die(f"--calibration {path}: sample_us_min, alpha_us and beta_MBps must be positive")
    return sample, alpha, beta, link_name


def show(a):
    sample, alpha, beta, link = load(a.file, a.link)
    # The compute figure as the file holds it (":g" would cut 123.4567 to 123.457).
    print(sample, f"{alpha:g}" if link else "-", f"{beta:g}" if link else "-", link or "none")


def platform_xml(a):
    sample, alpha, beta, link = load(a.file)
    if link is None:
        die(f"--calibration {a.file}: no network figures (inter_node, intra_node) to build a "
            f"platform from")
    # Host to host crosses two links (host - switch - host): half the latency on each. The
    # switch is non-blocking (a backbone of 1024 links): the file measures no contention.
    text = f"""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- Built by calibration.py from {os.path.basename(a.file)} ({link}-node link): host to host
     {alpha:g} us, {beta:g} MB/s; a non-blocking switch. -->
<platform version="4.1">
  <cluster id="calibrated" prefix="node-" suffix="" radical="0-1023" speed="1Gf"
           bw="{beta:g}MBps" lat="{alpha / 2:g}us" sharing_policy="SPLITDUPLEX"
           bb_bw="{beta * 1024:g}MBps" bb_lat="0us"/>
</platform>
"""
    with open(a.out, "w") as f:
        f.write(text)


class Parser(argparse.ArgumentParser):
    """argparse, with its errors as this tool's one line and exit code 2."""

    def error(self, message):
        die(message)


def main():
    ap = Parser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True, parser_class=Parser)
    w = sub.add_parser("write")
    w.add_argument("--out", required=True)
    w.add_argument("--compute", required=True)
    for name in ("--loads", "--intra", "--inter"):
        w.add_argument(name)
    w.add_argument("--job", default="")
    w.add_argument("--hosts", default="")
    w.add_argument("--note", action="append", default=[])
    w.set_defaults(run=write)
    s = sub.add_parser("show")
    s.add_argument("file")
    s.add_argument("link", nargs="?", choices=["intra"])
    s.set_defaults(run=show)
    p = sub.add_parser("platform")
    p.add_argument("file")
    p.add_argument("out")
    p.set_defaults(run=platform_xml)
    a = ap.parse_args()
    a.run(a)


if __name__ == "__main__":
    main()
