"""Grading one submission of one lab (docs/labs.md, "How a submission is graded").

  1. read the submission: only the bodies of the lab's regions count; a copy started for
     another lab, or without the lab's files, is refused;
  2. build: the reference (starter(N) + the solution) by the grader, once per change of the
     instructor's tree, readable by the grader alone; the submission in the sandbox, in a fresh
     copy of the starter's build (build.py); never the student's tests, CMake files or scripts;
  3. the checks of the manifest, each bounded in time; one that hangs stops the rest of its
     group (a lab's mode) or, without a group, all the rest. Every verdict is the grader's:
     it compares the parameters the student's program wrote with the reference's, reads the
     test binaries' XML reports against the reference's, and measures work through /proc;
     no exit code, printed line or counter of the student's process earns a point;
  4. performance, where every check passed: the student's parallel runs against the
     reference's parallel and one-thread (one-rank) runs, every timed run checked as well;
  5. the results: one dict in Gradescope's results.json format (report.py renders the rest),
     with a line per misconduct flag for the teaching assistant.
"""
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import statistics
import tempfile
import time

from . import (abuse, build, contain, decoys, machine, procs, regions, sandbox, stream,
               submission, tree, users, verdicts)
from .manifest import KIT, checks_for

ROOT = os.path.dirname(KIT)  # the tree this kit belongs to: the instructor's, or a starter
# The thresholds (performance floors, balance, work counted) are the lab's manifest's, each with
# its reason: Grading.threshold(name).
# A run's summary prints each of these lines once; more in a student's run is a forged line.
SUMMARY_KEYS = ("Verification", "Param CRC-32", "Samples computed", "C1 rows computed",
                "Time per epoch")


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


