"""Bounded, observed runs of programs.

Every process the grader starts gets a time limit and a session of its own; student code runs
in the sandbox (sandbox.py), whose PID namespace ends with it, and, where there is none, under
a tag in its environment that its children inherit (mpirun's ranks included), by which whatever
is left is killed. Its output comes through the grader's own pipe, of which the first and the
last part are kept and the rest counted: no limit on what a program may print can cost it a
check. While it runs, an Observer reads from /proc what each of its processes and threads did:
the CPU time of every thread, the programs they ran: the grader's evidence, which nothing in the
program can write.
"""
import collections
import os
import re
import resource
import signal
import socket
import struct
import subprocess
import threading
import time
import uuid

from . import contain, sandbox
from .users import as_root, unprivileged_ids

# What a terminal's program writes besides text, which no report may hold: colour codes
# (ESC [ ... m, Catch2's), also as CTest's JUnit file writes them (ESC becomes the marker
# [NON-XML-CHAR-0x1B], the rest stays), any other such marker, and control characters.
CONTROL = re.compile(r"(?:\x1b|\[NON-XML-CHAR-0x1B\])\[[0-9;?]*[A-Za-z]"
                     r"|\[NON-XML-CHAR-0x[0-9A-Fa-f]+\]|[\x00-\x08\x0b-\x1f\x7f]")
HEAD, TAIL = 64 << 10, 256 << 10  # bytes of a run's output kept: its first and its last
TICK = os.sysconf("SC_CLK_TCK")


def plain(text):
    """text without colour codes, CTest's NON-XML-CHAR markers and control characters (the
    one place the kit cleans what programs write, for every report and the log)."""
    return CONTROL.sub("", text)


class Result:
    def __init__(self, rc, output, seconds, timed_out, cut=0, observed=None):
        self.rc, self.output, self.seconds = rc, output, seconds
        self.timed_out, self.cut, self.observed = timed_out, cut, observed

    @property
    def ok(self):
        return self.rc == 0 and not self.timed_out

    def last_line(self):
        lines = [l for l in self.output.strip().split("\n") if l.strip()]
        return lines[-1].strip() if lines else "(no output)"

    def cut_note(self):
        """'' or the line a report gives a run whose output was cut."""
        if not self.cut:
            return ""
        return (f"output cut after {HEAD >> 10} KB: {self.cut / 1e6:.1f} MB in the middle were "
                f"not kept (the grade does not depend on what a program prints)")


def _limits():
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class Capped(threading.Thread):
    """Reads a pipe to its end, keeping the first HEAD and the last TAIL bytes and counting the
    rest: a program may print anything, any amount, and the grader neither stops nor fills up."""

    def __init__(self, pipe):
        super().__init__(daemon=True)
        self.pipe, self.head, self.tail, self.total = pipe, bytearray(), collections.deque(), 0
        self.tail_bytes = 0

    def run(self):
        while True:
            chunk = self.pipe.read1(1 << 16) if hasattr(self.pipe, "read1") else \
                self.pipe.read(1 << 16)
            if not chunk:
                break
            self.total += len(chunk)
            room = HEAD - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            if chunk:
                self.tail.append(chunk)
                self.tail_bytes += len(chunk)
                while self.tail_bytes - len(self.tail[0]) >= TAIL:
                    self.tail_bytes -= len(self.tail.popleft())

    def text(self):
        """(the output kept, as text, and the number of bytes cut from its middle)."""
        tail = b"".join(self.tail)[-TAIL:]
        cut = self.total - len(self.head) - len(tail)
        middle = f"\n[... {cut} bytes not kept ...]\n".encode() if cut else b""
        return (bytes(self.head) + middle + tail).decode("utf-8", "replace"), cut


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


# The kernel's process events connector (linux/cn_proc.h): a netlink socket on which root hears
# of every fork and exec on the machine as it happens.
NETLINK_CONNECTOR, CN_IDX_PROC, CN_VAL_PROC = 11, 1, 1
PROC_EVENT_FORK, PROC_EVENT_EXEC, PROC_CN_MCAST_LISTEN = 1, 2, 1
NLMSG_HDR, CN_MSG_HDR, EVENT_HDR = 16, 20, 16  # bytes: nlmsghdr, cn_msg, proc_event's head


UNREAD = "a program that ended before the grader could read its name"
_events = {}  # "usable": whether the events name the grader's own pids (checked once)


