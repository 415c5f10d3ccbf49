"""Grading one submission of one lab (docs/labs.md, "How a submission is graded").

  1. read the submission: only the bodies of the lab's regions count; a copy started for
     another lab, or without the lab's files, is refused;
  2. build, in the cache: the reference (starter(N) + the solution), once per change of the
     instructor's tree, then graded(N, the student's regions); never the student's tests,
     CMake files or scripts;
  3. the checks of the manifest, each bounded in time; one that hangs stops the rest of its
     group (a lab's mode) or, without a group, all the rest;
  4. performance, where every check passed: the student's parallel code against the same code
     on one thread (or the ref kernels), and against the reference's;
  5. the results: one dict in Gradescope's results.json format (report.py renders the rest).
"""
import csv
import fcntl
import json
import os
import re
import shutil
import statistics
import tempfile
import time
from xml.etree import ElementTree

from . import build, machine, procs, regions, submission, tree
from .manifest import KIT, checks_for

ROOT = os.path.dirname(KIT)  # the tree this kit belongs to: the instructor's, or a starter
# Performance points need at least this fraction of the calls that the reference shares among
# all its threads to be shared by all of yours too. Not all: with schedule(dynamic), or a thread
# that wakes late, one thread may now and then take a whole call, and the clock scores that
# loss; a serial call that turns among the threads (`single`) shares none.
MIN_SHARED_CALLS = 0.9


def last_csv_row(path):
    """The last row of a CSV file the executables wrote (--csv) as a dict by column name (their
    header is the contract; the quoted device column may hold commas and doubled quotes), or
    None without one."""
    if not os.path.isfile(path):
        return None
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return rows[-1] if rows else None


def mode_for(manifest):
    if manifest.get("needs") != "cuda":
        return "cpu"
    return "gpu" if build.has_gpu() else "emulated"


