"""Copies of the project: starters, graded trees and reference trees.

For lab N, every region of every lab is replaced:
  starter(N)            lab N's regions by its stubs, every other lab's by its stand-in
  graded(N, work)       starter(N) with lab N's regions holding the student's work
  reference(N)          graded(N, the solution)
A stand-in (labkit/standins) is a working replacement that gives no part of its lab's answer
away (the serial or `ref` path), so a starter builds and runs, and neither a starter nor the
tree a student's code runs in while graded holds any lab's solution. The instructor's tree (the
project) is the only place the solutions live.
"""
import hashlib
import os
import re
import shutil

from . import regions
from .manifest import KIT

SKIP_DIRS = {".git", "__pycache__", "node_modules"}  # anywhere
SKIP_TOP = {"data", "results", ".whl"}  # at the top: data sets and outputs
SKIP_FILE = re.compile(r"^(grade-\d+\.(md|json|log)|.*\.tmp|\.lab)$")
# The kit's own tests hold submissions, correct ones among them: never in a copy for students.
INSTRUCTOR_ONLY = ("labkit/tests/",)


def project_files(root, *, for_students=False):
    """The project's files under root, relative, sorted: no build folders, data, results,
    grade reports or version control."""
    found = []
    for top, dirs, files in os.walk(root):
        rel_top = os.path.relpath(top, root)
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not (
            rel_top == "." and (d in SKIP_TOP or d.startswith("build"))))
        for f in files:
            if SKIP_FILE.match(f):
                continue
            rel = f if rel_top == "." else os.path.join(rel_top, f)
            if for_students and rel.startswith(INSTRUCTOR_ONLY):
                continue
            found.append(rel)
    return sorted(found)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def piece(kind, lab, file, k):
    """The text of a stub or stand-in: labkit/{stubs,standins}/labN/BASENAME.K."""
    return read(os.path.join(KIT, kind, f"lab{lab}", f"{os.path.basename(file)}.{k}"))


def region_files(manifests):
    """{file: [labs with regions in it]} over every lab's manifest."""
    files = {}
    for n, m in manifests.items():
        for f in m["files"]:
            files.setdefault(f, []).append(n)
    return files


def variant(ref_root, manifests, lab, work=None, solved=()):
    """{file: text} for every file holding regions, in the copy of `lab`: lab's regions hold
    `work` ({file: [bodies]}) or, without it, its stubs; the labs in `solved` keep the
    solution (released after their deadline); every other lab's hold its stand-ins."""
    out = {}
    for f, labs in region_files(manifests).items():
        text = read(os.path.join(ref_root, f))
        for n in labs:
            count = len(regions.spans(text, n))
            if n in solved and n != lab:
                continue
            if n == lab and work is not None:
                new = work[f]
            else:
                kind = "stubs" if n == lab else "standins"
                new = [piece(kind, n, f, k) for k in range(1, count + 1)]
            text = regions.replace(text, n, new)
        out[f] = text
    return out


def solution(ref_root, manifest):
    """{file: [bodies]}: the solution's regions of a lab, from the instructor's tree."""
    n = manifest["lab"]
    return {f: regions.bodies(read(os.path.join(ref_root, f)), n) for f in manifest["files"]}


def reference(ref_root, manifests, lab):
    """{file: text}: the reference of `lab`, its solution among every other lab's stand-ins."""
    return variant(ref_root, manifests, lab, solution(ref_root, manifests[lab]))


def copy_data(ref_root, dst):
    """The timing data set data/digits of ref_root into dst (whole, or not at all), where
    ref_root has it and dst has not."""
    src = os.path.join(ref_root, "data", "digits")
    if os.path.isdir(src) and not os.path.isdir(dst):
        tmp = dst + ".tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(src, tmp)
        os.replace(tmp, dst)


def write(ref_root, dst, overrides):
    """Makes dst's project files those of ref_root (less the instructor's), with `overrides`
    ({file: text}) in place of theirs. A file whose contents are already right is left alone,
    time stamp included, so that a build in dst recompiles only what changed; files that are
    not project files (a build folder inside dst) stay. `owner` (uid, gid): the owner of what
    is written. Returns the number of files written."""
    os.makedirs(dst, exist_ok=True)
    want = project_files(ref_root, for_students=True)
    written = 0
    for f in want:
        target = os.path.join(dst, f)
        if f in overrides:
            data = overrides[f].encode("utf-8")
        else:
            with open(os.path.join(ref_root, f), "rb") as src:
                data = src.read()
        try:
            with open(target, "rb") as old:
                if old.read() == data:
                    continue
        except OSError:
            pass
        os.makedirs(os.path.dirname(target) or ".", exist_ok=True)
        tmp = target + ".tmp"
        with open(tmp, "wb") as out:
            out.write(data)
        shutil.copymode(os.path.join(ref_root, f), tmp)
        os.replace(tmp, target)
        written += 1
    for f in set(project_files(dst)) - set(want):
        os.remove(os.path.join(dst, f))
    return written


# What no build reads: a change there rebuilds nothing.
NOT_BUILT = ("labkit/", "docs/")


def stamp(root, overrides=None):
    """A hash of a tree's project files as write() would lay them, less those no build reads."""
    h = hashlib.sha256()
    overrides = overrides or {}
    for f in project_files(root, for_students=True):
        if f.startswith(NOT_BUILT) or f.endswith(".md"):
            continue
        h.update(f.encode() + b"\0")
        if f in overrides:
            h.update(overrides[f].encode("utf-8"))
        else:
            with open(os.path.join(root, f), "rb") as src:
                h.update(src.read())
    return h.hexdigest()[:16]
