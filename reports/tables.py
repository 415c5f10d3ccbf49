"""The results tables of docs/results.md, README.md, docs/performance.md, docs/scaling.md and
docs/strategies.md, rendered from the committed CSVs (SECTIONS says which goes to which page).

  python3 -m reports tables [--root DIR] [--data DIR] [--write | --check]

docs/data/ holds one CSV per question, every row with the date, machine (lscpu model name as
recorded), cores, command and source of its figures. Each table sits in its page between
    <!-- generated: NAME ... -->   and   <!-- end generated: NAME -->
and is never edited by hand: change the CSV, then --write renders every section again (through
a temporary file and a rename). --check exits 1 naming each section that differs from what the
CSVs give (the docs test runs the same comparison); with neither, the sections are printed.
Rendering is a pure function of the CSVs' text: the same CSVs give the same bytes.
"""
import argparse
import csv
import os
import re
import sys

from .files import write_text

PROG = "reports tables"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Every CSV row must say where its figures come from.
REQUIRED = ("date", "machine", "cores")
EITHER = ("command", "source")
BEGIN = re.compile(r"^<!-- generated: ([a-z0-9-]+)\b.*-->\s*$")
END = re.compile(r"^<!-- end generated: ([a-z0-9-]+) -->\s*$")


def read(data, name):
    """The rows of DATA/NAME, as dicts, with the line each starts on (key "_line")."""
    with open(os.path.join(data, name), newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        rows = []
        for row in reader:
            row = {k: (v or "").strip() for k, v in row.items() if k is not None}
            row["_line"] = reader.line_num
            rows.append(row)
    return rows


def missing_provenance(data):
    """(file, line, what is missing) for every CSV row without date, machine, cores, or both
    command and source; a date must be YYYY-MM-DD."""
    out = []
    for name in sorted(os.listdir(data)):
        if not name.endswith(".csv"):
            continue
        for row in read(data, name):
            lacks = [c for c in REQUIRED if not row.get(c)]
            if row.get("date") and not re.fullmatch(r"\d{4}-\d\d-\d\d", row["date"]):
                lacks.append("date as YYYY-MM-DD")
            if not any(row.get(c) for c in EITHER):
                lacks.append(" or ".join(EITHER))
            if lacks:
                out.append((name, row["_line"], ", ".join(lacks)))
    return out


# ---- rendering ----
def cell(text):
    return str(text).replace("|", "\\|")


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return lines


def runs_of(rows):
    """Numbers the runs (date, machine, cores, command, source), newest date first, in CSV
    order within a date; returns ({run key: number}, the list lines describing them)."""
    keys = []
    for r in rows:
        k = (r["date"], r["machine"], r["cores"], r["command"], r["source"])
        if k not in keys:
            keys.append(k)
    keys = sorted(keys, key=lambda k: k[0], reverse=True)  # stable: CSV order within a date
    number = {k: i + 1 for i, k in enumerate(keys)}
    lines = ["Runs:", ""]
    for k in keys:
        date, machine, cores, command, source = k
        notes = notes_of([r for r in rows if run_key(r) == k])
        shown = command if command.startswith("not recorded") or not command \
            else f"`{command}`"
        lines.append(f"{number[k]}. {date or 'no date'}, {machine or 'no machine'}, "
                     f"{cores or '?'} cores: {shown or 'no command'} (from {source or 'no source'})"
                     + (f". Notes: {notes}." if notes else "."))
    return number, lines


def notes_of(rows):
    """The rows' notes, each "; "-separated part once, in order of first appearance."""
    parts = []
    for r in rows:
        for part in (r.get("note") or "").split("; "):
            if part and part not in parts:
                parts.append(part)
    return "; ".join(parts)


def run_key(r):
    return (r["date"], r["machine"], r["cores"], r["command"], r["source"])


def in_run_order(rows, number):
    return sorted(rows, key=lambda r: number[run_key(r)])  # stable: CSV order within a run


def backend_label(r):
    w, st = r["workers"], r["strategy"]
    if r["backend"] == "lenet-openmp":
        return f"lenet-openmp, {w} thread{'s' if w != '1' else ''} ({st})"
    if r["backend"] == "lenet-mpi":
        return f"lenet-mpi, {w} rank{'s' if w != '1' else ''} ({st})"
    return r["backend"]


KERNELS = ("ref", "simd", "lanes")


def epoch_times(data):
    rows = read(data, "epoch_times.csv")
    number, runs = runs_of(rows)
    pivot, order = {}, []
    for r in in_run_order(rows, number):
        key = (number[run_key(r)], backend_label(r), r["batch"])
        if key not in pivot:
            pivot[key] = {}
            order.append(key)
        pivot[key][r["kernels"]] = r["s_per_epoch"]
    kernels = kernels_of(rows)
    body = [[str(n), label, b] + [pivot[(n, label, b)].get(k, "") for k in kernels]
            for n, label, b in order]
    return table(["run", "backend", "B"] + [f"`{k}`" for k in kernels], body) + [""] + runs


def kernels_of(rows):
    """The CPU kernels, then any other (a GPU's kernel versions) in order of appearance."""
    others = []
    for r in rows:
        if r["kernels"] not in KERNELS and r["kernels"] not in others:
            others.append(r["kernels"])
    return list(KERNELS) + others


def summary(data):
    """README's table: the newest compare.sh run of epoch_times.csv on Fashion-MNIST (its
    --data or --full says so), B across, kernels down."""
    rows = [r for r in read(data, "epoch_times.csv") if "compare.sh" in r["command"]
            and ("fashion" in r["command"] or "--full" in r["command"])]
    newest = max(r["date"] for r in rows)
    rows = [r for r in rows if r["date"] == newest]
    first = run_key(rows[0])
    rows = [r for r in rows if run_key(r) == first]
    batches = []
    for r in rows:
        if r["batch"] not in batches:
            batches.append(r["batch"])
    pivot, order = {}, []
    for r in rows:
        label = backend_label(r)
        if label not in pivot:
            pivot[label] = {}
            order.append(label)
        pivot[label][(r["batch"], r["kernels"])] = r["s_per_epoch"]
    header = ["seconds per epoch"]
    for b in batches:
        header += [f"B = {b} `{k}`" if k == KERNELS[0] else f"`{k}`" for k in KERNELS]
    body = [[label] + [pivot[label].get((b, k), "") for b in batches for k in KERNELS]
            for label in order]
    date, machine, cores, command, source = first
    notes = notes_of(rows)
    return ([f"Seconds per 60k Fashion-MNIST epoch, {date}, {machine}, {cores} cores, "
             f"`{command}`" + (f"; {notes}" if notes else "") + ":", ""] + table(header, body))


def sweeps(data):
    rows = read(data, "sweeps.csv")
    number, runs = runs_of(rows)
    body = []
    for r in in_run_order(rows, number):
        s = r["s_per_epoch"] + (f" ({r['range']})" if r["range"] else "")
        body.append([str(number[run_key(r)]), r["backend"], f"{r['strategy']} {r['kernels']}",
                     r["batch"], r["workers"], s, r["serial_s_per_epoch"], r["speedup"],
                     r["params"]])
    return table(["run", "backend", "series", "B", "threads or ranks", "s/epoch (range)",
                  "serial s/epoch", "speedup", "params against serial"], body) + [""] + runs


def peak(data):
    """peak.csv's rows, and the whole-sample rows of layers.csv (the same measurement)."""
    rows = read(data, "peak.csv") + [r for r in read(data, "layers.csv")
                                     if r["layer"] == "whole sample"]
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["vectors"], r["kernels"], r["peak_gflops"],
             r["ns_per_sample"], r["pct_peak"] + ("%" if r["pct_peak"] else "")]
            for r in in_run_order(rows, number)]
    return table(["run", "vector floats", "kernels", "one-core peak (GFLOP/s)",
                  "ns per sample", "% of peak"], body) + [""] + runs


