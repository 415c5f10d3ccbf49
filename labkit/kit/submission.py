"""What a student handed in: the lab's files (a starter folder, a folder of files, or files at
their base names as Gradescope and PrairieLearn lay them out), reduced to the bodies of the
lab's regions. Everything else is ignored, and the report says what.
"""
import os

from . import regions, tree


class Refused(Exception):
    """A submission that is not lab N's: the report says why, and it earns nothing."""


def locate(root, relpath):
    """The submitted copy of relpath under root: at that path, or the one file anywhere below
    root whose path ends with it, or with its base name."""
    direct = os.path.join(root, relpath)
    if os.path.isfile(direct):
        return direct
    ends, names = [], []
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in tree.SKIP_DIRS | tree.SKIP_TOP and
                   not d.startswith("build")]
        for f in files:
            p = os.path.join(top, f)
            if p.endswith(os.sep + relpath):
                ends.append(p)
            elif f == os.path.basename(relpath):
                names.append(p)
    for found in (ends, names):
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise Refused(f"{len(found)} files named {os.path.basename(relpath)} in the "
                          f"submission ({', '.join(sorted(found)[:3])}): hand in one")
    return None


def started_for(root):
    """The lab a starter copy was made for (its .lab file), or None."""
    try:
        with open(os.path.join(root, ".lab"), encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition("=")
                if key.strip() == "lab" and value.strip().isdigit():
                    return int(value.strip())
    except OSError:
        pass
    return None


def read_work(root, manifests, lab, ref_root, starter):
    """The bodies of lab's regions in the submission under root: ({file: [bodies]}, {file: [the
    first line of each body there]}, [notes of what was ignored]). Raises Refused for
    a submission of another lab, or one without the lab's files or markers."""
    m = manifests[lab]
    origin = started_for(root)
    if origin is not None and origin != lab:
        raise Refused(f"this copy was started for lab {origin} (its .lab file says so), not "
                      f"lab {lab}: grade it as lab {origin}, or start lab {lab} "
                      f"(lab.sh start {lab} DIR)")
    # A folder that holds another lab's stubs was started for that lab.
    for n, other in manifests.items():
        if n == lab:
            continue
        for f in other["files"]:
            path = os.path.join(root, f)
            if not os.path.isfile(path):
                continue
            try:
                got = regions.bodies(tree.read(path), n)
            except (regions.RegionError, UnicodeDecodeError):
                continue
            stubs = [tree.piece("stubs", n, f, k) for k in range(1, len(got) + 1)]
            if got and regions.same_bodies(got, stubs):
                raise Refused(f"{f} holds lab {n}'s untouched stub: this copy was started for "
                              f"lab {n}, not lab {lab}")
    work, where, ignored = {}, {}, []
    for f in m["files"]:
        path = locate(root, f)
        if path is None:
            raise Refused(f"no {f} in the submission: lab {lab} is graded on "
                          f"{', '.join(m['files'])}")
        try:
            text = tree.read(path).replace("\r\n", "\n")  # as saved on Windows
            got = regions.bodies(text, lab)
        except UnicodeDecodeError:
            raise Refused(f"{f} is not UTF-8 text")
        except regions.RegionError as e:
            raise Refused(f"{f}: {e}: put the LAB {lab} BEGIN/END lines back around your work")
        reference = tree.read(os.path.join(ref_root, f))
        want = len(regions.spans(reference, lab))
        if len(got) != want:
            raise Refused(f"{f} has {len(got)} LAB {lab} regions where the lab has {want}: put "
                          f"the LAB {lab} BEGIN/END lines back around your work")
        standins = [tree.piece("standins", lab, f, k) for k in range(1, want + 1)]
        if regions.same_bodies(got, standins):
            raise Refused(f"{f}'s LAB {lab} regions hold the stand-in that other labs' starters "
                          f"carry, no work of lab {lab}: this is not a lab {lab} copy")
        if regions.outside(text, lab) != regions.outside(starter[f], lab):
            ignored.append(f"{f}: changes outside the LAB {lab} regions (graded with the "
                           f"starter's lines there)")
        work[f] = got
        where[f] = regions.first_lines(text, lab)
    return work, where, ignored


def other_changes(root, manifests, lab, ref_root, starter, limit=20):
    """The files of a starter-shaped submission that differ from lab's starter (`starter`:
    tree.variant's texts of its region files), less the lab's own files: all ignored by the
    grader."""
    if not os.path.isdir(os.path.join(root, "labkit")) and started_for(root) is None:
        return []  # not a copy of the project: only the lab's files were handed in
    want = set(tree.project_files(ref_root, for_students=True))
    have = set(tree.project_files(root))
    own = set(manifests[lab]["files"])
    changed = []
    for f in sorted(have - own):
        if f not in want:
            changed.append(f"{f} (added)")
            continue
        theirs = os.path.join(root, f)
        if f in starter:
            try:
                same = tree.read(theirs) == starter[f]
            except UnicodeDecodeError:
                same = False
        else:
            with open(theirs, "rb") as a, open(os.path.join(ref_root, f), "rb") as b:
                same = a.read() == b.read()
        if not same:
            changed.append(f"{f} (changed)")
    changed += [f"{f} (removed)" for f in sorted(want - have - own)]
    if len(changed) > limit:
        changed = changed[:limit] + [f"and {len(changed) - limit} more"]
    return changed

