#!/usr/bin/env python3
"""The lab kit's own tests (ctest -L labkit; labkit/tests/labkit.cmake), through `lab.sh` as a
teaching assistant and a platform would use it, with submissions this test writes from
labkit/tests/submissions/labN/NAME/FILE.K (the K-th region of FILE).

  test_labkit.py kit          no build: manifests and handouts agree, no starter holds any
                              lab's answer, submissions of another lab are refused, a failed
                              Catch2 check reads as plain text, marker words in a string are
                              not a marker, a test report sent through the grader's pipe
                              cannot be read back and shows what was added after it, work
                              counted twice costs points in proportion
  test_labkit.py lab N        the solution passes; a starter with tampered tests earns the
                              build's points only; a correct submission written otherwise gets
                              full correctness (labs 1-3: and its calls count as shared); one
                              without parallelism (or vectors) earns no performance points even
                              with --force-timing, nor does lab 2's C1 computed whole on every
                              thread, nor a call serial on one thread whichever it is (lab 2:
                              single, critical, masked; lab 1: every other batch; lab 3: the
                              whole batch on one rank, another each step); lab 1's hang and
                              lab 3's deadlock are reported within 5 minutes, leaving no
                              process; lab 3's whole batch on every rank loses points
  test_labkit.py quick        one attack a lab, graded for correctness: its points and verdict
                              as the class test expects them, flagged where it forges (the
                              README's test command's share of the gradings)
  test_labkit.py platforms    the Gradescope bundle's run_autograder, PrairieLearn's results and
                              GitHub Classroom's payload, each validated field by field

No report any grading writes (grade-N.md, .json, .log, results.json, PrairieLearn's and GitHub
Classroom's) holds an escape character or a NON-XML-CHAR marker.

Exit 0: passed; 1: failed (the first failure, in one line); 77: SKIPPED.
"""
import base64
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
ROOT = os.path.dirname(KIT)
sys.path.insert(0, KIT)
from kit import (build, grade as grading, grade_checks, manifest, procs, regions,  # noqa: E402
                 stream, tree, users, verdicts)

LAB = ["bash", os.path.join(ROOT, "run_scripts", "lab.sh")]
TMP = tempfile.mkdtemp(prefix="labkit-test-")
os.chmod(TMP, 0o755)


