#!/usr/bin/env python3
"""The lab kit's containment and abuse flags, attacked (ctest -L labkit; labkit.cmake).

  test_abuse.py tool      the sandbox tool is launched by the path where it was found: a
                          bwrap outside the runs' fixed PATH still runs every sandbox
  test_abuse.py contain   runs of student code, with the sandbox and without (root), while a
                          second process runs the same (contain --alone) as another grading
                          would, as the same user: each has
                          its limits; a daemon that double-forks, calls setsid, leaves its
                          folder and its environment, and leaves files in /tmp and /dev/shm
                          and a key in its user's keyring is killed, its files and key removed,
                          each noted as evidence; so are 150 sleeping children; 9 GiB of
                          address space is refused. Without a sandbox: with the kit's cgroup and
                          without it (the daemon found as its user's process)
  test_abuse.py flags     the flags' evidence, on small programs (attacks/): the runtime's and
                          the clock's functions defined, a header outside the tree, .incbin,
                          twice the threads asked, a thread widening its CPU pin, 80 processes
                          at once; and no flag for honest ones
  test_abuse.py exposed   without a sandbox (root), a grading is refused, naming the paths, while
                          the user that runs student code can read the solutions or another
                          submission
  test_abuse.py lab 1     a correct lab 1 (submissions/lab1/alt) is graded without a flag; a
                          graded lab 1 (submissions/lab1/daemon: correct, plus a daemon with
                          files and a key, twice the threads asked, the runtime's function
                          defined, a compile-time probe) is flagged for each, and nothing of it
                          is left after the grading
  test_abuse.py lab 1 plain   the daemon submission without a sandbox or a cgroup
                          (LAB_SANDBOX=off LAB_CGROUP=off, as a container's root), the
                          project closed to the run's user while it grades: its processes and
                          files are flagged too; the same submission with its compile-time
                          probe of the closed project: a COMPILE-ERROR, flagged

Exit 0: passed; 1: failed (the first failure, in one line); 77: SKIPPED.
"""
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
sys.path.insert(0, KIT)
from kit import abuse, build, contain, manifest, procs, regions, sandbox, tree, users  # noqa: E402

ROOT = os.path.dirname(KIT)
LAB = ["bash", os.path.join(ROOT, "run_scripts", "lab.sh")]

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
    uid = users.unprivileged_ids()[0]
    with contain.between_runs(uid):  # another grading's keys are its own
        contain.keyring(uid, clear=True)


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
    # uid: plain where the kit has no cgroup (a container's root), as the cgroup-less find it
    modes = ["plain"] + (["uid"] if contain._cgroup_parent() else []) + (
        ["sandbox"] if sandbox.missing() is None else [])
    for mode in modes:
        os.environ.pop("LAB_SANDBOX", None)
        if mode != "sandbox":
            os.environ["LAB_SANDBOX"] = "off"
        if mode == "uid":
            os.environ["LAB_CGROUP"] = "off"
        sandbox._state.clear()
        contain._state.clear()
        try:
            found, r = contained(mode)
            how = r.contained
            limits = procs.run(["cat", "/proc/self/limits"], timeout=30, cwd="/",
                               env=sandbox.environment("/"), untrusted=True).output
            # More address space than the limit, mapped but never touched (harmless without
            # the limit): refused.
            python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
            # (The word printed is not in the source: Python 3.13 quotes the source line in a
            # traceback.)
            big = procs.run([python, "-c",
                             "import mmap; mmap.mmap(-1, 9 << 30); print('MAP' + 'PED')"],
                            timeout=30, cwd="/", env=sandbox.environment("/"), untrusted=True)
        finally:
            os.environ.pop("LAB_SANDBOX", None)
            os.environ.pop("LAB_CGROUP", None)
            sandbox._state.clear()
            contain._state.clear()
        what = {w for w, _ in found}
        print(f"{mode}: {how}; noted: " + " | ".join(f"{w}: {e}" for w, e in found))
        want = {"keys left in the keyring of the user that runs student code"}
        if mode != "sandbox":  # the sandbox's namespace ends its processes, its /tmp its files
            want |= {"processes left after a run", "files left after a run"}
        expect(want <= what, f"{mode}: not noted: {sorted(want - what)}")
        # The daemon itself, not only the sleepers that kept its session: killed, noted.
        killed = " ".join(e for w, e in found if w == "processes left after a run")
        expect(mode == "sandbox" or "time.sleep(120)" in killed,
               f"{mode}: the daemon was not among the processes killed: {killed[:300]}")
        expect(not big.ok and "MAPPED" not in big.output,
               f"{mode}: 9 GiB of address space mapped: {big.last_line()}")
        for name, value in (("Max processes", contain.LIMITS[contain.resource.RLIMIT_NPROC]),
                            ("Max address space", contain.LIMITS[contain.resource.RLIMIT_AS]),
                            ("Max file size", contain.LIMITS[contain.resource.RLIMIT_FSIZE]),
                            ("Max core file size", 0)):
            line = next((l for l in limits.split("\n") if l.startswith(name)), "")
            expect(line.split()[len(name.split()):][:1] == [str(value)],
                   f"{mode}: a run's limit '{name}' is not {value}: '{line}'")
    print(f"contained in {', '.join(modes)}: nothing left, every limit set")
    stale_key()


