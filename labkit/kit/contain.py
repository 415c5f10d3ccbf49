"""Containment of every run of student code, with the sandbox or without it.

Each run gets limits (processes, address space, file size, no core file) and a tag that no
process of the run can erase: a cgroup of its own where the machine's cgroup v2 tree is
writable; else, where root runs it as another user, that user's processes started since the
run began; else its session, its process group and a tag in its environment (procs.py). Where
root runs it as another user, one run of that user at a time (its lock): the user's files in
/tmp and its keyring are the run's. When
the run ends, the grader kills every process that carries the tag, and removes what the run's
user left in /tmp, /dev/shm and its keyring. Each thing found is evidence for a flag
(take()); nothing here changes a score.
"""
import contextlib
import fcntl
import json
import os
import platform
import re
import resource
import shutil
import signal
import subprocess
import time

# Per process of a run. NPROC counts every task (thread) of the run's user on the machine,
# other gradings' too: it stops a fork bomb, not a program of a few dozen threads.
LIMITS = {resource.RLIMIT_NPROC: 1024, resource.RLIMIT_AS: 8 << 30,
          resource.RLIMIT_FSIZE: 2 << 30, resource.RLIMIT_CORE: 0}
# A cgroup's own limits, where its parent lets it have them: processes (threads) and memory.
GROUP_LIMITS = {"pids.max": "512", "memory.max": str(4 << 30), "memory.swap.max": "0"}
SHARED = ("/tmp", "/dev/shm")  # where any user may leave files
_found = []  # [(what, evidence)] since the last take()
_state = {}  # "parent": the cgroup v2 folder where runs get groups of their own, or None
# Root's folder of the users' locks (_lock): under /run, where no other user can write.
LOCKS = "/run/lenet-labkit"


def take():
    """The evidence found since the last call, as [(what, evidence)], and forgets it."""
    found = list(_found)
    del _found[:]
    return found


def _note(what, evidence):
    if (what, evidence) not in _found:
        _found.append((what, evidence))


def _cgroup_parent():
    """The grader's own cgroup v2 folder where it can make groups and move a process into one
    (checked once, with a probe), else None."""
    if "parent" not in _state:
        # LAB_CGROUP=off: none, as in a container whose cgroup is read-only (the tests' way
        # to check the containment there)
        off = os.environ.get("LAB_CGROUP") == "off"
        _state["parent"] = None if off else _probe(_own_cgroup())
    return _state["parent"]


def _probe(parent):
    if parent is None:
        return None
    group = os.path.join(parent, f"labkit-probe-{os.getpid()}")
    try:
        os.mkdir(group)
    except OSError:
        return None
    try:
        subprocess.run(["true"], check=True, timeout=30,
                       preexec_fn=lambda: _join(os.path.join(group, "cgroup.procs")))
        return parent
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        for _ in range(100):  # the probe's process leaves the group as it is reaped
            try:
                os.rmdir(group)
                break
            except OSError:
                time.sleep(0.01)


def _join(procs):
    with open(procs, "w") as f:
        f.write("0")


def _own_cgroup():
    """The grader's own cgroup v2 folder, where it may write, else None."""
    mount = None
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields[fields.index("-") + 1] == "cgroup2":
                mount = fields[4]
                break
    if mount is None:
        return None
    with open("/proc/self/cgroup", encoding="utf-8") as f:
        own = next((l.strip()[3:] for l in f if l.startswith("0::")), None)
    if own is None or own.endswith("(deleted)"):
        return None
    parent = os.path.join(mount, own.lstrip("/"))
    return parent if os.access(parent, os.W_OK) else None


