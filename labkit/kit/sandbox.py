"""Where student code runs: a bubblewrap sandbox (Debian's `bubblewrap`), made anew for every
build and every run.

Inside it a process sees the system's programs and libraries (/usr, /etc, /sys) read-only, a
private /tmp, /proc of its own PID namespace, no network but loopback, and of the grading only
the folders the caller names: the graded tree and its build (read-only while a program runs),
the run's own folder (writable), the timing data. Nothing else of the machine is there: not the
instructor's project, not the reference's build, not the kit's caches, not other submissions.
It runs as `nobody` (as the user the kit is given, LAB_USER) where the grader is root, with no
capability and no way to gain one (setpriv --no-new-privs), in a
clean, fixed environment (sandbox.environment()): no PWD, LAB_* or path naming the instructor's
tree.

Where namespaces are refused (Docker's default seccomp profile, as on Gradescope), or bwrap is
missing, runs fall back to a plain process of that user, and `missing()` says which protection
is lost; the report carries that line. Such a grading first checks, as that user, that the
solutions and other submissions are closed to it (contain.exposed), or is refused.
"""
import os
import shutil
import subprocess

from .users import as_root, unprivileged_ids

SYSTEM = ("/usr", "/etc", "/sys")  # read-only, where they exist
VIEW = "/lab"  # where the sandbox shows the graded tree (src/, build/), bin/, data/ and run/
_state = {}


def _links():
    """bwrap arguments for /bin, /lib, /lib64, /lib32 and /sbin as the host has them: symbolic
    links into /usr (merged /usr) or folders of their own."""
    out = []
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            out += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            out += ["--ro-bind", top, top]
    return out


def tool():
    """The path of bwrap on the grader's PATH, or None. The sandbox is launched by this path:
    a run's own PATH (environment()) is fixed and need not hold the folder it was found in."""
    if "tool" not in _state:
        _state["tool"] = shutil.which("bwrap")
    return _state["tool"]


def command(cmd, *, read=(), write=(), cwd, unprivileged=True):
    """The bwrap command line that runs cmd (a list) with `read` folders (or files) bound
    read-only and `write` folders writable, in folder cwd. Each is a path, bound at the same
    path, or a pair (path here, path in the sandbox)."""
    # Root makes the namespaces itself (no user namespace, which some systems refuse to other
    # users: Ubuntu 24.04's AppArmor), then becomes the unprivileged user with no capability
    # left; anyone else makes them in a user namespace of their own.
    unshare = (["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                "--unshare-cgroup-try"] if as_root() else ["--unshare-all"])
    argv = [tool() or "bwrap"] + unshare + ["--die-with-parent", "--new-session", "--proc", "/proc",
            "--dev", "/dev", "--perms", "1777", "--tmpfs", "/tmp"]
    for top in SYSTEM:
        if os.path.exists(top):
            argv += ["--ro-bind", top, top]
    argv += _links()
    if unprivileged and as_root():
        argv += _decoys()
    binds = [(kind, path if isinstance(path, tuple) else (path, path))
             for kind, paths in (("--ro-bind", read), ("--bind", write)) for path in paths]
    # The folders above the binds, open to the sandbox's user (bwrap makes them 0700 as root).
    parents = {os.path.dirname(p[1]) for _, p in binds}
    for parent in sorted(parents | {os.path.dirname(p) for p in parents} - {"/"},
                         key=lambda p: p.count("/")):
        if not os.path.exists(parent) or parent.startswith(VIEW):
            argv += ["--perms", "0755", "--dir", parent]
    for kind, (here, there) in binds:
        argv += [kind, here, there]
    argv += ["--chdir", cwd, "--"]
    if as_root() and unprivileged:
        uid, gid = unprivileged_ids()
        argv += ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups",
                 "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
    return argv + list(cmd)


def use_decoys(binds):
    """Every later sandbox of student code shows these decoys ([(decoy here, path there)],
    decoys.Decoys.binds()); [] for none."""
    _state["decoys"] = list(binds)


def _decoys():
    argv, made = [], set()
    for here, there in _state.get("decoys", []):
        inside = any(there.startswith(t + "/") for _, t in _state["decoys"])
        up = os.path.dirname(there)
        missing = []
        while not inside and up not in ("/", "/tmp") and up not in made:
            missing.append(up)
            made.add(up)
            up = os.path.dirname(up)
        for parent in reversed(missing):  # bwrap would make them 0700, closed to the user
            argv += ["--perms", "0755", "--dir", parent]
        argv += ["--bind", here, there]  # writable, so that a read moves the access time
    return argv


def environment(home, extra=None):
    """The one environment of every build and run of student code (and of the reference's
    runs, so that nothing tells a timed run from a checked one): fixed values only."""
    # TMPDIR: the sandbox's own /tmp; without one, the run's folder, so that no compiler or
    # honest program leaves files in the machine's /tmp (what is found there is the run's doing).
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home,
           "TMPDIR": "/tmp" if missing() is None else home,
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1",
           "CLICOLOR": "0", "GCC_COLORS": "",
           # An idle OpenMP thread spins 1000 times, then sleeps: the programs' own default
           # (backend_openmp/main.cpp). Its CPU time stays close to its work, and a layer's
           # barriers stay fast: with passive waits, the reference's own lab 2 ran at 0.40x of
           # its one thread on a quiet machine. (MPI's settings are the launcher's:
           # run_scripts/mpi_launch.sh, --yield.)
           "GOMP_SPINCOUNT": "1000"}
    for cuda in ("/usr/local/cuda/bin",):
        if os.path.isdir(cuda):
            env["PATH"] = cuda + ":" + env["PATH"]
    env.update(extra or {})
    return env


def missing():
    """None where every build and run is sandboxed; else one line naming what is missing."""
    if "missing" not in _state:
        _state["missing"] = _probe()
    return _state["missing"]


def _probe():
    if os.environ.get("LAB_SANDBOX") == "off":  # the kit's own test of the fallback
        return "no sandbox (LAB_SANDBOX=off): student code ran as a plain process" + _who()
    if tool() is None:
        return ("no sandbox: bubblewrap is not installed (apt-get install bubblewrap): student "
                "code ran as a plain process" + _who())
    probe = command(["true"], cwd="/")
    try:
        r = subprocess.run(probe, capture_output=True, text=True, timeout=30,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no sandbox: bwrap could not start ({e})" + _who()
    if r.returncode != 0:
        why = (r.stderr.strip().splitlines() or ["no message"])[-1]
        return (f"no sandbox: bwrap could not make its namespaces here ({why}; e.g. Docker's "
                f"default seccomp profile): no private PID, network or file view" + _who())
    return None


def _who():
    if as_root():
        return (", as the unprivileged user; the solutions, other submissions and the kit's "
                "private folders are checked unreadable to that user before a student's grading")
    return (", as the grader's own user: it could read what that user can (run the grader as "
            "root, or install bubblewrap)")
