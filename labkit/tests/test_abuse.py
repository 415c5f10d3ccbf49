#!/usr/bin/env python3
"""The lab kit's containment and abuse flags, attacked (ctest -L labkit; labkit.cmake).

  test_abuse.py tool      the sandbox tool is launched by the path where it was found: a
                          bwrap outside the runs' fixed PATH still runs every sandbox
  test_abuse.py contain   runs of student code, with the sandbox and without (root): each has
                          its limits; a daemon that double-forks, calls setsid, leaves its
                          folder and its environment, and leaves files in /tmp and /dev/shm
                          and a key in its user's keyring is killed, its files and key removed,
                          each noted as evidence; so are 150 sleeping children

Exit 0: passed; 1: failed (the first failure, in one line); 77: SKIPPED.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
sys.path.insert(0, KIT)
from kit import contain, procs, sandbox, users  # noqa: E402

TMP = tempfile.mkdtemp(prefix="labkit-abuse-")
os.chmod(TMP, 0o755)


class Failed(Exception):
    pass


class Skipped(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failed(message)


def tool():
    """A bwrap in a folder of its own, first on the grader's PATH and on no run's PATH: a run
    in the sandbox goes through it."""
    real = shutil.which("bwrap")
    if real is None or sandbox.missing() is not None:
        raise Skipped(f"no working sandbox here ({sandbox.missing()})")
    folder = os.path.join(TMP, "tools")
    os.makedirs(folder)
    used = os.path.join(TMP, "used")
    wrapper = os.path.join(folder, "bwrap")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\necho "$0" >> {used}\nexec {real} "$@"\n')
    os.chmod(wrapper, 0o755)
    os.environ["PATH"] = folder + ":" + os.environ.get("PATH", "")
    sandbox._state.clear()
    try:
        expect(sandbox.missing() is None, f"the sandbox through {wrapper}: {sandbox.missing()}")
        expect(folder not in sandbox.environment("/")["PATH"], "the runs' PATH holds the tool")
        if os.path.exists(used):
            os.remove(used)  # the probe's launch: the run's must be seen on its own
        r = procs.run(["sh", "-c", "echo inside"], timeout=60, cwd="/",
                      env=sandbox.environment("/"), untrusted=True)
        expect(r.ok and "inside" in r.output, f"a sandboxed run: exit {r.rc}: {r.last_line()}")
        expect(os.path.isfile(used) and wrapper in open(used).read().split("\n"),
               f"the run did not launch {wrapper}, the bwrap found on PATH")
    finally:
        os.environ["PATH"] = os.environ["PATH"].split(":", 1)[1]
        sandbox._state.clear()
    print(f"the sandbox ran through {wrapper}")


# A daemon, as student code would start one (bounded: it sleeps 120 s at most): files in /tmp
# and /dev/shm, a key in the user keyring, then a double fork, setsid, chdir("/") and an exec
# with an empty environment (no tag left in /proc/PID/environ). MARKER names all of them.
DAEMON = r"""
import ctypes, os, platform, sys, time
marker = sys.argv[1]
for top in ("/tmp", "/dev/shm"):  # the sandbox's /dev/shm is closed to its user
    try:
        with open(os.path.join(top, marker), "wb") as f:
            f.write(b"x" * (1 << 20))
    except OSError:
        pass
nr = {"x86_64": 248, "aarch64": 217}.get(platform.machine())
if nr:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall(nr, b"user", marker.encode(), b"note", 4, ctypes.c_long(-4))  # add_key, @u
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.chdir("/")
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)",
                                   marker], {})
    os._exit(0)
os.wait()
children = int(sys.argv[2])  # and a crowd of sleepers, left behind too
for _ in range(children):
    if os.fork() == 0:
        os.execv("/bin/sh", ["sh", "-c", "sleep 60; :", marker])