def stale_key():
    """A key the run's user had before a run is not that run's: an honest run is not noted."""
    uid, gid = users.unprivileged_ids()
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin")
    nr = {"x86_64": 248, "aarch64": 217}.get(platform.machine())
    if nr is None:
        return
    add = ("import ctypes; ctypes.CDLL(None).syscall(%d, b'user', b'labkit-stale', b'x', 1, "
           "ctypes.c_long(-4))" % nr)
    with contain.between_runs(uid):  # planted between two runs, as a left-over would be
        subprocess.run([python, "-c", add], user=uid, group=gid, extra_groups=[], cwd="/",
                       timeout=30, check=True)
    os.environ["LAB_SANDBOX"] = "off"
    try:
        contain.take()
        r = procs.run(["true"], timeout=30, cwd="/", env=sandbox.environment("/"),
                      untrusted=True)
        found = contain.take()
    finally:
        os.environ.pop("LAB_SANDBOX", None)
        with contain.between_runs(uid):  # the copy beside this one may be in a run
            contain.keyring(uid, clear=True)
    expect(r.ok and not found, f"an honest run after a left-over key was noted: {found}")
    print("a key left before a run: removed, not noted against the run")


def contain_beside():
    """contain_runs, with the same runs of another grading beside it: the user's files and keys
    are one run's at a time, so neither takes the other's evidence."""
    other = subprocess.Popen([sys.executable, os.path.abspath(__file__), "contain", "--alone"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
    try:
        contain_runs()
        out, _ = other.communicate(timeout=600)
    finally:
        if other.poll() is None:
            os.killpg(other.pid, 9)
            other.wait()
    last = out.rstrip("\n").rsplit("\n", 1)[-1]
    expect(other.returncode in (0, 77), f"the grading beside this one: {last}")
    print("beside another grading of the same user: " + last)


def flagged(found):
    return {w for w, _ in found}


def compile_c(name, out, *options):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        raise Skipped("no C compiler")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    r = subprocess.run([cc, "-O1", "-fopenmp", *options, "-o", out,
                        os.path.join(HERE, "attacks", name)], capture_output=True, text=True,
                       timeout=300)
    expect(r.returncode == 0, f"cc {name}: {r.stderr.strip()[-300:]}")
    return out


def flags():
    # What the student's objects define and were compiled from.
    outside = os.path.join(TMP, "instructor", "solution.h")
    os.makedirs(os.path.dirname(outside))
    with open(outside, "w") as f:
        f.write("// the instructor's\n")
    build = os.path.join(TMP, "build")
    objs = {}
    for name in ("interpose.c", "honest.c"):
        # CMake's two layouts: a target defined above the file's folder, and in it
        obj = os.path.join(build, "CMakeFiles", "t.dir", "lab", name + ".o") \
            if name == "interpose.c" else os.path.join(build, "lab", "CMakeFiles", "t.dir",
                                                       name + ".o")
        objs[name] = compile_c(name, obj, "-c", "-MD", "-MF", obj + ".d",
                                 f'-DOUTSIDE="{outside}"')
        expect(abuse.objects(build, [f"lab/{name}"]) == [obj], f"{name}'s object not found")
    allowed = [os.path.join(HERE, "attacks"), "/usr"]
    bad = abuse.definitions([objs["interpose.c"]], build)
    expect("omp_get_num_threads" in str(bad) and "clock_gettime" in str(bad),
           f"interpose.c's definitions: {bad}")
    deps = abuse.dependencies([objs["interpose.c"]], allowed)
    expect(outside in str(deps), f"interpose.c's header outside the tree: {deps}")
    for found in (abuse.definitions([objs["honest.c"]], build),
                  abuse.dependencies([objs["honest.c"]], allowed)):
        expect(not found, f"honest.c flagged: {found}")
    probe = {"backend_openmp/batch.cpp": ['  asm(".incbin \\"/etc/hostname\\"");',
                                          "#if __has_include(\"/work/backend_openmp/x.cpp\")"]}
    expect(len(abuse.reaches(probe)[0][1].split("; ")) == 2, f"reaches: {abuse.reaches(probe)}")
    expect(not abuse.reaches({"f.cpp": ['  const char* s = "incbin";', "  int x = 1;"]}),
           "honest lines read as a reach for files")
    # What the kernel saw the runs do.
    spin = compile_c("spin.c", os.path.join(TMP, "bin", "lenet-spin"))

    def observed(cmd):
        r = procs.run(cmd, timeout=120, cwd=TMP, observe=True)
        expect(r.ok, f"{' '.join(cmd)}: exit {r.rc}: {r.last_line()}")
        return flagged(abuse.threads(cmd, r.observed))

    expect("threads beyond those asked" in observed([spin, "--threads", "2"]),
           "4 busy threads where 2 were asked: not flagged")
    expect(not observed([spin, "--threads", "2", "--honest"]), "2 threads of 2 flagged")
    cpu = str(min(os.sched_getaffinity(0)))
    if len(os.sched_getaffinity(0)) >= 2:
        pinned = ["taskset", "-c", cpu, spin, "--threads", "1"]
        expect("CPU affinity beyond the CPUs given" in observed(pinned + ["--widen"]),
               "threads that widened their pin: not flagged")
        expect(not observed(pinned + ["--honest"]), "threads kept on their pin flagged")
    crowd = "for i in $(seq {}); do sleep 2 & done; wait"
    expect("many processes at once" in observed(["sh", "-c", crowd.format(80)]),
           "80 processes at once: not flagged")
    expect(not observed(["sh", "-c", crowd.format(5)]), "5 processes flagged")
    print("every flag seen on its attack, none on the honest programs")


def lab(*args, env=None):
    p = subprocess.run(LAB + [str(a) for a in args], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})), timeout=1800)
    return p.returncode, p.stdout + p.stderr