class Execs(threading.Thread):
    """Every process forked below the grader and every program it execs, from the kernel's
    process events (root only): an exec is seen however short the program it runs, where the
    Observer's samples could fall on either side of it (where the program has not already
    ended when the event is read). `lost`: the socket overflowed and dropped events."""

    def __init__(self):
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_CONNECTOR)
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, 33, 8 << 20)  # SO_RCVBUFFORCE: 8 MB
            self.sock.bind((0, CN_IDX_PROC))
            op = struct.pack("I", PROC_CN_MCAST_LISTEN)
            msg = struct.pack("IIIIHH", CN_IDX_PROC, CN_VAL_PROC, 0, 0, len(op), 0) + op
            self.sock.send(struct.pack("IHHII", NLMSG_HDR + len(msg), 3, 0, 0, 0) + msg)
        except OSError:
            self.sock.close()
            raise
        self.sock.settimeout(0.05)
        self.parent, self.runs, self.lost = {}, {}, False
        # For each process: when its last exec happened (the kernel's stamp), and when the grader
        # finished reading its program last: an exec stamped after that read came from the
        # program read, even where the next one ended before it could be read.
        self.last_exec, self.read_at = {}, {}
        self.below = {os.getpid()}
        self.done = threading.Event()

    @staticmethod
    def start_if_possible():
        """A running Execs, or None where the connector is refused (not root, a container) or
        names processes by other pids than the grader's (a PID namespace of its own)."""
        if not as_root():
            return None
        try:
            execs = Execs()
        except OSError:
            return None
        if "usable" not in _events:
            _events["usable"] = execs._names_our_pids()
        if not _events["usable"]:
            execs.sock.close()
            return None
        execs.start()
        return execs

    def _names_our_pids(self):
        """Whether the fork of a child the grader starts comes with the child's pid."""
        child = subprocess.Popen(["true"])
        child.wait()
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                data = self.sock.recv(1 << 16)
            except (socket.timeout, OSError):
                continue
            at = NLMSG_HDR + CN_MSG_HDR
            if len(data) >= at + EVENT_HDR + 16 and \
                    struct.unpack_from("I", data, at)[0] == PROC_EVENT_FORK and \
                    struct.unpack_from("iiii", data, at + EVENT_HDR)[3] == child.pid:
                return True
        return False

    def run(self):
        while not self.done.is_set():
            try:
                data = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:  # ENOBUFS: events were dropped
                self.lost = True
                continue
            at = 0
            while at + NLMSG_HDR + CN_MSG_HDR + EVENT_HDR <= len(data):
                size = struct.unpack_from("I", data, at)[0]
                self._event(data, at + NLMSG_HDR + CN_MSG_HDR)
                at += max(size, 1)

    def _event(self, data, at):
        what, _, stamp = struct.unpack_from("IIQ", data, at)  # stamp: CLOCK_MONOTONIC, in ns
        at += EVENT_HDR
        if what == PROC_EVENT_FORK:
            _, parent, pid, tgid = struct.unpack_from("iiii", data, at)
            if pid == tgid and parent in self.below:  # a process (not a thread) below the grader
                if pid in self.parent:  # a pid used again: the earlier process's record stays
                    key = (pid, len(self.parent))
                    for table in (self.parent, self.runs, self.last_exec, self.read_at):
                        if pid in table:
                            table[key] = table.pop(pid)
                self.below.add(pid)
                self.parent[pid] = parent
        elif what == PROC_EVENT_EXEC:
            pid = struct.unpack_from("ii", data, at)[1]
            if pid in self.below and pid != os.getpid():
                self.last_exec[pid] = stamp
                # Read as soon as told; a process that has ended, or is in its next exec, reads
                # empty: nothing is guessed from that.
                try:
                    exe = os.readlink(f"/proc/{pid}/exe")
                except OSError:
                    return
                args = _read(f"/proc/{pid}/cmdline")
                if args:
                    self.runs.setdefault(pid, []).append((exe, args))
                    self.read_at[pid] = time.monotonic_ns()

    def stop(self):
        self.done.set()
        self.join(timeout=5)
        self.sock.close()


