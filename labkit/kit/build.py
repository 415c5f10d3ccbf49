"""The grader's builds, in its cache (one grading at a time holds it):

  CACHE/data/digits             the timing data (read-only to student code)
  CACHE/labN-MODE/reference/    the reference (the solution among stand-ins), built by the
                                grader itself, readable by it alone; rebuilt when the project
                                changes
  CACHE/labN-MODE/base/         a pristine build of lab N's starter (its stubs), readable by the
                                grader alone, laid out for the path below
  CACHE/labN-MODE/graded/       the submission's build: a fresh copy of base/ for every grading,
                                the student's regions written into it, built in the sandbox,
                                removed when the grading ends
  CACHE/compilers/ccache/       what the starters' builds compiled (ccache), in a folder only
                                the grader enters

No grading sees another's files, nothing a student build writes outlives its grading, and no
student build ever shares a folder with the reference's objects. Student code is compiled in the
sandbox (sandbox.py), which shows it the graded tree and its build folder only.
"""
import hashlib
import os
import re
import shutil
import subprocess

from . import procs, regions, sandbox, tree, users

EXECUTABLES = ("lenet-serial", "lenet-openmp", "lenet-mpi", "lenet-cuda", "lenet-cuda-emu",
               "lenet-bench-layers")


def default_cache(root):
    """$LAB_CACHE, or a folder per project outside it (its path names no part of the project):
    for root, in /var/tmp; for anyone else, in ~/.cache."""
    if os.environ.get("LAB_CACHE"):
        return os.path.abspath(os.environ["LAB_CACHE"])
    key = hashlib.sha256(root.encode()).hexdigest()[:12]
    if users.as_root():
        return os.path.join("/var/tmp/lenet-labkit", key)
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(home, "lenet-labkit", key)


def has_gpu():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30)
        return out.returncode == 0 and "GPU" in out.stdout
    except (OSError, subprocess.TimeoutExpired):
        return False


def has_nvcc():
    return shutil.which("nvcc") is not None or os.access("/usr/local/cuda/bin/nvcc", os.X_OK)


def configuration(manifest, mode):
    """The preset of CMakePresets.json and the options added to it of a lab's build in `mode`
    (cpu, gpu or emulated)."""
    if manifest.get("needs") != "cuda":
        return "nocuda", []
    if mode == "gpu":
        return "release", ["-DLENET_CUDA=ON", "-DCMAKE_CUDA_ARCHITECTURES=native"]
    # No GPU: the kernels run on the CPU emulation (tests/cuda_emu), which needs no nvcc; where
    # nvcc is found, release's LENET_CUDA=AUTO compiles lenet-cuda for the T4 too, to catch what
    # only nvcc rejects.
    return "release", ["-DCMAKE_CUDA_ARCHITECTURES=75"] if has_nvcc() else []


class Tree:
    """A source folder and its build folder; `inside`: where builds and runs see them (the
    sandbox's /lab/src and /lab/build, so that no path of this machine is written into the
    build), or None: at their own paths."""

    def __init__(self, top, inside=None):
        self.top = top
        self.src = os.path.join(top, "src")
        self.build = os.path.join(top, "build")
        self.src_in = os.path.join(inside, "src") if inside else self.src
        self.build_in = os.path.join(inside, "build") if inside else self.build

    def binds(self, *, writable):
        """sandbox.command's (here, inside) pairs of the two folders."""
        src, build = (self.src, self.src_in), (self.build, self.build_in)
        return ([src], [build]) if writable else ([src, build], [])

    def executables(self, names=EXECUTABLES, executable=True):
        """{name: path} of the built files with those names (only executable ones, unless
        told otherwise)."""
        found = {}
        for top, dirs, files in os.walk(self.build):
            dirs[:] = [d for d in dirs if d != "CMakeFiles"]
            for f in files:
                p = os.path.join(top, f)
                if f in names and f not in found and (not executable or os.access(p, os.X_OK)):
                    found[f] = p
        return found


