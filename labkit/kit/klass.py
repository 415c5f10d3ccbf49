"""Grading a class: every submission of one lab, one at a time, through `lab.sh grade`
(docs/instructors.md).

  1. find the students: one folder each, a GitHub Classroom clone folder (ASSIGNMENT-USER
     repositories) or a Gradescope export (submission_metadata.yml beside the submissions);
  2. the correctness pass over the whole class (`grade --no-timing`), then the timing pass for
     those whose checks all passed, each on a quiet machine (or --force-timing), or all as
     one Slurm job array (--slurm: slurm_pass.py);
  3. each grading's reports land in a work folder that is renamed into OUT/students/ID/PASS
     when the grading ends: a result is there whole or not at all, so a killed run resumes
     where it stopped and never grades a finished student again.

The gradebook, flags, similarity and the class summary are classreport.py's and
similarity.py's; this file only runs gradings.
"""
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
import uuid

from . import machine, procs

LAB_PY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lab.py")
PASSES = ("correctness", "timing")
# Every process a grading starts carries this variable, so that what a killed class run left
# behind is found and ended by the next one (the value is the run's tag in OUT/.run).
TAG_VAR = "LABKIT_CLASS"


class ClassError(Exception):
    """A folder of submissions the class command cannot read: the message says why."""


class Student:
    """One submission: its folder and the student ids it is graded for (a Gradescope group
    submission has several)."""

    def __init__(self, key, folder, ids):
        self.key, self.folder, self.ids = key, folder, ids


def safe_id(text):
    """A student id usable as a folder name and a CSV cell."""
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", text.strip()).strip(".") or "_"


def _subfolders(root):
    return sorted(d for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d)) and not d.startswith("."))


def gradescope_metadata(path):
    """{submission folder: [student ids]} from Gradescope's submission_metadata.yml. The file
    is YAML written by Ruby: a top-level key per submission folder, its `:submitters:` a list
    of `- :name:` / `:sid:` / `:email:` entries. Read with the standard library: only those
    keys are needed. The id is the sid, else the e-mail, else the name."""
    subs, current, person = {}, None, None
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.lstrip().startswith("#") or line.startswith("---"):
                continue
            if not line[0].isspace() and line.rstrip().endswith(":"):
                current = line.rstrip()[:-1].strip().strip("'\"").lstrip(":")
                subs[current] = []
                continue
            m = re.match(r"\s*(-\s+)?:(name|sid|email):\s*(.*)$", line)
            if current is None or not m:
                continue
            if m.group(1):
                person = {}
                subs[current].append(person)
            if person is not None:
                person[m.group(2)] = m.group(3).strip().strip("'\"")
    out = {}
    for folder, people in subs.items():
        ids = [safe_id(p.get("sid") or p.get("email") or p.get("name") or "") for p in people]
        if not [i for i in ids if i != "_"]:
            raise ClassError(f"{path}: submission {folder} names no submitter (:sid:, :email: "
                             f"or :name:)")
        out[folder] = ids
    return out


def classroom_prefix(root, names):
    """The ASSIGNMENT- prefix of a GitHub Classroom clone folder's repositories, or None.
    `gh classroom clone student-repos` writes ASSIGNMENT-submissions/ASSIGNMENT-USER; a folder
    of git repositories whose names share a prefix ending in '-' is read the same way."""
    if not names or not all(os.path.isdir(os.path.join(root, n, ".git")) for n in names):
        return None
    base = os.path.basename(os.path.normpath(root))
    if base.endswith("-submissions"):
        prefix = base[:-len("submissions")]
        if all(n.startswith(prefix) and len(n) > len(prefix) for n in names):
            return prefix
    if len(names) < 2:
        return None
    common = os.path.commonprefix(names)
    return common[:common.rfind("-") + 1] or None


def find_students(root):
    """(layout, [Student]) of the folder of collected submissions."""
    if not os.path.isdir(root):
        raise ClassError(f"no folder {root}")
    meta = os.path.join(root, "submission_metadata.yml")
    names = _subfolders(root)
    if os.path.isfile(meta):
        subs = gradescope_metadata(meta)
        missing = [k for k in subs if not os.path.isdir(os.path.join(root, k))]
        if missing:
            raise ClassError(f"{meta} names submissions without a folder: "
                             f"{', '.join(missing[:5])}")
        students = [Student(safe_id(k), os.path.join(root, k), ids) for k, ids in subs.items()]
        layout = "Gradescope export"
    else:
        prefix = classroom_prefix(root, names)
        cut = len(prefix) if prefix else 0
        students = [Student(safe_id(n[cut:]), os.path.join(root, n), [safe_id(n[cut:])])
                    for n in names]
        layout = (f"GitHub Classroom clone folder (repositories {prefix}USER)" if prefix
                  else "one folder per student")
    if not students:
        raise ClassError(f"{root} holds no submission folder")
    seen = {}
    for s in students:
        for i in s.ids:
            if i in seen:
                raise ClassError(f"student {i} has two submissions: {seen[i]} and {s.folder}")
            seen[i] = s.folder
    return layout, sorted(students, key=lambda s: s.key)