def layers(data):
    """Per-layer ns per sample of each kernels, layers down, kernels across, per run."""
    rows = read(data, "layers.csv")
    number, runs = runs_of(rows)
    kernels = kernels_of(rows)
    pivot, order = {}, []
    for r in in_run_order(rows, number):
        key = (number[run_key(r)], r["layer"])
        if key not in pivot:
            pivot[key] = {}
            order.append(key)
        pivot[key][r["kernels"]] = r
    shown = [k for k in kernels if any(k in v for v in pivot.values())]
    header = ["run", "layer"]
    for k in shown:
        header += [f"`{k}` ns"] + ([f"`{k}` % peak"] if k != "ref" else [])
    body = []
    for n, layer in order:
        line = [str(n), f"**{layer}**" if layer == "whole sample" else layer]
        for k in shown:
            r = pivot[(n, layer)].get(k)
            line.append(r["ns_per_sample"] if r else "")
            if k != "ref":
                line.append(r["pct_peak"] + "%" if r and r["pct_peak"] else "")
        body.append(line)
    return table(header, body) + [""] + runs


def ceiling(data):
    """lenet-bench-layers' sigmoids row: the ceiling the sample's sigmoids put on its %peak,
    beside the whole sample of simd and lanes measured in the same run."""
    rows = read(data, "ceiling.csv")
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["vectors"], r["peak_gflops"], r["sigmoids_ns"],
             f"{r['ceiling_pct']}%", f"{r['simd_ns']} ({r['simd_pct']}%)",
             f"{r['lanes_ns']} ({r['lanes_pct']}%)"]
            for r in in_run_order(rows, number)]
    return table(["run", "vector floats", "one-core peak (GFLOP/s)", "sigmoids, ns a sample",
                  "ceiling, % of peak", "`simd` sample, ns (% of peak)",
                  "`lanes` sample, ns (% of peak)"], body) + [""] + runs