def private_folder(path):
    """A folder only the grader's user can enter (made anew where it was not)."""
    os.makedirs(path, exist_ok=True)
    os.chmod(path, 0o700)
    return path


class Cache:
    def __init__(self, path):
        self.path = path
        self.owner = users.unprivileged_ids() if users.as_root() else None

    def prepare(self):
        os.makedirs(self.path, exist_ok=True)
        os.chmod(self.path, 0o755)  # the sandboxed user reaches graded/ and data/ through it

    def lab(self, lab, mode):
        top = os.path.join(self.path, f"lab{lab}-{mode}")
        os.makedirs(top, exist_ok=True)
        os.chmod(top, 0o755)
        return top

    @staticmethod
    def _view():
        """The sandbox's /lab, or None where there is no sandbox; builds laid out for one are
        kept apart from builds for the other (a machine may grade both ways: LAB_SANDBOX=off)."""
        return sandbox.VIEW if sandbox.missing() is None else None

    def reference(self, lab, mode):
        name = "reference" if self._view() else "reference-unsandboxed"
        return Tree(private_folder(os.path.join(self.lab(lab, mode), name)), self._view())

    def graded(self, lab, mode):
        return Tree(os.path.join(self.lab(lab, mode), "graded"), self._view())

    def compiler_cache(self):
        """The folder of ccache's files for the starters' builds (build.compile), the
        sandboxed user's, inside a folder only the grader can enter: a run of student code
        without a sandbox, as that same user, cannot reach it to plant an object that a later
        starter (and the reference built on it) would take from the cache."""
        path = os.path.join(private_folder(os.path.join(self.path, "compilers")), "ccache")
        if not os.path.isdir(path):
            os.makedirs(path)
            self.own(path)
        return path

    def base(self, lab, mode):
        name = "base" if self._view() else "base-unsandboxed"
        return os.path.join(private_folder(os.path.join(self.lab(lab, mode), "private")), name)

    def own(self, path):
        """Gives what is under path to the sandboxed user (where the grader is root)."""
        if self.owner is None:
            return
        for top, dirs, files in os.walk(path):
            for name in dirs + files:
                os.lchown(os.path.join(top, name), *self.owner)
        os.lchown(path, *self.owner)

    def has_base(self, lab, mode, stamp):
        try:
            return tree.read(os.path.join(self.base(lab, mode), "stamp")).strip() == stamp
        except OSError:
            return False

    def restore(self, lab, mode, t):
        """Tree t's src/ and build/ as base/ holds them (t: graded/, or the reference where
        both are seen at the sandbox's paths)."""
        base = self.base(lab, mode)
        os.makedirs(t.top, exist_ok=True)
        for folder in (t.src, t.build):
            shutil.rmtree(folder, ignore_errors=True)
        # cp -a keeps the time stamps, so that make recompiles only the files written after.
        for name in ("src", "build"):
            subprocess.run(["cp", "-a", os.path.join(base, name), os.path.join(t.top, name)],
                           check=True)
        return t

    def keep_as_base(self, lab, mode, stamp):
        base, graded = self.base(lab, mode), self.graded(lab, mode)
        shutil.rmtree(base, ignore_errors=True)
        subprocess.run(["cp", "-a", graded.top, base + ".tmp"], check=True)
        with open(os.path.join(base + ".tmp", "stamp"), "w") as f:
            f.write(stamp + "\n")
        os.replace(base + ".tmp", base)

    def forget(self, lab, mode):
        """Removes the graded copy: nothing of a submission outlives its grading."""
        shutil.rmtree(self.graded(lab, mode).top, ignore_errors=True)