print("started", flush=True)
"""


def marked(marker):
    """What is left of an attack named marker: its processes, files and keys."""
    left = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and marker.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                left.append(f"pid {pid}")
        except OSError:
            pass
    left += [p for p in (f"/tmp/{marker}", f"/dev/shm/{marker}") if os.path.exists(p)]
    uid = users.unprivileged_ids()[0]
    left += [k for k in contain.keyring(uid) or [] if k.endswith(";" + marker)]
    return left


def clean(marker):
    """Whatever the kit did, nothing of the attack stays."""
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and marker.encode() in open(f"/proc/{pid}/cmdline", "rb").read():
                os.kill(int(pid), 9)
        except OSError:
            pass
    contain.remove([f"/tmp/{marker}", f"/dev/shm/{marker}"])
    contain.keyring(users.unprivileged_ids()[0], clear=True)


def contained(mode):
    """One daemon attack in `mode` (sandbox or plain); returns the evidence noted."""
    marker = "labkit-abuse-" + os.urandom(6).hex()
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    folder = os.path.join(TMP, "run-" + mode)
    os.makedirs(folder)
    with open(os.path.join(folder, "daemon.py"), "w") as f:
        f.write(DAEMON)
    there = "/lab/run" if mode == "sandbox" else folder  # as a grading shows the run's folder
    try:
        contain.take()
        r = procs.run([python, "daemon.py", marker, "150"], timeout=60, cwd=there,
                      env=sandbox.environment(there), untrusted=True, write=[(folder, there)])
        expect(r.ok and "started" in r.output, f"{mode}: the attack did not run: exit {r.rc}, "
                                                f"{r.last_line()}")
        left = marked(marker)
        expect(not left, f"{mode}: left after the run: {', '.join(left[:5])}")
        return contain.take(), r
    finally:
        clean(marker)


def contain_runs():
    if not users.as_root():
        raise Skipped("containment runs student code as another user: root only")
    if contain.keyring(users.unprivileged_ids()[0]) is None:
        raise Skipped("no keyctl here")
    modes = ["plain"] + (["sandbox"] if sandbox.missing() is None else [])
    for mode in modes:
        os.environ.pop("LAB_SANDBOX", None)
        if mode == "plain":
            os.environ["LAB_SANDBOX"] = "off"
        sandbox._state.clear()
        try:
            found, r = contained(mode)
            how = r.contained
            limits = procs.run(["cat", "/proc/self/limits"], timeout=30, cwd="/",
                               env=sandbox.environment("/"), untrusted=True).output
        finally:
            os.environ.pop("LAB_SANDBOX", None)
            sandbox._state.clear()
        what = {w for w, _ in found}
        print(f"{mode}: {how}; noted: " + " | ".join(f"{w}: {e}" for w, e in found))
        want = {"keys left in the keyring of the user that runs student code"}
        if mode == "plain":  # the sandbox's namespace ends its processes, its /tmp its files
            want |= {"processes left after a run", "files left after a run"}
        expect(want <= what, f"{mode}: not noted: {sorted(want - what)}")
        for name, value in (("Max processes", contain.LIMITS[contain.resource.RLIMIT_NPROC]),
                            ("Max address space", contain.LIMITS[contain.resource.RLIMIT_AS]),
                            ("Max file size", contain.LIMITS[contain.resource.RLIMIT_FSIZE]),
                            ("Max core file size", 0)):
            line = next((l for l in limits.split("\n") if l.startswith(name)), "")
            expect(line.split()[len(name.split()):][:1] == [str(value)],
                   f"{mode}: a run's limit '{name}' is not {value}: '{line}'")
    print(f"contained in {', '.join(modes)}: nothing left, every limit set")


def run(what):
    try:
        if what == ["tool"]:
            tool()
        elif what == ["contain"]:
            contain_runs()
        else:
            print(__doc__)
            return 2
    except Skipped as e:
        print(f"SKIPPED: {e}")
        return 77
    except Failed as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
