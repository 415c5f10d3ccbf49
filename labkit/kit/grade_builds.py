"""The grading's builds: the lab's starter, the reference and the submission (build.py compiles
them, in the sandbox where student code is)."""
import os
import re
import shutil

from . import abuse, build, tree
from .manifest import ROOT


class Builds:
    """The builds of one grading (a part of grade.Grading)."""

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
        for what, evidence in abuse.reaches(self.work):  # a probe that broke the build too
            self.flag(what, evidence)
        if not r.ok:
            errors = [l for l in build.student_paths(r.output, graded.src_in, self.where,
                                                     self.lab).split("\n")
                      if re.search(r"error|Error", l)]
            first = errors[0].strip() if errors else r.last_line()
            check.failed(f"the build failed: {first[:300]} (grade-{self.lab}.log has every "
                         f"message)", "COMPILE-ERROR")
            return False
        objs = abuse.objects(graded.build, self.m["files"])
        for what, evidence in (abuse.definitions(objs, graded.build) +
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
