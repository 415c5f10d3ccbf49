"""The lab regions of a source file: the lines between "LAB N BEGIN" and "LAB N END".

A lab is cut from the real code: each of its regions is marked in the source by a comment line
that starts with "// LAB N BEGIN" and one that starts with "// LAB N END". The marker lines stay
in every copy; only the lines between them (the region's body) change: the solution, a stub, a
stand-in or a student's work. The same words elsewhere (in a string, later in a comment, in code)
are not a marker: a student may print or mention them.
"""
import re

MARKER = re.compile(r"^[ \t]*//[ \t]*LAB (\d+) (BEGIN|END)\b", re.MULTILINE)
MENTION = re.compile(r"LAB (\d+) (BEGIN|END)")


class RegionError(Exception):
    """A file whose markers are not well formed (unclosed, nested or stray)."""


def spans(text, lab):
    """The (first, last) line indices, 0-based and exclusive of the markers, of each region of
    `lab` in `text`, in file order."""
    found, start = [], None
    for i, line in enumerate(text.split("\n")):
        m = MARKER.search(line)
        if not m or int(m.group(1)) != lab:
            continue
        if m.group(2) == "BEGIN":
            if start is not None:
                raise RegionError(f"line {i + 1}: LAB {lab} BEGIN inside another LAB {lab} region")
            start = i + 1
        else:
            if start is None:
                raise RegionError(f"line {i + 1}: LAB {lab} END without a BEGIN")
            found.append((start, i))
            start = None
    if start is not None:
        raise RegionError(f"line {start}: LAB {lab} BEGIN is never closed by LAB {lab} END"
                          + _mentions(text, lab, start))
    return found


def _mentions(text, lab, after):
    """Where a closing marker was probably meant: '' or a note on the first line after line
    `after` that names LAB N END without being a marker line."""
    for i, line in enumerate(text.split("\n")[after:], after + 1):
        m = MENTION.search(line)
        if m and int(m.group(1)) == lab and m.group(2) == "END" and not MARKER.match(line):
            return (f" (line {i} holds 'LAB {lab} END', but a marker is a line that starts "
                    f"with '// LAB {lab} END')")
    return ""


def labs_in(text):
    """The labs that have at least one marker in `text`."""
    return sorted({int(m.group(1)) for m in MARKER.finditer(text)})


def bodies(text, lab):
    """Each region's body, as text ending with a newline (or empty)."""
    lines = text.split("\n")
    return ["".join(line + "\n" for line in lines[a:b]) for a, b in spans(text, lab)]


def replace(text, lab, new_bodies):
    """`text` with the bodies of `lab`'s regions replaced, in order, by `new_bodies`."""
    regions = spans(text, lab)
    if len(regions) != len(new_bodies):
        raise RegionError(f"{len(new_bodies)} bodies for {len(regions)} LAB {lab} regions")
    lines = text.split("\n")
    out, pos = [], 0
    for (a, b), body in zip(regions, new_bodies):
        out.extend(lines[pos:a])
        if body:
            out.extend(body[:-1].split("\n") if body.endswith("\n") else body.split("\n"))
        pos = b
    out.extend(lines[pos:])
    return "\n".join(out)


def outside(text, lab):
    """`text` without the bodies of `lab`'s regions: what a student may not change."""
    return replace(text, lab, [""] * len(spans(text, lab)))


def first_lines(text, lab):
    """The 1-based line number of the first line of each region's body of `lab` in `text`."""
    return [a + 1 for a, _ in spans(text, lab)]


def same_bodies(a, b):
    """Whether two lists of bodies are the same but for layout (normalized)."""
    return [normalized(x) for x in a] == [normalized(y) for y in b]


def normalized(body):
    """A body with blank lines dropped and each line's whitespace runs collapsed: two bodies
    that differ only in layout compare equal."""
    return "\n".join(" ".join(line.split()) for line in body.split("\n") if line.strip())