def kill_tagged(tag):
    """SIGKILL to every process whose environment holds TAG_VAR=tag, until none is left."""
    procs.kill_tagged(tag, var=TAG_VAR)


class ClassRun:
    """The gradings of one class into OUT. options: the `grade` options to pass on
    (reps, force_timing, no_timing, lock_wait), quiet_wait: seconds to wait for a quiet machine
    before each timed grading."""

    def __init__(self, lab, manifest, students, out, *, reps, timing, lock_wait, quiet_wait,
                 say, slurm_args=None):
        self.lab, self.m, self.students, self.out = lab, manifest, students, out
        self.reps, self.timing, self.lock_wait, self.quiet_wait = reps, timing, lock_wait, \
            quiet_wait
        self.say = say
        self.slurm_args = slurm_args  # None: time here; a list: time on Slurm (slurm_pass.py)
        self.work = os.path.join(out, ".work")
        self.cancel = None  # what a signal must also stop (the Slurm pass's job)
        limits = manifest.get("limits", {})
        # The grading bounds itself; this bound is for a grader that does not end.
        self.bound = limits.get("build_s", 1200) + limits.get("grading_s", 1500) + lock_wait + 60

    def result_dir(self, student, which):
        return os.path.join(self.out, "students", student.key, which)

    def work_dir(self, student, which):
        return os.path.join(self.work, f"{student.key}-{which}")

    def done(self, student, which):
        """Whether the student has a result of this pass (classreport.result_of: their own)."""
        from .classreport import result_of
        return result_of(self.out, student, which, self.lab) is not None

    def start(self):
        """Ends what a killed run left behind, and tags this one."""
        os.makedirs(self.out, exist_ok=True)
        run_file = os.path.join(self.out, ".run")
        try:
            with open(run_file, encoding="utf-8") as f:
                old = f.read().strip()
            if old:
                kill_tagged(old)
        except OSError:
            pass
        shutil.rmtree(self.work, ignore_errors=True)
        os.makedirs(self.work)
        self.tag = uuid.uuid4().hex
        with open(run_file + ".tmp", "w", encoding="utf-8") as f:
            f.write(self.tag + "\n")
        os.replace(run_file + ".tmp", run_file)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(sig, self._stop)

    def _stop(self, signum, frame):
        self.say(f"stopped by signal {signum}: ending the grading in progress; run the same "
                 f"command again to continue")
        if self.cancel:
            self.cancel()
        kill_tagged(self.tag)
        sys.exit(128 + signum)

    def timed(self):
        """Whether the class gets a timing pass: the lab has performance points and timing
        is not off."""
        return self.timing != "off" and bool(self.m["points"].get("performance"))

    def needs_timing(self, student):
        """A timing grading for a student whose correctness checks all passed."""
        from .classreport import passed_all, result_of
        r = result_of(self.out, student, "correctness", self.lab)
        return r is not None and passed_all(r)

    def run(self):
        """Both passes. Returns the count of Slurm tasks that failed (0 without Slurm)."""
        self.start()
        self._pass("correctness", self.students)
        if not self.timed():
            if self.slurm_args is not None:
                self.say(f"lab {self.lab} has no timing pass (no performance points, or "
                         f"timing off): nothing for Slurm")
            return 0
        students = [s for s in self.students if self.needs_timing(s)]
        if self.slurm_args is not None:
            from . import slurm_pass
            return slurm_pass.timing_pass(self, students)
        self._pass("timing", students)
        return 0

    def _pass(self, which, students):
        todo = [s for s in students if not self.done(s, which)]
        total, finished = len(students), len(students) - len(todo)
        if finished:
            self.say(f"{which}: {finished} of {total} graded by an earlier run: kept")
        seconds = []
        for s in todo:
            wait = self._wait_quiet(s) if which == "timing" else None
            t0 = time.monotonic()
            verdict = self.grade_one(s, which, wait)
            seconds.append(time.monotonic() - t0)
            finished += 1
            left = total - finished
            eta = statistics.median(seconds) * left
            self.say(f"{which} {finished}/{total}: {s.key}: {verdict} ({seconds[-1]:.0f} s)"
                     + (f"; about {_duration(eta)} left" if left else ""))

    def _wait_quiet(self, student):
        """Waits, at most quiet_wait seconds, until other processes leave the cores the timed
        runs need (the rule the grading itself applies). Returns {seconds, quiet}."""
        need = self.m.get("performance", {}).get("cores", 1)
        t0 = time.monotonic()
        told = 0.0
        while True:
            busy = machine.others_busy(2.0)
            free = machine.cores() - busy
            waited = time.monotonic() - t0
            if free >= need - 0.3:
                if waited > 5:
                    self.say(f"timing {student.key}: the machine is quiet after {waited:.0f} s")
                return {"seconds": round(waited, 1), "quiet": True}
            if waited >= self.quiet_wait:
                self.say(f"timing {student.key}: still busy after {waited:.0f} s (other "
                         f"processes keep {busy:.1f} of {machine.cores()} cores busy): grading "
                         f"anyway" + ("" if self.timing == "force" else
                                      "; its performance will say 'machine busy'"))
                return {"seconds": round(waited, 1), "quiet": False}
            if waited - told >= 60 or told == 0.0:
                told = waited or 0.001
                self.say(f"timing {student.key}: waiting for a quiet machine (other processes "
                         f"keep {busy:.1f} of {machine.cores()} cores busy; at most "
                         f"{self.quiet_wait} s)")
            time.sleep(8)

    def grade_one(self, student, which, wait=None):
        """One grading, here, its reports renamed into place when it ends. Returns its
        verdict."""
        from .classreport import verdict_of
        options = ["--reps", str(self.reps), "--lock-wait", str(self.lock_wait)]
        if which == "correctness":
            options.append("--no-timing")
        elif self.timing == "force":
            options.append("--force-timing")
        r = grade_into(self.lab, self.m, student.folder, self.work_dir(student, which),
                       self.result_dir(student, which), options, bound=self.bound,
                       tag=self.tag, note={"pass": which, "quiet_wait": wait})
        return f"{verdict_of(r)} {r.get('score', 0):g}"


