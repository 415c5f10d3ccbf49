"""Grading one submission of one lab (docs/labs.md, "How a submission is graded").

  1. read the submission (here): only the bodies of the lab's regions count; a copy started for
     another lab, or without the lab's files, is refused;
  2. build (grade_builds.py): the reference (starter(N) + the solution) by the grader, once per
     change of the instructor's tree, readable by the grader alone; the submission in the
     sandbox, in a fresh copy of the starter's build (build.py); never the student's tests, CMake
     files or scripts;
  3. the checks of the manifest (grade_checks.py; the ctest kind: grade_ctest.py), each bounded
     in time; one that hangs stops the rest of its group (a lab's mode) or, without a group, all
     the rest. Every verdict is the grader's: it compares the parameters the student's program
     wrote with the reference's, reads the test binaries' XML reports against the reference's,
     and measures work through /proc; no exit code, printed line or counter of the student's
     process earns a point. Every run, the student's and the reference's: grade_runs.py;
  4. performance (grade_performance.py), where every check passed: the student's parallel runs
     against the reference's parallel and one-thread (one-rank) runs, every timed run checked as
     well;
  5. the results: one dict in Gradescope's results.json format (report.py renders the rest),
     with a line per misconduct flag for the teaching assistant.

What student code could read of others' work (the decoys, a refusal without a sandbox):
grade_exposure.py. Each of those files holds one part of class Grading, here.
"""
import fcntl
import os
import secrets
import shutil
import tempfile
import time

from . import build, contain, machine, regions, sandbox, submission, tree
from .grade_builds import Builds
from .grade_checks import Checks
from .grade_ctest import CTest
from .grade_exposure import Exposure
from .grade_performance import Performance
from .grade_runs import Runs
from .manifest import ROOT, checks_for

# The thresholds (performance floors, balance, work counted) are the lab's manifest's, each with
# its reason: Grading.threshold(name).


def mode_for(manifest):
    if manifest.get("needs") != "cuda":
        return "cpu"
    return "gpu" if build.has_gpu() else "emulated"


class Check:
    """One check of the manifest: its status (passed, failed, not run), score and output, and
    its verdict, one word of verdicts.WORDS."""

    def __init__(self, spec):
        self.spec, self.name, self.max = spec, spec["name"], spec["points"]
        self.status, self.score, self.output, self.verdict = "not run", 0.0, "", "NOT-RUN"

    def passed(self, output):
        self.status, self.score, self.output, self.verdict = "passed", float(self.max), output, \
            "CORRECT"

    def failed(self, output, verdict="WRONG"):
        self.status, self.score, self.output, self.verdict = "failed", 0.0, output, verdict

    def not_run(self, output, verdict="NOT-RUN"):
        self.status, self.score, self.output, self.verdict = "not run", 0.0, output, verdict