class Failed(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failed(message)


def lab(*args, env=None):
    run_env = dict(os.environ, **(env or {}))
    p = subprocess.run(LAB + [str(a) for a in args], capture_output=True, text=True, env=run_env,
                       timeout=1800)
    return p.returncode, p.stdout + p.stderr


def starter(n, name):
    folder = os.path.join(TMP, name)
    rc, out = lab("start", n, folder)
    expect(rc == 0, f"lab.sh start {n} failed: {out.strip()[-300:]}")
    return folder


def put_work(folder, n, name, files=None):
    """Lab n's regions of the starter in folder replaced by submissions/labN/NAME's bodies."""
    m = manifest.load(n)
    for f in files or m["files"]:
        path = os.path.join(folder, f)
        text = tree.read(path)
        count = len(regions.spans(text, n))
        bodies = [tree.read(os.path.join(HERE, "submissions", f"lab{n}", name,
                                         f"{os.path.basename(f)}.{k}"))
                  for k in range(1, count + 1)]
        with open(path, "w") as out:
            out.write(regions.replace(text, n, bodies))


def submission(n, name):
    folder = starter(n, f"lab{n}-{name}")
    put_work(folder, n, name)
    return folder


def readable(path, text=None):
    """A report a student reads (the file at path, or text) holds no terminal code, written
    plain or as JSON writes it, and no CTest NON-XML-CHAR marker; returns its text."""
    text = tree.read(path) if text is None else text
    for bad, what in (("\x1b", "an escape character"), ("\\u001b", "an escape character"),
                      ("NON-XML-CHAR", "a NON-XML-CHAR marker")):
        at = text.lower().find(bad.lower())
        expect(at < 0, f"{path} holds {what}: '{text[max(0, at - 60):at + 60]}'")
    return text


def grade(n, folder, *options):
    """Grades; returns (exit code, results dict, seconds). Every report it writes is
    readable."""
    start = time.time()
    rc, out = lab("grade", n, folder, *options)
    seconds = time.time() - start
    path = os.path.join(folder, f"grade-{n}.json")
    expect(rc != 2 and os.path.isfile(path), f"lab.sh grade {n} {folder} wrote no report "
                                             f"(exit {rc}): {out.strip()[-400:]}")
    for kind in ("json", "md", "log"):
        readable(os.path.join(folder, f"grade-{n}.{kind}"))
    with open(path) as f:
        r = json.load(f)
    print(f"--- lab {n}, {os.path.basename(folder)}: exit {rc}, {seconds:.0f} s, score "
          f"{r['score']}: {r['output']}")
    for t in r["tests"]:
        print(f"    {t['score']:>5} / {t['max_score']:<3} {t['name']}: "
              f"{t['output'].splitlines()[0][:150]}")
    return rc, r, seconds


def points(r, prefix):
    return sum(t["score"] for t in r["tests"] if t["name"].startswith(prefix))


def test(r, prefix):
    found = [t for t in r["tests"] if t["name"].startswith(prefix)]
    expect(found, f"no test named '{prefix}...' in the report")
    return found[0]


# ---- kit: no build ---------------------------------------------------------------------------

def answer_lines(manifests):
    """{lab: set of lines}: the solution's code lines of each lab that the rest of the tree
    does not hold (outside every region, the kit's own tests apart) and its stubs and stand-ins
    do not either. A starter holding one of them holds part of an answer."""
    corpus = set()
    files = tree.project_files(ROOT, for_students=True)
    region_files = tree.region_files(manifests)
    for f in files:
        try:
            text = tree.read(os.path.join(ROOT, f))
        except (UnicodeDecodeError, OSError):
            continue
        for n in region_files.get(f, []):
            text = regions.outside(text, n)
        corpus.update(" ".join(l.split()) for l in text.split("\n"))
    answers = {}
    for n, m in manifests.items():
        given = set()
        for kind in ("stubs", "standins"):
            folder = os.path.join(KIT, kind, f"lab{n}")
            for p in os.listdir(folder) if os.path.isdir(folder) else []:
                given.update(" ".join(l.split()) for l in tree.read(os.path.join(folder, p))
                             .split("\n"))
        lines = set()
        for f in m["files"]:
            for body in regions.bodies(tree.read(os.path.join(ROOT, f)), n):
                for l in body.split("\n"):
                    l = " ".join(l.split())
                    if len(l) >= 12 and not l.startswith(("//", "#pragma")) and \
                            l not in corpus and l not in given:
                        lines.add(l)
        answers[n] = lines
    return answers


def kit():
    manifests = manifest.load_all()
    # Each check kind a manifest may name has its method in the grader, and no other has one.
    expect(manifest.CHECK_KINDS == set(grade_checks.KINDS) | {"build"},
           f"manifest.CHECK_KINDS {sorted(manifest.CHECK_KINDS)} and the grader's kinds "
           f"{sorted(grade_checks.KINDS)} differ")
    # One definition: each handout's rubric table is the manifest's.
    for n, m in manifests.items():
        handout = tree.read(os.path.join(ROOT, m["handout"]))
        rc, table = lab("rubric", n)
        expect(rc == 0 and table.strip() in handout,
               f"{m['handout']}'s rubric table is not `lab.sh rubric {n}`'s: regenerate it")
        expect("## Expected results" in handout, f"{m['handout']} has no Expected results")
    # Every marker in the tree belongs to a lab's file; every region has a stub and a stand-in.
    files = tree.region_files(manifests)
    for f in tree.project_files(ROOT, for_students=True):
        if f.startswith(("docs/", "labkit/")) or not f.endswith((".cpp", ".hpp", ".cu", ".cuh")):
            continue
        for n in regions.labs_in(tree.read(os.path.join(ROOT, f))):
            expect(n in files.get(f, []), f"{f} has LAB {n} markers but lab {n}'s manifest does "
                                          "not name it")
    for f, labs in files.items():
        for n in labs:
            for k in range(1, len(regions.spans(tree.read(os.path.join(ROOT, f)), n)) + 1):
                for kind in ("stubs", "standins"):
                    tree.piece(kind, n, f, k)  # raises if missing
    # No starter holds any lab's answer, in any file.
    answers = answer_lines(manifests)
    for n, m in manifests.items():
        if m["files"]:
            expect(len(answers[n]) >= 3, f"lab {n}: found {len(answers[n])} answer lines to "
                                         "look for: the check would prove nothing")
    for n, m in manifests.items():  # the detector itself: the instructor's tree holds them all
        held = set()
        for f in m["files"]:
            held.update(" ".join(l.split()) for l in tree.read(os.path.join(ROOT, f)).split("\n"))
        expect(answers[n] <= held, f"lab {n}: the answer lines are not the solution's")
    for n in manifests:
        folder = starter(n, f"starter-{n}")
        expect(not os.path.exists(os.path.join(folder, "labkit", "tests")),
               f"lab {n}'s starter holds labkit/tests (correct submissions among them)")
        for f in tree.project_files(folder):
            try:
                text = tree.read(os.path.join(folder, f))
            except (UnicodeDecodeError, OSError):
                continue
            lines = {" ".join(l.split()) for l in text.split("\n")}
            for other, found in answers.items():
                leak = sorted(lines & found)
                expect(not leak, f"lab {n}'s starter: {f} holds lab {other}'s answer line "
                                 f"'{leak[:1]}'")
    print(f"no starter holds any of {sum(map(len, answers.values()))} answer lines "
          f"({', '.join('lab %d: %d' % (n, len(a)) for n, a in answers.items() if a)})")
    # Submissions of another lab are refused, with the reason, before any build.
    s3 = os.path.join(TMP, "starter-3")
    rc, r, _ = grade(1, s3)
    expect(rc == 3 and "started for lab 3" in r["output"] and r["score"] == 0,
           f"lab 3's starter graded as lab 1: exit {rc}, '{r['output']}'")
    os.remove(os.path.join(s3, ".lab"))
    rc, r, _ = grade(1, s3)
    expect(rc == 3 and "lab 3's untouched stub" in r["output"],
           f"lab 3's starter without its .lab, as lab 1: exit {rc}, '{r['output']}'")
    only = os.path.join(TMP, "only-mpi")
    os.makedirs(only)
    shutil.copy(os.path.join(ROOT, "backend_mpi", "allreduce.cpp"), only)
    rc, r, _ = grade(1, only)
    expect(rc == 3 and "no backend_openmp/batch.cpp" in r["output"],
           f"a lab 3 file graded as lab 1: exit {rc}, '{r['output']}'")
    s1 = os.path.join(TMP, "starter-1")
    text = tree.read(os.path.join(s1, "backend_openmp", "batch.cpp"))
    with open(os.path.join(s1, "backend_openmp", "batch.cpp"), "w") as f:
        f.write(text.replace("LAB 1 END", "lab one end"))
    rc, r, _ = grade(1, s1)
    expect(rc == 3 and "never closed" in r["output"],
           f"lab 1 without its END marker: exit {rc}, '{r['output']}'")
    # A grading that waits for the build cache says for whom, and gives up when told to. A
    # self-check (lab.sh inside the starter), which no open file refuses where there is no
    # sandbox (as in the Debian 13 root of tests/portability, whose read-only /src stays open).
    import fcntl
    cache = build.default_cache(ROOT)
    os.makedirs(cache, exist_ok=True)
    with open(os.path.join(cache, "lock"), "a+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        with open(os.path.join(cache, "lock.holder"), "w") as f:
            f.write("the test's fake grading\n")
        folder = starter(1, "waits")
        p = subprocess.run(["bash", os.path.join(folder, "run_scripts", "lab.sh"), "grade", "1",
                            ".", "--no-timing", "--lock-wait", "6"], cwd=folder,
                           capture_output=True, text=True, timeout=600,
                           env=dict(os.environ, LAB_CACHE=cache))
        rc, out = p.returncode, p.stdout + p.stderr
        os.remove(os.path.join(cache, "lock.holder"))
    expect(rc == 2 and "the test's fake grading holds it" in out and "gave up after 6 s" in out,
           f"a grading kept waiting for the cache: exit {rc}, {out.strip()[-300:]}")
    short_exec()
    counts()
    markers()
    report_stream()
    standin = os.path.join(TMP, "standin")  # lab 2's starter holds lab 1's stand-in
    os.makedirs(standin)
    shutil.copy(os.path.join(TMP, "starter-2", "backend_openmp", "batch.cpp"), standin)
    rc, r, _ = grade(1, standin)
    expect(rc == 3 and "stand-in" in r["output"],
           f"lab 1's stand-in graded as lab 1: exit {rc}, '{r['output']}'")


def counts():
    """The per-call counts' veto: 143 of 144 rows on one thread is vetoed, a 2:1 share (a
    dynamic schedule on a busy machine) is not, and neither is the reference's own. Rows
    computed twice: a boundary row's 0.7% costs 0.7% of the points, every row twice all."""
    line = ("C1 rows computed = {} on 2 threads ({} to {} a thread); calls shared by every "
            "thread: 24000 of 24000")
    ref = line.format(3456000, 1728000, 1728000)
    g = grading.Grading.__new__(grading.Grading)
    g.m, g.performance = manifest.load(2), {}
    veto = lambda out: g.calls_not_shared("C1 rows computed", out, ref)  # noqa: E731
    lopsided, uneven = veto(line.format(3456000, 24000, 3432000)), veto(
        line.format(3456000, 1152000, 2304000))
    expect(lopsided and "did most of the work" in lopsided and uneven is None and
           veto(ref) is None, f"the counts' veto: 143:1 {lopsided!r}, 2:1 {uneven!r}")
    boundary = veto(line.format(3480192, 1740096, 1740096))  # 24,192 rows twice: 0.7%
    extra = g.performance.get("extra_work", 1.0)
    twice = veto(line.format(6912000, 3456000, 3456000))
    expect(boundary is None and abs(extra - 1.007) < 1e-9 and twice and "work done twice" in twice,
           f"rows computed twice: 0.7% more {boundary!r} (extra {extra}), all {twice!r}")


def markers():
    """Marker text in a string or later in a comment is not a marker (issue 48: a region that
    printed "LAB 2 BEGIN" was refused); a marker written otherwise is named in the error."""
    text = ('x\n  // LAB 2 BEGIN: C1\n  std::puts("LAB 2 BEGIN");  // see LAB 2 END below\n'
            '  // LAB 2 END\ny\n')
    expect(regions.spans(text, 2) == [(2, 3)], f"marker text in a string: {regions.spans(text, 2)}")
    try:
        regions.spans("// LAB 2 BEGIN\nx;  /* LAB 2 END */\n", 2)
        expect(False, "a region closed by '/* LAB 2 END */' was accepted")
    except regions.RegionError as e:
        expect("line 2 holds 'LAB 2 END'" in str(e), f"the error does not name line 2: {e}")


def report_stream():
    """A student's test report reaches the grader through a named pipe (stream.py): the run's
    user can write into it but not read it back, and the grader sees everything written, in
    order; a second report or text after the end is `tampered`, an unfinished one incomplete."""
    folder = tempfile.mkdtemp(prefix="pipes-", dir=TMP)
    os.chmod(folder, 0o777)
    pipes = stream.Pipes(folder, ["report.xml"])
    doc = ('<?xml version="1.0" encoding="UTF-8"?>\n<Catch2TestRun><TestCase name="t">'
           '<OverallResult success="false"/></TestCase><OverallResults successes="3" '
           'failures="1"/></Catch2TestRun>\n')
    # The run writes a report, tries to read it back, then writes a forged one after it.
    script = (f"printf '%s' '{doc}' > report.xml; cat report.xml > /dev/null 2>&1 && "
              f"echo READ-BACK; printf '%s' '{doc.replace('false', 'true')}' > report.xml")
    r = procs.run(["sh", "-c", script], timeout=60, cwd=folder, untrusted=True, write=[folder])
    written = pipes.stop()["report.xml"]
    got = verdicts.Report(data=written)
    if users.as_root():
        expect("READ-BACK" not in r.output, "the run's user read its report back from the pipe")
    expect(written.startswith(doc.encode()) and got.complete and not got.cases["t"] and
           got.tampered == "2 reports in one stream, where Catch2 writes one",
           f"the pipe's report: {written[:80]!r}..., tampered {got.tampered!r}")
    junk = verdicts.Report(data=doc.encode() + b"<x/>")
    cut = verdicts.Report(data=doc.encode()[:90])
    expect(junk.tampered == "text written after the report's end" and not cut.complete and
           verdicts.Report(data=doc.encode()).tampered is None,
           f"text after the end: {junk.tampered!r}; cut: complete {cut.complete}")


def short_exec():
    """A program of the project that computes a while (about 0.2 s), then execs a program that
    ends at once, is seen doing so: with the kernel's process events (root) every time, however
    busy the machine (an exec stamped after the grader read lenet-*'s name came from it), where
    the Observer's samples, 20 ms apart by then, mostly fall either side."""
    fake = os.path.join(TMP, "lenet-short")
    shutil.copy("/bin/sh", fake)
    program = lambda path: os.path.basename(path).startswith("lenet-")  # noqa: E731
    busy = "i=0; while [ $i -lt 40000 ]; do i=$((i+1)); done; exec /bin/true"
    seen = []
    for _ in range(5):
        r = procs.run([fake, "-c", busy], timeout=60, cwd=TMP, observe=True)
        seen.append(bool(r.observed.started_by(program)))
    how = r.observed.exec_evidence()
    if how.startswith("every exec"):
        expect(all(seen), f"a lenet-* program's exec of true went unseen in {seen.count(False)} "
                          f"runs of 5 with the kernel's process events")
    print(f"short exec: seen in {seen.count(True)} of 5 runs ({how})")


# ---- one lab's gradings ---------------------------------------------------------------------

def no_process_left():
    cache = build.default_cache(ROOT)
    left = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            cwd = ""
        # This test's gradings only: their cache, or a grading's folder under /tmp that holds a
        # program of the cache (another grading on the machine has a cache of its own).
        if cache in cmd or cwd.startswith(cache) or ("/labkit-lab" in cwd and cache in cmd):
            left.append(f"{pid}: {cmd[:120]}")
    expect(not left, f"processes left behind: {left}")


def one_lab(n):
    m = manifest.load(n)
    P = m["points"]
    build_points = m["checks"][0]["points"]
    if n == 3 and not (shutil.which("mpirun") or shutil.which("mpiexec")):
        print("SKIPPED: no MPI launcher (mpirun or mpiexec) here")
        sys.exit(77)
    # The solution (the project itself) passes every check.
    rc, r, _ = grade(n, ROOT, "--no-timing")
    expect(rc == 0 and points(r, "correctness") == P["correctness"] and
           not r["extra_data"]["flags"] and r["verdict"] == "CORRECT" and
           all(t["verdict"] == "CORRECT" for t in r["tests"] if t["name"].startswith("correct")),
           f"the solution of lab {n}: exit {rc}, correctness {points(r, 'correctness')}, "
           f"flags {r['extra_data']['flags']}, verdicts {r['verdict']} "
           f"{[t['verdict'] for t in r['tests']]}")
    for f in ("grade-%d.md" % n, "grade-%d.json" % n, "grade-%d.log" % n):
        os.remove(os.path.join(ROOT, f))
    # A starter whose tests and CMake files were tampered with: only the build's points.
    folder = starter(n, f"lab{n}-tampered")
    for top, _, files in os.walk(os.path.join(folder, "tests")):
        for f in files:
            p = os.path.join(top, f)
            if f.endswith(".cpp"):
                text = tree.read(p)
                text = re.sub(r"\b(REQUIRE|CHECK)\b(?=\s*\()", "(void)", text)
                with open(p, "w") as out:
                    out.write(text)
    # and a test that always passes, given every label that the lab's ctest checks pick.
    labels = ";".join(c["label"] for c in m["checks"] if c["kind"] == "ctest")
    with open(os.path.join(folder, "tests", "CMakeLists.txt"), "a") as out:
        out.write('\nadd_test(NAME "always passes" COMMAND true)\n'
                  f'set_tests_properties("always passes" PROPERTIES LABELS "{labels}")\n')
    rc, r, _ = grade(n, folder, "--no-timing")
    expect(rc == 1 and points(r, "correctness") == build_points,
           f"lab {n}'s starter with tampered tests: exit {rc}, correctness "
           f"{points(r, 'correctness')} where the build alone gives {build_points}")
    expect("tests/CMakeLists.txt (changed)" in r["output"],
           f"the report does not say that tests/ was ignored: {r['output'][:300]}")
    # Inside a starter, lab.sh grade is a self-check of the student's own tree, said so.
    if n == 1:
        folder = starter(1, "lab1-self")
        put_work(folder, 1, "alt")
        p = subprocess.run(["bash", os.path.join(folder, "run_scripts", "lab.sh"), "grade", "1",
                            ".", "--no-timing"], cwd=folder, capture_output=True, text=True,
                           env=dict(os.environ, LAB_CACHE=build.default_cache(ROOT)),
                           timeout=1800)
        with open(os.path.join(folder, "grade-1.json")) as f:
            r = json.load(f)
        expect(p.returncode == 0 and "SELF-CHECK" in r["output"] and
               points(r, "correctness") == P["correctness"],
               f"the self-check in a starter: exit {p.returncode}, '{r['output'][:200]}'")
    # A correct submission written otherwise than the solution: full correctness; in labs 1
    # to 3 its threads (ranks) share every call, so only the clock may cost it performance
    # points.
    # Two rounds: the CPU times compared are the least of the rounds, and one round on a busy
    # machine can cost twice the CPU time.
    timing = ["--force-timing", "--reps", "2"] if n in (1, 2, 3) else ["--no-timing"]
    rc, r, _ = grade(n, submission(n, "alt"), *timing)
    expect(rc == 0 and points(r, "correctness") == P["correctness"],
           f"lab {n}'s other correct solution: exit {rc}, correctness "
           f"{points(r, 'correctness')}")
    expect(not r["extra_data"]["flags"], f"lab {n}'s other correct solution was flagged: "
                                         f"{r['extra_data']['flags']}")
    if n in (1, 2, 3):
        perf = test(r, "performance")
        expect(r["extra_data"]["performance"].get("status") == "measured" and
               "no parallelism" not in perf["output"],
               f"lab {n}'s other correct solution: {perf['output'][:300]}")
    # Correct submissions in other styles keep full correctness: OpenMP tasks and guided
    # schedules, a collapsed loop (lab 2), a nonblocking collective (lab 3).
    for name in {2: ["tasks", "guided", "collapse"], 3: ["nonblocking"]}.get(n, []):
        rc, r, _ = grade(n, submission(n, name), "--no-timing")
        expect(rc == 0 and points(r, "correctness") == P["correctness"] and
               not r["extra_data"]["flags"],
               f"lab {n}'s correct {name} submission: exit {rc}, correctness "
               f"{points(r, 'correctness')}: {r['output'][:300]}")
    # No parallelism (no vectors): correct, and no performance points even when forced.
    name = {1: "serial", 2: "serial", 3: "cheat", 4: "scalar"}[n]
    rc, r, _ = grade(n, submission(n, name), "--force-timing", "--reps", "3")
    perf = test(r, "performance")
    expect(perf["score"] == 0, f"lab {n}'s {name} submission earned {perf['score']} "
                               f"performance points: {perf['output'][:300]}")
    if n == 3:
        expect(0 < points(r, "correctness") < P["correctness"],
               f"lab 3 with the whole batch on every rank: correctness "
               f"{points(r, 'correctness')} of {P['correctness']}")
        expect(test(r, "correctness: allreduce: each sample")["status"] == "failed",
               "lab 3's whole batch on every rank passed the slice check")
    else:
        expect(points(r, "correctness") == P["correctness"],
               f"lab {n}'s {name} submission: correctness {points(r, 'correctness')}")
        # Labs 1 and 2: the program says which threads trained (computed C1), so the verdict does
        # not rest on the clock. Lab 4's clock decides, and on a busy machine its reason may be
        # another one.
        busy = r["extra_data"]["performance"].get("others_busy", 0) > 0.5
        reason = {1: "no parallelism", 2: "no parallelism"}.get(n, "no speedup")
        expect(reason in perf["output"] or (n == 4 and busy),
               f"lab {n}'s {name} submission: the performance note does not say '{reason}': "
               f"{perf['output']}")
    # Lab 2: every thread computing all of C1 (busy threads, correct bits, nothing shared): the
    # kernel counted the CPU time of the work done twice.
    if n == 2:
        rc, r, _ = grade(2, submission(2, "twice"), "--force-timing", "--reps", "1")
        perf = test(r, "performance")
        expect(points(r, "correctness") == P["correctness"] and perf["score"] == 0 and
               "work done twice" in perf["output"],
               f"lab 2's C1 computed twice: correctness {points(r, 'correctness')}, "
               f"performance {perf['score']}: {perf['output'][:300]}")
        # Issue 48: a boundary row computed twice (145 rows a call of 144): a small loss in
        # proportion, not "work done twice" by the counts. (The CPU-time check may still veto
        # on a busy machine, where spinning threads' CPU time varies: that is not the counts.)
        rc, r, _ = grade(2, submission(2, "boundary"), "--force-timing", "--reps", "1")
        perf, extra = test(r, "performance"), r["extra_data"]["performance"].get("extra_work")
        counted_twice = "work done twice" in perf["output"] and "CPU time" not in perf["output"]
        expect(points(r, "correctness") == P["correctness"] and extra and
               abs(extra - 145 / 144) < 1e-6 and not counted_twice,
               f"lab 2's boundary row twice: correctness {points(r, 'correctness')}, extra "
               f"work {extra}: {perf['output'][:300]}")
    # Serial in every call (or in every other call), whichever thread (rank) runs it: correct,
    # and no performance points, for the program's per-call evidence, not for the clock.
    for name in {1: ["alternate"], 2: ["single", "critical", "masked"], 3: ["turns"]}.get(n, []):
        rc, r, _ = grade(n, submission(n, name), "--force-timing", "--reps", "1")
        perf = test(r, "performance")
        # Whichever sees it first: the kernel's CPU times (an uneven run), or the counts.
        expect(points(r, "correctness") == P["correctness"] and perf["score"] == 0 and
               ("calls were shared by every " + ("rank" if n == 3 else "thread") in
                perf["output"] or "CPU time per thread" in perf["output"]),
               f"lab {n}'s {name} submission: correctness {points(r, 'correctness')}, "
               f"performance {perf['score']}: {perf['output'][:300]}")
    # Issue 48: an honest mistake that leaves the last parameters of a team's step unupdated.
    # Right on one thread: the PyTorch check's B = 40 step (three chunks) on 2 threads fails too.
    if n == 1:
        rc, r, _ = grade(1, submission(1, "droplast"), "--no-timing")
        vectors = test(r, "correctness: one step and 64 steps match PyTorch")
        expect(rc == 1 and points(r, "correctness") == build_points and
               vectors["score"] == 0 and not r["extra_data"]["flags"],
               f"lab 1's last parameters dropped on a team: correctness "
               f"{points(r, 'correctness')} of {build_points}, PyTorch check "
               f"{vectors['score']}: {vectors['output'][:200]}")
    attacks(n, P)
    # Hangs: a report, the hung check stopped at its own limit (the reference's time, scaled,
    # capped: not a guessed wall time, which a busy machine's build alone can pass), the checks
    # after it not waited for, nothing left running.
    if n in (1, 3):
        name = {1: "hang", 3: "deadlock"}[n]
        rc, r, _ = grade(n, submission(n, name), "--no-timing")
        cap = m["limits"]["run_cap_s"]
        stopped = [float(s) for t in r["tests"]
                   for s in re.findall(r"did not end within (\d+) s", t["output"])]
        expect(rc == 1 and stopped and max(stopped) <= cap + 5,
               f"lab {n}'s {name}: exit {rc}, checks stopped after {stopped} s (limit {cap} s)")
        expect(any("hung and was stopped" in t["output"] for t in r["tests"]),
               f"lab {n}'s {name}: the checks after the hung one were run anyway")
        if n == 3:  # the allreduce strategy hangs; the exact strategy's checks still count
            exact = [t for t in r["tests"] if t["name"].startswith("correctness: exact")]
            expect(exact and all(t["status"] == "passed" for t in exact),
                   "lab 3's deadlock in the allreduce strategy cost the exact strategy's checks")
        no_process_left()


def flagged(r, what):
    return [f for f in r["extra_data"]["flags"] if f.startswith(what)]


def attacks(n, P):
    """Issue 40's holes, each attacked by a submission of the kind a class writes: each scored
    before the grader judged outside the student's process, and scores nothing (with a flag for
    the teaching assistant) now."""
    if n == 1:
        # Tests that exit 0 before they check anything: "exited before its report".
        exit0 = submission(1, "exit0")
        rc, r, _ = grade(1, exit0, "--no-timing")
        tests = [t for t in r["tests"] if "(ctest)" in t["name"]]
        expect(tests and all(t["score"] == 0 and "exited before its report" in t["output"]
                             for t in tests) and flagged(r, "exited before its report"),
               f"lab 1's exit(0) in the tests: {[(t['score'], t['output'][:120]) for t in tests]}")
        # Counters set by hand on serial code, and a one-thread run made slower.
        no_performance(1, "counters", P, "CPU time per thread")
        # Trains nothing once the run is long (as only timed runs are).
        timed = no_performance(1, "timed", P, "timed run", flag="a timed run computed")
        # The teaching assistant's list of a class: both flagged, with their evidence.
        rc, out = lab("flagged", 1, exit0, timed, os.path.join(TMP, "never-graded"))
        expect(rc == 1 and f"FLAGGED {exit0}:" in out and f"FLAGGED {timed}:" in out and
               "exited before its report" in out and "a timed run computed" in out and
               "without a grade-1.json" in out,
               f"lab.sh flagged: exit {rc}: {out[-400:]}")
        snoop(P)
        # (Issue 48's rewritten report: `quick`.)
    if n == 2:
        # Summary lines printed before the real summary.
        no_performance(2, "forged", P, "no parallelism", flag="a forged summary line",
                       correct=False)
        # A part of every call on every thread, 143 of 144 rows on one.
        # The kernel's CPU times see it, or (where the syncs of a short layer busy the other
        # thread on a loaded machine) the program's counts do.
        no_performance(2, "lopsided", P, ("CPU time per thread", "did most of the work"))
        # A correct submission that prints about 120 MB a process keeps every correctness point.
        rc, r, _ = grade(2, submission(2, "loud"), "--no-timing")
        expect(rc == 0 and points(r, "correctness") == P["correctness"],
               f"lab 2's loud correct submission: exit {rc}, correctness "
               f"{points(r, 'correctness')}: {r['output'][:300]}")
    if n == 4:
        # (--kernels simd that turns into --kernels ref: `quick`.)
        # ref's loops that skip a call that looks like the last one: the micro-benchmark's
        # repeated call.
        no_performance(4, "memo", P, "timed run", flag="a timed run computed")
        # Issue 48: computes only the calls that the loop's generator, replayed, will check.
        no_performance(4, "replay", P, "timed run", flag="a timed run computed")


def no_performance(n, name, P, reason, *, flag=None, correct=True):
    """Grades lab n's attack `name` with timing: no performance point, `reason` (or one of a
    tuple of them) in the note, `flag` among the flags where given, every correctness point
    where `correct`. Returns the submission's folder."""
    folder = submission(n, name)
    rc, r, _ = grade(n, folder, "--force-timing", "--reps", "1")
    perf = test(r, "performance")
    reasons = (reason,) if isinstance(reason, str) else reason
    expect((not correct or points(r, "correctness") == P["correctness"]) and
           perf["score"] == 0 and any(w in perf["output"] for w in reasons) and
           (flag is None or flagged(r, flag)),
           f"lab {n}'s {name}: correctness {points(r, 'correctness')}, performance "
           f"{perf['score']}: {perf['output'][:300]}; flags {r['extra_data']['flags']}")
    return folder


def snoop(P):
    """A submission that looks for the instructor's tree, other submissions and the kit's
    caches, and tries to write into them, finds and writes nothing (in the sandbox); its shell
    is flagged."""
    cache = build.default_cache(ROOT)
    folder = submission(1, "snoop")
    rc, r, _ = grade(1, folder, "--no-timing")
    if r["extra_data"]["sandbox"].startswith("no sandbox"):
        print(f"snoop: not checked: {r['extra_data']['sandbox']}")
        return
    log = tree.read(os.path.join(folder, "grade-1.log"))
    expect("SNOOP-SEES" in log, "the snoop submission's shell never ran: the test proves nothing")
    # Where the grader is root, the private places are there as decoys (decoys.py): seen and
    # listed, holding no solution, and the listing flagged. Anyone else's sandbox shows nothing.
    got = re.findall(r"SNOOP-(?:FOUND|WROTE) (\S+)", log) + [
        e for e in re.findall(r"SNOOP-ENV (\S+)", log)
        if any(p in e for p in (ROOT, cache, TMP, "/work", "/root", "/home"))]
    expect(not got, f"the snoop submission found, wrote or was told {got[:5]}")
    seen = re.findall(r"SNOOP-SEES (\S+)", log)
    private = [s for s in seen if s.startswith(("/work", "/root", "/home", "/var/tmp/lenet",
                                                ROOT, cache, TMP)) or "labkit-" in s]
    decoy = flagged(r, "read a decoy")
    if users.as_root():
        for place in (ROOT, cache, TMP):
            expect(place in seen and place in decoy[0] if decoy else False,
                   f"the snoop's listing of {place} was not flagged as a decoy read: seen "
                   f"{place in seen}, flags {r['extra_data']['flags']}")
    else:
        expect(not private, f"the snoop submission saw {private[:5]}")
    left = [p for p in ("/tmp/SNOOP-WAS-HERE", "/var/tmp/SNOOP-WAS-HERE")
            if os.path.exists(p)]
    for top, dirs, files in os.walk(cache):
        left += [os.path.join(top, f) for f in files if f == "SNOOP-WAS-HERE"]
    expect(not left, f"the snoop submission wrote {left}")
    expect(flagged(r, "ran another program"), f"no flag for the snoop's shell: "
                                              f"{r['extra_data']['flags']}")
    print(f"snoop: saw {sorted(set(seen))[:8]}; found and wrote nothing; flagged: "
          f"{r['extra_data']['flags']}")


def lab5():
    P = manifest.load(5)["points"]
    rc, r, _ = grade(5, ROOT, "--no-timing")
    emulated = r["extra_data"]["emulated"]
    expect(rc == 0 and points(r, "correctness") == P["correctness"],
           f"the solution of lab 5: exit {rc}, correctness {points(r, 'correctness')}")
    expect(not emulated or "EMULATED" in r["output"], "lab 5 was emulated and does not say so")
    for f in ("grade-5.md", "grade-5.json", "grade-5.log"):
        os.remove(os.path.join(ROOT, f))
    rc, r, _ = grade(5, starter(5, "lab5-starter"), "--no-timing")
    expect(rc == 1 and points(r, "correctness") == 5,
           f"lab 5's starter: exit {rc}, correctness {points(r, 'correctness')}")
    # Correct kernels in other styles: a grid-stride loop, register shuffles.
    for name in ("gridstride", "shuffle"):
        rc, r, _ = grade(5, submission(5, name), "--no-timing")
        expect(rc == 0 and points(r, "correctness") == P["correctness"] and
               not r["extra_data"]["flags"],
               f"lab 5's {name} kernel: exit {rc}, correctness {points(r, 'correctness')}: "
               f"{r['output'][:300]}")


# ---- quick: one attack a lab ----------------------------------------------------------------

# Lab N: the attack, its correctness points and verdict (test_class.py's EVERY agrees).
QUICK = {1: ("rewrite", 5, "FLAGGED"),   # failures rewritten as passes after Catch2's report
         2: ("forged", 60, "FLAGGED"),   # correct but serial, printing a parallel run's summary
         3: ("cheat", 40, "WRONG"),      # every rank computes the whole batch
         4: ("exec", 5, "FLAGGED"),      # --kernels simd that turns into --kernels ref
         5: ("exit0", 5, "FLAGGED")}     # unfinished, its tests exit 0 before they check


def quick():
    for n, (name, want, verdict) in QUICK.items():
        if n == 3 and not (shutil.which("mpirun") or shutil.which("mpiexec")):
            print("lab 3: not graded: no MPI launcher (mpirun or mpiexec) here")
            continue
        rc, r, _ = grade(n, submission(n, name), "--no-timing")
        got = (points(r, "correctness"), r["verdict"], bool(r["extra_data"]["flags"]))
        expect(got == (want, verdict, verdict == "FLAGGED"),
               f"lab {n}'s {name}: (correctness, verdict, flagged) {got}, want "
               f"{(want, verdict, verdict == 'FLAGGED')}; flags {r['extra_data']['flags']}")
        if n == 1:
            # Issue 48: a static destructor rewrites the report file after Catch2 closed it
            # (failures made passes) and exits 0. The report went through the grader's pipe:
            # the failures stand, and the exit 0 after them is flagged.
            tests = [t for t in r["tests"] if "(ctest)" in t["name"]]
            expect(tests and all(t["score"] == 0 and t["verdict"] == "FLAGGED" for t in tests)
                   and flagged(r, "exit 0 after a failed test"),
                   f"lab 1's rewritten report: {[(t['score'], t['output'][:120]) for t in tests]}")
        if n == 4:
            verify = test(r, "correctness: two epochs")
            expect(verify["score"] == 0 and flagged(r, "ran another program"),
                   f"lab 4's exec of --kernels ref: {verify['score']} points "
                   f"({verify['output'][:200]}); flags {r['extra_data']['flags']}")
        if n == 5:
            expect(flagged(r, "its tests were not listed"),
                   f"lab 5's tests that list none: flags {r['extra_data']['flags']}")


# ---- platforms ------------------------------------------------------------------------------

def validate_gradescope(r, where):
    expect(isinstance(r.get("score"), (int, float)), f"{where}: no numeric top-level score")
    expect(isinstance(r.get("output"), str) and r["output"], f"{where}: no top-level output")
    expect(isinstance(r.get("tests"), list) and r["tests"], f"{where}: no tests[]")
    for t in r["tests"]:
        for key, kind in (("name", str), ("score", (int, float)), ("max_score", (int, float)),
                          ("output", str), ("visibility", str)):
            expect(isinstance(t.get(key), kind), f"{where}: test {t.get('name')} has no {key}")
        expect(t["score"] is not None and 0 <= t["score"] <= t["max_score"],
               f"{where}: test {t['name']} scores {t['score']} of {t['max_score']}")
        expect(t.get("verdict") in verdicts.WORDS, f"{where}: test {t['name']} has the verdict "
                                                   f"{t.get('verdict')!r}")
    expect(r.get("verdict") in verdicts.WORDS, f"{where}: the verdict {r.get('verdict')!r}")
    expect(abs(sum(t["score"] for t in r["tests"]) - r["score"]) < 0.01,
           f"{where}: the tests' scores do not add up to the score")
    expect(any("performance" in t["name"] for t in r["tests"]), f"{where}: no performance test")
    written = [t for t in r["tests"] if "written" in t["name"]]
    expect(written and written[0]["score"] == 0 and written[0]["max_score"] > 0 and
           "person" in written[0]["output"], f"{where}: no written entry graded by a person")


def platforms():
    bundle = os.path.join(TMP, "lab1.zip")
    rc, out = lab("gradescope", 1, bundle)
    expect(rc == 0, f"lab.sh gradescope 1 failed: {out[-300:]}")
    root = os.path.join(TMP, "autograder")
    with zipfile.ZipFile(bundle) as z:
        names = z.namelist()
        expect("setup.sh" in names and "run_autograder" in names,
               "the bundle has no setup.sh or run_autograder at its top")
        expect(not any(n.startswith("project/labkit/tests/") for n in names),
               "the bundle holds the kit's tests")
        z.extractall(os.path.join(root, "source"))
    manifests = manifest.load_all()
    answers = answer_lines(manifests)
    other = set().union(*(a for n, a in answers.items() if n != 1))
    for top, _, files in os.walk(os.path.join(root, "source", "project")):
        for f in files:
            try:
                lines = {" ".join(l.split()) for l in tree.read(os.path.join(top, f)).split("\n")}
            except (UnicodeDecodeError, OSError):
                continue
            expect(not lines & other, f"the lab 1 bundle's {f} holds another lab's answer")
    for script in ("setup.sh", "run_autograder"):
        os.chmod(os.path.join(root, "source", script), 0o755)
    shutil.copy(os.path.join(root, "source", "run_autograder"), root)

    def autograde(files):
        sub = os.path.join(root, "submission")
        shutil.rmtree(sub, ignore_errors=True)
        shutil.rmtree(os.path.join(root, "results"), ignore_errors=True)
        os.makedirs(sub)
        for name, text in files.items():
            with open(os.path.join(sub, name), "w") as f:
                f.write(text)
        start = time.time()
        # The project's build cache: the bundle's reference is the same tree, built already.
        # Gradescope's Docker refuses the namespaces a sandbox needs: graded as it would be
        # there, without one (LAB_SANDBOX=off), and the report must say so.
        env = dict(os.environ, AUTOGRADER_ROOT=root, LAB_CACHE=build.default_cache(ROOT),
                   LAB_SANDBOX="off")
        p = subprocess.run(["bash", os.path.join(root, "run_autograder")], capture_output=True,
                           text=True, env=env, timeout=1800)
        path = os.path.join(root, "results", "results.json")
        expect(os.path.isfile(path), f"run_autograder wrote no results.json (exit "
                                     f"{p.returncode}): {(p.stdout + p.stderr)[-400:]}")
        readable(path)
        with open(path) as f:
            r = json.load(f)
        print(f"--- run_autograder: {time.time() - start:.0f} s, score {r['score']}: "
              f"{r['output'][:200]}")
        validate_gradescope(r, "results.json")
        expect("no sandbox" in r["output"] and "no sandbox" in r["extra_data"]["sandbox"],
               f"graded without a sandbox, and the report does not say so: {r['output'][-300:]}")
        return r

    starter_file = os.path.join(TMP, "starter-1", "backend_openmp", "batch.cpp")
    if not os.path.isfile(starter_file):
        starter(1, "starter-1")
    correct = os.path.join(submission(1, "alt"), "backend_openmp", "batch.cpp")
    r = autograde({"batch.cpp": tree.read(correct)})
    expect(points(r, "correctness") == 60, f"a correct submission: correctness "
                                           f"{points(r, 'correctness')} of 60")
    expect(test(r, "performance")["score"] == 0, "performance scored on the platform")
    r = autograde({"batch.cpp": tree.read(starter_file)})
    expect(points(r, "correctness") == 5, f"the starter: correctness {points(r, 'correctness')}")
    broken = tree.read(correct).replace("g += chunks_[c].grad[i];", "g += chunks_[c].grad[i]")
    r = autograde({"batch.cpp": broken})
    built = test(r, "correctness: Release build")
    expect(built["status"] == "failed" and "backend_openmp/batch.cpp:" in built["output"] and
           "lenet-labkit" not in built["output"],
           f"a submission that does not compile: '{built['output'][:300]}'")
    # PrairieLearn and GitHub Classroom from one grading.
    pl = os.path.join(TMP, "pl.json")
    gh = os.path.join(TMP, "github-output")
    workflow = tree.read(os.path.join(KIT, "platforms", "github-classroom", "classroom.yml"))
    expect("--github-output" in workflow and "lab.sh grade" in workflow,
           "the GitHub Classroom workflow does not grade with --github-output")
    folder = submission(1, "serial")
    rc, out = lab("grade", 1, folder, "--no-timing", "--prairielearn", pl, "--github-output", gh)
    expect(rc == 0, f"grading with --prairielearn and --github-output: exit {rc}: {out[-300:]}")
    p = json.loads(readable(pl))
    expect(p.get("gradable") is True and isinstance(p.get("score"), float) and
           0 <= p["score"] <= 1 and p["tests"] and all("max_points" in t for t in p["tests"]),
           f"PrairieLearn's results.json: {json.dumps(p)[:300]}")
    expect(abs(p["score"] - 60 / 85) < 1e-3, f"PrairieLearn's score {p['score']}, not 60/85")
    # PrairieLearn's own entry point, as its external grader calls it.
    plroot = os.path.join(TMP, "prairielearn")
    shutil.copytree(folder, os.path.join(plroot, "student"), symlinks=True)
    ran = subprocess.run(["bash", os.path.join(KIT, "platforms", "prairielearn", "grade.sh"), "1"],
                         capture_output=True, text=True, env=dict(os.environ, PL_ROOT=plroot),
                         timeout=1800)
    q = json.loads(readable(os.path.join(plroot, "results", "results.json")))
    expect(ran.returncode == 0 and q.get("gradable") is True and
           abs(q["score"] - 60 / 85) < 1e-3,
           f"grade.sh 1 as PrairieLearn runs it: exit {ran.returncode}, {json.dumps(q)[:300]}")
    line = [l for l in tree.read(gh).split("\n") if l.startswith("result=")]
    expect(line, "no result= line in the GitHub output file")
    payload = json.loads(readable("the GitHub Classroom payload",
                                  base64.b64decode(line[-1][len("result="):]).decode()))
    expect(payload["version"] == 1 and payload["status"] == "pass" and
           payload["max_score"] == 85 and all("status" in t for t in payload["tests"]),
           f"GitHub Classroom's payload: {json.dumps(payload)[:300]}")


def main():
    # At a terminal the progress shows as it comes. Under CTest, whose log (and a CI excerpt of
    # it) may keep only a long output's first lines, the verdict comes first and the progress
    # after it.
    live = sys.stdout.isatty()
    if live:
        sys.stdout.reconfigure(line_buffering=True)
    else:
        real, sys.stdout = sys.stdout, io.StringIO()
    verdict = None
    try:
        return run(sys.argv[1:])
    except Exception:
        verdict = "FAILED: the test itself raised an error (its traceback after the progress)"
        raise
    finally:
        if not live:
            log, sys.stdout = sys.stdout.getvalue(), real
            verdict = verdict or log.rstrip("\n").rsplit("\n", 1)[-1]
            print(verdict + "\n" + log, end="", flush=True)


def run(what):
    try:
        if what == ["kit"]:
            kit()
        elif len(what) == 2 and what[0] == "lab" and what[1] in "1234":
            one_lab(int(what[1]))
        elif what == ["lab", "5"]:
            lab5()
        elif what == ["platforms"]:
            platforms()
        elif what == ["quick"]:
            quick()
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