class Observer(threading.Thread):
    """Samples, every `interval` seconds, the processes started below `pid` (through the
    kernel's children lists): for each, the programs it ran (its executable, at each exec), its
    CPU time (that of threads that ended included) and each live thread's. The kernel keeps
    these; the observed program cannot write them."""

    def __init__(self, pid, execs=None, interval=0.02):
        super().__init__(daemon=True)
        self.root, self.execs, self.interval, self.procs = pid, execs, interval, {}
        self.exec_procs = {}  # the same records from the kernel's process events (Execs)
        self.affinity = {}  # {thread id: the CPUs it was allowed to run on, when last seen}
        self.most = 0  # the most processes seen at once
        self.done = threading.Event()

    def run(self):
        start = time.monotonic()
        while True:
            self.sample()
            # Every 2 ms for the first 0.3 s where the kernel's events do not tell every exec:
            # a short run (an exec from a static initialiser that trains 128 images) must still
            # be seen as what it became. (Where they do, the samples' CPU time is the run's: a
            # 2 ms sampler took a share of a 2-core machine from a timed run's threads.)
            fast = self.execs is None and time.monotonic() - start < 0.3
            if self.done.wait(0.002 if fast else self.interval):
                break

    def stop(self):
        self.done.set()
        self.join(timeout=5)
        if self.execs:
            self.execs.stop()
            self._every_exec()

    def _every_exec(self):
        """The programs of each process below the root as the kernel's events told them: a
        second record beside the samples', which started_by and runs_of read too."""
        for pid, runs in self.execs.runs.items():
            up = pid
            while up != self.root and up in self.execs.parent:
                up = self.execs.parent[up]
            if up != self.root:
                continue
            rec = self.exec_procs.setdefault(pid, {"exes": [], "runs": [],
                                                   "parent": self.execs.parent.get(pid, 0)})
            if self.execs.last_exec.get(pid, 0) > self.execs.read_at.get(pid, 0):
                runs = runs + [(UNREAD, b"")]
            for exe, args in runs:
                if not rec["runs"] or rec["runs"][-1] != (exe, args):
                    rec["runs"].append((exe, args))
                if not rec["exes"] or rec["exes"][-1] != exe:
                    rec["exes"].append(exe)

    def exec_evidence(self):
        """How the programs a run started were seen: one line for the report."""
        if self.execs and not self.execs.lost:
            return ("every exec, from the kernel's process events, and samples of /proc every 2 "
                    "to 20 ms")
        why = ("some events were dropped on a busy machine" if self.execs else
               "the kernel's process events need root" if not as_root() else
               "the kernel's process events were refused, or name other pids than the "
               "grader's (a PID namespace of its own)")
        return f"samples of /proc every 2 to 20 ms ({why})"

    def _below(self):
        found, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            found.append(pid)
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                todo += [int(c) for c in _read(f"/proc/{pid}/task/{tid}/children").split()]
        return found

    @staticmethod
    def _cpu(stat):
        fields = stat.rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime

    def sample(self):
        below = self._below()
        self.most = max(self.most, len(below))
        for pid in below:
            stat = _read(f"/proc/{pid}/stat")
            if not stat:
                continue
            rec = self.procs.setdefault(pid, {"exes": [], "runs": [], "cpu": 0.0, "threads": {},
                                              "parent": int(stat.rsplit(b")", 1)[1].split()[1])})
            try:
                exe = os.readlink(f"/proc/{pid}/exe")
            except OSError:
                exe = None
            # A program is what it runs and how it was called: an exec of itself with other
            # arguments (lenet-serial --kernels simd becoming --kernels ref) is another run.
            run = (exe, _read(f"/proc/{pid}/cmdline"))
            if exe and run[1] and (not rec["runs"] or rec["runs"][-1] != run):
                rec["runs"].append(run)
            if exe and (not rec["exes"] or rec["exes"][-1] != exe):
                rec["exes"].append(exe)
            rec["cpu"] = max(rec["cpu"], self._cpu(stat))
            try:
                tasks = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tasks:
                t = _read(f"/proc/{pid}/task/{tid}/stat")
                if t:
                    rec["threads"][int(tid)] = max(rec["threads"].get(int(tid), 0.0),
                                                   self._cpu(t))
                try:  # the latest: `taskset -c` pins its own thread only before its exec
                    self.affinity[int(tid)] = tuple(sorted(os.sched_getaffinity(int(tid))))
                except OSError:
                    pass

    def started_by(self, test):
        """[(program, what it ran)] for every program that a process running an executable
        that passes test(path) turned into by exec, or started as a child."""
        found = []
        for procs, rec in self._records():
            exes, runs = rec["exes"], rec["runs"]
            for i, (exe, args) in enumerate(runs):  # an exec, after one of test's programs
                if i and runs[i - 1] != (exe, args) and test(runs[i - 1][0]):
                    how = "" if exe != runs[i - 1][0] else (
                        " (itself, called " + " ".join(a.decode("utf-8", "replace")
                                                        for a in args.split(b"\0")[1:6]) + ")")
                    found.append((runs[i - 1][0], exe + how))
            parent = procs.get(rec["parent"])
            if exes and parent and parent["exes"] and test(parent["exes"][-1]) and \
                    exes[0] != parent["exes"][-1]:
                found.append((parent["exes"][-1], exes[0]))
        return found

    def runs_of(self, test):
        """[(executable, command line)] of every program seen running whose executable passes
        test(path)."""
        return [run for _, rec in self._records() for run in rec["runs"] if test(run[0])]

    def _records(self):
        """(the record set, a record) for the samples' records and the events'."""
        return [(procs, rec) for procs in (self.procs, self.exec_procs)
                for rec in procs.values()]

    def of(self, name):
        """The records of the processes whose last executable is called `name`."""
        return [rec for rec in self.procs.values()
                if rec["exes"] and os.path.basename(rec["exes"][-1]) == name]


