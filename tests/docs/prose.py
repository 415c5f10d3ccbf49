#!/usr/bin/env python3
"""The prose check (CTest label docs): the docs' running prose is plain.

Usage: prose.py [--root ROOT] [--self-test] [FILE...]

For each checked page (README.md, docs/*.md, docs/labs/*.md; or the FILEs given) it reports the
sentence lengths in words (median, 90th percentile, longest), the parenthetical asides per 100
words and the dated measurements, and fails past these limits:

  median sentence under 18 words, 90th percentile under 35, no sentence over 50 words,
  under 1.5 asides "(...)" per 100 words, and no sentence that holds both a date (YYYY-MM-DD)
  and a measured figure ("0.3 s", "12%", "1.7x") outside docs/results.md.

Only running prose counts: code blocks, tables, headings, HTML comments, the generated sections
and the contents of `code spans` (one word each) and link targets are left out. A block quote's
lines count as any others. A sentence ends
at ".", "!" or "?" before a space or the end of a paragraph; a list item is its own paragraph.

Pages not yet rewritten are listed in NOT_YET below and printed as "not yet checked"; a page in
neither list fails, so a new page is either checked or named here.

--self-test first checks copies of README.md with planted faults (a 60-word sentence, a
paragraph thick with asides, a dated measurement, a page of 30-word sentences) and demands
exactly those failures. Exit 1 on any failure.
"""
import argparse
import glob
import os
import re
import shutil
import statistics
import sys
import tempfile

MEDIAN_MAX, P90_MAX, LONGEST_MAX, ASIDES_MAX = 18, 35, 50, 1.5

# The pages whose prose is not yet rewritten to the limits: reported, not checked.
NOT_YET = []
# The pages checked.
CHECKED = ["README.md", "docs/sweeps.md", "docs/packages.md", "docs/checkpoints.md",
           "docs/tests.md", "docs/usage.md", "docs/network.md", "docs/results.md",
           "docs/reliability.md", "docs/multihost.md", "docs/strategies.md",
           "docs/cluster.md", "docs/cuda.md", "docs/instructors.md",
           "docs/portability.md", "docs/colab.md",
           "docs/labs/example-grade-1.md", "docs/scaling.md", "docs/labs.md",
           "docs/architecture.md", "docs/performance.md",
           "docs/labs/lab1.md", "docs/labs/lab2.md", "docs/labs/lab3.md", "docs/labs/lab4.md",
           "docs/labs/lab5.md", "docs/labs/lab6.md", "docs/labs/lab7.md"]
# The one page where dated measurements belong.
RESULTS = "docs/results.md"

DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")
FIGURE = re.compile(r"\b\d+(\.\d+)?\s?(s|ms|us|min|minutes|%|x|GFLOP/s|GB/s)(?![\w/])")
WORD = re.compile(r"[A-Za-z0-9]")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "cf.")