class Check:
    def __init__(self, spec):
        self.spec, self.name, self.max = spec, spec["name"], spec["points"]
        self.status, self.score, self.output = "not run", 0.0, ""

    def passed(self, output):
        self.status, self.score, self.output = "passed", float(self.max), output

    def failed(self, output):
        self.status, self.score, self.output = "failed", 0.0, output

    def not_run(self, output):
        self.status, self.score, self.output = "not run", 0.0, output


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
        self.ignored, self.refused, self.hung = [], None, {}
        self.performance = {"status": "not measured", "note": "", "score": 0.0}
        self.log_lines = []
        self.start = time.time()
        self.busy_before = 0.0
        self.limits = self.m["limits"]

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

    def build_reference(self):
        """The reference executables of this lab, in a folder only the grader can read; rebuilt
        when the instructor's tree changed. In a starter (a self-check), there is none: the
        student's own build stands in."""
        self.ref_bin = os.path.join(self.cache.path, f"reference-lab{self.lab}-{self.mode}")
        if self.self_check:
            return True
        overrides = tree.reference(ROOT, self.manifests, self.lab)
        stamp = tree.stamp(ROOT, overrides)
        try:
            if tree.read(os.path.join(self.ref_bin, "stamp")).strip() == stamp:
                return True
        except OSError:
            pass
        self.say(f"building the reference of lab {self.lab} (once per change of the project) ...")
        self.cache.lay(ROOT, overrides)
        r = self.cache.compile(self.m, self.mode, self.targets(), self, self.limits["build_s"])
        if not r.ok:
            raise RuntimeError(f"the reference of lab {self.lab} does not build: "
                               f"{r.last_line()} (log: grade-{self.lab}.log)")
        self.cache.copy_executables(self.ref_bin, private=True)
        with open(os.path.join(self.ref_bin, "stamp"), "w") as f:
            f.write(stamp + "\n")
        return True

    def build_submission(self, check):
        self.say("building the submission ...")
        overrides = tree.variant(ROOT, self.manifests, self.lab, self.work)
        self.cache.lay(ROOT, overrides)
        r = self.cache.compile(self.m, self.mode, self.targets(), self, self.limits["build_s"])
        self.bin = os.path.join(self.work_dir, "bin")
        if r.timed_out:
            check.failed(f"the build did not end within {self.limits['build_s']} s")
            return False
        if not r.ok:
            errors = [l for l in build.student_paths(r.output, self.cache.src, self.where,
                                                     self.lab).split("\n")
                      if re.search(r"error|Error", l)]
            first = errors[0].strip() if errors else r.last_line()
            check.failed(f"the build failed: {first[:300]} (grade-{self.lab}.log has every "
                         f"message)")
            return False
        self.cache.copy_executables(self.bin, private=False)
        if self.self_check:
            self.ref_bin = self.bin
        check.passed("Release build of " + ", ".join(self.targets()) +
                     ("; the kernels run EMULATED on the CPU: no GPU here"
                      if self.mode == "emulated" else ""))
        return True

    # ---- 3. the checks ------------------------------------------------------------------
    def expand(self, cmd, **extra):
        values = dict(bin=getattr(self, "bin", ""), ref=self.ref_bin,
                      vectors=os.path.join(self.cache.src, "tests", "vectors", "data"),
                      digits=self.digits,
                      # MPI ranks start as the build's MPI wants: bash {mpi_launch} {build} -n P
                      mpi_launch=os.path.join(ROOT, "run_scripts", "mpi_launch.sh"),
                      build=self.cache.build)
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

    def run(self, cmd, *, untrusted, timeout):
        return procs.run(cmd, timeout=timeout, cwd=self.work_dir, untrusted=untrusted,
                         env=self.env, log=self)

    def run_csv(self, cmd, *, untrusted, timeout):
        """A run with --csv: (Result, the CSV row as a dict by column name, or None)."""
        self.csv_count = getattr(self, "csv_count", 0) + 1
        path = os.path.join(self.work_dir, f"run-{self.csv_count}.csv")
        r = self.run(cmd + ["--csv", path], untrusted=untrusted, timeout=timeout)
        return r, last_csv_row(path) if r.ok else None

    def reference_run(self, check, cmd, *, csv=False):
        """The reference's run of a check, trusted: (Result, its CSV row or None). The kit is
        broken, not the submission, if it fails."""
        if csv:
            r, row = self.run_csv(cmd, untrusted=False, timeout=self.limits["run_cap_s"])
        else:
            r, row = self.run(cmd, untrusted=False, timeout=self.limits["run_cap_s"]), None
        if not r.ok or (csv and row is None):
            raise RuntimeError(f"the reference run of '{check.name}' failed: {r.last_line()}")
        return r, row

    def hung_in(self, check):
        """A check that did not end: the rest of its group (or of all checks) will not run."""
        self.hung[check.spec.get("group", "all")] = check.name

    def timed_out(self, check, r):
        self.hung_in(check)
        check.failed(f"the run did not end within {r.seconds:.0f} s (its limit): a hang or a "
                     "deadlock? It was killed with all its processes")

    def check_same_bits(self, check):
        spec = check.spec
        ref, want = self.reference_run(check, self.expand(spec["want"]), csv=True)
        r, got = self.run_csv(self.expand(spec["got"]), untrusted=True,
                              timeout=self.limit(ref.seconds))
        if r.timed_out:
            return self.timed_out(check, r)
        if got is None:
            return check.failed(f"expected a run that ends with exit 0, got exit {r.rc}: "
                                f"{r.last_line()[:200]}")
        if got["param_crc32"] == want["param_crc32"]:
            return check.passed(f"Param CRC-32 {got['param_crc32']}, as lenet-serial's")
        check.failed(f"expected Param CRC-32 {want['param_crc32']} (lenet-serial's), got "
                     f"{got['param_crc32']}: not bit-identical")

    def check_verify(self, check):
        spec = check.spec
        saved = os.path.join(self.work_dir, "want.ck")
        ref, _ = self.reference_run(check, self.expand(spec["want"]) + ["--save", saved])
        os.chmod(saved, 0o644)
        r, got = self.run_csv(self.expand(spec["got"]) + ["--verify", saved], untrusted=True,
                              timeout=self.limit(ref.seconds))
        if r.timed_out:
            return self.timed_out(check, r)
        line = next((l.strip() for l in r.output.split("\n") if "Verification" in l), "")
        if got is not None and got["verification"] == "SUCCESSFUL":
            return check.passed(line or "Verification = SUCCESSFUL")
        check.failed(f"expected Verification = SUCCESSFUL against {spec['against']}, got "
                     f"{line or 'exit %d: %s' % (r.rc, r.last_line()[:200])}")

    @staticmethod
    def shared(output, key):
        """(total, parts, fewest, most, shared calls, calls, part) from the summary's 'KEY = N on
        P parts (A to B a part); calls shared by every part: S of C' line (part: thread or rank;
        S and C None where the line has no calls), or None without one."""
        m = re.search(re.escape(key) + r"\s*=\s*(\d+) on (\d+) (thread|rank)s? \((\d+) to (\d+) "
                      r"a \3\)(?:; calls shared by every \3: (\d+) of (\d+))?", output)
        if not m:
            return None
        total, parts, part, fewest, most, shared, calls = m.groups()
        return tuple(None if x is None else int(x)
                     for x in (total, parts, fewest, most, shared, calls)) + (part,)

    def check_slices(self, check):
        spec = check.spec
        ref, _ = self.reference_run(check, self.expand(spec["run"], bin=self.ref_bin))
        r, row = self.run_csv(self.expand(spec["run"]), untrusted=True,
                              timeout=self.limit(ref.seconds))
        if r.timed_out:
            return self.timed_out(check, r)
        samples = self.shared(r.output, "Samples computed")
        if row is None or samples is None:
            return check.failed(f"expected a run that ends with its summary, got exit {r.rc}: "
                                f"{r.last_line()[:200]}")
        total, ranks, low, high = samples[:4]
        trained = int(row["train_images"]) * int(row["epochs"])
        if total == trained and low > 0:
            return check.passed(f"{trained} samples trained, each computed once: {low} to "
                                f"{high} on each of the {ranks} ranks")
        check.failed(f"expected each of the {trained} samples trained to be computed on one "
                     f"rank ({trained} in all, some on every rank), got {total} computed, {low} "
                     f"to {high} a rank" +
                     (": every rank computed the whole batch?" if total >= ranks * trained else
                      ""))

    def check_ctest(self, check):
        """A group of the project's CTest tests (by name), each at most ctest_test_s seconds;
        their results read from ctest's JUnit file, not from its printed text."""
        spec = check.spec
        per_test = self.limits["ctest_test_s"]
        listed = procs.run(["ctest", "-N", "-R", spec["tests"]], timeout=60, cwd=self.cache.build,
                           untrusted=True, env=self.env)
        count = len(re.findall(r"Test +#\d+:", listed.output))
        if count == 0:
            raise RuntimeError(f"'{check.name}': no test of the build matches "
                               f"'{spec['tests']}'")
        self.junit_count = getattr(self, "junit_count", 0) + 1
        junit = os.path.join(self.work_dir, f"ctest-{self.junit_count}.xml")
        cmd = ["ctest", "-R", spec["tests"], "--timeout", str(per_test), "--output-junit", junit]
        r = procs.run(cmd, timeout=count * per_test + 60, cwd=self.cache.build, untrusted=True,
                      env=self.env, log=self)
        results = []  # (name, "passed" | "failed" | "timeout" | "skipped", message, output)
        try:
            for case in ElementTree.parse(junit).getroot().iter("testcase"):
                failure, skipped = case.find("failure"), case.find("skipped")
                out = procs.plain(case.findtext("system-out") or "")
                if case.get("status") == "run" and failure is None:
                    results.append((case.get("name"), "passed", "", out))
                elif case.get("status") == "notrun" or skipped is not None:
                    results.append((case.get("name"), "skipped", "", out))
                else:
                    message = procs.plain(failure.get("message", "")) if failure is not None \
                        else ""
                    kind = "timeout" if "Timeout" in message else "failed"
                    results.append((case.get("name"), kind, message, out))
        except (OSError, ElementTree.ParseError):
            pass
        if r.timed_out or any(kind == "timeout" for _, kind, _, _ in results):
            self.hung_in(check)
            slow = [n for n, kind, _, _ in results if kind == "timeout"] or ["ctest"]
            return check.failed(f"a test did not end within {per_test} s and was killed with "
                                f"all its processes: a hang or a deadlock? ({', '.join(slow)})")
        if len(results) < count:
            return check.failed(f"expected {count} tests to run, ctest reported "
                                f"{len(results)}: {r.last_line()[:200]}")
        for name, kind, _, out in results:
            if kind != "passed":  # the log has what the student needs to see
                self.write(f"--- {name}: {kind}\n{out}\n")
        failed = [x for x in results if x[1] == "failed"]
        skipped = [x for x in results if x[1] == "skipped"]
        if failed:
            return check.failed("; ".join(f"{name}: {self.failure(out)}"
                                          for name, _, _, out in failed))
        if skipped:
            return check.not_run(f"could not run here: {self.skip_reason(skipped[0][3])}")
        check.passed(f"{count} test{'s' if count > 1 else ''} passed: " +
                     ", ".join(name for name, *_ in results))

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
                c.not_run("the build failed")
            return
        for c in self.checks[1:]:
            # A check that hangs stops the checks of its group (a lab's mode), or all of them.
            group = c.spec.get("group", "all")
            stopped = self.hung.get(group) or self.hung.get("all") or \
                (group == "all" and next(iter(self.hung.values()), None))
            if stopped:
                c.not_run(f"'{stopped}' hung and was stopped")
                continue
            if time.time() - self.start > self.limits["grading_s"]:
                c.not_run(f"the grading's {self.limits['grading_s']} s were spent")
                continue
            self.say(f"check: {c.name} ...")
            getattr(self, "check_" + c.spec["kind"])(c)
            self.say(f"  {c.status}: {c.output[:160]}")

    # ---- 4. performance ------------------------------------------------------------------
    def metric(self, row):
        what = self.m["performance"]["metric"]
        if what == "seconds_per_epoch":
            return float(row["seconds_per_epoch"])
        if what == "c1_seconds":
            return float(row["c1_forward"]) + float(row["c1_backward"])
        raise ValueError(what)

    def measure(self, cmd, *, untrusted, timeout):
        """One timed value of the manifest's metric, or None if the run failed."""
        perf = self.m["performance"]
        if perf["metric"] == "bench":  # Google Benchmark's JSON: the fastest repetition
            r = self.run(cmd, untrusted=untrusted, timeout=timeout)
            if not r.ok:
                return None, r
            try:
                data = json.JSONDecoder().raw_decode(r.output[r.output.index("{"):])[0]
            except ValueError:
                return None, r
            times = [b["real_time"] for b in data.get("benchmarks", [])
                     if b.get("run_type") == "iteration"]
            return (min(times) if times else None), r
        r, row = self.run_csv(cmd, untrusted=untrusted, timeout=timeout)
        return (self.metric(row) if row else None), r

    def no_sharing(self, key, output, reference_output):
        """Why the summary's KEY line shows no sharing among the threads (ranks), or None when
        every one had a part of the same total as the reference's, and a share of (nearly) every
        call that the reference shares (of every call, without a reference)."""
        got = self.shared(output, key)
        if got is None:
            return f"the run's summary has no '{key}' line"
        total, parts, fewest, most, shared, calls, part = got
        want = self.shared(reference_output or "", key)
        if total == 0:
            return (f"{key} = 0: the work did not go through the helpers the handout names, so "
                    f"nothing shows how the {part}s shared it")
        if want and total != want[0]:
            return (f"{key} = {total} where the reference computes {want[0]}: some of the work "
                    f"was done twice, or not through the handout's helpers")
        if fewest == 0:
            return (f"one of the {parts} {part}s computed nothing ({key} = {total} on "
                    f"{parts} {part}s, {fewest} to {most} a {part})")
        # Per call: a serial call that another thread runs each time sums like a shared one.
        possible = want[4] if want else calls
        if possible is not None and (shared or 0) < MIN_SHARED_CALLS * possible:
            return (f"{key}: only {shared or 0} of {calls or 0} calls were shared by every "
                    f"{part}" + (f" (the reference: {want[4]} of {want[5]})" if want else "") +
                    f": in the rest one {part} did the whole call alone, whichever {part} it "
                    f"was" + (" (`single`, `critical` or `masked` around the work, or a region "
                              "skipped?)" if part == "thread" else ""))
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
        runs = {"parallel": [], "one": [], "reference": []}
        commands = {"parallel": self.expand(perf["parallel"]),
                    "one": self.expand(perf["one"]),
                    "reference": self.expand(perf["parallel"], bin=self.ref_bin)}
        if self.self_check:
            del runs["reference"]
        env_before = dict(self.env)
        self.env.update(OMP_PLACES="cores", OMP_PROC_BIND="close")
        before, own_cpu, outputs = machine.ticks(), 0.0, {}
        try:
            for _ in range(self.reps):
                for key in runs:  # interleaved: each round runs every command once
                    trusted = key == "reference"
                    value, r = self.measure(commands[key], untrusted=not trusted,
                                            timeout=self.limits["run_cap_s"])
                    own_cpu += r.cpu_seconds
                    if value is None:
                        whose = "the reference's" if trusted else "yours"
                        state["note"] = (f"not measured: a timed run failed ({whose}: "
                                         f"{r.last_line()[:160]})")
                        return
                    runs[key].append(value)
                    outputs[key] = r.output
        finally:
            self.env = env_before
        others = machine.busy_cores(before, machine.ticks(), own_cpu)
        # The fastest round of each: other processes only ever slow a run down.
        best = {k: min(v) for k, v in runs.items()}
        med = {k: statistics.median(v) for k, v in runs.items()}
        own = best["one"] / best["parallel"]
        state.update(status="measured", runs=runs, best=best, medians=med, speedup=own,
                     others_busy=others, what=perf["what"], unit=perf["unit"])
        # Where the program says how its threads (ranks) shared the work, one that did none,
        # or calls done whole by one, are no parallelism, whatever the clock says.
        for key in perf.get("evidence", []):
            why = self.no_sharing(key, outputs["parallel"], outputs.get("reference"))
            if why:
                state["note"] = f"no parallelism: {why}, so no performance points"
                return
        busy_while_timing = others > machine.cores() - cores_needed + 0.3
        busy_note = ""
        if busy_while_timing:
            busy_note = (f" Other processes used {others:.2f} of {machine.cores()} cores while "
                         f"it timed: the numbers are less reliable.")
        if self.self_check:
            state["note"] = (f"your speedup {own:.2f}x ({perf['speedup_of']}); a self-check: "
                             f"the course grades performance with the reference.{busy_note}")
            return
        fraction = best["reference"] / best["parallel"]
        # The reference's speedup over the same one-thread run: whether one was possible here.
        possible = best["one"] / best["reference"]
        state.update(fraction=fraction, reference_speedup=possible)
        # The floor tells serial code from parallel by the clock; 0 where the threads' counts
        # tell it instead (lab 2: the layer strategy's C1 gains less than the clock's noise).
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
        f = min(1.0, max(0.0, (fraction - 0.5) / 0.4))
        state["score"] = round(P * f, 1)
        state["note"] = (f"your speedup {own:.2f}x ({perf['speedup_of']}); your speed is "
                         f"{fraction:.2f} of the reference's (full points from 0.9, none at "
                         f"0.5 or below).{busy_note}")

    # ---- the whole grading -----------------------------------------------------------------
    def grade(self):
        self.work_dir = tempfile.mkdtemp(prefix=f"labkit-lab{self.lab}-")
        os.chmod(self.work_dir, 0o755)
        if self.cache.owner:
            os.chown(self.work_dir, *self.cache.owner)
        self.env = dict(os.environ)
        self.env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                        OMPI_MCA_rmaps_base_oversubscribe="1")
        self.digits = os.path.join(self.cache.path, "data", "digits")
        try:
            try:
                self.read_submission()
            except submission.Refused as e:
                self.refused = str(e)
                return self
            self.busy_before = machine.others_busy(2)
            self.say(f"lab {self.lab}: other processes keep {self.busy_before:.2f} of "
                     f"{machine.cores()} cores busy (load average {machine.load_average():.2f})")
            self.lock()
            try:
                tree.copy_data(ROOT, self.digits)
                self.build_reference()
                self.run_checks()
                self.measure_performance()
            finally:
                self.unlock()
        finally:
            shutil.rmtree(self.work_dir, ignore_errors=True)
        return self