def tagged(tag, var="LABKIT_RUN"):
    """The pids whose environment holds var=tag."""
    needle = f"{var}={tag}".encode()
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


def kill_tagged(tag, session=None, var="LABKIT_RUN"):
    """SIGKILL to the run's session and to every process carrying its tag (var=tag in its
    environment), until none is left."""
    for _ in range(50):
        pids = tagged(tag, var)
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


def _tagged_or_in_session(tag, session):
    """The pids that carry the run's tag or are in its session (the fallback's evidence)."""
    pids = set(tagged(tag))
    for entry in os.listdir("/proc"):
        stat = _read(f"/proc/{entry}/stat") if entry.isdigit() else b""
        if stat and int(stat.rsplit(b")", 1)[1].split()[3]) == session:
            pids.add(int(entry))
    return sorted(pids)


def run(cmd, *, timeout, cwd, env=None, untrusted=False, log=None, read=(), write=(),
        observe=False, view=False):
    """Runs cmd (a list) in folder cwd for at most `timeout` seconds. untrusted: in the sandbox,
    with `read` bound read-only and cwd and `write` writable (where there is no sandbox: as
    `nobody` where the grader is root), contained (contain.py: limits, its own cgroup, what it
    leaves behind killed and removed, and noted). view: in the sandbox as the grader (trusted
    code that must see the sandbox's paths). observe: an Observer watches it (Result.observed).
    Returns a Result; its output without colour codes, its middle cut past HEAD + TAIL."""
    tag = uuid.uuid4().hex
    run_env = dict(os.environ if env is None else env)
    run_env["LABKIT_RUN"] = tag
    ids = unprivileged_ids() if untrusted and as_root() else None
    sandboxed = (untrusted or view) and sandbox.missing() is None
    if sandboxed:
        run_env.pop("LABKIT_RUN")  # the PID namespace ends everything with the sandbox
        argv = sandbox.command(cmd, read=read, write=write, cwd=cwd, unprivileged=untrusted)
        here = "/"  # cwd is the sandbox's
    else:
        argv, here = cmd, cwd
    # sandbox.command becomes the unprivileged user itself; a plain process becomes it here.
    box = contain.Run(tag, ids[0] if ids else None, sandboxed) if untrusted else None
    start_as = box.preexec(None if sandboxed else ids) if box else _limits
    execs = Execs.start_if_possible() if observe else None  # before the run's first fork
    start = time.monotonic()
    timed_out = False
    try:
        proc = subprocess.Popen(argv, cwd=here, env=run_env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                start_new_session=True, preexec_fn=start_as)
    except OSError:
        if execs:
            execs.stop()
        if box:
            box.end()
        raise
    reader = Capped(proc.stdout)
    reader.start()
    observer = Observer(proc.pid, execs) if observe else None
    if observer:
        observer.start()
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_tagged(tag, proc.pid)
        rc = proc.wait()
    seconds = time.monotonic() - start
    if observer:
        observer.stop()
    if box:  # what a finished run left behind: noted, killed, removed
        box.end(where=" ".join(os.path.basename(c) for c in cmd[:3]),
                left=None if box.group else _tagged_or_in_session(tag, proc.pid))
    kill_tagged(tag, proc.pid)
    reader.join(timeout=10)
    proc.stdout.close()
    text, cut = reader.text()
    text = plain(text)
    if log is not None:
        log.write(f"$ {' '.join(cmd)}\n{text}")
        if not text.endswith("\n"):
            log.write("\n")
        log.write(f"[exit {'TIMEOUT after %d s' % timeout if timed_out else rc}, "
                  f"{seconds:.1f} s{', output cut: %d bytes' % cut if cut else ''}]\n\n")
    result = Result(rc, text, seconds, timed_out, cut, observer)
    result.contained = box.how() if box else None
    return result
