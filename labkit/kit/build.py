"""The grader's build: one source mirror and one build folder in the cache, into which the
reference and each graded copy are written in turn, so that a grading recompiles only the files
that differ. Student code is compiled and run as `nobody` where the grader is root."""
import hashlib
import os
import re
import shutil
import subprocess

from . import procs, regions, tree

EXECUTABLES = ("lenet-serial", "lenet-openmp", "lenet-mpi", "lenet-cuda", "lenet-cuda-emu",
               "lenet-bench-layers")


def default_cache(root):
    """$LAB_CACHE, or: for root, a folder of /var/tmp per project (one that `nobody`, who runs
    the student code, can reach); for anyone else, build-lab/ in the project."""
    if os.environ.get("LAB_CACHE"):
        return os.path.abspath(os.environ["LAB_CACHE"])
    if procs.as_root():
        return os.path.join("/var/tmp/lenet-labkit", hashlib.sha256(root.encode()).hexdigest()[:12])
    return os.path.join(root, "build-lab")


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


class Cache:
    def __init__(self, path):
        self.path = path
        self.src = os.path.join(path, "src")
        self.build = os.path.join(path, "build")
        self.owner = procs.unprivileged_ids() if procs.as_root() else None

    def prepare(self):
        os.makedirs(self.path, exist_ok=True)
        if procs.as_root():
            os.chmod(self.path, 0o755)
        for d in (self.src, self.build):
            os.makedirs(d, exist_ok=True)
            if self.owner:
                os.chown(d, *self.owner)

    def lay(self, ref_root, overrides):
        return tree.write(ref_root, self.src, overrides, owner=self.owner)

    def compile(self, manifest, mode, targets, log, timeout):
        """Configure (where the options changed) and build `targets` of the tree in src, as
        the unprivileged user. Returns a procs.Result."""
        preset, options = configuration(manifest, mode)
        # The preset's own folder is in src: the build goes to the cache's build folder.
        configure = ["cmake", "--preset", preset, "-S", self.src, "-B", self.build] + options
        r = procs.run(configure, timeout=timeout, cwd=self.build, untrusted=True, log=log)
        if not r.ok:
            return r
        build = ["cmake", "--build", self.build, "-j", str(os.cpu_count() or 1), "--target"]
        r = procs.run(build + targets, timeout=timeout, cwd=self.build, untrusted=True, log=log)
        # A link cut short leaves its output without the execute bit and newer than its inputs,
        # which make then takes as done: remove such a leftover and build again.
        broken = [p for p in self.executables(targets, executable=False).values()
                  if not os.access(p, os.X_OK)] if r.ok else []
        if broken:
            for p in broken:
                os.remove(p)
            r = procs.run(build + targets, timeout=timeout, cwd=self.build, untrusted=True,
                          log=log)
        if r.ok and mode == "emulated" and has_nvcc() and "nvcc_object" in manifest:
            # nvcc compiles the lab's file too (for the T4), for what only nvcc rejects.
            folder, target = manifest["nvcc_object"]
            r = procs.run(["make", "-C", os.path.join(self.build, folder), target],
                          timeout=timeout, cwd=self.build, untrusted=True, log=log)
        return r

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

    def copy_executables(self, dst, *, private):
        """The built executables into dst; private: readable by the grader's user only."""
        if os.path.isdir(dst):
            shutil.rmtree(dst)
        os.makedirs(dst)
        for name, path in self.executables().items():
            shutil.copy2(path, os.path.join(dst, name))
        if private:
            os.chmod(dst, 0o700)
        elif self.owner:
            for f in os.listdir(dst) + [""]:
                os.chown(os.path.join(dst, f), *self.owner)


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