class Grading(Builds, Runs, Checks, CTest, Performance, Exposure):
    def __init__(self, lab, manifests, folder, *, cache, reps=5, timing="auto", lock_wait=3600,
                 say=print):
        self.lab, self.manifests, self.m = lab, manifests, manifests[lab]
        self.folder = os.path.abspath(folder)
        self.cache = build.Cache(cache)
        self.reps, self.timing_mode, self.lock_wait, self.say = reps, timing, lock_wait, say
        self.self_check = submission.started_for(ROOT) is not None  # run inside a starter
        self.mode = mode_for(self.m)
        self.checks = [Check(c) for c in checks_for(self.m, self.mode)]
        self.ignored, self.refused, self.hung, self.flags = [], None, {}, []
        self.sandbox = None  # or the line that says which protection is missing
        self.execs_seen = None  # how the programs that student code ran were seen
        self.contained = None  # how its processes were told apart and ended (procs.Result)
        self.decoys = None  # decoys.Decoys, while student code runs as root's sandbox
        self.performance = {"status": "not measured", "note": "", "score": 0.0,
                            "verdict": "NOT-RUN"}
        self.log_lines = []
        self.start = time.time()
        self.busy_before = 0.0
        self.limits = self.m["limits"]
        # The timed runs' seed ({secret} in the manifest): new in every grading, the same for
        # the reference's runs and the student's, so that nothing built before the grading can
        # know the timed runs' data order, initial parameters or checked calls.
        self.secret = str(secrets.randbits(62) + 2)
        # Set by grade() and its steps, in this order.
        self.work_dir = None  # this grading's own folder, removed when it ends
        self.data = None  # the data folder that runs see (in the cache)
        self.digits = None  # the timing data, inside it
        self.work = None  # {file: [bodies]}: the lab's regions of the submission
        self.where = None  # {file: [first line of each body]}, for the build's messages
        self.lock_file = None  # holds the cache's lock between lock() and unlock()
        self.base_stamp = None  # what the starter's build was made from
        self.ref = None  # the reference's build.Tree (in a self-check: the submission's)
        self.ref_bin = None  # its executables
        self.ref_outputs = None  # its runs' outputs, kept per build of the reference
        self.graded = None  # the submission's build.Tree
        self.bin = None  # its executables
        self.view = None  # {src, build, bin, data, run}: the paths as student code sees them
        self.binds = None  # [(path, where student code sees it)] of what it may read
        self.runs = 0  # how many run folders so far (run-1, run-2, ...)

    # ---- the log: every command and its output, for grade-N.log (procs.run writes to it) ----
    def write(self, text):
        self.log_lines.append(text)

    def log_text(self):
        return "".join(self.log_lines)

    # ---- 1. the submission ---------------------------------------------------------------
    def read_submission(self):
        if self.folder == ROOT:  # the instructor's own tree: its solution
            self.work = tree.solution(ROOT, self.m)
            self.where = {f: regions.first_lines(tree.read(os.path.join(ROOT, f)), self.lab)
                          for f in self.m["files"]}
            return
        starter = tree.variant(ROOT, self.manifests, self.lab)
        self.work, self.where, self.ignored = submission.read_work(
            self.folder, self.manifests, self.lab, ROOT, starter)
        self.ignored += submission.other_changes(self.folder, self.manifests, self.lab, ROOT,
                                                 starter)

    # ---- the cache's lock, the manifest's values, the flags --------------------------------
    def lock(self):
        """One grading at a time per cache (it holds one tree at a time). A grading that waits
        says for whom, and touches nothing of the other's."""
        self.cache.prepare()
        self.lock_file = open(os.path.join(self.cache.path, "lock"), "a+")
        waited = 0.0
        while True:
            try:
                fcntl.flock(self.lock_file, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if waited == 0 or waited % 60 < 5:
                    try:
                        holder = tree.read(os.path.join(self.cache.path, "lock.holder")).strip()
                    except OSError:
                        holder = "another grading"
                    self.say(f"waiting for the build cache {self.cache.path}: {holder} holds "
                             f"it ({int(waited)} s so far, at most {self.lock_wait} s)")
                if waited >= self.lock_wait:
                    raise TimeoutError(f"gave up after {self.lock_wait} s waiting for the build "
                                       f"cache {self.cache.path} (--lock-wait)")
                time.sleep(5)
                waited += 5
        with open(os.path.join(self.cache.path, "lock.holder"), "w") as f:
            f.write(f"the grading of lab {self.lab} of {self.folder} (pid {os.getpid()}, since "
                    f"{time.strftime('%H:%M:%S')})\n")

    def unlock(self):
        try:
            os.remove(os.path.join(self.cache.path, "lock.holder"))
        except OSError:
            pass
        fcntl.flock(self.lock_file, fcntl.LOCK_UN)
        self.lock_file.close()

    def targets(self):
        return self.m["targets_" + self.mode] if "targets_" + self.mode in self.m \
            else self.m["targets"]

    def threshold(self, name):
        """A threshold of the lab's manifest ("thresholds": name: {value, why})."""
        return self.m["thresholds"][name]["value"]

    def flag(self, what, evidence):
        """A misconduct flag for the teaching assistant: never a score by itself."""
        line = f"{what}: {evidence}"
        if line not in self.flags:
            self.flags.append(line)

    # ---- the whole grading -----------------------------------------------------------------
    def grade(self):
        self.work_dir = tempfile.mkdtemp(prefix=f"labkit-lab{self.lab}-")
        os.chmod(self.work_dir, 0o755)
        if self.cache.owner:
            os.chown(self.work_dir, *self.cache.owner)
        self.data = os.path.join(self.cache.path, "data")
        self.digits = os.path.join(self.data, "digits")
        try:
            try:
                self.read_submission()
            except submission.Refused as e:
                self.refused = str(e)
                return self
            # Timing needs a fair reading (2 s); without timing the number is only reported.
            self.busy_before = machine.others_busy(0.5 if self.timing_mode == "off" else 2)
            self.say(f"lab {self.lab}: other processes keep {self.busy_before:.2f} of "
                     f"{machine.cores()} cores busy (load average {machine.load_average():.2f})")
            self.sandbox = sandbox.missing()
            if self.sandbox:
                self.say(self.sandbox)
                if not self.self_check and self.folder != ROOT:
                    open_ = contain.exposed(ROOT, self.manifests, self.folder, self.lab,
                                            [os.path.dirname(self.cache.base(self.lab, self.mode))])
                    if open_:
                        self.refused = (f"no sandbox, and the user that runs student code can "
                                        f"read {self.exposed_list(open_)}: close them (chmod "
                                        f"o-rx, or on a folder above) or install bubblewrap")
                        return self
            contain.take()  # from here on, every run's evidence is this grading's
            self.lock()
            self.decoys = self.make_decoys()
            try:
                # The folder is always there for the sandbox to show, with the timing data
                # inside where the project has it (without it, only timing is not measured).
                os.makedirs(self.data, exist_ok=True)
                tree.copy_data(ROOT, self.digits)
                self.build_base()
                self.build_reference()
                self.run_checks()
                self.measure_performance()
            finally:
                for what, evidence in contain.take():
                    self.flag(what, evidence)
                self.check_decoys()
                self.cache.forget(self.lab, self.mode)
                self.unlock()
        finally:
            shutil.rmtree(self.work_dir, ignore_errors=True)
        return self
