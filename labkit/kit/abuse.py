"""Flags for abuse that no score sees (docs/labs.md, "What gets flagged"). Each returns
[(what, evidence)]: what the submission did, and where the grader saw it. None changes a score
by itself; a teaching assistant reads them.

  threads beyond those asked   the kernel's CPU time per thread (/proc), and each thread's
                               CPU affinity against the CPUs the grader gave the run
  many processes at once       the run's processes, counted in each sample of /proc
  the runtime's functions      what the student's own objects define (nm --defined-only):
                               OpenMP, MPI, clocks, affinity
  files outside the tree       the compiler's dependency files (-MD) of the student's objects,
                               and the regions' text (.incbin, __has_include, absolute paths)
"""
import os
import re
import subprocess

# Names a submission has no reason to define: the OpenMP and MPI runtimes', the clocks' and
# those that set or tell the CPUs (symbol interposition: its definition replaces the library's).
RUNTIME = re.compile(r"^(omp_|GOMP_|__kmpc_|kmp_|MPI_|PMPI_|MPIX_)\w*$|^(clock_gettime|"
                     r"gettimeofday|clock|time|times|getrusage|timespec_get|clock_getres|"
                     r"sched_getaffinity|sched_setaffinity|pthread_setaffinity_np|sysconf|"
                     r"get_nprocs|get_nprocs_conf|sched_getcpu)$|chrono\w*3now")
GLOBAL_DEFINED = set("TWVDBRGSiu")  # nm's types of a global definition (lowercase: local)
BUSY = 0.05  # seconds of CPU: a thread that used less did no share worth counting
MANY = 64  # processes at once: no lab's run needs more (lab 3: 4 ranks and their launcher)
# A line of the regions that reaches for a file: an assembler include, a probe of whether a
# path exists, an #include by absolute path or from above.
REACH = re.compile(r"\.incbin|__has_include|#\s*include\s*[<\"](/|[^>\"]*\.\./)|#\s*embed\b")


def threads(cmd, observed):
    """Threads of a lenet-* program that did work beyond the --threads N it was given, and
    threads whose CPU affinity goes beyond the CPUs the run was pinned to (taskset -c)."""
    found = []
    asked = _option(cmd, "--threads")
    for rec in observed.procs.values():
        if not rec["exes"] or not os.path.basename(rec["exes"][-1]).startswith("lenet-"):
            continue
        busy = sorted((t for t in rec["threads"].values() if t >= BUSY), reverse=True)
        if asked and len(busy) > int(asked):
            found.append(("threads beyond those asked",
                          f"{os.path.basename(rec['exes'][-1])} --threads {asked}: {len(busy)} "
                          f"threads used CPU ({', '.join('%.2f s' % t for t in busy[:8])}, "
                          f"from /proc)"))
    pinned = _pinned(cmd)
    # An MPI launcher binds its daemons and ranks itself (hwloc), whatever taskset gave it: the
    # reference's own ranks then run on every CPU, so the affinity says nothing there.
    mpi = any(os.path.basename(c) in ("mpi_launch.sh", "mpirun", "mpiexec") for c in cmd)
    if pinned is not None and not mpi:
        wide = sorted({(tid, cpus) for tid, cpus in observed.affinity.items()
                       if not set(cpus) <= pinned})
        if wide:
            found.append(("CPU affinity beyond the CPUs given",
                          f"the run was pinned to CPU {_cpus(pinned)} (taskset), threads "
                          + ", ".join(f"{tid} ran on {_cpus(c)}" for tid, c in wide[:4])))
    if observed.most >= MANY:
        found.append(("many processes at once",
                      f"{observed.most} processes of one run at once (from /proc; a lab's run "
                      f"needs fewer than {MANY})"))
    return found


def _option(cmd, name):
    return cmd[cmd.index(name) + 1] if name in cmd[:-1] else None


def _pinned(cmd):
    if len(cmd) > 2 and os.path.basename(cmd[0]) == "taskset" and cmd[1] == "-c":
        cpus = set()
        for part in cmd[2].split(","):
            a, _, b = part.partition("-")
            cpus.update(range(int(a), int(b or a) + 1))
        return cpus
    return None


def _cpus(cpus):
    return ",".join(map(str, sorted(cpus)))


def objects(build, files):
    """The object files the build compiled from the lab's files (relative paths in files)."""
    found = []
    for top, _, names in os.walk(build):
        for name in names:
            # CMake's object of DIR/FILE: BUILD/[DIR/]CMakeFiles/TARGET.dir/[DIR/]FILE.o, as
            # the target is defined in DIR's CMakeLists.txt or above it.
            parts = os.path.relpath(os.path.join(top, name), build).split(os.sep)
            if "CMakeFiles" in parts:
                at = parts.index("CMakeFiles")
                parts = parts[:at] + parts[at + 2:]
            if name.endswith(".o") and "/".join(parts)[:-2] in files:
                found.append(os.path.join(top, name))
    return sorted(found)


def definitions(objs, where):
    """Global definitions of the runtime's names (RUNTIME) in the student's objects (nm)."""
    found = {}
    for obj in objs:
        try:
            r = subprocess.run(["nm", "--defined-only", "-P", obj], capture_output=True,
                               text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            continue
        for line in r.stdout.split("\n"):
            parts = line.split()
            if len(parts) >= 2 and parts[1] in GLOBAL_DEFINED and RUNTIME.search(parts[0]):
                found.setdefault(parts[0], os.path.relpath(obj, where))
    if not found:
        return []
    return [("defines the runtime's functions",
             ", ".join(f"{name} (in {obj})" for name, obj in sorted(found.items())[:6]) +
             ": nm --defined-only on the objects compiled from your files")]


def dependencies(objs, allowed):
    """Files outside the allowed folders that the student's objects were compiled from (their
    -MD dependency files, OBJ.d, as CMake has the compiler write them: -MF OBJ.d)."""
    outside = set()
    for obj in objs:
        try:
            with open(obj + ".d", encoding="utf-8", errors="replace") as f:
                text = f.read().replace("\\\n", " ")
        except OSError:
            continue
        # Relative paths are from the folder make ran in: the one that holds CMakeFiles/.
        where = obj.split(os.sep + "CMakeFiles" + os.sep)[0]
        for line in text.split("\n"):
            _, colon, deps = line.partition(": ")
            for dep in deps.split() if colon else []:
                path = os.path.normpath(dep if os.path.isabs(dep) else os.path.join(where, dep))
                if not any(path == a or path.startswith(a.rstrip("/") + "/") for a in allowed):
                    outside.add(path)
    if not outside:
        return []
    return [("compiled with files outside the graded tree",
             ", ".join(sorted(outside)[:6]) + " (the compiler's dependency files)")]


def reaches(work):
    """Lines of the student's regions that name files to read at compile time."""
    found = []
    for f, bodies in sorted(work.items()):
        for body in bodies:
            for line in body.split("\n"):
                if REACH.search(line):
                    found.append(f"{f}: {line.strip()[:120]}")
    if not found:
        return []
    return [("reaches for files at compile time", "; ".join(found[:4]))]