def report(folder, n):
    with open(os.path.join(folder, f"grade-{n}.json")) as f:
        return json.load(f)


def exposed():
    """A class's folder without a sandbox: alice's grading is refused while bob's file, or the
    instructor's solution, is readable by the user that runs student code."""
    if not users.as_root():
        raise Skipped("the grading user is the grader's own without root")
    ids = users.unprivileged_ids()
    klass = os.path.join(TMP, "class")
    os.makedirs(klass)
    alice, bob = os.path.join(klass, "alice"), os.path.join(klass, "bob")
    rc, out = lab("start", 1, alice)
    expect(rc == 0, f"lab.sh start 1: {out[-300:]}")
    shutil.copytree(alice, bob)
    f = manifest.load(1)["files"][0]
    solution = os.path.join(ROOT, f)
    open_root = bool(contain.readable_by(ids, [solution]))
    rc, out = lab("grade", 1, alice, "--no-timing", env={"LAB_SANDBOX": "off"})
    said = report(alice, 1)["output"]
    expect(rc == 3 and os.path.join(bob, f) in said and (solution in said) == open_root,
           f"bob's {f} open{' and the solution' if open_root else ''}: exit {rc}, '{said}'")
    if open_root:  # bob closed, the solution still open: refused for it alone (no build)
        os.chmod(bob, 0o700)
        rc, out = lab("grade", 1, alice, "--no-timing", env={"LAB_SANDBOX": "off"})
        said = report(alice, 1)["output"]
        expect(rc == 3 and bob not in said and solution in said,
               f"bob closed, the solution open: exit {rc}, '{said}'")
    print(f"refused while open: {said}")
    # Without a sandbox student code runs as the user that builds the starters: it must not
    # reach their compiler cache, whose objects later starters and the reference are made of.
    cc = build.Cache(build.default_cache(ROOT)).compiler_cache()
    plant = subprocess.run(["sh", "-c", f'mkdir -p "{cc}/0" && echo planted > "{cc}/0/object"'],
                           capture_output=True, text=True, timeout=60, user=ids[0],
                           group=ids[1], extra_groups=[], cwd="/")
    expect(plant.returncode != 0 and not os.path.exists(os.path.join(cc, "0", "object")),
           f"the user that runs student code wrote into the compiler cache {cc}")
    print(f"the compiler cache {cc}: out of that user's reach")