def grade_into(lab, manifest, folder, work, dst, options, *, bound, tag, note):
    """`lab.py grade LAB FOLDER OPTIONS` with its reports written into the folder `work`,
    renamed to `dst` when it ends: a result is there whole or not at all. Every process of the
    grading carries TAG_VAR=tag, and all are ended when it ends or after `bound` seconds. A
    grading that leaves no report gets one saying why. `note` joins the report's
    extra_data.class (the class run's bookkeeping). Both passes here and each Slurm task
    (slurm_pass.py) grade through this. Returns the result."""
    from .classreport import load_result, write_json
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cmd = [sys.executable, LAB_PY, "grade", str(lab), folder, "--out", work] + options
    env = dict(os.environ, **{TAG_VAR: tag})
    t0 = time.time()
    with open(os.path.join(work, "class.log"), "w", encoding="utf-8") as log:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                stderr=subprocess.STDOUT, env=env)
        try:
            rc = proc.wait(timeout=bound)
        except subprocess.TimeoutExpired:
            rc = None
        kill_tagged(tag)  # the grading's processes, and what they left behind
        proc.wait()
    r = load_result(work, lab)
    if r is None:
        # No report from the grader: the class records why, as a result of its own.
        why = (f"the grading did not end within {bound} s" if rc is None else
               f"lab.sh grade exited {rc} without a report")
        P = manifest["points"]
        r = {"score": 0, "output": f"The grader failed, through no fault of the "
                                   f"submission: {why}", "tests": [],
             "extra_data": {"lab": lab, "title": manifest["title"],
                            "submission": folder, "reference": "",
                            "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                            "machine": {"cores": machine.cores(), "cpu": machine.cpu_model(),
                                        "others_busy_cores_before": 0.0},
                            "max_score": sum(P.values()),
                            "autograded_max": P["correctness"] + P["performance"],
                            "refused": "", "ignored": [], "hung": [], "flags": [],
                            "grader_error": why}}
    r.setdefault("extra_data", {})["class"] = dict({"seconds": round(time.time() - t0, 1),
                                                    "exit": rc}, **note)
    write_json(os.path.join(work, f"grade-{lab}.json"), r)
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.rmtree(dst, ignore_errors=True)
    os.rename(work, dst)  # the whole result appears at once
    return r


def _duration(seconds):
    return f"{seconds / 60:.0f} min" if seconds >= 90 else f"{seconds:.0f} s"
