#!/usr/bin/env python3
"""`lab.sh class`'s tests (labkit/tests/labkit.cmake, label labkit), with classes this test
writes from labkit/tests/submissions/.

  test_class.py layouts   no grading: a folder per student, a GitHub Classroom clone folder
                          and a Gradescope export give the right students; bad folders are
                          refused in one line; the pair ranking lists an outlier and not a
                          class of alike pairs; a student's report holds flags back until
                          --release; with a stand-in grader, a run killed during a grading
                          and started again grades no student twice and ends what the
                          killed run left
  test_class.py lab1      five lab 1 submissions graded for correctness (the solution, alt,
                          alt renamed and reordered, serial, the exit0 attack): the run is
                          killed (its process group, SIGKILL) once the first result appears
                          and started again: the finished student is not graded again, nothing
                          of the killed run is left running, grades.csv has each expected
                          grade, the attack is flagged, the copy pair is listed and no honest
                          pair is; a third run with --release grades nothing, writes the same
                          grades.csv, and shows the held flag to its student
  test_class.py every     every lab's class: the solution and each of the kit's submissions
                          of that lab, graded with one timing round: each gets its expected
                          correctness, verdict and (where the clock does not decide)
                          performance, and only the FLAGGED ones have flags; prints the
                          seconds a grading of each lab (docs/data/class.csv)

Exit 0: passed; 1: failed (the first failure, in one line); 77: SKIPPED.
"""
import csv
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import xml.dom.minidom

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
ROOT = os.path.dirname(KIT)
sys.path.insert(0, KIT)
from kit import classreport, klass, manifest, regions, similarity, tree  # noqa: E402

LAB = ["bash", os.path.join(ROOT, "run_scripts", "lab.sh")]
TMP = tempfile.mkdtemp(prefix="labkit-class-")
os.chmod(TMP, 0o755)


