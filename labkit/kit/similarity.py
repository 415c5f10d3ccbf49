"""Which submissions of a class look copied (docs/instructors.md, "Similarity").

Each submission's graded regions, all of its lab's files together, are compared with every
other's by Dolos (npm @dodona/dolos-lib, C++ tokens: names and layout do not matter), with the
starter's stubs as the template that counts for no pair. A lab's handout fixes much of the
code, so honest pairs already score high; a pair is listed for a person only when it stands out
from the class's other pairs. Similarity never changes a grade: the matching fragments are
shown so that a person decides.
"""
import json
import os
import shutil
import statistics
import subprocess

from . import regions, report, submission, tree
from .grade import ROOT
from .manifest import KIT

DOLOS = os.path.join(KIT, "similarity")
# A pair is listed when its similarity is this many spreads above the median of the class's
# other pairs (the pair itself left out). The spread is the median absolute deviation (times
# 1.4826, a standard deviation's worth for normal data), so that many copies in one class do not
# hide each other by widening it. Lab 1's test class of 5 (10 pairs): a renamed copy with two
# statements swapped measured 2.7, the closest honest pair 1.6; a class of 30, the kit's 10
# lab 1 submissions three times each: every copy 2.5 or more (and alternate with the solution,
# which it is but for one clause), no other pair above 2.1 (2026-12-02) ...
Z_LISTED = 2.5
# ... and at least this similarity: in a class of near-identical handout code, a pair a little
# above the others is not yet a copy.
MIN_LISTED = 0.5
# A class distribution needs a few pairs: with fewer other pairs than this, none is listed.
MIN_OTHERS = 2
# The spread is taken as at least this, so that a class whose pairs all score alike does not
# list a pair for a difference of 0.01.
MIN_SPREAD = 0.05


def missing():
    """Why Dolos cannot run here, or None."""
    if shutil.which("node") is None:
        return "node is not installed (apt-get install nodejs)"
    if not os.path.isdir(os.path.join(DOLOS, "node_modules", "@dodona", "dolos-lib")):
        return (f"Dolos is not installed in {os.path.relpath(DOLOS, ROOT)}/node_modules (bash "
                f"run_scripts/setup.sh --for test installs it)")
    return None


def graded_text(folder, manifest, lab):
    """The bodies of lab's regions in the submission, every file's in the manifest's order, or
    None where the grader refuses it (no file, broken markers)."""
    parts = []
    for f in manifest["files"]:
        try:
            path = submission.locate(folder, f)
            if path is None:
                return None
            bodies = regions.bodies(tree.read(path).replace("\r\n", "\n"), lab)
        except (submission.Refused, regions.RegionError, UnicodeDecodeError, OSError):
            return None
        parts += [f"// {f}, LAB {lab} region {k}\n{b}" for k, b in enumerate(bodies, 1)]
    return "".join(parts)


def starter_text(manifest, lab):
    """The same, of the starter: each region's stub."""
    parts = []
    for f in manifest["files"]:
        count = len(regions.spans(tree.read(os.path.join(ROOT, f)), lab))
        parts += [f"// {f}, LAB {lab} region {k}\n{tree.piece('stubs', lab, f, k)}"
                  for k in range(1, count + 1)]
    return "".join(parts)


def run_dolos(texts, base, folder, timeout=900):
    """Dolos's pairs over texts ({key: text}), base subtracted: [(key, key, similarity,
    longest, fragments)]."""
    os.makedirs(folder, exist_ok=True)
    paths = {}
    for key, text in texts.items():
        paths[os.path.join(folder, key + ".cpp")] = key
        with open(os.path.join(folder, key + ".cpp"), "w", encoding="utf-8") as f:
            f.write(text)
    base_path = os.path.join(folder, "starter.base.cpp")
    with open(base_path, "w", encoding="utf-8") as f:
        f.write(base)
    cmd = ["node", os.path.join(DOLOS, "dolos.mjs"), "--base", base_path] + sorted(paths)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        raise RuntimeError(f"Dolos did not end within {timeout} s")
    if proc.returncode != 0:
        raise RuntimeError(f"Dolos failed (exit {proc.returncode}): "
                           f"{err.strip().splitlines()[-1] if err.strip() else 'no message'}")
    found = []
    for p in json.loads(out)["pairs"]:
        a, b = paths[os.path.abspath(p["left"])], paths[os.path.abspath(p["right"])]
        found.append((a, b, p["similarity"], p["longest"], p["fragments"]))
    return found