class Run:
    """One run's tag and limits. preexec() goes into the run's first process, before exec;
    end() after the run: it kills what is left and cleans up."""

    def __init__(self, tag, uid=None, sandboxed=False):
        self.tag, self.uid, self.sandboxed = tag, uid, sandboxed
        self.group = None
        parent = _cgroup_parent()
        if parent:
            try:
                self.group = os.path.join(parent, "labkit-" + tag)
                os.mkdir(self.group)
                for name, value in GROUP_LIMITS.items():
                    try:
                        with open(os.path.join(self.group, name), "w") as f:
                            f.write(value)
                    except OSError:
                        pass  # a controller the parent does not give: the rlimits stand
            except OSError:
                self.group = None
        # The user's lock: one run of that user at a time on the machine, so that what the user
        # left in /tmp and its keyring (one per uid, on the whole machine) is this run's. Without
        # a cgroup, so is its every process started since, wherever it went.
        self.lock = _lock(uid) if self._other_user() else None
        self.by_user = self.lock is not None and not self.group and not sandboxed
        self.since = _uptime_ticks() if self.by_user else None
        self.keys = _key_count(uid) if self._other_user() else None
        if self.lock is not None and (self.keys or 0) > _KEYRINGS:
            keyring(uid, clear=True)  # left before this run (no run of the user holds them)
            self.keys = _key_count(uid)
        self.before = shared_entries(uid) if self._other_user() and not sandboxed else set()

    def _other_user(self):
        return self.uid is not None and self.uid != os.geteuid()

    def how(self):
        """How the run's processes are told apart from the machine's: one line."""
        if self.group:
            return "a cgroup of its own (cgroup v2), which no process of the run can leave"
        if self.by_user:
            return ("its user's processes started since it began, one run of that user at a "
                    "time (no writable cgroup v2 here)")
        return ("its session, process group and a tag in its environment (no writable cgroup v2 "
                "here): a process that leaves all three is not found")

    def preexec(self, ids=None):
        """The function the run's first process calls before it execs: limits, the cgroup, then
        the unprivileged user's ids (uid, gid), where given."""
        group = os.path.join(self.group, "cgroup.procs") if self.group else None

        def enter():
            for what, value in LIMITS.items():
                soft, hard = resource.getrlimit(what)
                if hard == resource.RLIM_INFINITY or hard > value:
                    resource.setrlimit(what, (value, value))
            if group:
                _join(group)
            if ids:
                os.setgroups([])
                os.setgid(ids[1])
                os.setuid(ids[0])
        return enter

    def pids(self):
        """The live processes of the run (its cgroup's), or None without a cgroup."""
        if not self.group:
            return None
        try:
            with open(os.path.join(self.group, "cgroup.procs"), encoding="utf-8") as f:
                return [int(p) for p in f.read().split()]
        except OSError:
            return []

    def end(self, where="the run", left=None):
        """Kills every process left in the run's cgroup (noted, with what each ran), removes
        the group, and what the run's user left in /tmp, /dev/shm and its keyring (noted).
        left: without a cgroup, the pids the caller found by the run's other tags."""
        if self.group:
            left = self.pids()
        else:
            left = sorted(set(left or []) | set(self._strays() if self.by_user else []))
        if left:  # a process killed a moment ago may still be on its way out: not left
            time.sleep(0.1)
            now = set(self.pids()) if self.group else set(left)
            left = [p for p in left if p in now and _alive(p)]
        where = where if len(where) <= 60 else where[:57] + "..."
        if left:
            _note("processes left after a run",
                  f"{len(left)} still running when {where} ended, killed: " +
                  _commands(left))
        if self.group:
            self._empty()
        for pid in left:  # without a cgroup (with one, _empty did it)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if self._other_user():
            if not self.sandboxed:  # the sandbox's /tmp and /dev/shm are its own
                files = left_files(self.uid, self.before)
                if files:
                    _note("files left after a run",
                          f"{len(files)} in /tmp or /dev/shm after {where}, "
                          f"removed: " + ", ".join(files[:4]))
                    remove(files)
            count = _key_count(self.uid)
            # A key unlinked before the run is counted until the kernel's garbage collector
            # frees it, so an equal count can hide a new key: any count above the user's own
            # two keyrings is read too.
            if count != self.keys or (count or 0) > _KEYRINGS:
                # (the user session keyring links the user keyring: not a key anyone left)
                keys = [k for k in keyring(self.uid, clear=True) or []
                        if not k.endswith(f";_uid.{self.uid}")]
                if keys:
                    _note("keys left in the keyring of the user that runs student code",
                          f"{len(keys)} after {where}, removed: " +
                          ", ".join(keys[:4]))
        if self.lock is not None:
            os.close(self.lock)  # the lock's end

    def _strays(self):
        """The run's user's processes started since the run began (with the user's lock held:
        the run's, whatever session, environment and folder they took)."""
        found = []
        for entry in os.listdir("/proc"):
            try:
                if not entry.isdigit() or os.stat(f"/proc/{entry}").st_uid != self.uid:
                    continue
                with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[19]) >= self.since:
                        found.append(int(entry))
            except (OSError, ValueError, IndexError):
                pass
        return found

    def _empty(self):
        kill = os.path.join(self.group, "cgroup.kill")
        for _ in range(200):
            pids = self.pids()
            if not pids:
                break
            if os.path.exists(kill):
                with open(kill, "w") as f:
                    f.write("1")
            else:
                for pid in pids:
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass
            time.sleep(0.02)
        for _ in range(200):  # the kernel removes a group once its last process is reaped
            try:
                os.rmdir(self.group)
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.02)