class Failed(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failed(message)


def lab(*args, timeout=3600):
    p = subprocess.run(LAB + [str(a) for a in args], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def write_class(folder, n, names):
    """folder/NAME/FILE for each name: lab n's files as a student hands them in (base names,
    as Gradescope lays out uploads), their regions holding submissions/labN/NAME's bodies, or
    the solution's for 'solution'."""
    manifests = manifest.load_all()
    m = manifests[n]
    starter = tree.variant(ROOT, manifests, n)
    for name in names:
        os.makedirs(os.path.join(folder, name))
        for f in m["files"]:
            text = starter[f]
            if name == "solution":
                bodies = tree.solution(ROOT, m)[f]
            else:
                bodies = [tree.read(os.path.join(HERE, "submissions", f"lab{n}", name,
                                                 f"{os.path.basename(f)}.{k}"))
                          for k in range(1, len(regions.spans(text, n)) + 1)]
            with open(os.path.join(folder, name, os.path.basename(f)), "w") as out:
                out.write(regions.replace(text, n, bodies))


def listed(folder):
    """The --list output of a class folder: {key: (ids, folder)}."""
    rc, out = lab("class", 1, folder, os.path.join(TMP, "out-list"), "--list")
    expect(rc == 0, f"lab.sh class --list {folder}: exit {rc}: {out.strip()[-300:]}")
    found = {}
    for line in out.splitlines():
        if "\t" in line:
            key, ids, where = line.split("\t")
            found[key] = (ids.split(","), where)
    return found


def layouts():
    names = ["alt", "serial"]
    plain = os.path.join(TMP, "plain")
    write_class(plain, 1, names)
    got = listed(plain)
    expect(sorted(got) == names, f"a folder per student: found {sorted(got)}, want {names}")

    room = os.path.join(TMP, "lab-1-omp-submissions")
    for user in ("ada-l", "grace"):
        write_class(room, 1, ["alt"])
        os.rename(os.path.join(room, "alt"), os.path.join(room, f"lab-1-omp-{user}"))
        os.makedirs(os.path.join(room, f"lab-1-omp-{user}", ".git"))
    got = listed(room)
    expect(sorted(got) == ["ada-l", "grace"], f"GitHub Classroom: found {sorted(got)}")
    collected = os.path.join(TMP, "collected")  # renamed: the repositories' common prefix
    os.rename(room, collected)
    got = listed(collected)
    expect(sorted(got) == ["ada-l", "grace"], f"GitHub Classroom, renamed: found {sorted(got)}")

    gs = os.path.join(TMP, "gradescope")
    write_class(gs, 1, ["alt", "serial"])
    os.rename(os.path.join(gs, "alt"), os.path.join(gs, "submission_101"))
    os.rename(os.path.join(gs, "serial"), os.path.join(gs, "submission_102"))
    with open(os.path.join(gs, "submission_metadata.yml"), "w") as f:
        f.write("---\nsubmission_101:\n  :submitters:\n  - :name: Ada Lovelace\n"
                "    :sid: '1815'\n    :email: ada@example.edu\n  :created_at: 2026-11-30\n"
                "  :score: 0.0\nsubmission_102:\n  :submitters:\n  - :name: Grace Hopper\n"
                "    :email: grace@example.edu\n  - :name: Alan Turing\n    :sid: '1912'\n")
    got = listed(gs)
    expect(got.get("submission_101", ([],))[0] == ["1815"] and
           got.get("submission_102", ([],))[0] == ["grace@example.edu", "1912"],
           f"Gradescope export: found {got}")

    # Refused in one line: OUT inside SUBMISSIONS, metadata naming a missing folder, no folder.
    rc, out = lab("class", 1, plain, os.path.join(plain, "out"))
    expect(rc == 2 and "inside SUBMISSIONS" in out, f"OUT inside SUBMISSIONS: exit {rc}: {out}")
    shutil.rmtree(os.path.join(gs, "submission_102"))
    rc, out = lab("class", 1, gs, os.path.join(TMP, "o"), "--list")
    expect(rc == 2 and "submission_102" in out and len(out.strip().splitlines()) == 1,
           f"a Gradescope export without a named folder: exit {rc}: {out}")
    rc, out = lab("class", 1, os.path.join(TMP, "nowhere"), os.path.join(TMP, "o"))
    expect(rc == 2 and "no folder" in out, f"no SUBMISSIONS folder: exit {rc}: {out}")
    print("layouts: a folder per student, GitHub Classroom, Gradescope; bad folders refused")

    # The ranking: one pair far above the class is listed; a class of alike pairs lists none.
    keys = [f"s{i}" for i in range(4)]  # 6 pairs: the outlier must not hide in the spread
    found = [(a, b, 0.40 + 0.01 * ((i * 7 + j) % 5), 10, [])
             for i, a in enumerate(keys) for j, b in enumerate(keys) if i < j]
    found[3] = (found[3][0], found[3][1], 0.90, 80, [])
    pairs = similarity.rank(keys, found)
    expect([(p["left"], p["right"]) for p in pairs if p["listed"]] == [found[3][:2]],
           f"the ranking lists {[(p['left'], p['right']) for p in pairs if p['listed']]}, "
           f"want {found[3][:2]}")
    alike = similarity.rank(keys, [(a, b, 0.8, 50, []) for a, b, *_ in found])
    expect(not any(p["listed"] for p in alike), "a class of pairs all at 0.8 lists a pair")
    print("ranking: the outlier pair listed, alike pairs not")

    # What a student sees: the flag held by default, shown with --release.
    flag = "ran another program (lenet-openmp started /bin/sh)"
    r = {"score": 5, "output": f"Lab 1: correctness 5 / 60, performance 0 / 25. Flagged for "
                               f"the teaching assistant (1): {flag}",
         "tests": [], "extra_data": {"lab": 1, "flags": [flag]}}
    s = klass.Student("ada", "/x", ["ada"])
    held = json.dumps(classreport.student_report(r, [], s, release=False))
    shown = json.dumps(classreport.student_report(r, [], s, release=True))
    expect(flag not in held and flag in shown,
           f"the student's report: held {flag in held}, released {flag in shown}")
    print("student reports: flags held until --release")
    resume()


# A stand-in for `lab.sh grade` (resume() runs the class command with it): it counts its
# gradings in SUBMISSION/../../count-KEY, and for a student named "slow" starts a process in a
# session of its own (which a process group kill does not reach) and waits until the file
# SUBMISSION/../../go exists; then it writes a results file in which every check passed.
FAKE_GRADE = r"""
import json, os, subprocess, sys, time
sys.path.insert(0, sys.argv[1])
from kit import manifest
lab, folder, out = int(sys.argv[2]), sys.argv[3], sys.argv[sys.argv.index("--out") + 1]
top = os.path.dirname(os.path.dirname(folder))
key = os.path.basename(folder)
with open(os.path.join(top, "count-" + key), "a") as f:
    f.write("graded\n")
if key == "slow":
    subprocess.Popen(["sleep", "1000"], start_new_session=True)
    while not os.path.exists(os.path.join(top, "go")):
        time.sleep(0.1)
m = manifest.load(lab)
tests = [{"name": "correctness: " + c["name"], "score": c["points"], "max_score": c["points"],
          "status": "passed", "output": "passed"} for c in manifest.checks_for(m, "cpu")]
r = {"score": m["points"]["correctness"], "output": "fake", "tests": tests,
     "extra_data": {"lab": lab, "title": m["title"], "submission": folder, "reference": "",
                    "date": "", "machine": {"cores": 2, "cpu": "", "others_busy_cores_before": 0},
                    "max_score": 100, "ignored": [], "flags": [],
                    "performance": {"status": "off"}}}
with open(os.path.join(out, "grade-%d.json" % lab), "w") as f:
    json.dump(r, f)
"""


def resume():
    """The class command with a stand-in grader: killed (its process group, SIGKILL) while
    "slow" is graded, after "fast" was; started again: "fast" is not graded again, the process
    the killed grading left in a session of its own is ended, every student has a row."""
    top = os.path.join(TMP, "resume")
    subs, out = os.path.join(top, "subs"), os.path.join(top, "out")
    write_class(subs, 1, ["alt", "serial"])
    os.rename(os.path.join(subs, "alt"), os.path.join(subs, "fast"))
    os.rename(os.path.join(subs, "serial"), os.path.join(subs, "slow"))
    fake = os.path.join(top, "fake_grade.py")
    with open(fake, "w") as f:
        f.write(FAKE_GRADE.replace('sys.argv[1])', repr(KIT) + ")", 1))
    driver = [sys.executable, "-c",
              f"import sys; sys.path.insert(0, {KIT!r}); from kit import klass; "
              f"klass.LAB_PY = {fake!r}; import lab; sys.exit(lab.main(sys.argv[1:]))",
              "class", "1", subs, out, "--no-timing"]
    first = subprocess.Popen(driver, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                             start_new_session=True)
    slow_work = os.path.join(out, ".work", "slow-correctness")
    start = time.time()
    while not (os.path.isfile(os.path.join(out, "students", "fast", "correctness",
                                           "grade-1.json")) and os.path.isdir(slow_work)):
        expect(first.poll() is None and time.time() - start < 120,
               f"the first run ended (exit {first.returncode}) or took 2 minutes before "
               f"grading 'slow'")
        time.sleep(0.05)
    with open(os.path.join(out, ".run")) as f:
        tag = f.read().strip()
    # The stand-in grader's process in a session of its own, started: the kill comes after it
    # (counting the tagged processes raced with it: the grader's own were two already).
    while not [pid for pid in own_tagged(tag) if session_leader(pid)]:
        expect(time.time() - start < 120, f"the stand-in grader's processes: {own_tagged(tag)}")
        time.sleep(0.05)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    left = own_tagged(tag)
    expect(left, "the stand-in grader's process in a session of its own did not outlive the "
                 "killed run: the test shows nothing")
    open(os.path.join(subs, "..", "go"), "w").close()
    p = subprocess.run(driver, capture_output=True, text=True, timeout=120)
    expect(p.returncode == 0, f"the second run: exit {p.returncode}: {p.stdout[-300:]}"
                              f"{p.stderr[-300:]}")
    counts = {k: tree.read(os.path.join(top, f"count-{k}")).count("graded")
              for k in ("fast", "slow")}
    expect(counts == {"fast": 1, "slow": 2}, f"gradings started per student: {counts}, want "
                                             f"fast once, slow twice (cut off, then whole)")
    expect(not own_tagged(tag), f"processes of the killed run still run: {own_tagged(tag)}")
    with open(os.path.join(out, "grades.csv")) as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    expect(sorted(rows) == ["fast", "slow"] and
           all(r["correctness (60)"] == "60" for r in rows.values()),
           f"grades.csv after the resumed run: {rows}")
    print("resume: killed during a grading, started again: no student graded twice, nothing "
          "of the killed run left")


def session_leader(pid):
    try:
        return os.getsid(pid) == pid
    except OSError:
        return False


def own_tagged(tag):
    needle = f"{klass.TAG_VAR}={tag}".encode()
    pids = []
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(pid))
        except (OSError, ValueError):
            pass
    return pids


def class_lab1():
    if similarity.missing():
        print(f"SKIPPED: {similarity.missing()}")
        sys.exit(77)
    names = ["alt", "copied", "exit0", "serial", "solution"]
    subs, out = os.path.join(TMP, "class"), os.path.join(TMP, "out")
    write_class(subs, 1, names)
    args = LAB + ["class", "1", subs, out, "--no-timing"]

    # The first run, killed with its whole process group once a first result is in place.
    log = open(os.path.join(TMP, "first.log"), "w")
    first = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    results = os.path.join(out, "students")
    start, done = time.time(), []
    while not done:
        expect(first.poll() is None, f"the first run ended (exit {first.returncode}) before "
                                     f"it could be killed")
        expect(time.time() - start < 2400, "no result within 40 minutes")
        if os.path.isdir(results):
            done = [k for k in os.listdir(results)
                    if os.path.isfile(os.path.join(results, k, "correctness", "grade-1.json"))]
        time.sleep(0.2)
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    with open(os.path.join(out, ".run")) as f:
        tag = f.read().strip()
    kept = {k: os.stat(os.path.join(results, k, "correctness", "grade-1.json")) for k in done}
    print(f"first run killed after {time.time() - start:.0f} s, {done} graded")

    rc, text = lab(*args[2:])
    expect(rc == 0, f"the second run: exit {rc}: {text.strip()[-400:]}")
    expect(f"{len(done)} of {len(names)} graded by an earlier run: kept" in text,
           f"the second run does not say it kept the first's results: {text[-400:]}")
    for k, st in kept.items():
        now = os.stat(os.path.join(results, k, "correctness", "grade-1.json"))
        expect((now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns),
               f"{k}, graded by the killed run, was graded again")
    expect(not own_tagged(tag), f"processes of the killed run still run: {own_tagged(tag)}")
    expect(not os.path.exists(os.path.join(out, ".work")) or
           not os.listdir(os.path.join(out, ".work")), "the work folder is not empty")

    with open(os.path.join(out, "grades.csv")) as f:
        grades = {row["student"]: row for row in csv.DictReader(f)}
    want = {"alt": 60, "copied": 60, "serial": 60, "solution": 60, "exit0": 5}
    for name, points in want.items():
        row = grades.get(name)
        expect(row is not None, f"grades.csv has no row for {name}")
        expect(float(row["correctness (60)"]) == points,
               f"{name}: correctness {row['correctness (60)']}, want {points}")
        expect(row["verdict"] == ("CORRECT" if points == 60 else row["verdict"]) and
               (points == 60) == (row["flags"] == "0"),
               f"{name}: verdict {row['verdict']}, flags {row['flags']}")
    expect(grades["exit0"]["verdict"] in ("WRONG", "RUN-ERROR", "FLAGGED"),
           f"exit0's verdict: {grades['exit0']['verdict']}")
    flags = tree.read(os.path.join(out, "flags.md"))
    expect("## exit0" in flags and "exited before its report" in flags,
           f"flags.md does not show exit0's flag with its evidence:\n{flags[:600]}")
    print("grades.csv: every expected grade; exit0 flagged with its evidence")

    with open(os.path.join(out, "similarity.csv")) as f:
        pairs = list(csv.DictReader(f))
    expect(len(pairs) == 10, f"similarity.csv has {len(pairs)} pairs, want 10")
    top = [(p["left"], p["right"]) for p in pairs if p["listed"] == "yes"]
    for p in pairs:
        print(f"  similarity {p['left']:>8} {p['right']:>8} {p['similarity']} z {p['z']} "
              f"listed {p['listed']}")
    expect(top == [("alt", "copied")], f"listed pairs {top}, want only alt and copied")
    frag = tree.read(os.path.join(out, "similarity.md"))
    expect("## alt and copied" in frag and "```cpp" in frag,
           "similarity.md does not show the listed pair's fragments")
    student = tree.read(os.path.join(results, "exit0", "student-1.md"))
    expect("exited before its report" not in student.split("| check |")[0] and
           "similar" not in tree.read(os.path.join(results, "alt", "student-1.md")),
           "a held flag or similarity is in a student's report")
    svg = os.path.join(out, "class.svg")
    xml.dom.minidom.parse(svg)  # raises on a malformed plot
    expect("class.svg" in tree.read(os.path.join(out, "class.md")), "class.md has no plot")
    print("similarity: the copy pair listed, no honest pair; the plot is well-formed SVG")

    # A third run grades nothing, writes the same gradebook, and releases what was held.
    before = tree.read(os.path.join(out, "grades.csv"))
    rc, text = lab(*args[2:], "--release")
    expect(rc == 0 and f"{len(names)} of {len(names)} graded by an earlier run: kept" in text,
           f"the third run: exit {rc}: {text.strip()[-300:]}")
    expect(tree.read(os.path.join(out, "grades.csv")) == before,
           "grades.csv differs after a run that graded nothing")
    expect("exited before its report" in tree.read(os.path.join(results, "exit0",
                                                                "student-1.md")),
           "--release: exit0's report does not show its flag")
    expect("similar" in tree.read(os.path.join(results, "copied", "student-1.md")),
           "--release: copied's report does not mention the similarity")
    print("a run after the last grades nothing; --release shows the flags to the students")


# What each of the kit's submissions earns in a class graded with one timing round
# (--force-timing --reps 1, as test_labkit.py grades them one by one): (correctness points,
# verdict, performance: 0, or None where the clock decides, a correct parallel program's on a
# machine that may be busy). FLAGGED is the verdict wherever anything is flagged. Lab 5 has no
# performance part where it is emulated. A program that starts another (daemon, snoop) loses the
# checks whose runs it was in; lab 3's cheat fails both strategies' work checks; lab 4's exec has
# no S1, so only its build passes.
EVERY = {
    1: {"solution": (60, "CORRECT", None), "alt": (60, "CORRECT", None),
        "alternate": (60, "CORRECT", 0), "copied": (60, "CORRECT", None),
        "counters": (60, "CORRECT", 0), "daemon": (40, "FLAGGED", 0),
        "droplast": (5, "WRONG", 0), "exit0": (5, "FLAGGED", 0), "hang": (5, "TIMEOUT", 0),
        "rewrite": (5, "FLAGGED", 0), "serial": (60, "CORRECT", 0),
        "snoop": (40, "FLAGGED", 0), "timed": (60, "FLAGGED", 0)},
    2: {"solution": (60, "CORRECT", None), "alt": (60, "CORRECT", None),
        "boundary": (60, "CORRECT", None), "collapse": (60, "CORRECT", None),
        "critical": (60, "CORRECT", 0), "forged": (60, "FLAGGED", 0),
        "guided": (60, "CORRECT", None), "lopsided": (60, "CORRECT", 0),
        "loud": (60, "CORRECT", None), "masked": (60, "CORRECT", 0),
        "serial": (60, "CORRECT", 0), "single": (60, "CORRECT", 0),
        "tasks": (60, "CORRECT", None), "twice": (60, "CORRECT", 0)},
    3: {"solution": (60, "CORRECT", None), "alt": (60, "CORRECT", None),
        "cheat": (40, "WRONG", 0), "deadlock": (35, "TIMEOUT", 0),
        "nonblocking": (60, "CORRECT", None), "turns": (60, "CORRECT", 0)},
    4: {"solution": (60, "CORRECT", None), "alt": (60, "CORRECT", None),
        "exec": (5, "FLAGGED", 0), "memo": (60, "FLAGGED", 0), "replay": (60, "FLAGGED", 0),
        "scalar": (60, "CORRECT", 0)},
    5: {"solution": (60, "CORRECT", None), "gridstride": (60, "CORRECT", None),
        "shuffle": (60, "CORRECT", None), "exit0": (5, "FLAGGED", 0)},
}


def every_lab():
    """Each lab's class of the kit's submissions, graded."""
    if similarity.missing():
        print(f"SKIPPED: {similarity.missing()}")
        sys.exit(77)
    wrong = []
    for n, want in EVERY.items():
        if n == 3 and not (shutil.which("mpirun") or shutil.which("mpiexec")):
            print("lab 3: not graded: no MPI launcher (mpirun or mpiexec) here")
            continue
        subs, out = os.path.join(TMP, f"every-{n}"), os.path.join(TMP, f"every-{n}-out")
        write_class(subs, n, sorted(want))
        start = time.time()
        rc, text = lab("class", n, subs, out, "--force-timing", "--reps", "1", "--quiet-wait", "0",
                       timeout=7200)
        expect(rc == 0, f"lab.sh class {n}: exit {rc}: {text.strip()[-400:]}")
        P = manifest.load(n)["points"]
        with open(os.path.join(out, "grades.csv")) as f:
            grades = {row["student"]: row for row in csv.DictReader(f)}
        seconds = {"correctness": [], "timing": []}
        for name, (points, verdict, perf) in want.items():
            row = grades.get(name, {})
            got = (float(row.get(f"correctness ({P['correctness']})") or "nan"),
                   row.get("verdict"), float(row.get(f"performance ({P['performance']})") or 0))
            if got[:2] != (points, verdict) or (perf is not None and got[2] != perf):
                wrong.append(f"lab {n} {name}: {got}, want {(points, verdict, perf)}")
            if (row.get("flags", "0") != "0") != (verdict == "FLAGGED"):
                wrong.append(f"lab {n} {name}: {row.get('flags')} flags, verdict {verdict}")
            for which in seconds:
                path = os.path.join(out, "students", name, which, f"grade-{n}.json")
                if os.path.isfile(path):
                    with open(path) as f:
                        seconds[which].append(json.load(f)["extra_data"]["class"]["seconds"])
        took = "; ".join(f"{which}: median {statistics.median(v):.1f} s, min {min(v):.1f}, max "
                         f"{max(v):.1f} ({len(v)})" for which, v in seconds.items() if v)
        print(f"lab {n}: {len(want)} students in {time.time() - start:.0f} s; a grading: {took}")
    expect(not wrong, "; ".join(wrong))
    print("every lab: each submission its expected correctness, verdict and performance")


def main():
    try:
        if sys.argv[1:] == ["layouts"]:
            layouts()
        elif sys.argv[1:] == ["lab1"]:
            class_lab1()
        elif sys.argv[1:] == ["every"]:
            every_lab()
        else:
            print(__doc__)
            return 2
    except Failed as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