def rank(keys, found):
    """Every pair of keys (those Dolos did not pair share nothing: 0), each with its robust
    z-score against the class's other pairs, its percentile, and whether it is listed."""
    by = {tuple(sorted((a, b))): (s, longest, frags) for a, b, s, longest, frags in found}
    keys = sorted(keys)
    pairs = []
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            s, longest, frags = by.get((a, b), (0.0, 0, []))
            pairs.append({"left": a, "right": b, "similarity": s, "longest": longest,
                          "fragments": frags})
    values = [p["similarity"] for p in pairs]
    for k, p in enumerate(pairs):
        others = values[:k] + values[k + 1:]
        middle = statistics.median(others) if others else 0.0
        mad = statistics.median([abs(v - middle) for v in others]) if others else 0.0
        p["z"] = (p["similarity"] - middle) / max(1.4826 * mad, MIN_SPREAD)
        p["percentile"] = 100.0 * sum(v < p["similarity"] for v in others) / max(1, len(others))
        p["listed"] = (len(others) >= MIN_OTHERS and p["z"] >= Z_LISTED and
                       p["similarity"] >= MIN_LISTED)
    return sorted(pairs, key=lambda p: -p["similarity"])


def fragments_md(lab, pairs, texts, note):
    lines = [f"# Lab {lab}: similar submissions", "",
             f"Dolos compared the graded regions of every pair, the starter's stubs left out. A "
             f"pair is listed when its similarity is at least {MIN_LISTED} and {Z_LISTED:g} "
             f"spreads (median absolute deviations, scaled) above the median of the class's "
             f"other pairs. It changes no grade: read the fragments and decide.", ""]
    if note:
        lines += [note, ""]
    listed = [p for p in pairs if p["listed"]]
    if pairs and not listed:
        lines += ["No pair is listed (similarity.csv has every pair).", ""]
    for p in listed:
        lines += [f"## {p['left']} and {p['right']}: similarity {p['similarity']:.2f} "
                  f"(z {p['z']:.1f}; higher than {p['percentile']:.0f}% of the other pairs)", ""]
        left, right = texts[p["left"]].split("\n"), texts[p["right"]].split("\n")
        for n, f in enumerate(sorted(p["fragments"], key=lambda f: f["left"][0]), 1):
            (a0, a1), (b0, b1) = f["left"], f["right"]
            lines += [f"Fragment {n}: {p['left']} lines {a0 + 1}-{a1 + 1}, {p['right']} lines "
                      f"{b0 + 1}-{b1 + 1}", "", "```cpp", *left[a0:a1 + 1], "```", "", "```cpp",
                      *right[b0:b1 + 1], "```", ""]
    return "\n".join(lines)


def compare(lab, manifest, students, out, say):
    """Writes OUT/similarity.csv and OUT/similarity.md; returns the ranked pairs (none where
    Dolos is missing or fewer than two submissions have regions to compare)."""
    texts = {}
    for s in students:
        t = graded_text(s.folder, manifest, lab)
        if t is not None:
            texts[s.key] = t
    note, pairs = None, []
    why = missing()
    if why:
        note = f"Not compared: {why}."
    elif len(texts) < 2:
        note = "Not compared: fewer than two submissions have regions to compare."
    else:
        work = os.path.join(out, ".similarity")
        shutil.rmtree(work, ignore_errors=True)
        try:
            pairs = rank(texts, run_dolos(texts, starter_text(manifest, lab), work))
        except (RuntimeError, ValueError, KeyError) as e:
            note = f"Not compared: {e}."
        shutil.rmtree(work, ignore_errors=True)
    if note:
        say(f"similarity: {note}")
    else:
        say(f"similarity: {len(pairs)} pairs compared, "
            f"{sum(p['listed'] for p in pairs)} listed (similarity.md)")
    rows = ["left,right,similarity,z,percentile,longest,listed"]
    rows += [f"{p['left']},{p['right']},{p['similarity']:.4f},{p['z']:.2f},"
             f"{p['percentile']:.0f},{p['longest']},{'yes' if p['listed'] else 'no'}"
             for p in pairs]
    report.write_atomic(os.path.join(out, "similarity.csv"), "\n".join(rows) + "\n")
    report.write_atomic(os.path.join(out, "similarity.md"), fragments_md(lab, pairs, texts, note))
    return pairs
