"""A class's gradings as files for people and for a gradebook (docs/instructors.md):
OUT/grades.csv, OUT/flags.md, OUT/class.md with OUT/class.svg, and each student's own report,
which holds flags and similarity only once the instructor releases them.

Everything here is read from the gradings' results (lab.sh grade's grade-N.json), never from
the submissions: a report can be rewritten at any time without grading again.
"""
import csv
import io
import json
import os
import statistics

from . import report

# The words of a grading's outcome. The grader's own `verdict` field wins where it has one.
VERDICTS = ("CORRECT", "WRONG", "TIMEOUT", "RUN-ERROR", "COMPILE-ERROR", "REFUSED", "FLAGGED",
            "GRADER-ERROR")
# What a student sees of a held flag or similarity: that nothing is hidden from the score.
HELD = "Held for the course staff until they release it (it changes no score)."


def write_json(path, data):
    report.write_atomic(path, json.dumps(data, indent=2) + "\n")


def load_result(folder, lab):
    try:
        with open(os.path.join(folder, f"grade-{lab}.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def result_of(out, student, which, lab):
    """The result of one pass of a student's grading (OUT/students/ID/PASS), or None. Only a
    report of this lab and of this student's own folder counts: one put there for another
    student, by hand or by a task given the wrong line, is not theirs."""
    r = load_result(os.path.join(out, "students", student.key, which), lab)
    x = (r or {}).get("extra_data", {})
    return r if r and x.get("lab") == lab and x.get("submission") == student.folder else None


def checks(r):
    return [t for t in r.get("tests", []) if t["name"].startswith("correctness:")]


def passed_all(r):
    c = checks(r)
    return bool(c) and all(t.get("status") == "passed" for t in c)


def verdict_of(r, manifest=None):
    """The grader's verdict where its results have one; otherwise read from its checks."""
    x = r.get("extra_data", {})
    if r.get("verdict"):
        return r["verdict"]
    if x.get("grader_error"):
        return "GRADER-ERROR"
    if x.get("refused"):
        return "REFUSED"
    c = checks(r)
    if c and c[0].get("status") != "passed" and "build" in c[0]["name"].lower():
        return "COMPILE-ERROR"
    if x.get("hung"):
        return "TIMEOUT"
    return "CORRECT" if passed_all(r) else "WRONG"


def final(out, student, lab):
    """A student's result: the timing pass's where there is one, else the correctness pass's."""
    for which in ("timing", "correctness"):
        r = result_of(out, student, which, lab)
        if r is not None:
            return r
    return None


def check_columns(manifest):
    """Each check's name once, in the manifest's order (lab 5's GPU and emulated checks both)."""
    names = []
    for c in manifest["checks"]:
        if c["name"] not in names:
            names.append(c["name"])
    return names


def rows(manifest, results):
    """The gradebook: a row per student id (a group submission gives each member its row)."""
    names = check_columns(manifest)
    P = manifest["points"]
    header = (["student", "submission"] + [f"{n} ({_max(manifest, n)})" for n in names] +
              [f"correctness ({P['correctness']})", f"performance ({P['performance']})",
               f"total ({P['correctness'] + P['performance']})", "verdict", "flags",
               "performance status"])
    body = []
    for student, r in results:
        got = {t["name"][len("correctness: "):]: t["score"] for t in checks(r)}
        perf = [t for t in r.get("tests", []) if t["name"].startswith("performance:")]
        correctness = sum(got.values())
        performance = perf[0]["score"] if perf else 0
        x = r.get("extra_data", {})
        verdict = verdict_of(r)
        # A grader that failed gave no grade: empty cells, not points, until graded again.
        points = ([""] * (len(names) + 3) if verdict == "GRADER-ERROR" else
                  [_num(got[n]) if n in got else "" for n in names] +
                  [_num(correctness), _num(performance), _num(correctness + performance)])
        for sid in student.ids:
            body.append([sid, student.key] + points +
                        [verdict, str(len(x.get("flags") or [])),
                         (x.get("performance") or {}).get("status", "")])
    return header, body


def _max(manifest, name):
    return next(c["points"] for c in manifest["checks"] if c["name"] == name)


def _num(v):
    return f"{v:g}"


def csv_text(header, body):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(body)
    return buf.getvalue()


def flags_md(lab, results, pairs, out):
    """Every flag the grader raised, with its evidence (the flag's own line says what it saw)
    and where the report is; then the similar pairs a person should look at."""
    lines = [f"# Lab {lab}: flags for the course staff", "",
             "The grader saw these; they cost no points by themselves. Each line is the "
             "grader's evidence; the report beside it has the run's log.", ""]
    flagged = [(s, r) for s, r in results if r.get("extra_data", {}).get("flags")]
    if not flagged:
        lines += ["No grading was flagged.", ""]
    for s, r in flagged:
        folder = os.path.relpath(os.path.join(out, "students", s.key), out)
        lines += [f"## {s.key} ({verdict_of(r)}, {r.get('score', 0):g} points)", "",
                  f"Report: `{folder}/` (grade-{lab}.md and .log of each pass)", ""]
        lines += [f"- {f}" for f in r["extra_data"]["flags"]] + [""]
    lines += ["## Similar submissions", ""]
    listed = [p for p in pairs if p["listed"]]
    if not listed:
        lines += ["No pair stands out from the class (similarity.csv has every pair).", ""]
    for p in listed:
        lines += [f"- {p['left']} and {p['right']}: similarity {p['similarity']:.2f}, "
                  f"robust z {p['z']:.1f} against the other pairs; the matching "
                  f"fragments: similarity.md", ""]
    return "\n".join(lines)


def student_report(r, listed_pairs, student, release):
    """The results a student sees: with release, every flag and the similarity found; without
    it, both held back (the score is the same either way)."""
    s = json.loads(json.dumps(r))
    x = s.setdefault("extra_data", {})
    x.pop("class", None)  # the class run's own bookkeeping
    flags = x.get("flags") or []
    mine = [p for p in listed_pairs if student.key in (p["left"], p["right"])]
    if release:
        for p in mine:
            note = (f"Your graded regions are very similar to another submission's (similarity "
                    f"{p['similarity']:.2f}); the course staff will talk to you about it.")
            x.setdefault("flags", []).append(note)
            s["output"] += ". " + note
        return s
    if flags:
        held = f". Flagged for the teaching assistant ({len(flags)}): " + "; ".join(flags)
        s["output"] = s["output"].replace(held, "")
        x["flags"] = []
        if any(f in s["output"] for f in flags):  # the report's wording changed: say less
            s["output"] = f"Lab {x.get('lab')}: score {s.get('score', 0):g}"
    return s


def class_md(lab, manifest, layout, results, pairs, out, svg):
    P = manifest["points"]
    auto = P["correctness"] + P["performance"]
    scores = [r.get("score", 0) for _, r in results]
    counts = {}
    for _, r in results:
        counts[verdict_of(r)] = counts.get(verdict_of(r), 0) + 1
    lines = [f"# Lab {lab}: the class", "",
             f"{len(results)} submissions ({layout}), graded against the reference of this "
             f"project. Scores are of the {auto} autograded points; the written answers "
             f"({P['written']}) are graded by a person.", "",
             f"![score distribution, pass rate per check, time per grading]({svg})", "",
             "| verdict | submissions |", "|---|---|"]
    lines += [f"| {v} | {n} |" for v, n in sorted(counts.items())]
    if scores:
        lines += ["", f"Scores: median {statistics.median(scores):g}, lowest {min(scores):g}, "
                      f"highest {max(scores):g} of {auto}."]
    for which in ("correctness", "timing"):
        took = [t for t in (pass_seconds(out, st, lab, which) for st, _ in results)
                if t is not None]
        if took:
            lines.append(f"Time per {which} grading: median {statistics.median(took):.0f} s, "
                         f"longest {max(took):.0f} s, {sum(took) / 60:.1f} min for "
                         f"{len(took)}.")
    lines += ["", "| check | points | passed |", "|---|---|---|"]
    for name, points, rate in pass_rates(manifest, results):
        lines.append(f"| {name} | {points} | {rate} |")
    waits = [x["class"]["quiet_wait"] for _, r in results
             for x in [r.get("extra_data", {})] if (x.get("class") or {}).get("quiet_wait")]
    if waits:
        busy = sum(1 for w in waits if not w["quiet"])
        lines += ["", f"Timing: the {len(waits)} timed gradings waited "
                      f"{sum(w['seconds'] for w in waits):.0f} s in all for a quiet machine; "
                      f"{busy} of them started on a busy one after the longest wait."]
    listed = [p for p in pairs if p["listed"]]
    lines += ["", f"Similarity: {len(pairs)} pairs compared, {len(listed)} listed for a person "
                  f"(flags.md, similarity.md). It changes no grade.", ""]
    return "\n".join(lines)


def pass_seconds(out, student, lab, which):
    """The seconds of one pass's grading of a student, or None."""
    r = result_of(out, student, which, lab)
    return r.get("extra_data", {}).get("class", {}).get("seconds") if r else None


def pass_rates(manifest, results):
    """(check, points, 'passed of graded') for each check."""
    out = []
    for name in check_columns(manifest):
        ran = [t for _, r in results for t in checks(r) if t["name"] == "correctness: " + name]
        ok = sum(1 for t in ran if t.get("status") == "passed")
        out.append((name, _max(manifest, name), f"{ok} of {len(ran)}"))
    return out


def svg(lab, manifest, results, out):
    """Three panels, drawn by hand (the kit uses the standard library only): the score
    distribution, the pass rate per check, and the seconds of each grading."""
    W, H, pad = 900, 260, 40
    pw = (W - 4 * pad) / 3
    auto = manifest["points"]["correctness"] + manifest["points"]["performance"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{W}" height="{H}" fill="white"/>']

    def panel(i, title, bars, ymax, xlabels, ylabel):
        x0 = pad + i * (pw + pad)
        y0, ph = H - pad, H - 2.5 * pad
        parts.append(f'<text x="{x0}" y="{pad * 0.8}" font-weight="bold">{_esc(title)}</text>')
        parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x0 + pw}" y2="{y0}" stroke="black"/>')
        parts.append(f'<line x1="{x0}" y1="{y0}" x2="{x0}" y2="{y0 - ph}" stroke="black"/>')
        parts.append(f'<text x="{x0 + 2}" y="{y0 - ph - 4}">{_esc(ylabel)} (max '
                     f'{ymax:g})</text>')
        n = max(1, len(bars))
        bw = pw / n
        for k, v in enumerate(bars):
            h = 0 if ymax <= 0 else ph * v / ymax
            parts.append(f'<rect x="{x0 + k * bw + 1:.1f}" y="{y0 - h:.1f}" '
                         f'width="{max(bw - 2, 1):.1f}" height="{h:.1f}" fill="#4477aa"/>')
        for k, label in xlabels:
            parts.append(f'<text x="{x0 + k * bw:.1f}" y="{y0 + 14}">{_esc(label)}</text>')

    bins = 10
    hist = [0] * bins
    for _, r in results:
        hist[min(bins - 1, int(bins * r.get("score", 0) / auto) if auto else 0)] += 1
    panel(0, f"Lab {lab}: scores ({len(results)} submissions)", hist, max(hist + [1]),
          [(0, "0"), (bins - 1, f"{auto}")], "submissions")
    rates = []
    for name, _, rate in pass_rates(manifest, results):
        ok, _, graded = rate.split()
        rates.append(100.0 * int(ok) / int(graded) if int(graded) else 0.0)
    panel(1, "Passed, per check (%)", rates, 100,
          [(k, str(k + 1)) for k in range(len(rates))], "percent")
    secs = [sum(pass_seconds(out, st, lab, w) or 0 for w in ("correctness", "timing"))
            for st, _ in results]
    panel(2, "Seconds per student (both passes)", secs, max(secs + [1]),
          [(0, "1"), (len(secs) - 1, str(len(secs)))] if secs else [], "seconds")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _esc(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_all(lab, manifest, layout, students, out, pairs, release):
    """Every class file from the results in OUT; returns the rows' count."""
    results = [(s, r) for s in students for r in [final(out, s, lab)] if r is not None]
    header, body = rows(manifest, results)
    report.write_atomic(os.path.join(out, "grades.csv"), csv_text(header, body))
    report.write_atomic(os.path.join(out, "flags.md"), flags_md(lab, results, pairs, out))
    report.write_atomic(os.path.join(out, "class.svg"), svg(lab, manifest, results, out))
    report.write_atomic(os.path.join(out, "class.md"),
                        class_md(lab, manifest, layout, results, pairs, out, "class.svg"))
    listed = [p for p in pairs if p["listed"]]
    for s, r in results:
        mine = student_report(r, listed, s, release)
        folder = os.path.join(out, "students", s.key)
        write_json(os.path.join(folder, f"student-{lab}.json"), mine)
        report.write_atomic(os.path.join(folder, f"student-{lab}.md"), report.markdown(mine))
    return len(body)
