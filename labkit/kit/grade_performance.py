"""The grading's performance part: the student's parallel runs timed against the reference's
parallel and one-thread (one-rank) runs, every timed run checked, the work's sharing judged
from /proc and the run's own counts."""
import os
import re
import statistics

from . import machine, tree, verdicts


class Performance:
    """The performance part of one grading (a part of grade.Grading)."""

    def timed(self, key, cmd, perf):
        """One timed run: (seconds by the grader's clock, Result, what it computed or None).
        Every timed run writes what it computed (its parameters; lab 4: a checksum of every
        call's result), and a student's must be the reference's."""
        saves = [] if perf.get("checksum") else ["--save", "params.ck"]
        if key != "parallel":
            r, here = self.run_reference_timed(cmd + saves, perf["what"])
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

    def no_sharing(self, perf, observed, busy):
        """Why the student's threads did not share the work as the reference's do (from the CPU
        time the kernel counted for each thread), or None. busy: other processes took a core
        while it timed, so a waiting thread may have spun while its partner was off its core:
        the total CPU time is then not judged."""
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
        if cpu > most * ref_cpu and not busy:
            return (f"{said}: your threads used {cpu:.2f} s of CPU where the reference's use "
                    f"{ref_cpu:.2f} s ({cpu / ref_cpu:.2f}x, at most {most}x): work done "
                    f"twice, or a thread kept busy without work?")
        if cpu > most * ref_cpu:
            said += (f"; your threads used {cpu / ref_cpu:.2f}x the reference's CPU time, not "
                     f"judged on a busy machine")
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
        # (In the sandbox, the reference's runs see the paths a student's do.)
        ref = not self.view["run"]
        commands = {"reference": self.expand(perf["parallel"], reference=ref),
                    "one": self.expand(perf["one"], reference=ref),
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
        state.update(status="measured", verdict="CORRECT", runs=runs, best=best, medians=med,
                     speedup=own, others_busy=others, what=perf["what"], unit=perf["unit"])
        for key in perf.get("evidence", []):
            why = self.calls_not_shared(key, outputs["parallel"], outputs["reference"])
            if why:
                state["note"] = f"no parallelism: {why}, so no performance points"
                return
        busy_while_timing = others > machine.cores() - cores_needed + 0.3
        # Threads that the kernel saw idle did no share, whatever the clock says.
        if perf.get("threads"):
            why = self.no_sharing(perf, observed, busy_while_timing)
            if why:
                state["note"] = f"no parallelism: {why}, so no performance points"
                return
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
            # On a quiet machine waiting will not help: the reference's parallel runs are no
            # faster than its one here (lab 2's layer strategy on a fast Zen 5: 0.78x).
            advice = ("grade again on a quiet machine" if others > 0.5 else
                      "the machine was quiet, so it cannot grade this lab's performance: grade it "
                      "on another machine")
            state["note"] = (f"not measured: no speedup was possible on this machine now (the "
                             f"reference's: {possible:.2f}x, yours {own:.2f}x): {advice}."
                             f"{busy_note}")
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