def submission(n, name, probe=True):
    """A starter of lab n with its regions replaced by submissions/labN/NAME's bodies, alone
    in its folder (without a sandbox, a submission beside it would refuse the grading). A
    compile-time probe of /work/main names this project's path; probe=False drops it."""
    folder = os.path.join(TMP, name + ("" if probe else "-no-probe"), f"lab{n}")
    os.makedirs(os.path.dirname(folder))
    rc, out = lab("start", n, folder)
    expect(rc == 0, f"lab.sh start {n}: {out[-300:]}")
    for f in manifest.load(n)["files"]:
        path = os.path.join(folder, f)
        text = tree.read(path)
        bodies = [tree.read(os.path.join(HERE, "submissions", f"lab{n}", name,
                                         f"{os.path.basename(f)}.{k}"))
                  for k in range(1, len(regions.spans(text, n)) + 1)]
        bodies = [b.replace("/work/main", ROOT) for b in bodies]
        if not probe:
            bodies = [re.sub(r"#if __has_include.*?#endif\n", "static const bool probed = false;\n",
                             b, flags=re.S) for b in bodies]
        with open(path, "w") as out:
            out.write(regions.replace(text, n, bodies))
    return folder


def graded_lab1(plain=False):
    """The daemon submission, graded as a teaching assistant would, in the sandbox where there
    is one, or (plain) without it, the project closed to the run's user while it grades: a flag
    for each thing it did, each with its evidence, and nothing of it left."""
    if not users.as_root():
        raise Skipped("the grading user is the grader's own without root")
    marker = "labkit-abuse-daemon"  # the submission's name for its daemon, files and key
    # Without a sandbox, the probe of the closed project is a compile error: graded apart.
    folder = submission(1, "daemon", probe=not plain)
    probe = submission(1, "daemon") if plain else None
    honest = None if plain else submission(1, "alt")  # correct: no flag
    mode = os.stat(ROOT).st_mode & 0o7777
    env = {}
    if plain:  # and no cgroup, as in a container's root (Gradescope's)
        env.update(LAB_SANDBOX="off", LAB_CGROUP="off")
        os.chmod(ROOT, mode & ~0o007)  # the solutions closed to others (restored below)
    try:
        if probe:
            rc, out = lab("grade", 1, probe, "--no-timing", env=env)
            r = report(probe, 1)
            expect(r["verdict"] == "FLAGGED" and r["tests"][0]["verdict"] == "COMPILE-ERROR" and
                   any(f.startswith("reaches for files at compile time")
                       for f in r["extra_data"]["flags"]),
                   f"the probe of the closed project: verdict {r['verdict']}, flags "
                   f"{r['extra_data']['flags']}: {r['output'][:200]}")
        if honest:
            rc, out = lab("grade", 1, honest, "--no-timing", env=env)
            expect(os.path.isfile(os.path.join(honest, "grade-1.json")),
                   f"lab.sh grade 1 wrote no report (exit {rc}): {out[-400:]}")
            r = report(honest, 1)
            expect(rc == 0 and not r["extra_data"]["flags"],
                   f"a correct lab 1: exit {rc}, flags {r['extra_data']['flags']}")
        rc, out = lab("grade", 1, folder, "--no-timing", env=env)
        expect(os.path.isfile(os.path.join(folder, "grade-1.json")),
               f"lab.sh grade 1 wrote no report (exit {rc}): {out[-400:]}")
        r = report(folder, 1)
        print(f"--- exit {rc}, score {r['score']}: {r['output'][:300]}")
        for t in r["tests"]:
            print(f"    {t['score']:>5} / {t['max_score']:<3} {t['name']}: "
                  f"{t['output'].splitlines()[0][:150] if t['output'] else ''}")
        for line in r["extra_data"]["flags"]:
            print(f"    flag: {line[:200]}")
        said = " | ".join(r["extra_data"]["flags"])
        want = ["defines the runtime's functions: kmp_get_blocktime",
                "threads beyond those asked",
                "keys left in the keyring of the user that runs student code"]
        if not plain:
            want.append("reaches for files at compile time")
        if plain or sandbox.missing():
            want += ["processes left after a run", "files left after a run"]
        missing = [w for w in want if w not in said]
        expect(not missing, f"not flagged: {missing}")
        expect(r["extra_data"]["contained"].startswith(("a cgroup", "its user's", "its session")),
               f"the report does not say how runs were contained: {r['extra_data']}")
        left = marked(marker)
        expect(not left, f"left after the grading: {', '.join(left[:5])}")
    finally:
        os.chmod(ROOT, mode)
        clean(marker)
    print("flagged for each, nothing left")


def run(what):
    try:
        if what == ["tool"]:
            tool()
        elif what == ["contain"]:
            contain_beside()
        elif what == ["contain", "--alone"]:
            contain_runs()
        elif what == ["flags"]:
            flags()
        elif what == ["exposed"]:
            exposed()
        elif what == ["lab", "1"]:
            graded_lab1()
        elif what == ["lab", "1", "plain"]:
            graded_lab1(plain=True)
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
