"""The timing pass of `lab.sh class --slurm` as one Slurm job array (docs/instructors.md,
"On a Slurm cluster").

  1. The students whose correctness checks all passed and who have no timing result yet are
     the tasks: OUT/.slurm/timing.list holds a line per task (its index, the student, their
     folder, the result folder, the work folder), OUT/.slurm/timing.sbatch the job script.
  2. `sbatch --array=0-(K-1) --exclusive`: each task, on a node held for it alone, runs
     `lab.py grade N FOLDER --force-timing` through klass.grade_into, as the local pass does:
     the reports land in a work folder that is renamed into OUT/students/ID/timing when the
     grading ends.
  3. This process waits for the array (squeue), then says which tasks failed (sacct where the
     cluster keeps accounting, else the result folders). A signal cancels the job (scancel).

The project, the submissions and OUT must be on a file system that the nodes share.
"""
import argparse
import math
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

from . import klass, manifest
from .classreport import result_of, verdict_of

POLL_S = 5  # seconds between two looks at the queue
TOLD_S = 60  # a progress line at least this often
SLURM_TIMEOUT_S = 60  # for each sbatch, squeue, sacct and scancel
KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def check(text, timing):
    """The sbatch options of --slurm-args as a list; a ClassError where --slurm cannot run."""
    if timing == "off":
        raise klass.ClassError("--slurm times on Slurm nodes: it cannot go with --no-timing")
    missing = [c for c in ("sbatch", "squeue", "scancel") if not shutil.which(c)]
    if missing:
        raise klass.ClassError(f"--slurm: {', '.join(missing)} not found on PATH (run the "
                               f"command where Slurm's client commands are: a login node)")
    try:
        return shlex.split(text or "")
    except ValueError as e:
        raise klass.ClassError(f"--slurm-args: {e}")


def slurm(cmd):
    """(exit status, stdout, stderr) of a Slurm client command, bounded."""
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=SLURM_TIMEOUT_S)
        return p.returncode, p.stdout, p.stderr.strip()
    except subprocess.TimeoutExpired:
        return None, "", f"{cmd[0]} did not answer within {SLURM_TIMEOUT_S} s"
    except OSError as e:
        return None, "", f"{cmd[0]}: {e}"


def queued(job):
    """[(task index, state, reason)] of the job's tasks still in the queue; None when squeue
    fails. A job the controller no longer knows has none left."""
    rc, out, err = slurm(["squeue", "-h", "-r", "-j", job, "-o", "%K %T %r"])
    if rc == 0:
        return [tuple(line.split(None, 2) + ["", ""])[:3] for line in out.splitlines()
                if line.strip()]
    if "Invalid job id" in err:
        return []
    return None


def cancel(job, say):
    rc, _, err = slurm(["scancel", job])
    say(f"timing on Slurm: job {job} cancelled" if rc == 0 else
        f"timing on Slurm: scancel {job} failed: {err or rc}")


def timing_pass(run, students):
    """The timing pass of ClassRun `run` for `students` on Slurm. Returns the count of tasks
    that failed."""
    folder = os.path.join(run.out, ".slurm")
    os.makedirs(folder, exist_ok=True)
    cancel_earlier(run, folder)
    todo = [s for s in students if not run.done(s, "timing")]
    kept = len(students) - len(todo)
    run.say(f"timing on Slurm: {len(todo)} to time" +
            (f" ({kept} of {len(students)} timed by an earlier run: kept)" if kept else ""))
    if not todo:
        return 0
    script = write_job(run, folder, todo)
    # The lab's bound for one grading, and a little for Slurm to start and end the task.
    minutes = math.ceil((run.bound + 120) / 60)
    cmd = ["sbatch", "--parsable", f"--array=0-{len(todo) - 1}", "--exclusive",
           f"--time={minutes}", f"--output={os.path.join(folder, 'timing-%A_%a.out')}"] + \
        run.slurm_args + [f"--job-name={name(run)}", script]  # the name: cancel_earlier's
    rc, out, err = slurm(cmd)
    job = out.strip().split(";")[0]
    if rc != 0 or not job.isdigit():
        raise klass.ClassError(f"sbatch failed (exit {rc}): {err.splitlines()[-1] if err else out}"
                               f" (the command: {shlex.join(cmd)})")
    with open(os.path.join(folder, "job.tmp"), "w", encoding="utf-8") as f:
        f.write(job + "\n")
    os.replace(os.path.join(folder, "job.tmp"), os.path.join(folder, "job"))
    run.cancel = lambda: cancel(job, run.say)
    run.say(f"timing on Slurm: job {job}, {len(todo)} task{'s' * (len(todo) != 1)}, each on a "
            f"node held exclusively ({script})")
    ended = wait(run, job, len(todo))
    run.cancel = None
    return gather(run, job, todo, folder, ended)


