"""A grading's results: one dict in Gradescope's results.json format (top-level score and
output, tests[] with name, score, max_score, output, visibility; a leaderboard), from which the
Markdown report, PrairieLearn's results.json and GitHub Classroom's reporter payload are drawn.
"""
import base64
import json
import os
import subprocess
import time

from . import machine
from .grade import ROOT
from .verdicts import WORDS


def _version(root):
    try:
        out = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, timeout=10)
        if out.returncode == 0:
            return out.stdout.strip()
    except OSError:
        pass
    return "not a git checkout"


def _entry(name, score, max_score, output, status, verdict):
    assert verdict in WORDS, verdict
    return {"name": name, "score": round(score, 1), "max_score": max_score, "output": output,
            "status": status, "verdict": verdict, "visibility": "visible"}


def verdict(g):
    """The grading's one word: REFUSED, FLAGGED where anything was flagged, else the first check
    that did not pass says it (the build's COMPILE-ERROR first), else the timed runs' word where
    one failed, else CORRECT."""
    if g.refused:
        return "REFUSED"
    if g.flags:
        return "FLAGGED"
    for c in g.checks:
        if c.verdict != "CORRECT":
            return c.verdict
    if g.performance.get("verdict") in ("WRONG", "RUN-ERROR", "TIMEOUT"):
        return g.performance["verdict"]
    return "CORRECT"


def performance_table(perf):
    if perf.get("status") != "measured":
        return ""
    unit, best, med, runs = perf["unit"], perf["best"], perf["medians"], perf["runs"]
    rows = [("yours, parallel", "parallel"), ("the reference, parallel", "reference"),
            ("the reference, one thread (rank; lab 4: the ref kernels)", "one")]
    lines = [f"{perf['what']}; {unit}, {len(runs['parallel'])} interleaved rounds; the points "
             "come from the fastest of each:", "",
             "| run | fastest | median | every round |", "|---|---|---|---|"]
    for label, key in rows:
        if key in best:
            lines.append(f"| {label} | {best[key]:.6g} | {med[key]:.6g} | "
                         f"{' '.join('%.6g' % v for v in runs[key])} |")
    return "\n".join(lines)


def results(g, *, platform=None):
    """The results of Grading g. platform: None (lab.sh grade) or the platform's name, where
    performance is measured for the leaderboard but not scored (docs/labs.md, "Timing")."""
    m = g.m
    P = m["points"]
    tests = []
    perf_score = 0.0
    if g.refused:
        tests.append(_entry("submission: is it lab %d's?" % g.lab, 0,
                            P["correctness"] + P["performance"], "refused: " + g.refused,
                            "failed", "REFUSED"))
    else:
        for c in g.checks:
            tests.append(_entry(f"correctness: {c.name}", c.score, c.max,
                                f"{c.status}: {c.output}",
                                "passed" if c.status == "passed" else "failed", c.verdict))
        perf = dict(g.performance)
        if platform and perf.get("score"):
            perf["note"] = (f"not scored on {platform}: the course grades performance on a quiet "
                            f"machine (lab.sh grade). Measured here: {perf['note']}")
            perf["score"] = 0.0
        perf_score = perf.get("score", 0.0)
        if P["performance"]:
            what = m.get("performance", {}).get("what", "")
            table = performance_table(perf)
            tests.append(_entry(f"performance: {what}", perf_score, P["performance"],
                                perf["note"] + ("\n\n" + table if table else ""),
                                "passed" if perf_score else "failed",
                                perf.get("verdict", "NOT-RUN")))
    if P["written"]:
        tests.append(_entry("written answers (graded by a person)", 0, P["written"],
                            f"graded by a person, from your answer sheet ({m['handout']})",
                            "failed", "NOT-RUN"))
    score = round(sum(t["score"] for t in tests), 1)
    total = sum(t["max_score"] for t in tests)
    auto = P["correctness"] + P["performance"]
    correctness = sum(c.score for c in g.checks) if not g.refused else 0
    word = verdict(g)
    if g.refused:
        output = f"Refused: {g.refused}"
    else:
        output = (f"Lab {g.lab}: {word}; correctness {correctness:g} / {P['correctness']}, performance "
                  f"{perf_score:g} / {P['performance']}" if P["performance"]
                  else f"Lab {g.lab}: correctness {correctness:g} / {P['correctness']}")
        if P["written"]:
            output += f", written answers {P['written']} points graded by a person"
        if g.mode == "emulated":
            output += ". Checked EMULATED on the CPU: no GPU ran the kernels"
        if g.ignored:
            output += ". Ignored (the grader uses only the LAB regions of " + \
                      ", ".join(m["files"]) + "): " + "; ".join(g.ignored)
        if g.self_check:
            output += ". A SELF-CHECK in a starter copy, not a grade"
        if g.flags:
            output += (f". Flagged for the teaching assistant ({len(g.flags)}): " +
                       "; ".join(g.flags))
        if g.sandbox:
            output += f". {g.sandbox}"
    out = {
        "score": score,
        "verdict": word,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "execution_time": int(time.time() - g.start),
        "tests": tests,
        "extra_data": {
            "lab": g.lab, "title": m["title"], "submission": g.folder,
            "reference": _version(ROOT),
            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "machine": {"cores": machine.cores(), "cpu": machine.cpu_model(),
                        "others_busy_cores_before": round(g.busy_before, 2)},
            "mode": g.mode, "emulated": g.mode == "emulated", "self_check": g.self_check,
            "refused": g.refused, "ignored": g.ignored, "hung": list(g.hung.values()),
            # Misconduct seen by the grader, one line each with its evidence: never a score.
            "flags": g.flags,
            "sandbox": g.sandbox or "bubblewrap: own PID, network and file view, as the "
                                    "unprivileged user",
            "execs": g.execs_seen or "no run of student code",
            "contained": g.contained or "no run of student code",
            "max_score": total, "autograded_max": auto,
            "performance": {k: v for k, v in g.performance.items()
                            if k in ("status", "speedup", "fraction", "reference_speedup",
                                     "best", "medians", "runs", "others_busy", "unit",
                                     "balance", "extra_work", "checked")},
        },
    }
    if g.performance.get("status") == "measured":
        out["leaderboard"] = [{"name": "speedup", "value": round(g.performance["speedup"], 3),
                               "order": "desc"}]
    return out