def paragraphs(text):
    """(first line number, text) of each paragraph of running prose."""
    text = re.sub(r"<!--\s*generated:.*?<!--\s*end generated:[^>]*-->",
                  lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    text = re.sub(r"<!--.*?-->", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    out, block, start, fence = [], [], 0, False

    def flush():
        if block:
            out.append((start, " ".join(block)))
            block.clear()
    for n, line in enumerate(text.split("\n"), 1):
        s = line.strip()
        if s.startswith(">"):  # a block quote: its lines are read as any others
            s = line = s[1:].strip()
        if s.startswith("```") or s.startswith("~~~"):
            fence = not fence
            flush()
            continue
        indented_code = line.startswith("    ") and not block
        if fence or not s or indented_code or s.startswith(("#", "|", "<")):
            flush()
            continue
        item = re.match(r"([-*+]|\d+\.)\s+", s)
        if item:
            flush()
            s = s[item.end():]
        if not block:
            start = n
        block.append(s)
    flush()
    return out


def plain(text):
    """The paragraph's words as a reader meets them: code spans one word, links their text."""
    text = re.sub(r"`[^`]*`", "CODE", text)
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return text.replace("**", "").replace("__", "")


def sentences(para):
    protected = para
    for a in ABBREVIATIONS:
        protected = protected.replace(a, a.replace(".", "\0"))
    return [s.replace("\0", ".") for s in SENTENCE_END.split(protected) if s.strip()]


def words(sentence):
    return [w for w in sentence.split() if WORD.search(w)]


def measure(rel, text):
    """The page's statistics and its failures (each one line)."""
    lengths, asides, total, dated, longest = [], 0, 0, [], []
    for line, para in paragraphs(text):
        para = plain(para)
        asides += para.count("(")
        for s in sentences(para):
            n = len(words(s))
            lengths.append(n)
            total += n
            if n > LONGEST_MAX:
                longest.append((line, n, s))
            if rel != RESULTS and DATE.search(s) and FIGURE.search(DATE.sub(" ", s)):
                dated.append((line, s))
    failures = []
    if not lengths:
        return None, [f"{rel}: no prose found"]
    median = statistics.median(lengths)
    p90 = sorted(lengths)[max(0, int(round(0.9 * len(lengths))) - 1)]
    per100 = 100.0 * asides / total
    stats = (f"{rel}: {len(lengths)} sentences, {total} words, median {median:g}, p90 {p90}, "
             f"longest {max(lengths)}, {per100:.2f} asides per 100 words, "
             f"{len(dated)} dated measurements")
    if median >= MEDIAN_MAX:
        failures.append(f"{rel}: median sentence {median:g} words (limit: under {MEDIAN_MAX})")
    if p90 >= P90_MAX:
        failures.append(f"{rel}: 90th percentile sentence {p90} words (limit: under {P90_MAX})")
    for line, n, s in longest:
        failures.append(f"{rel}:{line}: a sentence of {n} words (limit: {LONGEST_MAX}): "
                        f"'{s[:60]}...'")
    if per100 >= ASIDES_MAX:
        failures.append(f"{rel}: {per100:.2f} parenthetical asides per 100 words "
                        f"(limit: under {ASIDES_MAX})")
    for line, s in dated:
        failures.append(f"{rel}:{line}: a dated measurement in running prose (it belongs in "
                        f"{RESULTS}): '{s[:60]}...'")
    return stats, failures


def check(root, files=None):
    """Prints each checked page's statistics; returns the failures."""
    failures = []
    pages = [os.path.relpath(p, root) for pattern in ("README.md", "docs/*.md", "docs/labs/*.md")
             for p in sorted(glob.glob(os.path.join(root, pattern)))]
    if files is None:
        for rel in pages:
            if rel not in CHECKED and rel not in NOT_YET:
                failures.append(f"{rel}: in neither CHECKED nor NOT_YET of tests/docs/prose.py: "
                                f"check it or name it there")
        files = [rel for rel in CHECKED]
        for rel in files:
            if rel not in pages:
                failures.append(f"{rel}: in CHECKED, but no such page")
    for rel in files:
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8") as f:
            stats, fails = measure(rel, f.read())
        if stats:
            print("prose: " + stats)
        failures += fails
    return failures


def plant(tmp, readme):
    """Copies of README.md under tmp, each with one planted fault; returns (file, text expected
    in its one failure) pairs."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    n = text.count("\n") + 1
    long = " ".join(["word"] * 60) + "."
    asides = " ".join(["An aside (like this) in a short sentence."] * 40)
    dated = "On 2026-11-25 the build took 154 s."
    thirty = "\n\n".join([" ".join(["Thirty"] * 29) + " words."] * 20)
    cases = [("long.md", f"\n{long}\n", f"long.md:{n + 1}: a sentence of 60 words"),
             ("asides.md", f"\n{asides}\n", "parenthetical asides per 100 words"),
             ("dated.md", f"\n{dated}\n", f"dated.md:{n + 1}: a dated measurement"),
             ("median.md", None, "median.md: median sentence 30 words")]
    out = []
    for name, extra, expect in cases:
        with open(os.path.join(tmp, name), "w", encoding="utf-8") as f:
            f.write(text + extra if extra else thirty + "\n")
        out.append((name, expect))
    return out


def self_test(root):
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(os.path.join(root, "README.md"), os.path.join(tmp, "clean.md"))
        clean = check(tmp, ["clean.md"])
        for name, expect in plant(tmp, os.path.join(root, "README.md")):
            got = [f for f in check(tmp, [name]) if f.replace(name, "clean.md", 1) not in clean]
            hit = len(got) == 1 and expect in got[0]
            print(f"prose self-test: planted in {name} ({expect}) -> "
                  f"{got[0] if len(got) == 1 else got or 'NOT FOUND'}")
            ok = ok and hit
        # A new page in neither list fails: it is checked or named, never skipped silently.
        os.makedirs(os.path.join(tmp, "docs"))
        shutil.copy(os.path.join(root, "README.md"), os.path.join(tmp, "README.md"))
        open(os.path.join(tmp, "docs", "new.md"), "w").close()
        got = [f for f in check(tmp) if "docs/new.md" in f]
        print(f"prose self-test: planted docs/new.md, in no list -> {got or 'NOT FOUND'}")
        ok = ok and len(got) == 1 and "in neither CHECKED nor NOT_YET" in got[0]
    print("prose self-test: " + ("OK, exactly the planted failures" if ok else "FAILED"))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    p.add_argument("--self-test", action="store_true")
    p.add_argument("files", nargs="*")
    args = p.parse_args()
    ok = self_test(args.root) if args.self_test else True
    failures = check(args.root, args.files or None)
    for f in failures:
        print("FAIL: " + f)
    if not args.files and NOT_YET:
        print("prose: not yet checked (not yet rewritten): "
              + ", ".join(p for p in NOT_YET if os.path.exists(os.path.join(args.root, p))))
    print(f"prose: {len(args.files or CHECKED)} pages checked; {len(failures)} failures")
    return 0 if ok and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