def name(run):
    """The job's name."""
    return f"lab{run.lab}-timing"


def cancel_earlier(run, folder):
    """Cancels the job of an earlier run that was stopped before its job ended, and waits until
    it has left the queue: two tasks must never write one student's result."""
    try:
        with open(os.path.join(folder, "job"), encoding="utf-8") as f:
            job = f.read().strip()
    except OSError:
        return
    if not job.isdigit() or not queued(job):
        return
    rc, out, _ = slurm(["squeue", "-h", "-j", job, "-o", "%j"])
    if rc != 0 or set(out.split()) != {name(run)}:
        return  # the number is now another job's
    run.say(f"timing on Slurm: job {job} of an earlier run is still in the queue")
    cancel(job, run.say)
    end = time.monotonic() + 120
    while queued(job) and time.monotonic() < end:
        time.sleep(POLL_S)


def write_job(run, folder, todo):
    """OUT/.slurm/timing.list and timing.sbatch for the students `todo`; the script's path."""
    lines = []
    for i, s in enumerate(todo):
        cells = [str(i), s.key, s.folder, run.result_dir(s, "timing"),
                 run.work_dir(s, "timing")]
        if any(c in cell for cell in cells for c in "\t\n"):
            raise klass.ClassError(f"{s.folder}: a tab or a line break in a path: Slurm's task "
                                   f"list cannot hold it")
        lines.append("\t".join(cells))
    listing = os.path.join(folder, "timing.list")
    script = os.path.join(folder, "timing.sbatch")
    task = ["python3", "-m", "kit.slurm_pass", "task", listing, "--lab", str(run.lab),
            "--reps", str(run.reps), "--lock-wait", str(run.lock_wait), "--bound",
            str(run.bound), "--tag", run.tag]
    text = (f"#!/bin/bash\n"
            f"# Written by `lab.sh class {run.lab} ... --slurm` (labkit/kit/slurm_pass.py), "
            f"submitted as an array\n"
            f"# of {len(todo)} task{'s' * (len(todo) != 1)} with --exclusive. Task i times the "
            f"student of line i+1 of\n# timing.list: `lab.py grade {run.lab} FOLDER "
            f"--force-timing`, its reports renamed into place.\n"
            f"cd {shlex.quote(KIT)} || exit 2\n"
            f"exec {shlex.join(task)} \"$SLURM_ARRAY_TASK_ID\"\n")
    for path, content in ((listing, "\n".join(lines) + "\n"), (script, text)):
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(content)
        os.replace(path + ".tmp", path)
    return script


def wait(run, job, k):
    """Until the job's k tasks have left the queue, or the lab's limits for k gradings one
    after the other have passed (then the job is cancelled). Returns whether it ended."""
    limit = run.bound * k
    t0 = told = time.monotonic()
    last, failures = None, 0
    while True:
        left = queued(job)
        now = time.monotonic()
        if left is None:
            failures += 1
            if failures * POLL_S >= 120:
                raise klass.ClassError(f"squeue has not answered for {failures * POLL_S} s: "
                                       f"job {job} may still run (scancel {job}, or run the "
                                       f"same command again: it cancels it first)")
        else:
            failures = 0
            done = k - len(left)
            if done != last or now - told >= TOLD_S:
                states = {}
                for _, state, reason in left:
                    why = state == "PENDING" and reason not in ("", "None", "(null)")
                    key = state + (f": {reason}" if why else "")
                    states[key] = states.get(key, 0) + 1
                run.say(f"timing on Slurm: {done} of {k} done" +
                        (f" ({', '.join(f'{n} {s}' for s, n in sorted(states.items()))}; "
                         f"{now - t0:.0f} s)" if left else f" ({now - t0:.0f} s)"))
                last, told = done, now
            if not left:
                return True
        if now - t0 > limit:
            run.say(f"timing on Slurm: job {job} has not ended after {limit} s (the lab's "
                    f"limits for {k} gradings one after the other)")
            cancel(job, run.say)
            return False
        time.sleep(POLL_S)


