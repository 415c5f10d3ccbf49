#!/usr/bin/env python3
"""The course lab kit (docs/labs.md): `bash run_scripts/lab.sh COMMAND` runs this.

  list                          the labs and their handouts
  start N DIR [--git]           a starter copy of lab N for a student (standalone)
  grade N DIR [options]         grade DIR's lab N work against the reference (sealed)
  gradescope N OUT.zip          a Gradescope autograder bundle for lab N
  rubric N                      lab N's rubric table, from its manifest
  flagged N DIR...              a class's gradings of lab N: scores, and the flagged ones
  class N SUBMISSIONS OUT       grade a whole class (resumable): a gradebook, flags, similarity

Python 3.10+, standard library only.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import traceback
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kit import build, grade, manifest, report, submission, tree  # noqa: E402

PROG = "lab.sh"
ROOT = grade.ROOT


def die(message, code=2):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    sys.exit(code)


def say(message):
    print(f"{PROG}: {message}", flush=True)


def in_starter():
    return submission.started_for(ROOT)


def cmd_list(args):
    for n, m in manifest.load_all().items():
        print(f"{n}  {m['title']:<70} {m['handout']}")
        if m["files"]:
            print(f"   edit: {' '.join(m['files'])}")
    print("Start a lab:  bash run_scripts/lab.sh start N DIR     "
          "grade it:  bash run_scripts/lab.sh grade N DIR")


def cmd_rubric(args):
    print(rubric_table(manifest.load(args.lab)))


def rubric_table(m):
    """The handout's rubric table: the manifest's points, and how each part is scored."""
    rows = ["| part | points | how it is scored |", "|---|---|---|"]
    checks = {}
    for c in m["checks"]:
        checks.setdefault(c.get("when", "cpu"), []).append(f"{c['name']} ({c['points']})")
    how = "; ".join((f"{mode}: " if len(checks) > 1 else "") + ", ".join(names)
                    for mode, names in checks.items())
    rows.append(f"| correctness | {m['points']['correctness']} | "
                f"{how or 'no code'} |")
    perf = m.get("performance")
    rows.append(f"| performance | {m['points']['performance']} | "
                f"{perf['rubric'] if perf else 'no code'} |")
    rows.append(f"| written answers | {m['points']['written']} | {m['written_rubric']} |")
    return "\n".join(rows)


def cmd_start(args):
    if in_starter() is not None:
        die("this is a starter copy: start labs from the course's project")
    manifests = manifest.load_all()
    m = manifest.load(args.lab)
    dst = os.path.abspath(args.dir)
    if os.path.exists(dst) and os.listdir(dst):
        die(f"start: {args.dir} exists and is not empty: give a new folder")
    solved = sorted({int(n) for n in args.solved.split(",")} if args.solved else set())
    for n in solved:
        if n == args.lab or n not in manifests:
            die(f"--solved: {n} is not another lab of the kit")
    tree.write(ROOT, dst, tree.variant(ROOT, manifests, args.lab, solved=solved))
    with open(os.path.join(dst, ".lab"), "w") as f:
        f.write(f"lab = {args.lab}\n# lab.sh start wrote this: lab.sh grade refuses to grade "
                f"this copy as another lab.\n")
        if solved:
            f.write(f"solved = {','.join(map(str, solved))}\n")
    tree.copy_data(ROOT, os.path.join(dst, "data", "digits"))
    if args.git:
        git = ["git", "-C", dst, "-c", "user.name=lab kit", "-c", "user.email=lab-kit@localhost"]
        subprocess.run(git[:3] + ["init", "-q"], check=True)
        with open(os.path.join(dst, ".gitignore"), "a") as f:
            f.write("grade-*\n")
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-qm", f"Lab {args.lab} starter"], check=True)
    say(f"lab {args.lab} starter in {args.dir}: {m['title']}" +
        (f" (with the solution of lab {', '.join(map(str, solved))})" if solved else ""))
    needs = [n for n in m.get("needs_labs", []) if n not in solved]
    if needs:
        say(f"note: lab {args.lab} runs the code of lab {', '.join(map(str, needs))}, which this "
            f"copy holds as a stand-in: work in that lab's copy, or start with --solved "
            f"{','.join(map(str, needs))} once its deadline has passed")
    if m["files"]:
        say(f"edit: {' '.join(m['files'])} (between the LAB {args.lab} BEGIN/END lines)")
    else:
        say(f"lab {args.lab} has no code: follow {m['handout']}")
    say(f"handout: {m['handout']}" + (f"; check your work: bash run_scripts/lab.sh grade "
                                       f"{args.lab} . (inside the copy: a self-check, not a "
                                       f"grade)" if m["files"] else ""))


def cmd_grade(args):
    manifests = manifest.load_all()
    m = manifest.load(args.lab)
    folder = os.path.abspath(args.dir)
    if not os.path.isdir(folder):
        die(f"grade: no folder {args.dir}")
    if not m["files"]:
        say(f"lab {args.lab} has no code to grade: its rubric ({m['handout']}) is scored by a "
            "person")
        return 0
    out = os.path.abspath(args.out or folder)
    results_path = args.results or os.path.join(out, f"grade-{args.lab}.json")
    timing = "off" if args.no_timing else "force" if args.force_timing else "auto"
    g = grade.Grading(args.lab, manifests, folder, cache=build.default_cache(ROOT), reps=args.reps,
                      timing=timing, lock_wait=args.lock_wait, say=say)
    try:
        g.grade()
        r = report.results(g, platform=args.platform)
    except Exception as e:  # the kit's own failure: still a report, and a clear line
        g.write(traceback.format_exc())
        r = report.results(g, platform=args.platform)
        r["output"] = f"The grader failed, through no fault of the submission: {e}"
        r["score"] = 0
        r["extra_data"]["grader_error"] = str(e)
        write_reports(args, g, r, out, results_path)
        die(f"the grader failed: {e} (log: {os.path.join(out, f'grade-{args.lab}.log')})")
    write_reports(args, g, r, out, results_path)
    say(r["output"])
    say(f"score {r['score']:g} / {r['extra_data']['max_score']}; report: "
        f"{os.path.join(out, f'grade-{args.lab}.md')}")
    return report.exit_code(r)


def write_reports(args, g, r, out, results_path):
    import json

    os.makedirs(out, exist_ok=True)
    os.makedirs(os.path.dirname(os.path.abspath(results_path)), exist_ok=True)
    report.write_atomic(results_path, json.dumps(r, indent=2) + "\n")
    report.write_atomic(os.path.join(out, f"grade-{args.lab}.md"), report.markdown(r))
    report.write_atomic(os.path.join(out, f"grade-{args.lab}.log"), g.log_text())
    if args.prairielearn:
        report.write_atomic(args.prairielearn, json.dumps(report.prairielearn(r), indent=2))
    if args.github_output:
        with open(args.github_output, "a") as f:
            f.write(f"result={report.github_classroom(r)}\n")


def cmd_class(args):
    """Every submission of SUBMISSIONS graded (docs/instructors.md): correctness for the whole
    class, then timing; a killed run continues where it stopped."""
    from kit import classreport, klass, similarity

    m = manifest.load(args.lab)
    if not m["files"]:
        die(f"lab {args.lab} has no code to grade: its rubric ({m['handout']}) is scored by a "
            "person")
    subs, out = os.path.abspath(args.submissions), os.path.abspath(args.out)
    if out == subs or out.startswith(subs + os.sep):
        die(f"class: OUT ({args.out}) is inside SUBMISSIONS ({args.submissions}): give a folder "
            f"outside it")
    try:
        layout, students = klass.find_students(subs)
    except (klass.ClassError, OSError) as e:
        die(f"class: {e}")
    say(f"lab {args.lab}: {len(students)} submission{'s' * (len(students) != 1)} in "
        f"{args.submissions} ({layout})")
    if args.list:
        for s in students:
            print(f"{s.key}\t{','.join(s.ids)}\t{s.folder}")
        return 0
    timing = "off" if args.no_timing else "force" if args.force_timing else "auto"
    slurm_args = None
    if args.slurm:
        from kit import slurm_pass
        try:
            slurm_args = slurm_pass.check(args.slurm_args, timing)
        except klass.ClassError as e:
            die(f"class: {e}")
    elif args.slurm_args is not None:
        die("class: --slurm-args goes with --slurm")
    run = klass.ClassRun(args.lab, m, students, out, reps=args.reps, timing=timing,
                         lock_wait=args.lock_wait, quiet_wait=args.quiet_wait, say=say,
                         slurm_args=slurm_args)
    try:
        failed = run.run()
    except klass.ClassError as e:
        die(f"class: {e}")
    pairs = similarity.compare(args.lab, m, students, out, say)
    n = classreport.write_all(args.lab, m, layout, students, out, pairs, args.release)
    say(f"{n} rows in {os.path.join(args.out, 'grades.csv')}; flags.md, similarity.csv, "
        f"class.md; students' reports: students/ID/student-{args.lab}.md (flags and "
        f"similarity {'released' if args.release else 'held: --release shows them'})")
    if failed:
        say(f"{failed} Slurm task{'s' * (failed != 1)} failed (above): run the same command "
            f"again to time again each student left without a timing result")
        return 1
    return 0


def cmd_flagged(args):
    """The teaching assistant's view of a class: each DIR's grade-N.json (from lab.sh grade),
    its score, and every flag the grader raised, flagged submissions last."""
    import json

    rows, flagged, missing = [], [], []
    for folder in args.dirs:
        path = folder if folder.endswith(".json") else os.path.join(folder,
                                                                     f"grade-{args.lab}.json")
        try:
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError):
            missing.append(folder)
            continue
        x = r.get("extra_data", {})
        if x.get("lab") != args.lab:
            die(f"flagged: {path} is a grading of lab {x.get('lab')}, not lab {args.lab}")
        rows.append(f"{r['score']:>6g} / {x.get('max_score', '?'):<4} {folder}")
        if x.get("flags"):
            flagged.append((folder, x["flags"]))
    print(f"lab {args.lab}: {len(rows)} gradings, {len(flagged)} flagged" +
          (f", {len(missing)} without a grade-{args.lab}.json" if missing else ""))
    print("\n".join(rows))
    for folder in missing:
        print(f"  no grade-{args.lab}.json: {folder}")
    for folder, flags in flagged:
        print(f"FLAGGED {folder}:")
        for line in flags:
            print(f"  - {line}")
    return 1 if flagged else 0


PLATFORMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "platforms")


def cmd_gradescope(args):
    """A bundle Gradescope runs: setup.sh (Ubuntu 22.04) and run_autograder at its top, the
    project as the reference of this lab only (every other lab's region a stand-in) below."""
    if in_starter() is not None:
        die("this is a starter copy: build bundles from the course's project")
    manifests = manifest.load_all()
    m = manifest.load(args.lab)
    if not m["files"]:
        die(f"lab {args.lab} has no code: nothing for an autograder")
    with tempfile.TemporaryDirectory() as tmp:
        project = os.path.join(tmp, "project")
        tree.write(ROOT, project, tree.reference(ROOT, manifests, args.lab))
        tree.copy_data(ROOT, os.path.join(project, "data", "digits"))
        out = os.path.abspath(args.zip)
        with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
            for name in ("setup.sh", "run_autograder"):
                text = tree.read(os.path.join(PLATFORMS, "gradescope", name))
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o755 << 16
                z.writestr(info, text.replace("@LAB@", str(args.lab)))
            for top, dirs, files in os.walk(project):
                dirs.sort()
                for f in sorted(files):
                    p = os.path.join(top, f)
                    z.write(p, os.path.join("project", os.path.relpath(p, project)))
        os.replace(out + ".tmp", out)
    say(f"Gradescope bundle of lab {args.lab}: {args.zip} (upload it as the autograder; "
        f"docs/labs.md, \"Gradescope\")")


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the labs and their handouts")
    s = sub.add_parser("start", help="a starter copy of lab N in DIR (new or empty)")
    s.add_argument("lab", type=int)
    s.add_argument("dir")
    s.add_argument("--git", action="store_true", help="make DIR a git repository (one commit)")
    s.add_argument("--solved", metavar="N[,N]",
                   help="labs whose solution the copy holds (released after their deadline; "
                        "labs 6 and 7 need lab 3's lenet-mpi)")
    g = sub.add_parser("grade", help="grade DIR's work on lab N (exit 0: every check passed; "
                                     "1: some did not; 2: usage or grader error; 3: refused)")
    g.add_argument("lab", type=int)
    g.add_argument("dir")
    g.add_argument("--reps", type=int, default=5, help="timed rounds (default 5)")
    t = g.add_mutually_exclusive_group()
    t.add_argument("--no-timing", action="store_true", help="correctness only")
    t.add_argument("--force-timing", action="store_true",
                   help="time and score even on a busy machine (the report says so)")
    g.add_argument("--out", help="folder for grade-N.md/.json/.log (default: DIR)")
    g.add_argument("--results", help="the results JSON's path (default: OUT/grade-N.json)")
    g.add_argument("--prairielearn", metavar="FILE", help="also PrairieLearn's results.json")
    g.add_argument("--github-output", metavar="FILE",
                   help="append GitHub Classroom's reporter payload (result=...) to FILE")
    g.add_argument("--platform", help="a grading platform's name: performance is measured for "
                                      "the leaderboard, not scored")
    g.add_argument("--lock-wait", type=int, default=3600,
                   help="seconds to wait for another grading's build cache (default 3600)")
    z = sub.add_parser("gradescope", help="a Gradescope autograder bundle for lab N")
    z.add_argument("lab", type=int)
    z.add_argument("zip")
    r = sub.add_parser("rubric", help="lab N's rubric table, from its manifest")
    r.add_argument("lab", type=int)
    f = sub.add_parser("flagged", help="a class's gradings of lab N (each DIR's grade-N.json): "
                                       "scores and flags (exit 1 when any is flagged)")
    f.add_argument("lab", type=int)
    f.add_argument("dirs", nargs="+", metavar="DIR")
    c = sub.add_parser("class", help="grade every submission of lab N in SUBMISSIONS into OUT "
                                     "(resumable; docs/instructors.md)")
    c.add_argument("lab", type=int)
    c.add_argument("submissions", help="one folder per student, a GitHub Classroom clone folder "
                                       "or a Gradescope export")
    c.add_argument("out", help="grades.csv, flags.md, similarity.csv, class.md and each "
                               "student's reports (run again to continue a stopped run)")
    c.add_argument("--reps", type=int, default=5, help="timed rounds (default 5)")
    t = c.add_mutually_exclusive_group()
    t.add_argument("--no-timing", action="store_true", help="the correctness pass only")
    t.add_argument("--force-timing", action="store_true",
                   help="time and score even on a busy machine (each report says so)")
    c.add_argument("--quiet-wait", type=int, default=1800,
                   help="seconds to wait for a quiet machine before each timed grading "
                        "(default 1800)")
    c.add_argument("--release", action="store_true",
                   help="show flags and similarity in the students' reports (default: held "
                        "for the course staff)")
    c.add_argument("--lock-wait", type=int, default=3600,
                   help="seconds a grading waits for another's build cache (default 3600)")
    c.add_argument("--list", action="store_true", help="list the submissions found, and stop")
    c.add_argument("--slurm", action="store_true",
                   help="the timing pass as one Slurm job array (sbatch), a task per student, "
                        "each on a node held exclusively (exit 1 when a task left no result)")
    c.add_argument("--slurm-args", metavar="'OPTIONS'",
                   help="sbatch options for that job, in one string, e.g. '--partition=lab "
                        "--time=30'")
    args = p.parse_args(argv)
    if getattr(args, "quiet_wait", 0) < 0:
        die("--quiet-wait: expected 0 or more seconds")
    if getattr(args, "reps", 1) < 1:
        die("--reps: expected a positive number")
    try:
        return {"list": cmd_list, "start": cmd_start, "grade": cmd_grade,
                "gradescope": cmd_gradescope, "rubric": cmd_rubric,
                "flagged": cmd_flagged, "class": cmd_class}[args.command](args) or 0
    except manifest.ManifestError as e:
        die(str(e))


if __name__ == "__main__":
    sys.exit(main())
