"""The grader's own judgements of what a student's program wrote: its parameters (checkpoint
files) against the reference's, and a Catch2 test binary's XML report against the reference's.
Only this code, which no student program links, decides; nothing a program prints is read.
"""
import struct
import zlib
from xml.etree import ElementTree

# The one word each check (and each grading) ends with, as DOMjudge's judges say it.
WORDS = {
    "CORRECT": "the check passed",
    "WRONG": "the program ran and ended, and what it computed is not the reference's",
    "TIMEOUT": "a build or run did not end within its limit and was killed",
    "RUN-ERROR": "a run crashed, exited non-zero or wrote no result",
    "COMPILE-ERROR": "the submission did not build",
    "REFUSED": "not a submission of this lab: nothing was built or run",
    "FLAGGED": "evidence that the submission worked against the grader (the flags say which)",
    "NOT-RUN": "not run: an earlier check failed or hung, or this machine cannot run it",
}

# The parameter tensors in checkpoint order (docs/network.md; common/network.hpp's
# kParamTensors).
TENSORS = (("W1", 150), ("b1", 6), ("W2", 16), ("b2", 1), ("W3", 2160), ("b3", 10))
COUNT = sum(n for _, n in TENSORS)  # 2343
# The tolerance of --verify (common/verify.hpp): |got - want| <= ATOL_SCALE * max|want over the
# tensor| + RTOL * |want|.
RTOL, ATOL_SCALE = 2e-5, 2e-5
# expat's code for data after the document's root element ended
JUNK_AFTER_END = 9


class Unreadable(Exception):
    """A checkpoint that is missing or not one: the message says which and why."""


def read_checkpoint(path):
    """The parameters of a checkpoint file (LENETCK1 or LENETCK2, docs/checkpoints.md) as a
    list of floats, their CRC-32 checked."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError:
        raise Unreadable("the run wrote no parameters (no checkpoint file)")
    if len(data) < 16 or data[:8] not in (b"LENETCK1", b"LENETCK2"):
        raise Unreadable("the run's checkpoint is not one (wrong magic)")
    (count,) = struct.unpack_from("<I", data, 8)
    end = 12 + 4 * count
    if count != COUNT or len(data) < end + 4:
        raise Unreadable(f"the run's checkpoint holds {count} parameters, not {COUNT}")
    (crc,) = struct.unpack_from("<I", data, len(data) - 4)
    if zlib.crc32(data[:-4]) != crc:
        raise Unreadable("the run's checkpoint fails its CRC-32")
    return list(struct.unpack_from(f"<{count}f", data, 12))


def _bits(x):
    return struct.pack("<f", x)


def differences(got, want, *, exact):
    """None when got matches want (bit for bit, or within --verify's tolerance), else one line
    naming the first tensor that differs and how many of its values do."""
    offset = 0
    for name, n in TENSORS:
        g, w = got[offset:offset + n], want[offset:offset + n]
        offset += n
        if exact:
            bad = [i for i in range(n) if _bits(g[i]) != _bits(w[i])]
        else:
            finite = [abs(x) for x in w if x == x and abs(x) != float("inf")]
            atol = ATOL_SCALE * (max(finite) if finite else 0.0)
            bad = [i for i in range(n) if not (abs(g[i] - w[i]) <= atol + RTOL * abs(w[i]))]
        if bad:
            i = bad[0]
            how = "bit for bit" if exact else "within float32 rounding"
            return (f"{name} differs from the reference's: {len(bad)} of its {n} values are not "
                    f"the same {how} (first: {name}[{i}] = {g[i]!r}, the reference's "
                    f"{w[i]!r})")
    return None


class Report:
    """A Catch2 XML report: the test cases it ran, whether each passed, and the assertions
    counted over all of them; complete is False where the process ended before it wrote the
    report's end. From a file (the reference's, -r xml -o FILE) or from the bytes a student's
    test wrote into the grader's pipe (data, stream.py): exactly one report, nothing after its
    end, or `tampered` says what else the stream holds."""

    def __init__(self, path=None, *, data=None):
        self.cases, self.successes, self.failures, self.complete = {}, 0, 0, False
        self.failed_expressions, self.tampered = [], None
        try:
            root = ElementTree.parse(path).getroot() if data is None else self._one(data)
        except (OSError, ElementTree.ParseError):
            return
        for case in root.iter("TestCase"):
            result = case.find("OverallResult")
            self.cases[case.get("name")] = result is not None and result.get("success") == "true"
        totals = root.find("OverallResults")
        if totals is not None:
            self.complete = True
            self.successes = int(totals.get("successes", 0))
            self.failures = int(totals.get("failures", 0))
        self.failed_expressions = [
            (e.get("filename", "").rsplit("/", 1)[-1], e.get("line"),
             " ".join((e.findtext("Original") or "").split()),
             " ".join((e.findtext("Expanded") or "").split()))
            for e in root.iter("Expression") if e.get("success") == "false"]

    def _one(self, data):
        """The root of the one report in data; tampered is set where data holds more."""
        reports = data.count(b"<?xml")
        if reports > 1:
            self.tampered = f"{reports} reports in one stream, where Catch2 writes one"
        try:
            return ElementTree.fromstring(data)
        except ElementTree.ParseError as e:
            if e.code != JUNK_AFTER_END:
                raise  # an unfinished report: the process ended before its end
            self.tampered = self.tampered or "text written after the report's end"
            line, column = e.position  # where the rest begins (expat: bytes into the line)
            lines = data.split(b"\n")
            end = sum(len(l) + 1 for l in lines[:line - 1]) + column
            return ElementTree.fromstring(data[:end])

    def against(self, want):
        """None when this report is the reference's `want`: the same test cases, each passed,
        as many assertions; else why not."""
        if not self.complete:
            return "exited before its report: the test process ended without finishing it"
        missing = [name for name in want.cases if name not in self.cases]
        if missing:
            return f"exited before its report: test case '{missing[0]}' never ran"
        failed = [name for name, ok in self.cases.items() if not ok]
        if failed or self.failures:
            first = self.failed_expressions[0] if self.failed_expressions else None
            where = f" ({first[0]}:{first[1]})" if first and first[1] else ""
            what = f": CHECK( {first[2]} ) got: {first[3]}{where}" if first else ""
            return f"'{(failed or ['?'])[0]}' failed{what}"
        if self.successes != want.successes:
            return (f"{self.successes} assertions passed where the test checks "
                    f"{want.successes}: some were skipped")
        return None
