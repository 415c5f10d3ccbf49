"""Decoys: where student code could look for what it must not read (the instructor's project,
the kit's caches, the folder of the class's submissions), the sandbox shows a stand-in of the
same shape, in the same place, holding nothing: folders named as the real ones, and files that
say they are decoys.

The sandbox alone makes a read of the real places impossible, so nothing would be refused and
nothing flagged: a decoy makes the attempt visible. Each decoy's files and folders get an access
time in the distant past; the kernel moves it at the first read of a file or listing of a
folder (relatime), and the grader, which never touches them, finds it moved. Student code runs
as another user and can neither write the decoys nor set their times back. Root only: without
root the sandbox's user owns what the grader makes.
"""
import os
import shutil

PAST = 1  # the access time given to every decoy: one second after 1970 began
TEXT = ("This is a decoy of the grader's sandbox: the real file is not here. Reading it is "
        "flagged for the teaching assistant.\n")
SKIP = ("/", "/tmp", "/var", "/var/tmp", "/dev", "/proc", "/sys", "/usr", "/etc", "/lab")


def _usable(path):
    """A place a decoy may stand at: not a folder the sandbox needs for itself."""
    path = os.path.normpath(path)
    return path not in SKIP and not path.startswith(("/usr/", "/etc/", "/proc/", "/sys/",
                                                      "/dev/", "/lab/"))


def names(folder):
    """The first 500 names in a real folder, sorted; none where it cannot be read."""
    try:
        return sorted(os.listdir(folder))[:500]
    except OSError:
        return []


def atimes_move(folder):
    """Whether a read moves a file's access time in folder (not on a noatime mount)."""
    probe = os.path.join(folder, ".probe")
    with open(probe, "w") as f:
        f.write("probe\n")
    os.utime(probe, (PAST, os.stat(probe).st_mtime))
    with open(probe) as f:
        f.read()
    moved = os.stat(probe).st_atime > PAST
    os.remove(probe)
    return moved


class Decoys:
    def __init__(self, folder):
        self.folder, self.places = folder, []  # [(decoy here, path in the sandbox)]

    def add(self, there, files=()):
        """A decoy at `there` (a path as the real machine has it): the names of the real
        folder's first 500 entries (folders as empty folders, the rest as decoy files), and a
        decoy file at each of `files` (relative paths)."""
        if not _usable(there) or any(t == there for _, t in self.places):
            return
        here = os.path.join(self.folder, str(len(self.places)))
        os.makedirs(here)
        for name in names(there):
            if not name.startswith("."):
                if os.path.isdir(os.path.join(there, name)):
                    os.makedirs(os.path.join(here, name), exist_ok=True)
                else:
                    files = list(files) + [name]
        for f in files:
            path = os.path.join(here, f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as out:
                out.write(TEXT)
        self.places.append((here, there))

    def seal(self):
        """Read-only to everyone, every access time in the past: done once every decoy is
        made. The paths are kept: read() must not list a folder itself."""
        self.paths = []
        for here, there in self.places:
            for top, dirs, files in os.walk(here, topdown=False):
                for name in files + dirs:
                    self.paths.append((os.path.join(top, name), there, here))
            self.paths.append((here, there, here))
        for path, _, _ in self.paths:  # children before their folder: its listing was the last
            os.chmod(path, 0o555 if os.path.isdir(path) else 0o444)
            os.utime(path, (PAST, os.stat(path).st_mtime))

    def binds(self):
        """[(decoy here, path in the sandbox)], outer places first."""
        return sorted(self.places, key=lambda p: p[1].count("/"))

    def read(self):
        """{decoy's place: [paths read or listed since seal(), as the sandbox showed them]}."""
        found = {}
        for path, there, here in getattr(self, "paths", []):
            if os.stat(path).st_atime > PAST:
                found.setdefault(there, []).append(
                    os.path.normpath(os.path.join(there, os.path.relpath(path, here))))
        return {there: sorted(paths) for there, paths in found.items()}

    def remove(self):
        for here, _ in self.places:
            for top, dirs, _ in os.walk(here):
                os.chmod(top, 0o755)
        shutil.rmtree(self.folder, ignore_errors=True)