FLOP_PER_SAMPLE = 372384  # the multiply-adds of one training sample, 2 FLOP each


def mca(data):
    """llvm-mca's cycles per sample for each layer's loops and target, beside a measurement
    (target "measured": ns and cycles); the modelled loops' total and its % of the target's
    FLOP a cycle (a "whole sample" row gives the measurement's total)."""
    rows = read(data, "mca.csv")
    number, runs = runs_of(rows)
    targets, order, cells, flops = [], [], {}, {}
    for r in rows:
        if r["target"] not in targets:
            targets.append(r["target"])
        flops[r["target"]] = int(r["flop_per_cycle"])
        key = (r["layer"], r["loop"])
        if r["layer"] != "whole sample" and key not in order:
            order.append(key)
        cells[key + (r["target"],)] = r
    models = [t for t in targets if t != "measured"]
    header = ["layer", "loop"] + models + (["measured, ns", "measured, cycles"]
                                           if "measured" in targets else [])

    def measured(r):
        return [r["ns"], r["cycles"]] if r else ["", ""]

    body = []
    for layer, loop in order:
        line = [layer, loop] + [cells.get((layer, loop, t), {}).get("cycles", "") for t in models]
        if "measured" in targets:
            line += measured(cells.get((layer, loop, "measured")))
        body.append(line)
    total = {t: sum(int(r["cycles"]) for k, r in cells.items() if k[2] == t
                    and k[0] != "whole sample") for t in models}
    whole = cells.get(("whole sample", "", "measured"))
    line = ["all modelled loops", ""] + [str(total[t]) for t in models]
    if "measured" in targets:
        line += measured(whole)
        line[-2] += " (whole sample)" if whole else ""
    body.append(line)
    pct = ["% of the CPU's peak", ""] + [
        f"{100 * FLOP_PER_SAMPLE / total[t] / flops[t]:.0f}% of {flops[t]} FLOP a cycle"
        for t in models]
    if "measured" in targets:
        pct += [f"{100 * FLOP_PER_SAMPLE / int(whole['cycles']) / flops['measured']:.0f}% of "
                f"{flops['measured']} FLOP a cycle" if whole else "", ""]
    body.append(pct)
    return table(header, body) + [""] + runs