def compile(t, manifest, mode, targets, log, timeout, *, untrusted, compiler_cache=None):
    """Configure (unless configured with the same words) and build `targets` of Tree t;
    untrusted: in the sandbox, which sees t's folders only. compiler_cache: a folder where
    ccache keeps what it compiled, for a build of the instructor's code seen at the sandbox's
    paths (a starter), so that each lab's starter compiles only what differs from the one
    before. Returns a procs.Result."""
    preset, options = configuration(manifest, mode)
    # The preset's own folder is in src: the build goes to t's build folder.
    configure = ["cmake", "--preset", preset, "-S", t.src_in, "-B", t.build_in] + options
    read, write = t.binds(writable=True)
    # Only a starter's build may fill the cache, and only in the sandbox, where no student's
    # build can reach the folder: every other build runs its compiler directly (the launcher
    # stays in a restored build's CMake cache, and CCACHE_DISABLE turns it off).
    launcher = []
    if compiler_cache and shutil.which("ccache") and t.src_in != t.src:
        env = sandbox.environment(t.build_in, {"CCACHE_DIR": "/lab/ccache"})
        write = write + [(compiler_cache, "/lab/ccache")]
        launcher = ["-DCMAKE_C_COMPILER_LAUNCHER=ccache", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"]
    else:
        env = sandbox.environment(t.build_in, {"CCACHE_DISABLE": "1"})

    def step(cmd):
        return procs.run(cmd, timeout=timeout, cwd=t.build_in, env=env, untrusted=untrusted,
                         read=read, write=write, log=log, view=t.src_in != t.src)

    # A build restored from the starter's (Cache.restore) is configured with these words
    # already: only the lab's files differ, and make reruns CMake should a CMake file change.
    # Configuring again cost 3 to 4 s a grading.
    done = os.path.join(t.build, "lab-configured")
    try:
        configured = tree.read(done) == " ".join(configure)
    except OSError:
        configured = False
    if not configured:
        r = step(configure + launcher)
        if not r.ok:
            return r
        with open(done, "w") as f:
            f.write(" ".join(configure))
    build = ["cmake", "--build", t.build_in, "-j", str(os.cpu_count() or 1), "--target"]
    r = step(build + targets)
    # A link cut short leaves its output without the execute bit and newer than its inputs,
    # which make then takes as done: remove such a leftover and build again.
    broken = [p for p in t.executables(targets, executable=False).values()
              if not os.access(p, os.X_OK)] if r.ok else []
    if broken:
        for p in broken:
            os.remove(p)
        r = step(build + targets)
    if r.ok and mode == "emulated" and has_nvcc() and "nvcc_object" in manifest:
        # nvcc compiles the lab's file too (for the T4), for what only nvcc rejects.
        folder, target = manifest["nvcc_object"]
        r = step(["make", "-C", os.path.join(t.build_in, folder), target])
    return r


def copy_executables(t, dst):
    """t's built executables into dst (made anew), read-only (the grader's, readable by all)."""
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    os.makedirs(dst)
    for name, path in t.executables().items():
        shutil.copy2(path, os.path.join(dst, name))
        os.chmod(os.path.join(dst, name), 0o555)
    os.chmod(dst, 0o755)


def student_paths(text, src, where, lab):
    """Compiler messages about the mirror's files, pointed at the student's: "SRC/F:L:" becomes
    "F:L:" with L counted in the student's file for a line inside one of lab's regions
    (where[F] = [the 1-based first line of each region's body there]), and
    "F:L (the reference's line, outside your regions):" for any other line."""

    def fix(m):
        f, line = m.group(1), int(m.group(2))
        if f in where:
            mirror = regions.spans(tree.read(os.path.join(src, f)), lab)
            for (a, b), start in zip(mirror, where[f]):
                if a + 1 <= line <= b:
                    return f"{f}:{line - (a + 1) + start}:"
        return f"{f}:{line} (the reference's line, outside your regions):"

    pattern = re.compile(re.escape(src.rstrip("/") + "/") + r"([^:\s]+):(\d+):")
    return pattern.sub(fix, text)