def accounting(job):
    """{task index: (state, exit code)} from sacct, or None where the cluster keeps no
    accounting."""
    if not shutil.which("sacct"):
        return None
    rc, out, _ = slurm(["sacct", "-n", "-P", "-X", "-j", job, "-o", "JobID,State,ExitCode"])
    states = {}
    for line in out.splitlines() if rc == 0 else []:
        cells = line.split("|")
        if len(cells) == 3 and cells[0].startswith(f"{job}_") and cells[0][len(job) + 1:].isdigit():
            states[int(cells[0][len(job) + 1:])] = (cells[1].split()[0], cells[2])
    return states or None


def gather(run, job, todo, folder, ended):
    """A line per task: its verdict, or why it failed and its .out file. Returns the count of
    failed tasks."""
    states = accounting(job)
    run.say(f"timing on Slurm: job {job}'s tasks read from " +
            ("sacct" if states else "the result folders (no accounting from sacct)"))
    failed = 0
    for i, s in enumerate(todo):
        r = result_of(run.out, s, "timing", run.lab)
        x = (r or {}).get("extra_data", {})
        mine = (x.get("class") or {}).get("slurm", {}).get("job") == job
        state, code = (states or {}).get(i, ("", ""))
        why = ""
        if not mine:
            why = f"no result ({state} {code})" if state else "no result"
            if not ended and not state:
                why += ", cancelled when the time ran out"
        elif x.get("grader_error"):
            why = f"the grader failed: {x['grader_error']}"
        elif state and state != "COMPLETED":
            why = f"{state} {code}"
        if why:
            failed += 1
            out = os.path.join(folder, f"timing-{job}_{i}.out")
            run.say(f"timing on Slurm: task {i} ({s.key}) failed: {why}; see {out}")
        else:
            c = x["class"]
            run.say(f"timing {i + 1}/{len(todo)}: {s.key}: {verdict_of(r)} {r.get('score', 0):g} "
                    f"({c.get('seconds', 0):.0f} s on {c['slurm'].get('node', '?')})")
    return failed


def task(argv):
    """One task of the array, on its node: the grading of the student on line INDEX + 1."""
    p = argparse.ArgumentParser(prog="slurm_pass.py task")
    p.add_argument("listing")
    p.add_argument("index", type=int)
    p.add_argument("--lab", type=int, required=True)
    p.add_argument("--reps", type=int, required=True)
    p.add_argument("--lock-wait", type=int, required=True)
    p.add_argument("--bound", type=int, required=True)
    p.add_argument("--tag", required=True)
    a = p.parse_args(argv)
    with open(a.listing, encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    row = [r for r in rows if r[0] == str(a.index)]
    if len(row) != 1 or len(row[0]) != 5:
        print(f"slurm_pass.py task: no line {a.index} in {a.listing}", file=sys.stderr)
        return 2
    _, key, folder, result, work = row[0]
    node = os.environ.get("SLURMD_NODENAME") or socket.gethostname()
    job = os.environ.get("SLURM_ARRAY_JOB_ID", "")
    print(f"task {a.index}: timing {key} ({folder}) on {node}, job {job}", flush=True)
    tag = f"{a.tag}.{a.index}"

    def stop(signum, frame):  # scancel, or the time limit: the grading ends with the task
        print(f"task {a.index}: stopped by signal {signum}: no result for {key}", flush=True)
        klass.kill_tagged(tag)
        sys.exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, stop)
    options = ["--reps", str(a.reps), "--lock-wait", str(a.lock_wait), "--force-timing"]
    r = klass.grade_into(a.lab, manifest.load(a.lab), folder, work, result, options,
                         bound=a.bound, tag=tag,
                         note={"pass": "timing", "quiet_wait": None,
                               "slurm": {"job": job, "task": a.index, "node": node}})
    x = r.get("extra_data", {})
    print(f"task {a.index}: {key}: {verdict_of(r)} {r.get('score', 0):g} in "
          f"{x['class']['seconds']:.0f} s; {result}", flush=True)
    return 1 if x.get("grader_error") else 0


if __name__ == "__main__":
    if sys.argv[1:2] != ["task"]:
        sys.exit("usage: python3 -m kit.slurm_pass task LIST INDEX --lab N ... (written by "
                 "lab.sh class --slurm into OUT/.slurm/timing.sbatch)")
    sys.exit(task(sys.argv[2:]))
