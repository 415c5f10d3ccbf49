"""A lab's one definition: labkit/labs/labN.json (docs/labs.md, "The manifest").

It names the files and regions the student edits, what to build, the checks with their points,
the performance measurement and the time limits. The grader, the starter copies, the handouts'
rubric tables (checked by a test) and the Gradescope bundle all read it.
"""
import json
import os
import re

KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # labkit/
ROOT = os.path.dirname(KIT)  # the tree this kit belongs to: the instructor's, or a starter
# The check kinds a manifest may name: the build, and grade_checks.KINDS's (test_labkit.py kit
# checks that the two agree).
CHECK_KINDS = {"build", "ctest", "same_bits", "verify", "trains_like", "work"}
# A ctest check's label: matched whole (ctest -L '^label$'), so no character of a regex in it.
LABEL = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*")


class ManifestError(Exception):
    pass


def _check(cond, lab, what):
    if not cond:
        raise ManifestError(f"labkit/labs/lab{lab}.json: {what}")


def thresholds_needed(m):
    """The names of the grader's thresholds that lab m uses: each must be in its manifest's
    "thresholds", as {"value": number, "why": its reason}."""
    perf, names = m.get("performance"), []
    if perf and m["points"]["performance"]:
        names += ["full_fraction", "zero_fraction"]
        if perf.get("threads"):
            names += ["min_balance", "max_cpu_ratio"]
        if perf.get("evidence"):
            names += ["min_shared_calls", "min_count_balance", "max_extra_work"]
    if any(c["kind"] == "work" for c in m["checks"]):
        names.append("work_rounds")
    return names


def checks_for(manifest, mode):
    """The checks that apply in `mode` ("cpu", "gpu" or "emulated"): those without a "when",
    and those whose "when" names the strategy."""
    return [c for c in manifest["checks"] if c.get("when", mode) == mode]


def load(lab):
    path = os.path.join(KIT, "labs", f"lab{lab}.json")
    if not os.path.isfile(path):
        known = " ".join(str(n) for n in labs())
        raise ManifestError(f"no lab '{lab}' (labs: {known}; run: lab.sh list)")
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    _check(m.get("lab") == int(lab), lab, "'lab' is not the file's number")
    for key in ("title", "handout", "files", "points", "checks", "limits"):
        _check(key in m, lab, f"no '{key}'")
    for key in ("correctness", "performance", "written"):
        _check(isinstance(m["points"].get(key), int), lab, f"points.{key} is not a whole number")
    modes = {c.get("when", "cpu") for c in m["checks"]} or {"cpu"}
    for mode in modes:
        chosen = checks_for(m, mode)
        total = sum(c["points"] for c in chosen)
        _check(total == m["points"]["correctness"], lab,
               f"the {mode} checks' points add up to {total}, not points.correctness "
               f"{m['points']['correctness']}")
    for c in m["checks"]:
        _check(c.get("kind") in CHECK_KINDS, lab, f"check '{c.get('name')}': unknown kind")
        if c["kind"] == "ctest":
            # Its tests by CTest label, never by name (tests/unit/unit.cmake gives the labels).
            _check(isinstance(c.get("label"), str) and LABEL.fullmatch(c["label"]), lab,
                   f"check '{c.get('name')}': 'label' is not a CTest label (lower case, digits, "
                   f"'-')")
            _check(isinstance(c.get("count"), int) and c["count"] > 0, lab,
                   f"check '{c.get('name')}': 'count' (how many tests carry the label) is not a "
                   f"positive whole number")
            _check("tests" not in c, lab, f"check '{c.get('name')}': 'tests' (a name pattern) "
                   f"is gone: a ctest check names its tests' 'label'")
    given = m.get("thresholds", {})
    for name in thresholds_needed(m):
        t = given.get(name)
        _check(isinstance(t, dict) and isinstance(t.get("value"), (int, float)) and
               isinstance(t.get("why"), str) and len(t["why"].split()) >= 8, lab,
               f"thresholds.{name}: expected {{\"value\": a number, \"why\": its reason in a "
               f"sentence}}")
    for name in given:
        _check(name in thresholds_needed(m), lab, f"thresholds.{name}: not used by this lab")
    return m


def labs():
    names = os.listdir(os.path.join(KIT, "labs"))
    return sorted(int(n[3:-5]) for n in names if n.startswith("lab") and n.endswith(".json"))


def load_all():
    return {n: load(n) for n in labs()}