def sim_scaling(data):
    """scale_sim.sh's study: speedup over 1 rank per platform and series, P across (the
    efficiency and an algorithm other than rdb in brackets where recorded), and the allreduce's
    time per step."""
    rows = read(data, "sim_scaling.csv")
    number, runs = runs_of(rows)
    ranks = sorted({int(r["ranks"]) for r in rows})
    order, cells, best = [], {}, {}
    for r in in_run_order(rows, number):
        key = (str(number[run_key(r)]), r["platform"], r["series"])
        if key not in order:
            order.append(key)
        if r["comm_us"]:
            cells[key + (int(r["ranks"]),)] = f"{r['comm_us']} us"
        else:
            extra = [e for e in (r["efficiency"] + "%" if r["efficiency"] else "",
                                 r["algorithm"] if r["algorithm"] not in ("", "rdb") else "")
                     if e]
            cells[key + (int(r["ranks"]),)] = f"{r['speedup']}x" + (
                f" ({', '.join(extra)})" if extra else "")
        best.setdefault(key, r["best"])
    body = [list(k) + [cells.get(k + (p,), "-") for p in ranks] + [best[k]] for k in order]
    return table(["run", "platform", "series"] + [f"P = {p}" for p in ranks] + ["best"], body) \
        + [""] + runs


def shapes(data):
    """scale_sim.sh --shapes: seconds per epoch per node count and shape (ranks per node x
    threads per rank), per batch; the fastest shape per node count in bold, its speedup over the
    fastest on one node, and the fastest allocation."""
    rows = read(data, "shapes.csv")
    number, runs = runs_of(rows)
    out = []
    for n in sorted(set(number.values())):
        mine = [r for r in rows if number[run_key(r)] == n]
        for b in sorted({int(r["batch"]) for r in mine}):
            rs = [r for r in mine if int(r["batch"]) == b]
            shapes = sorted({(int(r["ranks_per_node"]), int(r["threads"])) for r in rs})
            nodes = sorted({int(r["nodes"]) for r in rs})
            t = {(int(r["nodes"]), int(r["ranks_per_node"]), int(r["threads"])):
                 r["seconds_per_epoch"] for r in rs}
            fastest = {k: min((s for s in shapes if (k,) + s in t),
                              key=lambda s: float(t[(k,) + s])) for k in nodes}
            one = float(t[(nodes[0],) + fastest[nodes[0]]])
            body = []
            for k in nodes:
                line = [str(k)]
                for s in shapes:
                    v = t.get((k,) + s, "-")
                    line.append(f"**{v}**" if s == fastest[k] else v)
                f = fastest[k]
                line += [f"{f[0]} x {f[1]}", f"{one / float(t[(k,) + f]):.2f}x"]
                body.append(line)
            header = ["nodes"] + [f"{r} rank{'s' if r > 1 else ''} x {th} thread"
                                  f"{'s' if th > 1 else ''}" for r, th in shapes]
            k = min(nodes, key=lambda k: float(t[(k,) + fastest[k]]))
            f = fastest[k]
            out += [f"Run {n}, B = {b}, seconds per epoch. Fastest: {k} node"
                    f"{'s' if k > 1 else ''} of {f[0]} rank{'s' if f[0] > 1 else ''} x {f[1]} "
                    f"thread{'s' if f[1] > 1 else ''}, {t[(k,) + f]} s.", ""]
            out += table(header + ["fastest", "speedup over 1 node"], body) + [""]
    return out + runs


