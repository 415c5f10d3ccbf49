"""The manifest's checks, each kind by one method: the parameters against the reference's
(same_bits, verify, trains_like), the work each rank did (work), the project's tests (ctest:
grade_ctest.py); run_checks runs them in order, the build first."""
import os
import time

from . import verdicts
from .grade_ctest import CTest


class Checks:
    """The checks of one grading (a part of grade.Grading)."""

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
            KINDS[c.spec["kind"]](self, c)
            self.say(f"  {c.status}: {c.output[:160]}")


# The method that runs each kind of check a manifest may name (manifest.py accepts these and
# "build", which run_checks runs first: every other check needs it).
KINDS = {"same_bits": Checks.check_same_bits, "verify": Checks.check_verify,
         "trains_like": Checks.check_trains_like, "work": Checks.check_work,
         "ctest": CTest.check_ctest}