def exit_code(r):
    """0: every check passed; 1: some did not; 3: refused."""
    if r["extra_data"]["refused"]:
        return 3
    checks = [t for t in r["tests"] if t["name"].startswith("correctness:")]
    return 0 if checks and all(t["status"] == "passed" for t in checks) else 1


def markdown(r):
    x = r["extra_data"]
    lines = [f"# Grade report: lab {x['lab']}, {x['title']}", "",
             f"- Submission: `{x['submission']}`",
             f"- Reference: {x['reference']}",
             f"- Date: {x['date']}; machine: {x['machine']['cores']} cores, {x['machine']['cpu']}"
             f"; other processes kept {x['machine']['others_busy_cores_before']} cores busy "
             f"before grading",
             f"- **Verdict: {r.get('verdict', '?')}; score: {r['score']:g} / {x['max_score']}** "
             f"({r['output']})", ""]
    if x.get("flags"):
        lines += ["## Flagged for the teaching assistant", "",
                  "The grader saw these; they cost no points by themselves:", ""]
        lines += [f"- {f}" for f in x["flags"]] + [""]
    if x["ignored"]:
        lines += ["Ignored by the grader (only the LAB regions of the lab's files count):", ""]
        lines += [f"- {i}" for i in x["ignored"]] + [""]
    lines += ["| check | verdict | points | result |", "|---|---|---|---|"]
    for t in r["tests"]:
        first = t["output"].split("\n\n")[0].replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {t['name']} | {t.get('verdict', '')} | {t['score']:g} / "
                     f"{t['max_score']} | {first} |")
    lines += ["", "Verdicts: " + "; ".join(f"{w}: {why}" for w, why in WORDS.items()) + "."]
    for t in r["tests"]:
        if "\n\n" in t["output"]:
            lines += ["", f"## {t['name']}", "", t["output"].split("\n\n", 1)[1]]
    return "\n".join(lines) + "\n"


def prairielearn(r):
    """PrairieLearn's external grader results.json: score in [0, 1] over the autograded points
    (the written answers are another question there)."""
    x = r["extra_data"]
    tests = [t for t in r["tests"] if not t["name"].startswith("written")]
    got = sum(t["score"] for t in tests)
    return {
        "gradable": True,
        "score": round(got / x["autograded_max"], 4) if x["autograded_max"] else 0.0,
        "message": r["output"],
        "output": markdown(r),
        "tests": [{"name": t["name"], "points": t["score"], "max_points": t["max_score"],
                   "message": t["output"].split("\n\n")[0], "output": t["output"]}
                  for t in tests],
    }


def github_classroom(r):
    """The payload of GitHub Classroom's autograding reporter (one runner), base64-encoded as
    the `result` output of the grading step."""
    tests = [t for t in r["tests"] if not t["name"].startswith("written")]
    payload = {
        "version": 1,
        "status": "pass" if exit_code(r) == 0 else "fail",
        "max_score": r["extra_data"]["autograded_max"],
        "tests": [{"name": t["name"], "status": "pass" if t["status"] == "passed" else "fail",
                   "score": t["score"], "message": t["output"].split("\n\n")[0],
                   "line_no": 0, "execution_time": "0s", "test_code": ""} for t in tests],
    }
    return base64.b64encode(json.dumps(payload).encode()).decode()


def write_atomic(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
