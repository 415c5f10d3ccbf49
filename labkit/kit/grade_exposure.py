"""What student code could read of others' work: without a sandbox, the open paths that refuse
a grading; with one, as root, the decoys whose reads are flagged (decoys.py)."""
import os
import tempfile

from . import decoys, sandbox, users
from .manifest import ROOT


class Exposure:
    """What one grading's student code could read (a part of grade.Grading)."""

    def exposed_list(self, paths):
        """The open paths for a refusal: other students' files first, then this lab's solution
        files, then the rest; a few of each group, whatever the folders' names sort as."""
        mine = {os.path.join(ROOT, f) for f in self.manifests[self.lab]["files"]}
        groups = [sorted(p for p in paths if not p.startswith(ROOT + os.sep)),
                  sorted(p for p in paths if p in mine),
                  sorted(p for p in paths if p.startswith(ROOT + os.sep) and p not in mine)]
        said = []
        for group in groups:
            said += group[:4] + ([f"{len(group) - 4} more"] if len(group) > 4 else [])
        return ", ".join(said)

    def make_decoys(self):
        """Decoys (decoys.py) where student code could look for the instructor's project, the
        kit's caches and the other submissions: in the sandbox, as root; else None."""
        if not users.as_root() or sandbox.missing():
            sandbox.use_decoys([])
            return None
        made = decoys.Decoys(tempfile.mkdtemp(prefix="labkit-decoys-"))
        if not decoys.atimes_move(made.folder):
            self.say("no decoys: reads do not move access times on this file system (noatime)")
            made.remove()
            sandbox.use_decoys([])
            return None
        made.add(ROOT, sorted({f for m in self.manifests.values() for f in m["files"]}))
        made.add(self.cache.path)
        others = os.path.dirname(self.folder)
        made.add(others, [os.path.join(n, f) for n in decoys.names(others)
                          if os.path.isdir(os.path.join(others, n)) for f in self.m["files"]])
        made.seal()
        sandbox.use_decoys(made.binds())
        return made

    def check_decoys(self):
        """A flag for every decoy student code read or listed; the decoys removed."""
        if not self.decoys:
            return
        read = self.decoys.read()
        if read:
            self.flag("read a decoy of the instructor's project, the kit's cache or other "
                      "submissions", "; ".join(f"{there}: {len(paths)} read or listed ("
                                               + ", ".join(paths[:3]) + ")"
                                               for there, paths in sorted(read.items())))
        sandbox.use_decoys([])
        self.decoys.remove()