def _lock(uid):
    """uid's lock, held (waits for another grading's run of that user to end), as an open file
    descriptor; None where root's folder for it cannot be made. The file is root's alone: a
    process of uid cannot open it, so cannot hold it."""
    try:
        os.makedirs(LOCKS, mode=0o700, exist_ok=True)
        fd = os.open(os.path.join(LOCKS, f"uid-{uid}.lock"),
                     os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    except OSError:
        return None
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


@contextlib.contextmanager
def between_runs(uid):
    """uid's lock held, as a run holds it, for work on that user's files or keys outside a
    run: no run of another grading is under way meanwhile."""
    fd = _lock(uid)
    try:
        yield
    finally:
        if fd is not None:
            os.close(fd)


def _uptime_ticks():
    """Now, in the clock ticks since boot of /proc/PID/stat's start times."""
    with open("/proc/uptime", encoding="utf-8") as f:
        return int(float(f.read().split()[0]) * os.sysconf("SC_CLK_TCK"))


def _alive(pid):
    """Whether pid is a process that is not on its way out: a zombie, or one whose memory is
    gone already (no command line; the sandbox's own end), is."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X"):
                return False
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return bool(f.read(1))
    except (OSError, IndexError):
        return False


def _commands(pids):
    """What the pids run, the same command counted once: 'N x COMMAND (pid P)', the four most
    common, so that one daemon shows beside a crowd of sleepers."""
    found = {}
    for pid in pids:
        try:
            args = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            command = " ".join(a.decode("utf-8", "replace") for a in args[:4]).strip()
        except OSError:
            command = "(gone)"
        found.setdefault(command, []).append(pid)
    top = sorted(found.items(), key=lambda c: -len(c[1]))
    return "; ".join(f"{len(p)} x {c} (pid {p[0]})" for c, p in top[:4]) + (
        f"; {len(top) - 4} other commands" if len(top) > 4 else "")


def _open_files():
    """The paths every live process has open (file descriptors) or works in."""
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            found.add(os.readlink(f"/proc/{pid}/cwd"))
            for fd in os.listdir(f"/proc/{pid}/fd"):
                found.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return found


# A grading's own folder (grade.py: tempfile.mkdtemp(prefix="labkit-labN-"), given to the run's
# user): another grading's, made while this run ran, is not this run's leftover. (A run could
# hide a file under such a name: it is neither flagged nor removed.)
GRADING_FOLDER = re.compile(r"^labkit-lab\d+-[A-Za-z0-9_]{8}$")


def shared_entries(uid):
    """The names at the top of /tmp and /dev/shm that uid owns now."""
    found = set()
    for top in SHARED:
        try:
            names = os.listdir(top)
        except OSError:
            continue
        for name in names:
            try:
                if os.lstat(os.path.join(top, name)).st_uid == uid:
                    found.add(os.path.join(top, name))
            except OSError:
                pass
    return found


def left_files(uid, before):
    """Files and folders at the top of /tmp and /dev/shm that `uid` owns and did not before
    the run (`before`: shared_entries() then), less those a live process holds open and other
    gradings' folders: what a run of that user left."""
    found = [p for p in shared_entries(uid) - before
             if not GRADING_FOLDER.match(os.path.basename(p))]
    if found:
        held = _open_files()
        found = [p for p in found if not any(h == p or h.startswith(p + "/") for h in held)]
    return sorted(found)


def remove(paths):
    for path in paths:
        try:
            if os.path.isdir(path) and not os.path.islink(path):
                subprocess.run(["rm", "-rf", "--one-file-system", "--", path], timeout=60)
            else:
                os.remove(path)
        except (OSError, subprocess.TimeoutExpired):
            pass


_KEYRINGS = 2  # a user's own keys at rest: its user keyring and its user session keyring


def _key_count(uid):
    """The number of keys the kernel counts for uid (/proc/key-users), or None."""
    try:
        with open("/proc/key-users", encoding="utf-8") as f:
            for line in f:
                if line.split(":")[0].strip() == str(uid):
                    return int(line.split()[2].split("/")[0])
    except (OSError, ValueError, IndexError):
        return None
    return 0


# keyctl(2) by its number (no keyutils needed), run as the user whose keyrings it reads: the
# keys linked to the user keyring and the user session keyring, described, then unlinked.
KEYCTL = {"x86_64": 250, "aarch64": 219}
_KEYRING_SCRIPT = r"""
import ctypes, json, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
nr, clear = int(sys.argv[1]), sys.argv[2] == "1"
def keyctl(*a):
    return libc.syscall(nr, *[ctypes.c_long(x) if isinstance(x, int) else x for x in a])
found = []
for ring in (-4, -5):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING
    rid = keyctl(0, ring, 0)  # KEYCTL_GET_KEYRING_ID, without making one
    if rid < 0:
        continue
    buf = ctypes.create_string_buffer(4096)
    n = keyctl(11, rid, buf, 4096)  # KEYCTL_READ: the serials linked to it
    for (key,) in struct.iter_unpack("i", buf.raw[:max(0, min(n, 4096))]):
        d = ctypes.create_string_buffer(512)
        keyctl(6, key, d, 512)  # KEYCTL_DESCRIBE: type;uid;gid;perm;description
        found.append(d.value.decode("utf-8", "replace"))
    if clear:
        keyctl(7, rid)  # KEYCTL_CLEAR
print(json.dumps(found))
"""


def keyring(uid, clear=False):
    """[description of each key] linked to uid's user keyrings (cleared if asked), read as that
    user by the system's python3; None where there is none, or keyctl is not known here."""
    nr = KEYCTL.get(platform.machine())
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    if nr is None or python is None:
        return None
    import pwd
    try:
        gid = pwd.getpwuid(uid).pw_gid
    except KeyError:
        gid = uid
    try:
        r = subprocess.run([python, "-I", "-c", _KEYRING_SCRIPT, str(nr),
                            "1" if clear else "0"], capture_output=True, text=True, timeout=30,
                           user=uid, group=gid, extra_groups=[], cwd="/",
                           stdin=subprocess.DEVNULL)
        return json.loads(r.stdout) if r.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def readable_by(ids, paths):
    """Those of `paths` that the user (uid, gid) can read (a folder: list), asked as that user."""
    if not paths:
        return []
    test = ('for p; do if [ -d "$p" ]; then [ -r "$p" ] && [ -x "$p" ]; else [ -r "$p" ]; fi '
            '&& echo "$p"; done')
    r = subprocess.run(["sh", "-c", test, "sh"] + sorted(paths), capture_output=True, text=True,
                       timeout=60, user=ids[0], group=ids[1], extra_groups=[], cwd="/")
    return [p for p in r.stdout.split("\n") if p]


def exposed(root, manifests, folder, lab, private=()):
    """What the user who runs student code could read, where there is no sandbox to hide it:
    the instructor's solutions (each lab's files in root, and its .git), other submissions
    (the lab's files in the folders beside `folder`) and the kit's `private` folders. The
    kit's own are closed here; [the paths still open] are returned."""
    from .users import as_root, unprivileged_ids
    if not as_root():
        return []
    ids = unprivileged_ids()
    for path in private:  # the kit's own: closed rather than reported
        if os.path.isdir(path) and readable_by(ids, [path]):
            os.chmod(path, 0o700)
    paths = {os.path.join(root, f) for m in manifests.values() for f in m["files"]}
    paths.add(os.path.join(root, ".git"))
    others = os.path.dirname(os.path.abspath(folder))
    for name in sorted(os.listdir(others))[:1000]:
        there = os.path.join(others, name)
        if there != os.path.abspath(folder) and there != root and os.path.isdir(there):
            for f in manifests[lab]["files"]:
                paths.update({os.path.join(there, f), os.path.join(there, os.path.basename(f))})
    return readable_by(ids, [p for p in paths if os.path.exists(p)] + list(private))