def spin(data):
    """lenet-openmp's bounded OpenMP spin: one epoch before and after, with N busy loops."""
    rows = read(data, "spin.csv")
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["busy_loops"], f"{r['serial_s']} s",
             f"{r['before_s']} s", f"{r['after_s']} s",
             f"{float(r['after_s']) / float(r['serial_s']):.1f}"]
            for r in in_run_order(rows, number)]
    return table(["run", "busy loops", "lenet-serial", "before: lenet-openmp",
                  "after: lenet-openmp", "after / serial"], body) + [""] + runs


def layer_times(data):
    """--timing's seconds per layer in one epoch, one row per program, the layers across."""
    rows = read(data, "layer_times.csv")
    number, runs = runs_of(rows)
    layers, order, cells = [], [], {}
    for r in in_run_order(rows, number):
        if r["layer"] not in layers:
            layers.append(r["layer"])
        w = r["threads"]
        label = (f"{r['backend']} {r['kernels']}" if r["strategy"] == "-" else
                 f"{r['backend']} {r['strategy']} {r['kernels']}, {w} thread{'s' if w != '1' else ''}")
        key = (str(number[run_key(r)]), label, r["batch"])
        if key not in order:
            order.append(key)
        cells[key + (r["layer"],)] = r["seconds"]
    body = [list(k) + [cells.get(k + (l,), "") for l in layers] for k in order]
    return table(["run", "program", "B"] + layers, body) + [""] + runs


def peers(data):
    rows = read(data, "peers.csv")
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["batch"], r["program"], r["threads"], r["s_per_epoch"],
             r["test_accuracy"] + ("%" if r["test_accuracy"] else "")]
            for r in in_run_order(rows, number)]
    return table(["run", "B", "program", "threads", "s/epoch", "test accuracy"], body) \
        + [""] + runs


def scaling(data):
    rows = read(data, "scaling.csv")
    number, runs = runs_of(rows)
    body = []
    for r in in_run_order(rows, number):
        comm = (f"{r['measured_comm_ms']} / {r['simulated_comm_ms']}"
                if r["measured_comm_ms"] else "")
        if comm and r.get("comm_residual"):
            comm += f" ({r['comm_residual']})"
        body.append([str(number[run_key(r)]), r["setup"], r["link"], r["hosts"], r["batch"],
                     r["measured_s"], r["simulated_s"], r["residual"], r.get("bucket_wait_us", ""),
                     r["simulated_bucket_s"], r["residual_bucket"], comm])
    return table(["run", "set-up", "link", "hosts", "B", "measured (s/epoch)",
                  "simulated (s/epoch)", "residual", "token bucket's wait per message (us)",
                  "simulated, token bucket", "residual",
                  "allreduce per step, measured / simulated (ms)"], body) + [""] + runs


def vector_widths(data):
    rows = read(data, "vector_widths.csv")
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["build"], r["vectors"], r["s_per_epoch"],
             r["params_crc32"]] for r in in_run_order(rows, number)]
    return table(["run", "build", "vector floats", "s/epoch", "param CRC-32"], body) \
        + [""] + runs


def build_times(data):
    rows = read(data, "build_times.csv")
    number, runs = runs_of(rows)
    body = [[str(number[run_key(r)]), r["what"], f"{r['seconds']} s"]
            for r in in_run_order(rows, number)]
    return table(["run", "what", "time"], body) + [""] + runs


# name -> (page, CSV, renderer)
SECTIONS = {
    "summary": ("README.md", "epoch_times.csv", summary),
    "epoch-times": ("docs/results.md", "epoch_times.csv", epoch_times),
    "sweeps": ("docs/results.md", "sweeps.csv", sweeps),
    "peak": ("docs/results.md", "peak.csv", peak),
    "peers": ("docs/results.md", "peers.csv", peers),
    "scaling": ("docs/results.md", "scaling.csv", scaling),
    "vector-widths": ("docs/results.md", "vector_widths.csv", vector_widths),
    "build-times": ("docs/results.md", "build_times.csv", build_times),
    "layers": ("docs/performance.md", "layers.csv", layers),
    "mca": ("docs/performance.md", "mca.csv", mca),
    "ceiling": ("docs/performance.md", "ceiling.csv", ceiling),
    "sim-scaling": ("docs/scaling.md", "sim_scaling.csv", sim_scaling),
    "shapes": ("docs/scaling.md", "shapes.csv", shapes),
    "layer-times": ("docs/strategies.md", "layer_times.csv", layer_times),
    "spin": ("docs/strategies.md", "spin.csv", spin),
}
PAGES = tuple(dict.fromkeys(page for page, _, _ in SECTIONS.values()))


