"""The grading's runs: a student's program in the sandbox, observed, and the reference's, each
in a folder of its own; their parameters, and what their output says of them."""
import hashlib
import json
import os
import shutil

from . import abuse, procs, sandbox, tree, verdicts

# A run's summary prints each of these lines once; more in a student's run is a forged line.
SUMMARY_KEYS = ("Verification", "Param CRC-32", "Samples computed", "C1 rows computed",
                "Time per epoch")


class Runs:
    """The runs of one grading (a part of grade.Grading)."""

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
        self.runs += 1
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

    def run_reference_timed(self, cmd, what):
        """A timed run of the reference; (Result, its folder). Where student code runs in the
        sandbox, the reference runs in one too, as the same user, its own tree and executables
        at the paths where a student's are: both pay the sandbox's start and limits alike. (A
        run of 0.3 s lost 10-20% of its speed to them, the student's alone.) cmd: as a student's
        run sees it (expand())."""
        if not self.view["run"]:
            return self.run_reference(cmd, observe=True, what=what)
        here, there = self.new_folder(), self.view["run"]
        read = self.ref.binds(writable=False)[0] + [(self.ref_bin, self.view["bin"]),
                                                   (self.data, self.view["data"])]
        r = procs.run(cmd, timeout=self.limits["run_cap_s"], cwd=there,
                      env=sandbox.environment(there), untrusted=True, log=self, read=read,
                      write=[(here, there)], observe=True)
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
