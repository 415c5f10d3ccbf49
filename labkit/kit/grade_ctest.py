"""The ctest check: the project's tests with a CTest label, each run with Catch2's XML reporter,
their reports judged against the reference's."""
import hashlib
import json
import os
import re
import shutil

from . import procs, sandbox, stream, verdicts


class CTest:
    """The ctest checks of one grading (a part of grade.Grading)."""

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
            # The tests' files are the instructor's: only the submission's code changes what its
            # test programs list (one that ends as it starts lists none).
            want = len(want_names) if want_names else spec["count"]
            self.flag("its tests were not listed", f"'{spec['label']}': its test programs "
                      f"listed {len(names)} tests where the reference's list {want}")
            return check.failed(f"the build lists {len(names)} tests labelled "
                                f"'{spec['label']}' ({', '.join(names) or 'none'}) where the "
                                f"reference lists {want}: does a test program end or crash "
                                f"before Catch2 lists its tests?", "RUN-ERROR")
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
