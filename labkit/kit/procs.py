"""Bounded runs of untrusted programs.

Every process the grader starts gets a time limit, a session of its own and a tag in its
environment that its children inherit (mpirun's ranks included). On the limit, and after every
run, whatever carries the tag is killed: a hang in a barrier or an MPI_Recv that is never
matched ends with the check, not with the grading. Where the grader runs as root, student code
runs as the unprivileged user `nobody`.
"""
import os
import re
import resource
import signal
import subprocess
import time
import uuid

# What a terminal's program writes besides text, which no report may hold: colour codes
# (ESC [ ... m, Catch2's), also as CTest's JUnit file writes them (ESC becomes the marker
# [NON-XML-CHAR-0x1B], the rest stays), any other such marker, and control characters.
CONTROL = re.compile(r"(?:\x1b|\[NON-XML-CHAR-0x1B\])\[[0-9;?]*[A-Za-z]"
                     r"|\[NON-XML-CHAR-0x[0-9A-Fa-f]+\]|[\x00-\x08\x0b-\x1f\x7f]")
OUTPUT_LIMIT = 64 << 20  # bytes a run may write to a file (its output included)


def plain(text):
    """text without colour codes, CTest's NON-XML-CHAR markers and control characters (the
    one place the kit cleans what programs write, for every report and the log)."""
    return CONTROL.sub("", text)


def as_root():
    return os.geteuid() == 0


def unprivileged_ids():
    """The uid and gid student code runs as where the grader is root: $LAB_USER's (a grading
    machine may give the kit an account of its own), by default nobody's."""
    import pwd

    user = pwd.getpwnam(os.environ.get("LAB_USER") or "nobody")
    return user.pw_uid, user.pw_gid


class Result:
    def __init__(self, rc, output, seconds, timed_out, cpu_seconds):
        self.rc, self.output, self.seconds = rc, output, seconds
        self.timed_out, self.cpu_seconds = timed_out, cpu_seconds

    @property
    def ok(self):
        return self.rc == 0 and not self.timed_out

    def last_line(self):
        lines = [l for l in self.output.strip().split("\n") if l.strip()]
        return lines[-1].strip() if lines else "(no output)"


def _limits():
    resource.setrlimit(resource.RLIMIT_FSIZE, (OUTPUT_LIMIT, OUTPUT_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def tagged(tag):
    """The pids whose environment holds LABKIT_RUN=tag."""
    needle = f"LABKIT_RUN={tag}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    pids.append(int(entry))
        except OSError:
            pass
    return pids


def kill_tagged(tag, session=None):
    """SIGKILL to the run's session and to every process carrying its tag, until none is left."""
    for _ in range(50):
        pids = tagged(tag)
        if session is not None:
            try:
                os.killpg(session, signal.SIGKILL)
            except OSError:
                pass
        if not pids:
            break
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)


def _uptime_ticks():
    with open("/proc/uptime", encoding="utf-8") as f:
        return float(f.read().split()[0]) * os.sysconf("SC_CLK_TCK")


def kill_strays(uid, since_ticks, folder):
    """SIGKILL to what an untrusted run left behind after clearing its environment and leaving
    its session: the processes of `uid` started since `since_ticks` (jiffies after boot) that
    work in `folder`. Another grading's processes, which run as the same user, work in folders
    of their own."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat(f"/proc/{entry}").st_uid != uid:
                continue
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                started = int(f.read().rsplit(")", 1)[1].split()[19])
            if started >= since_ticks and os.readlink(f"/proc/{entry}/cwd").startswith(folder):
                os.kill(int(entry), signal.SIGKILL)
        except (OSError, ValueError, IndexError):
            pass


def run(cmd, *, timeout, cwd=None, env=None, untrusted=False, log=None):
    """Runs cmd (a list) with its output in a file, for at most `timeout` seconds. untrusted:
    as `nobody` where the grader is root. Returns a Result; the output has no colour codes and
    at most its last 200 kB."""
    tag = uuid.uuid4().hex
    run_env = dict(os.environ if env is None else env)
    run_env.update(LABKIT_RUN=tag, NO_COLOR="1", CLICOLOR="0", GCC_COLORS="", TERM="dumb")
    kwargs = {}
    if untrusted and as_root():
        uid, gid = unprivileged_ids()
        kwargs = dict(user=uid, group=gid, extra_groups=[])
        run_env["HOME"] = cwd or "/tmp"
    out_path = os.path.join(cwd or "/tmp", f".labkit-out-{tag}")
    since = _uptime_ticks()
    start = time.monotonic()
    timed_out = False
    with open(out_path, "w+b") as out:
        if kwargs:
            os.chown(out_path, kwargs["user"], kwargs["group"])
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.Popen(cmd, cwd=cwd, env=run_env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
                                preexec_fn=_limits, **kwargs)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_tagged(tag, proc.pid)
            rc = proc.wait()
        seconds = time.monotonic() - start
        kill_tagged(tag, proc.pid)  # what a finished run left behind
        if kwargs:
            kill_strays(kwargs["user"], since, cwd or "/tmp")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        out.seek(0, os.SEEK_END)
        size = out.tell()
        out.seek(max(0, size - 200_000))
        text = out.read().decode("utf-8", "replace")
    os.remove(out_path)
    text = plain(text)
    if log is not None:
        log.write(f"$ {' '.join(cmd)}\n{text}")
        if not text.endswith("\n"):
            log.write("\n")
        log.write(f"[exit {'TIMEOUT after %d s' % timeout if timed_out else rc}, "
                  f"{seconds:.1f} s]\n\n")
    return Result(rc, text, seconds, timed_out, cpu)