def render(data):
    """{section name: its lines between the markers}."""
    return {name: fn(data) + [""] for name, (_, _, fn) in SECTIONS.items()}


def sections_in(lines):
    """{name: (index of the begin marker, index of the end marker)} of LINES; a marker
    without its pair maps to (begin, None)."""
    found, open_name = {}, None
    for i, line in enumerate(lines):
        m = BEGIN.match(line)
        if m:
            open_name = m.group(1)
            found[open_name] = (i, None)
            continue
        m = END.match(line)
        if m and m.group(1) == open_name:
            found[open_name] = (found[open_name][0], i)
            open_name = None
    return found


def differences(page, lines, rendered):
    """(line number, message) for each section of PAGE missing from LINES or not as rendered
    (the first differing line of it)."""
    out = []
    found = sections_in(lines)
    for name, (where, csv_name, _) in SECTIONS.items():
        if where != page:
            continue
        if name not in found or found[name][1] is None:
            out.append((1, f"generated section {name}: no '<!-- generated: {name} -->' ... "
                        f"'<!-- end generated: {name} -->' pair"))
            continue
        begin, end = found[name]
        have, want = lines[begin + 1:end], rendered[name]
        for k in range(max(len(have), len(want))):
            h = have[k] if k < len(have) else "(the end marker)"
            w = want[k] if k < len(want) else "(the end marker)"
            if h != w:
                out.append((begin + 2 + k, f"generated section {name} is not what docs/data/"
                            f"{csv_name} gives: this line reads '{h[:80]}', the CSV gives "
                            f"'{w[:80]}' (edit the CSV, then python3 -m reports tables --write)"))
                break
    return out


def splice(lines, rendered):
    """LINES with every section whose markers they hold replaced by its rendering."""
    found = sections_in(lines)
    out, i = [], 0
    for name, (begin, end) in sorted(found.items(), key=lambda kv: kv[1][0]):
        if end is None or name not in rendered:
            continue
        out += lines[i:begin + 1] + rendered[name]
        i = end
    return out + lines[i:]


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--root", default=ROOT, help="the repository whose pages to render into")
    p.add_argument("--data", help="the CSV folder (default ROOT/docs/data)")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--write", action="store_true", help="render every section into its page")
    g.add_argument("--check", action="store_true", help="exit 1 where a page differs")
    args = p.parse_args(argv)
    data = args.data or os.path.join(args.root, "docs", "data")
    bad = missing_provenance(data)
    for name, line, what in bad:
        print(f"{PROG}: {data}/{name}:{line}: the row has no {what}", file=sys.stderr)
    if bad:
        return 1
    rendered = render(data)
    if not (args.write or args.check):
        for name, lines in rendered.items():
            print(f"<!-- generated: {name} -->\n" + "\n".join(lines)
                  + f"\n<!-- end generated: {name} -->")
        return 0
    status = 0
    for page in PAGES:
        path = os.path.join(args.root, page)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        diffs = differences(page, lines, rendered)
        if args.check:
            for n, msg in diffs:
                print(f"{page}:{n}: {msg}")
            status |= bool(diffs)
            continue
        missing = [msg for n, msg in diffs if "no '<!-- generated" in msg]
        if missing:
            sys.exit(f"{PROG}: error: {page}: " + "; ".join(missing))
        new = splice(lines, rendered)
        if new != lines:
            write_text(path, "\n".join(new))
            print(f"{PROG}: wrote {page}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