class Grading:
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

    # ---- 2. the builds --------------------------------------------------------------------
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

    # ---- 2. the builds --------------------------------------------------------------------
    def build_base(self):
        """A build of lab N's starter (its stubs), made once per change of the project in the
        sandbox: where the reference and every submission start from, so that each compiles only
        the lab's files."""
        starter = tree.variant(ROOT, self.manifests, self.lab)
        graded = self.cache.graded(self.lab, self.mode)
        self.base_stamp = "-".join([tree.stamp(ROOT, starter), " ".join(self.targets()),
                                    graded.src_in])
        if self.cache.has_base(self.lab, self.mode, self.base_stamp):
            return
        self.say(f"building lab {self.lab}'s starter (once per change of the project) ...")
        shutil.rmtree(graded.top, ignore_errors=True)
        tree.write(ROOT, graded.src, starter)
        os.makedirs(graded.build)
        self.cache.own(graded.build)
        r = build.compile(graded, self.m, self.mode, self.targets(), self,
                          self.limits["build_s"], untrusted=True,
                          compiler_cache=self.cache.compiler_cache())
        if not r.ok:
            raise RuntimeError(f"lab {self.lab}'s starter does not build: {r.last_line()} "
                               f"(log: grade-{self.lab}.log)")
        self.cache.keep_as_base(self.lab, self.mode, self.base_stamp)

    def build_reference(self):
        """The reference executables of this lab, built by the grader in a folder only it can
        read, from the starter's build where both are seen at the sandbox's paths; rebuilt when
        the instructor's tree changed. In a starter (a self-check), there is none: the student's
        own build stands in."""
        if self.self_check:
            return
        self.ref = self.cache.reference(self.lab, self.mode)
        overrides = tree.reference(ROOT, self.manifests, self.lab)
        stamp = tree.stamp(ROOT, overrides) + "-" + self.base_stamp
        self.ref_bin = os.path.join(self.ref.top, "bin")
        self.ref_outputs = os.path.join(self.ref.top, "outputs")  # its runs, kept per stamp
        try:
            if tree.read(os.path.join(self.ref.top, "stamp")).strip() == stamp:
                return
        except OSError:
            pass
        self.say(f"building the reference of lab {self.lab} (once per change of the project) ...")
        if self.ref.src_in != self.ref.src:
            self.cache.restore(self.lab, self.mode, self.ref)
        tree.write(ROOT, self.ref.src, overrides)
        os.makedirs(self.ref.build, exist_ok=True)
        r = build.compile(self.ref, self.m, self.mode, self.targets(), self,
                          self.limits["build_s"], untrusted=False)
        if not r.ok:
            raise RuntimeError(f"the reference of lab {self.lab} does not build: "
                               f"{r.last_line()} (log: grade-{self.lab}.log)")
        build.copy_executables(self.ref, self.ref_bin)
        shutil.rmtree(self.ref_outputs, ignore_errors=True)
        with open(os.path.join(self.ref.top, "stamp"), "w") as f:
            f.write(stamp + "\n")

    def build_submission(self, check):
        """The submission, built in the sandbox in a fresh copy of the starter's build, so that
        only the lab's files are compiled."""
        graded = self.cache.restore(self.lab, self.mode, self.cache.graded(self.lab, self.mode))
        self.graded = graded
        self.say("building the submission ...")
        tree.write(ROOT, graded.src, tree.variant(ROOT, self.manifests, self.lab, self.work))
        r = build.compile(graded, self.m, self.mode, self.targets(), self,
                          self.limits["build_s"], untrusted=True)
        if r.timed_out:
            check.failed(f"the build did not end within {self.limits['build_s']} s", "TIMEOUT")
            return False
        if not r.ok:
            errors = [l for l in build.student_paths(r.output, graded.src_in, self.where,
                                                     self.lab).split("\n")
                      if re.search(r"error|Error", l)]
            first = errors[0].strip() if errors else r.last_line()
            check.failed(f"the build failed: {first[:300]} (grade-{self.lab}.log has every "
                         f"message)", "COMPILE-ERROR")
            return False
        objs = abuse.objects(graded.build, self.m["files"])
        for what, evidence in (abuse.definitions(objs, graded.build) + abuse.reaches(self.work) +
                               abuse.dependencies(objs, [graded.src_in, graded.build_in,
                                                         "/usr"])):
            self.flag(what, evidence)
        self.bin = os.path.join(self.work_dir, "bin")
        build.copy_executables(graded, self.bin)
        # What student code sees: the graded tree, its executables and the data at fixed paths
        # in the sandbox (or at their own, without one).
        inside = graded.src_in != graded.src
        self.view = {"src": graded.src_in, "build": graded.build_in,
                     "bin": "/lab/bin" if inside else self.bin,
                     "data": "/lab/data" if inside else self.data,
                     "run": "/lab/run" if inside else None}
        self.binds = [(graded.src, graded.src_in), (graded.build, graded.build_in),
                      (self.bin, self.view["bin"]), (self.data, self.view["data"])]
        if self.self_check:
            self.ref, self.ref_bin = graded, self.bin
            self.ref_outputs = os.path.join(self.work_dir, "reference-outputs")
        check.passed("Release build of " + ", ".join(self.targets()) +
                     ("; the kernels run EMULATED on the CPU: no GPU here"
                      if self.mode == "emulated" else ""))
        return True

    # ---- 3. runs ---------------------------------------------------------------------------
    def expand(self, cmd, *, reference=False, **extra):
        """cmd with {bin}, {ref}, {vectors}, {digits}, {mpi_launch} and {build} as the run sees
        them: a student's run in the sandbox's view, the reference's at the grader's paths."""
        if reference:
            src, build_, bin_, data = self.ref.src, self.ref.build, self.ref_bin, self.data
        else:
            v = self.view
            src, build_, bin_, data = v["src"], v["build"], v["bin"], v["data"]
        values = dict(bin=bin_, ref=self.ref_bin, secret=self.secret,
                      vectors=os.path.join(src, "tests", "vectors", "data"),
                      digits=os.path.join(data, "digits"),
                      # MPI ranks start as the build's MPI wants: bash {mpi_launch} {build} -n P
                      mpi_launch=os.path.join(src, "run_scripts", "mpi_launch.sh"),
                      build=build_)
        values.update(extra)
        out = []
        for token in cmd:
            for k, v in values.items():
                token = token.replace("{" + k + "}", v)
            out.append(token)
        return out

    def limit(self, reference_seconds):
        L = self.limits
        return min(L["run_cap_s"], max(L["run_floor_s"], L["run_factor"] * reference_seconds))

    def new_folder(self):
        """A new, empty folder for one run's files: no run finds what another left."""
        self.runs = getattr(self, "runs", 0) + 1
        path = os.path.join(self.work_dir, f"run-{self.runs}")
        os.makedirs(path)
        if self.cache.owner:
            os.chown(path, *self.cache.owner)
        return path

    def run_student(self, cmd, *, timeout, env=None, cwd=None):
        """A run of student code in the sandbox, observed; (Result, its folder). Result.ran
        lists, and flags, what a program of the project did that the grader did not start."""
        here = self.new_folder()
        there = self.view["run"] or here
        r = procs.run(cmd, timeout=timeout, cwd=cwd or there,
                      env=sandbox.environment(there, env), untrusted=True, log=self,
                      read=self.binds, write=[(here, there)], observe=True)
        # The project's programs (lenet-*) start no other program: one that does (an exec of
        # lenet-serial, a shell) is flagged and its run fails. Test programs may (popen).
        program = lambda path: os.path.basename(path).startswith("lenet-")  # noqa: E731
        r.ran = [f"{os.path.basename(parent)} ran {child}"
                 for parent, child in r.observed.started_by(program)]
        # An exec can come before the first sample (from a static initialiser): every process
        # found running one of the project's programs must be the one the grader started, with
        # the grader's arguments.
        started = next((i for i, c in enumerate(cmd) if program(c)), None)
        if started is not None:
            want = (os.path.basename(cmd[started]), [a.encode() for a in cmd[started + 1:]])
            for exe, args in r.observed.runs_of(program):
                got = (os.path.basename(exe), args.split(b"\0")[1:])
                if got[1] and got[1][-1] == b"":
                    got = (got[0], got[1][:-1])
                if got != want:
                    r.ran.append(f"{want[0]} became {got[0]} " + " ".join(
                        a.decode("utf-8", "replace") for a in got[1][:12]))
        for ran in r.ran:
            self.flag("ran another program", f"{ran} (in '{' '.join(cmd[-4:])}')")
        for what, evidence in abuse.threads(cmd, r.observed):
            self.flag(what, f"{evidence} (in '{' '.join(cmd[-4:])}')")
        self.contained = r.contained
        self.execs_seen = r.observed.exec_evidence()
        return r, here

    def run_reference(self, cmd, *, env=None, cwd=None, observe=False, what=""):
        """A run of the reference (trusted), in the same environment as a student's; (Result,
        its folder). The kit is broken, not the submission, if it fails."""
        here = self.new_folder()
        r = procs.run(cmd, timeout=self.limits["run_cap_s"], cwd=cwd or here,
                      env=sandbox.environment(here, env), log=self, observe=observe)
        if not r.ok:
            raise RuntimeError(f"the reference run of '{what}' failed: {r.last_line()}")
        return r, here

    def reference_params(self, cmd, what, env=None):
        """(seconds, parameters) of the reference's run of cmd (with --save), kept per build
        of the reference: its runs are deterministic."""
        key = hashlib.sha256(json.dumps([cmd, env]).encode()).hexdigest()[:16]
        kept = os.path.join(self.ref_outputs, key)
        if os.path.isfile(kept + ".ck"):
            return float(tree.read(kept + ".s")), verdicts.read_checkpoint(kept + ".ck")
        r, here = self.run_reference(cmd + ["--save", "params.ck"], env=env, what=what)
        os.makedirs(self.ref_outputs, exist_ok=True)
        shutil.copy(os.path.join(here, "params.ck"), kept + ".ck")
        with open(kept + ".s", "w") as f:
            f.write(f"{r.seconds}\n")
        return r.seconds, verdicts.read_checkpoint(kept + ".ck")

    def student_params(self, cmd, timeout, env=None):
        """(Result, parameters or None, why none) of a student's run of cmd with --save."""
        r, here = self.run_student(cmd + ["--save", "params.ck"], timeout=timeout, env=env)
        self.forged_lines(r.output)
        if r.timed_out:
            return r, None, "timeout"
        if r.ran:
            return r, None, f"{r.ran[0]}: the program may not start another one"
        try:
            return r, verdicts.read_checkpoint(os.path.join(here, "params.ck")), ""
        except verdicts.Unreadable as e:
            return r, None, (f"{e}; exit {r.rc}: {r.last_line()[:200]}" +
                             self.emulator_lines(r.output))

    def forged_lines(self, output):
        for key in SUMMARY_KEYS:
            n = sum(1 for l in output.split("\n") if l.strip().startswith(key))
            if n > 1:
                self.flag("a forged summary line", f"a run printed {n} '{key} ...' lines where "
                                                   f"the program's summary prints one")

    @staticmethod
    def emulator_lines(output):
        """The CUDA emulation's own diagnostics (an access past a cudaMalloc block, a divergent
        barrier), for the report."""
        found = [l.strip() for l in output.split("\n") if l.strip().startswith("cuda_emu")]
        return (" The emulator said: " + " | ".join(found[:3])) if found else ""

    def hung_in(self, check):
        """A check that did not end: the rest of its group (or of all checks) will not run."""
        self.hung[check.spec.get("group", "all")] = check.name

    def timed_out(self, check, r):
        self.hung_in(check)
        check.failed(f"the run did not end within {r.seconds:.0f} s (its limit): a hang or a "
                     "deadlock? It was killed with all its processes", "TIMEOUT")

    # ---- 4. the checks ------------------------------------------------------------------------
    def compare_params(self, check, got_cmd, want, seconds, *, exact, env=None):
        """Runs got_cmd and judges its parameters against want; on a mismatch, runs it again
        to tell a race from a wrong result."""
        r, got, why = self.student_params(got_cmd, self.limit(seconds), env)
        if r.timed_out:
            return self.timed_out(check, r)
        if got is None:
            return check.failed(f"expected the run's parameters, got none: {why}",
                                "FLAGGED" if r.ran else "RUN-ERROR")
        diff = verdicts.differences(got, want, exact=exact)
        if diff is None:
            return check.passed("the parameters are the reference's " +
                                ("bit for bit" if exact else "within float32 rounding") +
                                (f" ({r.cut_note()})" if r.cut else ""))
        _, got2, _ = self.student_params(got_cmd, self.limit(seconds), env)
        if got2 is not None and verdicts.differences(got2, got, exact=True):
            return check.failed(f"different results on two runs of the same build: a race? "
                                f"(the first run: {diff})")
        check.failed(diff)

    def against_reference(self, check, *, exact):
        spec = check.spec
        seconds, want = self.reference_params(self.expand(spec["want"], reference=True),
                                              check.name)
        self.compare_params(check, self.expand(spec["got"]), want, seconds, exact=exact)

    def check_same_bits(self, check):
        self.against_reference(check, exact=True)

    def check_verify(self, check):
        self.against_reference(check, exact=False)

    def check_trains_like(self, check):
        """The student's program against the reference's serial run, one run per batch size,
        each on B + 1 images (every epoch ends with a batch of one sample), within float32
        rounding; `seeds` (the emulation's schedules) must give the same bits."""
        spec = check.spec
        for batch in spec["batches"]:
            cases = ["--train-limit", str(batch + 1), "--batch", str(batch)]
            seconds, want = self.reference_params(
                self.expand(spec["want"], reference=True) + cases, check.name)
            first = None
            for seed in spec.get("seeds", ["1"]) if batch == spec["batches"][0] else ["1"]:
                env = {spec["seed_env"]: seed} if "seed_env" in spec else None
                r, got, why = self.student_params(self.expand(spec["got"]) + cases,
                                                  self.limit(seconds), env)
                if r.timed_out:
                    return self.timed_out(check, r)
                if got is None:
                    return check.failed(f"B = {batch}: expected the run's parameters, got none: "
                                        f"{why}", "FLAGGED" if r.ran else "RUN-ERROR")
                diff = verdicts.differences(got, want, exact=False)
                if diff:
                    return check.failed(f"B = {batch}: {diff}" + self.emulator_lines(r.output))
                if first is not None and verdicts.differences(got, first, exact=True):
                    return check.failed(f"B = {batch}: different results in two schedules of the "
                                        f"same build (seeds): a race?")
                first = got
        check.passed(f"B = {', '.join(map(str, spec['batches']))}: the parameters within float32 "
                     f"rounding of the reference's lenet-serial, the same bits in "
                     f"{len(spec.get('seeds', [1]))} schedules")

    def check_work(self, check):
        """Each sample computed on one rank: the run's own count of the samples it computed
        ("Samples computed = N on P ranks", counted by the handout's helpers) must be the
        reference's, exactly; a rank that computes the whole batch counts twice the samples,
        however start-up and loading hide it in the CPU time. The count lives in the student's
        process, so it can only take the points away; the operating system's view decides the
        rest: the job's ranks run
        on ONE core, where a rank waiting for another yields it, so the job's CPU time is the
        work it did, plus the yields. It must be between `min_ratio` (0.5: samples not computed)
        and `max_ratio` (samples computed twice) of the reference's job. A yield costs more CPU
        on a core that nothing else wants than on one that other processes share, so the
        reference's and the student's jobs take turns, work_rounds rounds, and the least CPU
        time of each is compared: the round that waited least."""
        spec = check.spec
        cpu = str(min(os.sched_getaffinity(0)))
        pin = ["taskset", "-c", cpu]
        program = os.path.basename(spec["program"])
        want, got, ranks = [], [], 0
        rounds = self.threshold("work_rounds")
        for _ in range(rounds):
            ref, _ = self.run_reference(pin + self.expand(spec["run"], reference=True),
                                        observe=True, what=check.name)
            r, _ = self.run_student(pin + self.expand(spec["run"]),
                                    timeout=self.limit(ref.seconds))
            if r.timed_out:
                return self.timed_out(check, r)
            if not r.ok:
                return check.failed(f"expected a run that ends with exit 0, got exit {r.rc}: "
                                    f"{r.last_line()[:200]}", "RUN-ERROR")
            want.append(sum(p["cpu"] for p in ref.observed.of(program)))
            got.append(sum(p["cpu"] for p in r.observed.of(program)))
            ranks = len(r.observed.of(program))
            counted = self.shared(r.output, "Samples computed")
            expected = self.shared(ref.output, "Samples computed")
            if expected and not counted:
                return check.failed("expected the run's summary line 'Samples computed = N on P "
                                    "ranks', got none", "RUN-ERROR")
            if expected and counted[0] != expected[0]:
                return check.failed(
                    f"expected each sample computed on one rank: your {counted[1]} ranks "
                    f"computed {counted[0]} samples (from {counted[2]} to {counted[3]} a rank), "
                    f"the reference's {expected[0]}" +
                    (": a sample computed on more than one rank" if counted[0] > expected[0]
                     else ": samples left uncomputed"))
        got, want = min(got), min(want)
        ratio = got / want if want > 0 else float("inf")
        low = spec.get("min_ratio", 0.5)
        rounds = f"least of {rounds} rounds"
        if ranks >= 2 and low <= ratio <= spec["max_ratio"]:
            return check.passed(f"{ranks} ranks used {got:.2f} s of CPU on one core, the "
                                f"reference's {want:.2f} s ({ratio:.2f}x, {rounds}): each "
                                f"sample computed once")
        check.failed(f"expected each sample computed on one rank: {ranks} ranks used "
                     f"{got:.2f} s of CPU on one core where the reference's use "
                     f"{want:.2f} s ({ratio:.2f}x, {rounds}; {low}x to "
                     f"{spec['max_ratio']}x expected)" +
                     (": every rank computed the whole batch?" if ratio > spec["max_ratio"] else
                      ": samples left uncomputed?" if ratio < low else ""))

    def tests_of(self, t, label):
        """[(name, command, working folder, skip code)] of Tree t's CTest tests that carry the
        label (the whole label, not a part of one), as CMake wrote them (the grader reads the
        file; no test runs)."""
        read, write = t.binds(writable=True)  # ctest writes its own files in the build
        r = procs.run(["ctest", "--show-only=json-v1", "-L", f"^{label}$"], timeout=60,
                      cwd=t.build_in, untrusted=t is self.graded, read=read, write=write,
                      view=t.src_in != t.src, env=sandbox.environment(t.build_in), log=self)
        try:
            data = json.loads(r.output[r.output.index("{"):])
        except ValueError:
            raise RuntimeError(f"ctest could not list the tests of {t.build}: {r.last_line()}")
        found = []
        for test in data.get("tests", []):
            props = {p["name"]: p["value"] for p in test.get("properties", [])}
            found.append((test["name"], test["command"], props.get("WORKING_DIRECTORY", t.build_in),
                          int(props.get("SKIP_RETURN_CODE", 77))))
        return found

    def run_test(self, command, cwd, *, student, timeout, reports=("report.xml",)):
        """Runs a test command with Catch2's XML reporter; (Result, {file name: verdicts.Report}
        of every report (MPI: one per rank), the folder). The reference's reports are files; a
        student's go through named pipes the grader holds (stream.py), `reports` their names:
        no report is read back from a file that the test process could rewrite."""
        here = self.new_folder()
        if student:
            there = self.view["run"] or here
            pipes = stream.Pipes(here, reports)
            try:
                r = procs.run(command + ["-r", "xml", "-o", os.path.join(there, "report.xml")],
                              timeout=timeout, cwd=cwd, env=sandbox.environment(there),
                              untrusted=True, log=self, observe=True, read=self.binds,
                              write=[(here, there)])
            finally:
                written = pipes.stop()
            r.replaced, r.too_long = pipes.replaced(), sorted(pipes.cut)
            return r, {f: verdicts.Report(data=d) for f, d in written.items() if d}, here
        # the reference's, as the grader, in the same view where there is one
        inside = self.ref.src_in != self.ref.src
        there = "/lab/run" if inside else here
        r = procs.run(command + ["-r", "xml", "-o", os.path.join(there, "report.xml")],
                      timeout=timeout, cwd=cwd, env=sandbox.environment(there), log=self,
                      view=inside, read=self.ref.binds(writable=False)[0],
                      write=[(here, there)])
        found = {f: verdicts.Report(os.path.join(here, f)) for f in os.listdir(here)
                 if f.startswith("report.xml")}
        return r, found, here

    def expected_tests(self, check):
        """{name: (command, working folder, skip code)} of the reference's tests of a ctest
        check: exactly the manifest's count of them, or the kit and the project disagree."""
        spec = check.spec
        tests = {n: (c, w, s) for n, c, w, s in self.tests_of(self.ref, spec["label"])}
        if len(tests) != spec["count"]:
            raise RuntimeError(f"'{check.name}': the reference has {len(tests)} tests labelled "
                               f"'{spec['label']}' ({', '.join(tests) or 'none'}), the manifest "
                               f"expects {spec['count']}")
        return tests

    def expected_reports(self, name, tests):
        """The reference's reports of one test (tests: expected_tests' answer), kept per build of
        the reference."""
        key = os.path.join(self.ref_outputs, "test-" + hashlib.sha256(name.encode())
                           .hexdigest()[:16])
        if not os.path.isdir(key):
            if name not in tests:
                raise RuntimeError(f"the reference has no test '{name}'")
            command, cwd, _ = tests[name]
            r, found, here = self.run_test(command, cwd, student=False,
                                           timeout=self.limits["ctest_test_s"])
            if not found or not all(x.complete and not x.failures for x in found.values()):
                raise RuntimeError(f"the reference's test '{name}' did not pass: "
                                   f"{r.last_line()}")
            os.makedirs(key + ".tmp", exist_ok=True)
            for f in found:
                shutil.copy(os.path.join(here, f), os.path.join(key + ".tmp", f))
            os.replace(key + ".tmp", key)
        return {f: verdicts.Report(os.path.join(key, f)) for f in os.listdir(key)}

    def check_ctest(self, check):
        """A group of the project's tests (those with the check's CTest label: as many as the
        manifest's count, and in the graded tree the reference's very tests), each run as CMake
        registered it with Catch2's XML reporter added, each at most ctest_test_s seconds;
        judged by its reports against the reference's: every test case there, passed, with as
        many assertions. An exit code earns nothing."""
        spec = check.spec
        per_test = self.limits["ctest_test_s"]
        tests = self.tests_of(self.graded, spec["label"])
        names = sorted(n for n, _, _, _ in tests)
        if self.self_check:
            want_names = names if len(names) == spec["count"] else None
        else:
            expected = self.expected_tests(check)
            want_names = sorted(expected)
        if names != want_names:
            raise RuntimeError(f"'{check.name}': the build has {len(names)} tests labelled "
                               f"'{spec['label']}' ({', '.join(names) or 'none'}), expected "
                               + (", ".join(want_names) if want_names else
                                  f"{spec['count']}"))
        passed = []
        for name, command, cwd, skip in tests:
            want = None if self.self_check else self.expected_reports(name, expected)
            # A pipe for every report the reference wrote (in a self-check: up to 8 ranks').
            names = sorted(want) if want else ["report.xml"] + [f"report.xml.rank{k}"
                                                                for k in range(1, 8)]
            r, found, _ = self.run_test(command, cwd, student=True, timeout=per_test,
                                        reports=names)
            if r.timed_out:
                self.hung_in(check)
                return check.failed(f"{name}: did not end within {per_test} s and was killed "
                                    f"with all its processes: a hang or a deadlock?", "TIMEOUT")
            if r.replaced:
                self.flag("replaced its test report", f"{name}: the grader's pipe "
                          f"{', '.join(r.replaced)} was removed or replaced during the run")
            if r.too_long:
                return check.failed(f"{name}: its report was longer than "
                                    f"{stream.MAX_BYTES >> 20} MB", "RUN-ERROR")
            if r.rc == skip and not found:
                return check.not_run(f"could not run here: {self.skip_reason(r.output)}")
            for f in sorted(want or {"report.xml": None}):
                got = found.get(f, verdicts.Report(os.devnull))
                rank = f" (rank {f.rsplit('rank', 1)[1]})" if ".rank" in f else ""
                if got.tampered:
                    self.flag("wrote into its test report", f"{name}{rank}: {got.tampered}")
                    return check.failed(f"{name}{rank}: its report is not the one Catch2 wrote: "
                                        f"{got.tampered}", "FLAGGED")
                why = got.against(want[f]) if want else (
                    None if got.complete and not got.failures and got.cases else
                    got.against(verdicts.Report(os.devnull)))
                if why and why.startswith("exited before its report"):
                    self.flag("exited before its report",
                              f"{name}: the test process ended (exit {r.rc}) before its Catch2 "
                              f"report was complete")
                    return check.failed(f"{name}{rank}: {why}" + self.emulator_lines(r.output),
                                        "RUN-ERROR")
                if why and r.rc == 0 and (got.failures or not all(got.cases.values())):
                    # Catch2 ends with a non-zero status after a failure: something changed it.
                    self.flag("exit 0 after a failed test",
                              f"{name}{rank}: its report has failures, its process exited 0")
                    return check.failed(f"{name}{rank}: {why}; and the process exited 0 all "
                                        f"the same", "FLAGGED")
                if why:
                    return check.failed(f"{name}{rank}: {why}" + self.emulator_lines(r.output))
            if r.rc != 0:
                return check.failed(f"{name}: the test process exited {r.rc} after a complete "
                                    f"report: {r.last_line()[:200]}", "RUN-ERROR")
            passed.append(name)
        check.passed(f"{len(passed)} test{'s' if len(passed) > 1 else ''} passed, every "
                     f"assertion the reference's checks: " + ", ".join(passed))

    @staticmethod
    def skip_reason(output):
        m = re.search(r"SKIPPED[^\n]*", output)
        return m.group(0) if m else "skipped"

    @staticmethod
    def failure(output):
        """One line from a failed Catch2 test's output (plain text): the check that failed
        first, then what it got: "CHECK( a == b ) got: 1 == 2 (tests/x.cpp:12)"."""
        lines = [l.strip() for l in output.split("\n")]
        for i, line in enumerate(lines):
            if line.endswith("FAILED:"):
                what = []
                for l in lines[i + 1:i + 12]:
                    if re.fullmatch(r"[-=.]{10,}", l) or l.endswith("FAILED:"):
                        break  # the next test case, or the next failure
                    if l:
                        what.append(l)
                where = line[:-len("FAILED:")].strip().rstrip(":")
                joined = " ".join(what).replace("with expansion:", "got:")
                return (joined + (f" ({os.path.basename(where)})" if where else ""))[:400]
        for line in lines:
            if "error" in line.lower() or "expected" in line.lower():
                return line[:400]
        return "failed (grade log has its output)"

    def run_checks(self):
        build_check = self.checks[0]
        assert build_check.spec["kind"] == "build"
        if not self.build_submission(build_check):
            for c in self.checks[1:]:
                c.not_run("the build failed", build_check.verdict)
            return
        for c in self.checks[1:]:
            # A check that hangs stops the checks of its group (a lab's mode), or all of them.
            group = c.spec.get("group", "all")
            stopped = self.hung.get(group) or self.hung.get("all") or \
                (group == "all" and next(iter(self.hung.values()), None))
            if stopped:
                c.not_run(f"'{stopped}' hung and was stopped", "TIMEOUT")
                continue
            if time.time() - self.start > self.limits["grading_s"]:
                c.not_run(f"the grading's {self.limits['grading_s']} s were spent", "TIMEOUT")
                continue
            self.say(f"check: {c.name} ...")
            getattr(self, "check_" + c.spec["kind"])(c)
            self.say(f"  {c.status}: {c.output[:160]}")

    # ---- 5. performance ------------------------------------------------------------------
    def timed(self, key, cmd, perf):
        """One timed run: (seconds by the grader's clock, Result, what it computed or None).
        Every timed run writes what it computed (its parameters; lab 4: a checksum of every
        call's result), and a student's must be the reference's."""
        saves = [] if perf.get("checksum") else ["--save", "params.ck"]
        if key != "parallel":
            r, here = self.run_reference(cmd + saves, observe=True, what=perf["what"])
        else:
            r, here = self.run_student(cmd + saves, timeout=self.limits["run_cap_s"])
            self.forged_lines(r.output)
        if not r.ok or getattr(r, "ran", None):
            return None, r, None
        try:
            if perf.get("checksum"):
                line = tree.read(os.path.join(here, perf["checksum"])).split()
                # WHAT calls N seed S checked C sums S0 ... S15 checksum TOTAL
                head, sums = line[:line.index("sums")], line[line.index("sums") + 1:-2]
                if key == "parallel":  # what was checked, for the report
                    words = dict(zip(head[1::2], head[2::2]))
                    self.performance["checked"] = (f"{words.get('checked', '?')} of "
                                                   f"{words.get('calls', '?')} calls")
                # The sums of the checked calls' results, each compared, then their total.
                return r.seconds, r, [float(v) for v in sums + line[-1:]]
            return r.seconds, r, verdicts.read_checkpoint(os.path.join(here, "params.ck"))
        except (OSError, ValueError, IndexError, verdicts.Unreadable):
            return r.seconds, r, None

    @staticmethod
    def computed_otherwise(got, want, perf):
        """None when a timed run computed what the reference's did, else why not."""
        if got is None:
            return "it wrote no result"
        if perf.get("checksum"):
            # Each sum within float rounding of the reference's (another order of the same
            # additions), all at once: a skipped call's error, up or down, lands in one of them.
            if len(got) != len(want):
                return (f"it wrote {len(got) - 1} sums of its calls' results, the reference "
                        f"{len(want) - 1}")
            off = [i for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > 1e-6 * abs(w)]
            if not off:
                return None
            return (f"the checksum of its calls' results is {got[-1]!r}, the reference's "
                    f"{want[-1]!r}; {len(off)} of its {len(want) - 1} sums differ (sum "
                    f"{off[0]}: {got[off[0]]!r} against {want[off[0]]!r}): some calls computed "
                    f"something else, or nothing")
        return verdicts.differences(got, want, exact=perf.get("exact", False))

    @staticmethod
    def balance(observed, program, threads):
        """(the CPU time of the `threads` busiest threads of `program`'s process, from /proc,
        busiest first; the least busy of them over the busiest)."""
        recs = observed.of(program)
        if not recs:
            return [], 0.0
        rec = max(recs, key=lambda p: p["cpu"])
        times = sorted(rec["threads"].values(), reverse=True)[:threads]
        times += [0.0] * (threads - len(times))
        return times, (times[-1] / times[0] if times[0] > 0 else 0.0)

    def no_sharing(self, perf, observed):
        """Why the student's threads did not share the work as the reference's do (from the CPU
        time the kernel counted for each thread), or None."""
        program, n = perf["program"], perf["threads"]
        got = [self.balance(o, program, n) for o in observed["parallel"]]
        ref = [self.balance(o, program, n) for o in observed["reference"]]
        mine = statistics.median(b for _, b in got)
        theirs = statistics.median(b for _, b in ref)
        times = lambda t: " and ".join(f"{x:.2f} s" for x in t)  # noqa: E731
        said = (f"CPU time per thread of {program} (from /proc, the median round): yours "
                f"{times(got[len(got) // 2][0])} (least/most busy {mine:.2f}), the reference's "
                f"{times(ref[len(ref) // 2][0])} ({theirs:.2f})")
        least = self.threshold("min_balance")
        if mine < least * theirs:
            return (f"{said}: your threads did not share the work (at least {least} of the "
                    f"reference's balance needed: one thread did most of it, or threads other "
                    f"than OpenMP's team did)")
        # The least CPU time of the rounds: other processes only ever add to it (caches, clocks).
        cpu = min(sum(t) for t, _ in got)
        ref_cpu = min(sum(t) for t, _ in ref)
        most = self.threshold("max_cpu_ratio")
        if cpu > most * ref_cpu:
            return (f"{said}: your threads used {cpu:.2f} s of CPU where the reference's use "
                    f"{ref_cpu:.2f} s ({cpu / ref_cpu:.2f}x, at most {most}x): work done "
                    f"twice, or a thread kept busy without work?")
        self.performance["balance"] = said
        return None

    @staticmethod
    def shared(output, key):
        """(total, parts, fewest, most, shared calls, calls, part) from the LAST 'KEY = N on P
        parts (A to B a part); calls shared by every part: S of C' line of a run's summary
        (part: thread or rank; S and C None where the line has no calls), or None."""
        found = re.findall(re.escape(key) + r"\s*=\s*(\d+) on (\d+) (thread|rank)s? \((\d+) to "
                           r"(\d+) a \3\)(?:; calls shared by every \3: (\d+) of (\d+))?", output)
        if not found:
            return None
        total, parts, part, fewest, most, shared, calls = found[-1]
        return tuple(None if x == "" else int(x)
                     for x in (total, parts, fewest, most, shared, calls)) + (part,)

    def calls_not_shared(self, key, output, reference_output):
        """Why the program's own per-call counts show calls done whole by one thread (rank), or
        None. A veto only: these counts live in the student's process, so they can take points
        away (`single`, `critical` or `masked` around the work: turns that the kernel's CPU times
        cannot tell from sharing) but never give any."""
        got = self.shared(output, key)
        want = self.shared(reference_output or "", key)
        if got is None or want is None:
            return None
        total, parts, fewest, most, shared, calls, part = got
        extra = total / want[0] if want[0] else 1.0
        if total < want[0] or extra > 1.0 + self.threshold("max_extra_work"):
            return (f"{key} = {total} where the reference computes {want[0]}: " +
                    ("work done twice, or" if total > want[0] else "work left out, or done") +
                    " not through the handout's helpers")
        if extra > 1.0:  # a little work done twice (a boundary row): its share of the points
            self.performance["extra_work"] = max(extra, self.performance.get("extra_work", 1.0))
        if fewest == 0:
            return (f"one of the {parts} {part}s computed nothing ({key} = {total} on {parts} "
                    f"{part}s, {fewest} to {most} a {part})")
        if want[4] is not None and (shared or 0) < self.threshold("min_shared_calls") * want[4]:
            return (f"{key}: only {shared or 0} of {calls or 0} calls were shared by every "
                    f"{part} (the reference: {want[4]} of {want[5]}): in the rest one {part} did "
                    f"the whole call alone, whichever {part} it was" +
                    (" (`single`, `critical` or `masked` around the work, or a region skipped?)"
                     if part == "thread" else ""))
        if most and want[3] and fewest / most < self.threshold("min_count_balance") * want[2] / \
                want[3]:
            return (f"{key}: {fewest} to {most} a {part}, where the reference's {part}s compute "
                    f"{want[2]} to {want[3]}: one {part} did most of the work")
        return None

    def measure_performance(self):
        perf, P = self.m.get("performance"), self.m["points"]["performance"]
        state = self.performance
        if P == 0 or perf is None:
            state["note"] = "this lab has no performance part"
            return
        if perf.get("when", self.mode) != self.mode:
            state["note"] = perf["why_not_" + self.mode]
            return
        if self.timing_mode == "off":
            state["note"] = "not measured: --no-timing"
            return
        if any(c.status != "passed" for c in self.checks):
            state["note"] = "not measured: the correctness checks did not all pass"
            return
        if not os.path.isdir(self.digits):
            state["note"] = (f"not measured: no timing data {self.digits} (bash "
                             "run_scripts/get_data.sh)")
            return
        cores_needed = perf["cores"]
        free = machine.cores() - self.busy_before
        if self.timing_mode != "force" and free < cores_needed - 0.3:
            state["note"] = (f"not measured: machine busy (other processes kept "
                             f"{self.busy_before:.2f} of {machine.cores()} cores busy); it needs "
                             f"{cores_needed} free: grade again on a quiet machine, or "
                             f"--force-timing")
            return
        self.say(f"performance: {self.reps} rounds of {perf['what']} ...")
        # The baseline and the guard are the reference's one- and N-thread (rank) runs, timed
        # here: nothing the submission does to its own one-thread run moves them.
        commands = {"reference": self.expand(perf["parallel"], reference=True),
                    "one": self.expand(perf["one"], reference=True),
                    "parallel": self.expand(perf["parallel"])}
        if self.self_check:
            commands["one"] = self.expand(perf["one"])
        runs = {k: [] for k in commands}
        observed = {k: [] for k in commands}
        outputs = {k: "" for k in commands}
        before, own_cpu, want = machine.ticks(), 0.0, None
        for _ in range(self.reps):
            for key in commands:  # interleaved: each round runs every command once
                value, r, params = self.timed(key, commands[key], perf)
                own_cpu += sum(p["cpu"] for p in r.observed.procs.values()) if r.observed else 0
                if value is None:
                    whose = "yours" if key == "parallel" else "the reference's"
                    if key == "parallel":
                        state["verdict"] = "TIMEOUT" if r.timed_out else "RUN-ERROR"
                    state["note"] = (f"not measured: a timed run failed ({whose}: "
                                     f"{r.last_line()[:160]})")
                    return
                if key == "reference":
                    want = params
                elif key == "parallel" and want is not None:
                    diff = self.computed_otherwise(params, want, perf)
                    if diff:
                        self.flag("a timed run computed something else",
                                  f"{' '.join(commands[key][-6:])}: {diff}")
                        state["verdict"] = "WRONG"
                        state["note"] = (f"no points: a timed run did not compute what the "
                                         f"reference's did ({diff}); every timed run is checked")
                        return
                runs[key].append(value)
                observed[key].append(r.observed)
                outputs[key] = r.output
        others = machine.busy_cores(before, machine.ticks(), own_cpu)
        # The fastest round of each: other processes only ever slow a run down.
        best = {k: min(v) for k, v in runs.items()}
        med = {k: statistics.median(v) for k, v in runs.items()}
        own = best["one"] / best["parallel"]
        state.update(status="measured", verdict="CORRECT", runs=runs, best=best, medians=med, speedup=own,
                     others_busy=others, what=perf["what"], unit=perf["unit"])
        for key in perf.get("evidence", []):
            why = self.calls_not_shared(key, outputs["parallel"], outputs["reference"])
            if why:
                state["note"] = f"no parallelism: {why}, so no performance points"
                return
        # Threads that the kernel saw idle did no share, whatever the clock says.
        if perf.get("threads"):
            why = self.no_sharing(perf, observed)
            if why:
                state["note"] = f"no parallelism: {why}, so no performance points"
                return
        busy_while_timing = others > machine.cores() - cores_needed + 0.3
        busy_note = f" {state['balance']}." if state.get("balance") else ""
        checked = (f": {state['checked']}, chosen by it, each run on through F's forward pass "
                   f"into a checksum" if state.get("checked") else "")
        busy_note += (f" Every timed run was checked against the reference's, both with this "
                      f"grading's secret seed {self.secret}{checked}.")
        if busy_while_timing:
            busy_note += (f" Other processes used {others:.2f} of {machine.cores()} cores while "
                          f"it timed: the numbers are less reliable.")
        if self.self_check:
            state["note"] = (f"your speedup {own:.2f}x ({perf['speedup_of']}); a self-check: "
                             f"the course grades performance with the reference.{busy_note}")
            return
        fraction = best["reference"] / best["parallel"]
        # The reference's speedup over its one-thread run: whether one was possible here.
        possible = best["one"] / best["reference"]
        state.update(fraction=fraction, reference_speedup=possible)
        threshold = self.limits["min_speedup"]
        if threshold and possible <= threshold:  # the clock cannot tell a speedup here now
            state["note"] = (f"not measured: no speedup was possible on this machine now (the "
                             f"reference's: {possible:.2f}x, yours {own:.2f}x): grade again on a "
                             f"quiet machine.{busy_note}")
            return
        if threshold and own <= threshold:
            state["note"] = (f"no speedup: yours {own:.2f}x ({perf['speedup_of']}) where the "
                             f"reference's is {possible:.2f}x; {threshold}x or less earns no "
                             f"performance points.{busy_note}")
            return
        if self.timing_mode != "force" and busy_while_timing:
            state["note"] = ("measured on a busy machine: for information, not scored; grade "
                             f"again on a quiet machine.{busy_note}")
            return
        low, full = self.threshold("zero_fraction"), self.threshold("full_fraction")
        f = min(1.0, max(0.0, (fraction - low) / (full - low)))
        extra = state.get("extra_work", 1.0)  # work counted beyond the reference's costs its share
        state["score"] = round(P * f / extra, 1)
        state["note"] = (f"your speedup {own:.2f}x ({perf['speedup_of']}, over the reference's "
                         f"one-thread time); your speed is {fraction:.2f} of the reference's "
                         f"(full points from {full}, none at {low} or below)" +
                         (f"; your run counted {extra:.4f}x the reference's work, which costs "
                          f"that share of the points" if extra > 1.0 else "") +
                         f".{busy_note}")

    def exposed_list(self, paths):
        """The open paths for a refusal: other students' files first, then this lab's solution
        files, then the rest; a few of each group, whatever the folders' names sort as."""
        mine = {os.path.join(ROOT, f) for f in self.manifests[self.lab]["files"]}
        groups = [sorted(p for p in paths if not p.startswith(ROOT + os.sep)),
                  sorted(p for p in paths if p in mine),
                  sorted(p for p in paths if p.startswith(ROOT + os.sep) and p not in mine)]
        said = []
        for group in groups:
            said += group[:4] + ([f"{len(group) - 4} more"] if len(group) > 4 else [])
        return ", ".join(said)

    def make_decoys(self):
        """Decoys (decoys.py) where student code could look for the instructor's project, the
        kit's caches and the other submissions: in the sandbox, as root; else None."""
        if not users.as_root() or sandbox.missing():
            sandbox.use_decoys([])
            return None
        made = decoys.Decoys(tempfile.mkdtemp(prefix="labkit-decoys-"))
        if not decoys.atimes_move(made.folder):
            self.say("no decoys: reads do not move access times on this file system (noatime)")
            made.remove()
            sandbox.use_decoys([])
            return None
        made.add(ROOT, sorted({f for m in self.manifests.values() for f in m["files"]}))
        made.add(self.cache.path)
        others = os.path.dirname(self.folder)
        made.add(others, [os.path.join(n, f) for n in decoys.names(others)
                          if os.path.isdir(os.path.join(others, n)) for f in self.m["files"]])
        made.seal()
        sandbox.use_decoys(made.binds())
        return made

    def check_decoys(self):
        """A flag for every decoy student code read or listed; the decoys removed."""
        if not self.decoys:
            return
        read = self.decoys.read()
        if read:
            self.flag("read a decoy of the instructor's project, the kit's cache or other "
                      "submissions", "; ".join(f"{there}: {len(paths)} read or listed ("
                                               + ", ".join(paths[:3]) + ")"
                                               for there, paths in sorted(read.items())))
        sandbox.use_decoys([])
        self.decoys.remove()

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
            self.busy_before = machine.others_busy(2)
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
