#!/usr/bin/env python3
"""The docs test (CTest label docs): README.md, docs/*.md, docs/labs/*.md, docs/colab.ipynb and
.ci/run must name only things that exist, and quote the committed data as it is.

Usage: docs_test.py --build DIR [--ctest CTEST] [--root ROOT] [--tree TREE] [--self-test]

  --build DIR   a configured and built build tree: the executables (lenet-* under it) give their
                flags and CSV columns, `ctest -N` there gives the test names and labels
  --root ROOT   the copy of the docs to check (default: this repository)
  --tree TREE   the repository whose files the docs name (default: ROOT)
  --self-test   first check a copy of the docs (and of docs/data/) with planted errors and
                demand exactly those failures, then check the docs themselves (what CTest runs)

Each failure is one line, FILE:LINE: what is named, and why it is wrong. Exit 1 on any.

The rules, made narrow so that a failure is a real problem (no false positives):

1. Paths. A word that starts with one of the tree's top-level folders followed by "/"
   ("run_scripts/main.sh", "docs/labs/lab1.md#anchor") must exist in TREE. Skipped: patterns
   (the word holds N, *, $, <, { or "..."), build and results folders (build/, build-NAME/,
   results/), executables (a last part lenet-* or lenet_*: they are in a build folder),
   placeholders in capitals (backend_cuda/FILE:LINE). An anchor and trailing punctuation are
   cut. (This was tests/paths.sh.) A Markdown link to FILE.md#anchor (or #anchor) must name a
   heading of that file, as GitHub makes anchors: lower case, punctuation but "-" and "_"
   dropped, spaces to "-", "-1", "-2" on repeats.

2. Flags. In a command (a line of a fenced code block, lines joined at a trailing backslash, or
   an inline `code span`), the long flags (--name) that follow the name of a project
   executable, up to the end of the command (|, ;, &&, ||, >, <, a comment "#", the end of the
   span), must be flags that the executable's --help lists. Executables are those named
   lenet-* in the build tree; one not built there (lenet-cuda without nvcc) is not checked,
   and the summary says so. Flags before the executable (mpirun's) are not its own and are not
   checked; nor are "--" alone, and a flag's "=value" is cut.

3. CTest tests and labels. A `code span` or "double-quoted" text of the form "PREFIX: name",
   where PREFIX is the prefix of a registered test (cli, serial, mpi, docs, ...), is a test
   name; it must be one of `ctest -N`'s (a "..." in it stands for any text; Catch2 3's dropped
   space after the prefix is allowed), or, for a test this build does not register (a backend
   not built), a name in tests/**/*.cmake or tests/CMakeLists.txt, where ${var} stands for any
   text. `ctest -L X` and `ctest -R X` in a command: X (a regular expression, as CTest reads
   it) must match a label (ctest --print-labels, or a LABELS of the test sources) or a test
   name respectively.

4. CSV columns. In a sentence that says "CSV" and "column" (or "columns"), `code spans` of
   lower-case identifiers (one, or a comma-separated list; several joined by ",", "and", "or")
   right before the word "column(s)" or right after it ("the `device` column", "the CSV's
   `kernels` and `strategy` columns", "columns `a, b`") name columns of the run CSV: each must
   be in the header that lenet-serial (and lenet-openmp, where built) write with --csv.

5. Figures. A results table that quotes a committed CSV says so in the comment line above it:
     <!-- csv-table: PATH; key: HEADER=column, ...; figures: HEADER=column, ...[; rows: HEADER=text] -->
   Each table row (those whose rows: cell equals text, where given) is matched to the CSV's row
   by the key columns; every figure column must equal the CSV's value rounded to the decimals
   the table shows (0.013 for 0.013152). A key with no CSV row, a header or column missing, or a
   PATH that does not exist fails too.

6. Generated results. README.md and docs/results.md hold the sections that reports/tables.py
   renders from docs/data/*.csv, between "<!-- generated: NAME ... -->" and
   "<!-- end generated: NAME -->"; each must be exactly what `python3 -m reports tables`
   renders from the committed CSVs (a figure edited by hand, or a CSV changed without
   regenerating, fails at the first differing line), and every CSV row must name its date
   (YYYY-MM-DD), machine and cores, and its command or source. The CSVs are ROOT's docs/data/
   where ROOT has one, else TREE's. (The pages are those of reports/tables.py's SECTIONS:
   docs/performance.md and docs/scaling.md hold generated sections too.)

7. Figures quoted in prose. A paragraph that quotes a committed CSV's figure says which, in a
   comment inside it:
     <!-- csv-quote: PATH; column=value, ...; figures: column, ... -->
   The column=value pairs must select exactly one row of PATH (docs/data/ as in rule 6, else
   TREE's file), and each figure column's value must appear in the paragraph's text (the
   comment left out) as a number equal to it rounded to the decimals the text shows ("1.99x"
   for 1.99, "96%" for 96, "0.33 s" for 0.3329; a "%", "x" or "+" of the CSV's value is
   ignored). A figure typed into prose by hand then fails when it differs from the CSV.
"""
import argparse
import csv
import glob
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DOC_GLOBS = ["README.md", "docs/*.md", "docs/labs/*.md", "docs/*.ipynb", ".ci/run"]
HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doc_files(root):
    files = []
    for pattern in DOC_GLOBS:
        files += sorted(glob.glob(os.path.join(root, pattern)))
    return [os.path.relpath(f, root) for f in files]


def read_lines(root, rel):
    """The file's lines; for a notebook, the lines of its cells' sources (line numbers are the
    notebook's JSON lines, found by searching, approximately)."""
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read()
    if rel.endswith(".ipynb"):
        lines = []
        for cell in json.loads(text).get("cells", []):
            src = cell.get("source", [])
            src = src if isinstance(src, list) else src.splitlines(True)
            lines += [s.rstrip("\n") for s in src]
            if cell.get("cell_type") == "code":
                # Shell lines of a code cell ("!lenet-serial ...") are commands.
                lines = lines[: len(lines) - len(src)] + [
                    "```", *[s.rstrip("\n") for s in src], "```"]
        return lines
    return text.split("\n")


class Checker:
    def __init__(self, root, tree, build, ctest):
        self.root, self.tree, self.build, self.ctest = root, tree, build, ctest
        self.failures = []
        self._anchor_cache = {}
        self.counts = {"paths": 0, "anchors": 0, "flags": 0, "tests": 0, "labels": 0, "columns": 0,
                       "figures": 0, "sections": 0, "rows": 0, "quotes": 0}
        self.unchecked_exes = set()
        self._load_tree()
        self._load_build()

    def fail(self, where, message):
        self.failures.append(f"{where}: {message}")

    # ---- what exists ----
    def _load_tree(self):
        try:
            out = subprocess.run(["git", "-C", self.tree, "ls-files"], capture_output=True,
                                 text=True, check=True).stdout
            tops = {p.split("/")[0] for p in out.split() if "/" in p}
        except (OSError, subprocess.CalledProcessError):
            tops = {d for d in os.listdir(self.tree)
                    if os.path.isdir(os.path.join(self.tree, d)) and not d.startswith(".")}
        self.tops = sorted(t for t in tops if not t.startswith("."))
        # Test names and labels written in the test sources (for tests this build lacks).
        self.source_names, self.source_labels, self.source_text = [], set(), ""
        sources = glob.glob(os.path.join(self.tree, "tests", "**", "*.cmake"), recursive=True)
        sources += glob.glob(os.path.join(self.tree, "tests", "**", "CMakeLists.txt"),
                             recursive=True)
        for path in sources:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            self.source_text += text
            for line in text.splitlines():
                if "message(" not in line:  # configure messages ("lenet: ...") are no tests
                    self.source_names += re.findall(r'"([a-z0-9-]+: [^"]*)"', line)
            for labels in re.findall(r'LABELS\s+("[^"]*"|[^\s)]+)', text):
                self.source_labels.update(labels.strip('"').split(";"))
            for labels in re.findall(r'APPEND PROPERTY\s+LABELS\s+([^\s)]+)', text):
                self.source_labels.add(labels.strip('"'))
        for path in glob.glob(os.path.join(self.tree, "tests", "**", "*.cpp"), recursive=True):
            with open(path, encoding="utf-8", errors="replace") as f:
                self.source_text += f.read()

    def _load_build(self):
        self.exes = {}  # name -> set of flags
        self.csv_columns = set()
        for path in sorted(glob.glob(os.path.join(self.build, "**", "lenet-*"), recursive=True)):
            name = os.path.basename(path)
            if ("CMakeFiles" in path or not os.path.isfile(path) or not os.access(path, os.X_OK)
                    or "." in name or name in self.exes):
                continue
            try:
                r = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=60)
            except (OSError, subprocess.TimeoutExpired):
                continue  # cannot run here (a cross build): not checked
            text = r.stdout + r.stderr
            flags = set(re.findall(r"(?<![\w-])(--[a-zA-Z][\w-]*)", text))
            if flags:
                self.exes[name] = flags
        with tempfile.TemporaryDirectory() as tmp:
            data = os.path.join(self.tree, "tests", "vectors", "data")
            for name in ("lenet-serial", "lenet-openmp"):
                path = self._exe_path(name)
                if not path:
                    continue
                out = os.path.join(tmp, name + ".csv")
                subprocess.run([path, "--data", data, "--epochs", "0", "--quiet", "--csv", out],
                               capture_output=True, timeout=120)
                if os.path.exists(out):
                    with open(out, newline="") as f:
                        self.csv_columns.update(next(csv.reader(f), []))
        self.test_names, self.labels = [], set()
        if self.ctest:
            r = subprocess.run([self.ctest, "-N"], cwd=self.build, capture_output=True,
                               text=True)
            self.test_names = re.findall(r"Test\s+#\d+: (.*)", r.stdout)
            r = subprocess.run([self.ctest, "--print-labels"], cwd=self.build,
                               capture_output=True, text=True)
            listed = r.stdout.split("All Labels:", 1)[-1]
            self.labels = {l.strip() for l in listed.splitlines() if l.strip()}
        self.prefixes = {n.split(":")[0] for n in self.test_names + self.source_names}

    def _exe_path(self, name):
        for path in glob.glob(os.path.join(self.build, "**", name), recursive=True):
            if "CMakeFiles" not in path and os.path.isfile(path) and os.access(path, os.X_OK):
                return path
        return None

    # ---- rule 1: paths ----
    def check_paths(self, rel, lines):
        tops = "|".join(re.escape(t) for t in self.tops)
        word = re.compile(r"(?:^|[^A-Za-z0-9_./-])((?:%s)/[A-Za-z0-9_./#*$<>{}-]*)" % tops)
        for n, line in enumerate(lines, 1):
            for m in word.finditer(line):
                path = m.group(1).split("#")[0]
                while path and path[-1] in ".,:;)`'\"":
                    path = path[:-1]
                if (re.search(r"[N*$<{]", path) or "..." in path
                        or re.match(r"(build|results)[-/]", path)
                        or re.match(r"lenet[-_]", path.rstrip("/").split("/")[-1])
                        or re.search(r"/[A-Z]+(:|$)", path)):
                    continue
                self.counts["paths"] += 1
                if not os.path.exists(os.path.join(self.tree, path)):
                    self.fail(f"{rel}:{n}", f"names {path}, which does not exist")

    # ---- rule 1b: a link's #anchor is a heading of the file it points to ----
    def _anchors(self, rel):
        if rel not in self._anchor_cache:
            slugs, counts, fenced = set(), {}, False
            path = os.path.join(self.root if os.path.exists(os.path.join(self.root, rel))
                                else self.tree, rel)
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.lstrip().startswith("```"):
                        fenced = not fenced
                    m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                    if not m:
                        continue
                    slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
                    n = counts.get(slug, 0)
                    counts[slug] = n + 1
                    slugs.add(slug if n == 0 else f"{slug}-{n}")
            self._anchor_cache[rel] = slugs
        return self._anchor_cache[rel]

    def check_anchors(self, rel, lines):
        if not rel.endswith(".md"):
            return
        for n, line in enumerate(lines, 1):
            for m in re.finditer(r"\]\(([^()\s]*?\.md)?#([^()\s]+)\)", line):
                target = os.path.normpath(os.path.join(os.path.dirname(rel), m.group(1))) \
                    if m.group(1) else rel
                if not os.path.exists(os.path.join(self.tree, target)):
                    continue  # rule 1 reports the file
                self.counts["anchors"] += 1
                if m.group(2) not in self._anchors(target):
                    self.fail(f"{rel}:{n}", f"link to {target}#{m.group(2)}: {target} has no "
                              "such heading")

    # ---- commands: fenced code lines and inline code spans ----
    @staticmethod
    def commands(lines):
        """(line number, command text) for every fenced code line and inline code span."""
        fenced, pending, start = False, "", 0
        for n, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced:
                if not pending:
                    start = n
                if line.rstrip().endswith("\\"):
                    pending += line.rstrip()[:-1] + " "
                    continue
                yield start, pending + line
                pending = ""
            else:
                for m in re.finditer(r"(`+)(.+?)\1", line):
                    yield n, m.group(2).replace("\\|", "|")

    # ---- rule 2: flags ----
    def check_flags(self, rel, lines):
        for n, cmd in self.commands(lines):
            cmd = re.sub(r"(^|\s)#.*", "", cmd)
            for part in re.split(r"\s(?:\||;|&&|\|\||>|<|2>)\s|;\s", cmd):
                words = part.split()
                for i, w in enumerate(words):
                    exe = os.path.basename(w.strip("\"'()"))
                    if not re.fullmatch(r"lenet-[a-z-]+", exe):
                        continue
                    if exe not in self.exes:
                        if any(x.startswith("--") for x in words[i + 1:]):
                            self.unchecked_exes.add(exe)
                        continue
                    for arg in words[i + 1:]:
                        if re.fullmatch(r"lenet-[a-z-]+", os.path.basename(arg)):
                            break  # the next executable's flags are its own
                        m = re.match(r"--[a-zA-Z][\w-]*", arg)
                        if not m:
                            continue
                        self.counts["flags"] += 1
                        if m.group(0) not in self.exes[exe]:
                            self.fail(f"{rel}:{n}", f"{exe} {m.group(0)}: {exe} has no such "
                                      "flag (not in its --help)")
                    break

    # ---- rule 3: tests and labels ----
    def _test_exists(self, name):
        def norm(s):
            return re.sub(r"^([a-z0-9-]+):\s*", r"\1:", s.strip())
        pattern = re.escape(norm(name)).replace(re.escape("..."), ".*")
        names = [norm(t) for t in self.test_names]
        if any(re.fullmatch(pattern, t) for t in names):
            return True
        for source in self.source_names:
            src = re.escape(norm(source))
            src = re.sub(r"\\\$\\\{[^}]*\\\}", ".+", src)
            if re.fullmatch(src, norm(name)) or re.fullmatch(pattern, norm(source)):
                return True
        return False

    def check_tests(self, rel, lines):
        if not self.test_names:
            return
        quoted = re.compile(r'`([a-z0-9-]+: [^`]+)`|"([a-z0-9-]+: [^"]+)"')
        for n, line in enumerate(lines, 1):
            for m in quoted.finditer(line):
                name = (m.group(1) or m.group(2)).replace("\\|", "|")
                if name.split(":")[0] not in self.prefixes:
                    continue
                self.counts["tests"] += 1
                if not self._test_exists(name):
                    self.fail(f"{rel}:{n}", f'test "{name}": no such CTest test (ctest -N)')
        for n, cmd in self.commands(lines):
            for m in re.finditer(r"\bctest\b[^|;&]*?\s-(L|R|LE|RE)\s+('[^']*'|\"[^\"]*\"|\S+)",
                                 cmd):
                kind, expr = m.group(1), m.group(2).strip("'\"")
                try:
                    regex = re.compile(expr)
                except re.error:
                    continue
                if kind in ("L", "LE"):
                    self.counts["labels"] += 1
                    if not any(regex.search(l) for l in self.labels | self.source_labels):
                        self.fail(f"{rel}:{n}", f"ctest -{kind} {expr}: matches no CTest label")
                else:
                    self.counts["tests"] += 1
                    if not (any(regex.search(t) for t in self.test_names)
                            or regex.search(self.source_text)):
                        self.fail(f"{rel}:{n}", f"ctest -{kind} {expr}: matches no CTest test")

    # ---- rule 4: CSV columns ----
    def check_columns(self, rel, lines):
        if not self.csv_columns:
            return
        text = "\n".join(lines)
        for para_start, para in self._paragraphs(lines):
            for sentence in re.split(r"(?<=[.!?])\s+(?=[A-Z(])", para):
                if "CSV" not in sentence or not re.search(r"\bcolumns?\b", sentence):
                    continue
                span = r"`[a-z][a-z0-9_]*(?:, [a-z][a-z0-9_]*)*`"
                group = rf"{span}(?:(?:,\s+and\s+|,\s+|\s+and\s+|\s+or\s+){span})*"
                for m in re.finditer(group, sentence):
                    if not (re.match(r"\s+columns?\b", sentence[m.end():])
                            or re.search(r"\bcolumns?:?\s+$", sentence[: m.start()])):
                        continue
                    for col in re.findall(r"[a-z][a-z0-9_]*", " ".join(
                            re.findall(r"`([^`]*)`", m.group(0)))):
                        self.counts["columns"] += 1
                        if col not in self.csv_columns:
                            n = para_start + para[: para.find(sentence)].count("\n") + \
                                sentence[: m.start()].count("\n")
                            self.fail(f"{rel}:{n}", f"CSV column `{col}`: not in the run CSV's "
                                      "header (--csv)")
        del text

    @staticmethod
    def _paragraphs(lines):
        para, start, fenced = [], 1, False
        for n, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if fenced or not line.strip() or line.lstrip().startswith(("|", "```")):
                if para:
                    yield start, "\n".join(para)
                para = []
                continue
            if not para:
                start = n
            para.append(line)
        if para:
            yield start, "\n".join(para)

    # ---- rule 5: figures against committed CSVs ----
    def check_figures(self, rel, lines):
        marker = re.compile(r"<!--\s*csv-table:\s*(.*?)\s*-->")
        for n, line in enumerate(lines, 1):
            m = marker.search(line)
            if not m:
                continue
            where = f"{rel}:{n}"
            parts = [p.strip() for p in m.group(1).split(";")]
            path, spec = parts[0], {}
            for p in parts[1:]:
                key, _, value = p.partition(":")
                spec[key.strip()] = [tuple(s.strip() for s in pair.split("=", 1))
                                     for pair in value.split(",") if "=" in pair]
            full = os.path.join(self.tree, path)
            if not os.path.exists(full):
                self.fail(where, f"csv-table {path}: no such file")
                continue
            with open(full, newline="") as f:
                rows = list(csv.DictReader(f))
            header = rows[0].keys() if rows else []
            # The table: the first line starting with "|" after the marker.
            t = n
            while t < len(lines) and not lines[t].lstrip().startswith("|"):
                t += 1
            table = []
            while t < len(lines) and lines[t].lstrip().startswith("|"):
                table.append((t + 1, [c.strip() for c in lines[t].strip().strip("|").split("|")]))
                t += 1
            if len(table) < 3:
                self.fail(where, "csv-table: no table follows")
                continue
            cols = table[0][1]
            bad = [h for h, c in spec.get("key", []) + spec.get("figures", [])
                   + spec.get("rows", []) if h not in cols] + \
                  [c for h, c in spec.get("key", []) + spec.get("figures", []) if c not in header]
            if bad:
                self.fail(where, f"csv-table: {', '.join(bad)} not in the table's header or "
                          f"{path}'s")
                continue
            for tn, cells in table[2:]:
                row = dict(zip(cols, cells))
                if any(row.get(h) != v for h, v in spec.get("rows", [])):
                    continue
                match = [r for r in rows
                         if all(_same(row[h], r[c]) for h, c in spec.get("key", []))]
                if not match:
                    self.fail(f"{rel}:{tn}", f"{', '.join(row[h] for h, _ in spec['key'])}: no "
                              f"such row in {path}")
                    continue
                for h, c in spec.get("figures", []):
                    self.counts["figures"] += 1
                    if not _same(row[h], match[0][c]):
                        self.fail(f"{rel}:{tn}", f"{h} {row[h]}: {path} has {match[0][c]} "
                                  f"({c}) for {', '.join(row[k] for k, _ in spec['key'])}")

    # ---- rule 6: the generated results sections against docs/data/ ----
    def _tables(self):
        """reports/tables.py of TREE, and the CSV folder it renders from."""
        if not hasattr(self, "_tables_module"):
            sys.path.insert(0, self.tree)
            try:
                module = importlib.import_module("reports.tables")
            finally:
                sys.path.remove(self.tree)
            data = os.path.join(self.root, "docs", "data")
            if not os.path.isdir(data):
                data = os.path.join(self.tree, "docs", "data")
            self._tables_module, self._data = module, data
            self._rendered = module.render(data)
        return self._tables_module, self._data

    # ---- rule 7: figures quoted in prose against committed CSVs ----
    QUOTE = re.compile(r"<!--\s*csv-quote:\s*(.*?)\s*-->")
    NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?")

    def _csv_rows(self, path):
        full = os.path.join(self.root, path)
        if not os.path.exists(full):
            full = os.path.join(self.tree, path)
        if not os.path.exists(full):
            return None
        with open(full, newline="", encoding="utf-8") as f:
            return [{k: (v or "").strip() for k, v in r.items() if k is not None}
                    for r in csv.DictReader(f)]

    @staticmethod
    def quote_spec(text):
        """(path, [(column, value)], [figure columns]) of a csv-quote comment's text."""
        parts = [p.strip() for p in text.split(";")]
        where, figures = [], []
        for p in parts[1:]:
            if p.startswith("figures:"):
                figures = [c.strip() for c in p[len("figures:"):].split(",") if c.strip()]
            else:
                # Pairs split at a comma before the next "column=": a value may hold commas.
                where += [tuple(s.strip() for s in pair.split("=", 1))
                          for pair in re.split(r",\s*(?=[a-z_][a-z0-9_]*=)", p) if "=" in pair]
        return parts[0], where, figures

    @staticmethod
    def paragraph_of(lines, n):
        """The text of the paragraph holding line n (1-based), its comments left out."""
        a = b = n - 1
        while a > 0 and lines[a - 1].strip():
            a -= 1
        while b + 1 < len(lines) and lines[b + 1].strip():
            b += 1
        return re.sub(r"<!--.*?-->", " ", "\n".join(lines[a:b + 1]), flags=re.S)

    def check_quotes(self, rel, lines):
        for n, line in enumerate(lines, 1):
            for m in self.QUOTE.finditer(line):
                path, where, figures = self.quote_spec(m.group(1))
                rows = self._csv_rows(path)
                if rows is None:
                    self.fail(f"{rel}:{n}", f"csv-quote {path}: no such file")
                    continue
                match = [r for r in rows if all(r.get(c) == v for c, v in where)]
                if len(match) != 1 or not figures:
                    self.fail(f"{rel}:{n}", f"csv-quote {path}: {len(match)} rows have "
                              f"{', '.join(f'{c}={v}' for c, v in where)} (one must)"
                              + ("" if figures else ", and no figures: named"))
                    continue
                numbers = self.NUMBER.findall(self.paragraph_of(lines, n))
                for col in figures:
                    self.counts["quotes"] += 1
                    if col not in match[0]:
                        self.fail(f"{rel}:{n}", f"csv-quote {path}: no column {col}")
                        continue
                    value = match[0][col].strip("%x+ ")
                    if not any(_same(x.rstrip(","), value) for x in numbers
                               if "." in x or "." not in value):  # "2 threads" is no 1.99
                        self.fail(f"{rel}:{n}", f"csv-quote {path}: the paragraph quotes no "
                                  f"figure equal to {col} {match[0][col]} (as shown, rounded)")

    def check_generated(self, rel, lines):
        tables, data = self._tables()
        if rel not in tables.PAGES:
            return
        self.counts["sections"] += sum(1 for s in tables.SECTIONS.values() if s[0] == rel)
        for n, message in tables.differences(rel, lines, self._rendered):
            self.fail(f"{rel}:{n}", message)

    def check_rows(self):
        tables, data = self._tables()
        for name in sorted(os.listdir(data)):
            if name.endswith(".csv"):
                self.counts["rows"] += len(tables.read(data, name))
        for name, line, what in tables.missing_provenance(data):
            self.fail(f"docs/data/{name}:{line}", f"the row has no {what}")

    def run(self):
        self.check_rows()
        for rel in doc_files(self.root):
            lines = read_lines(self.root, rel)
            self.check_paths(rel, lines)
            self.check_anchors(rel, lines)
            self.check_flags(rel, lines)
            self.check_tests(rel, lines)
            self.check_columns(rel, lines)
            self.check_figures(rel, lines)
            self.check_generated(rel, lines)
            self.check_quotes(rel, lines)
        return self.failures


def _same(shown, value):
    """Whether a table's figure is the CSV's value as shown (rounded to the decimals shown)."""
    shown, value = shown.strip(), value.strip()
    if shown == value:
        return True
    try:
        s, v = float(shown.replace(",", "")), float(value)
    except ValueError:
        return False
    decimals = len(shown.split(".")[1]) if "." in shown else 0
    return abs(s - v) <= 0.5 * 10 ** -decimals + 1e-12


# ---- the self-test: planted errors, each found, nothing else ----
def plant(root):
    """Plants a wrong figure (the first checked figure of the docs' first csv-table, plus one
    in the units place), the two of plant_generated, a missing path and a missing flag in a
    copy of the docs under root; returns the failures expected, as (file, line, text in the
    message)."""
    expected = []
    for rel in doc_files(root):
        lines = read_lines(root, rel)
        for n, line in enumerate(lines, 1):
            m = re.search(r"<!--\s*csv-table:.*figures:\s*([^=;]+)=", line)
            if not m:
                continue
            t = n
            while not lines[t].lstrip().startswith("|"):
                t += 1
            cols = [c.strip() for c in lines[t].strip().strip("|").split("|")]
            col = cols.index(m.group(1).strip())
            cells = lines[t + 2].split("|")
            old = cells[col + 1].strip()
            new = str(round(float(old) + 1, 6))
            cells[col + 1] = f" {new} "
            lines[t + 2] = "|".join(cells)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            expected.append((rel, t + 3, f"{m.group(1).strip()} {new}:"))
            break
        if expected:
            break
    expected += plant_generated(root)
    expected += plant_quote(root)
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        n = f.read().count("\n")
    with open(readme, "a", encoding="utf-8") as f:
        f.write("\nPlanted: run_scripts/no_such_script.sh, then `lenet-serial --no-such-flag`.\n")
    expected.append(("README.md", n + 2, "run_scripts/no_such_script.sh"))
    expected.append(("README.md", n + 2, "--no-such-flag"))
    return expected


def plant_quote(root):
    """Plants, in the copy under root, a wrong figure in the first paragraph that quotes a CSV
    (rule 7): each number of it that shows the first figure, plus one in its last decimal.
    Returns the failure expected, at the csv-quote comment's line."""
    for rel in doc_files(root):
        if not rel.endswith(".md"):
            continue
        lines = read_lines(root, rel)
        for n, line in enumerate(lines, 1):
            m = Checker.QUOTE.search(line)
            if not m:
                continue
            path, where, figures = Checker.quote_spec(m.group(1))
            full = os.path.join(root, path)
            with open(full if os.path.exists(full) else os.path.join(HERE, path),
                      newline="", encoding="utf-8") as f:
                row = [r for r in csv.DictReader(f)
                       if all((r.get(c) or "").strip() == v for c, v in where)][0]
            value = row[figures[0]].strip("%x+ ")
            a = b = n - 1
            while a > 0 and lines[a - 1].strip():
                a -= 1
            while b + 1 < len(lines) and lines[b + 1].strip():
                b += 1

            def wrong(x):
                text = x.group(0)
                if not _same(text.rstrip(","), value) or ("." not in text and "." in value):
                    return text
                decimals = len(text.split(".")[1]) if "." in text else 0
                return f"{float(text.replace(',', '')) + 10 ** -decimals:.{decimals}f}"
            for k in range(a, b + 1):
                parts = re.split(r"(<!--.*?-->)", lines[k])
                lines[k] = "".join(p if p.startswith("<!--") else Checker.NUMBER.sub(wrong, p)
                                   for p in parts)
            with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            return [(rel, n, f"csv-quote {path}: the paragraph quotes no figure equal to "
                     f"{figures[0]}")]
    return []


def plant_generated(root):
    """Plants, in the copy under root, a figure edited by hand in README's generated table (its
    first row's second cell, plus one) and a row without date, machine, cores, command or
    source at the end of docs/data/peers.csv (not regenerated: docs/results.md's peers table
    then lacks its row, right after the table's last row). Returns the failures expected."""
    expected = []
    readme = os.path.join(root, "README.md")
    with open(readme, encoding="utf-8") as f:
        lines = f.read().split("\n")
    begin = next(i for i, l in enumerate(lines) if l.startswith("<!-- generated: summary"))
    t = next(i for i in range(begin, len(lines)) if lines[i].startswith("|")) + 2
    cells = lines[t].split("|")
    new = str(round(float(cells[2]) + 1, 6))
    cells[2] = f" {new} "
    lines[t] = "|".join(cells)
    with open(readme, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    expected.append(("README.md", t + 1, f"generated section summary is not what docs/data/"
                     f"epoch_times.csv gives: this line reads '{lines[t][:20]}"))
    peers = os.path.join(root, "docs", "data", "peers.csv")
    with open(peers, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    row = ["" if h in ("date", "machine", "cores", "command", "source") else "1"
           for h in header]
    with open(peers, "a", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerow(row)
    expected.append(("docs/data/peers.csv", len(rows) + 1,
                     "the row has no date, machine, cores, command or source"))
    results = os.path.join(root, "docs", "results.md")
    with open(results, encoding="utf-8") as f:
        lines = f.read().split("\n")
    begin = next(i for i, l in enumerate(lines) if l.startswith("<!-- generated: peers"))
    t = next(i for i in range(begin, len(lines)) if lines[i].startswith("|"))
    while lines[t].startswith("|"):
        t += 1
    expected.append(("docs/results.md", t + 1, "generated section peers is not what docs/data/"
                     "peers.csv gives: this line reads ''"))
    return expected


def self_test(args, real_failures):
    with tempfile.TemporaryDirectory() as tmp:
        for pattern in DOC_GLOBS:
            for path in glob.glob(os.path.join(args.root, pattern)):
                rel = os.path.relpath(path, args.root)
                os.makedirs(os.path.join(tmp, os.path.dirname(rel)), exist_ok=True)
                shutil.copy(path, os.path.join(tmp, rel))
        data = os.path.join(args.root, "docs", "data")
        if not os.path.isdir(data):
            data = os.path.join(args.tree, "docs", "data")
        shutil.copytree(data, os.path.join(tmp, "docs", "data"))
        expected = plant(tmp)
        got = Checker(tmp, args.tree, args.build, args.ctest).run()
    new = [f for f in got if f not in real_failures]
    ok = len(expected) == 7 and len(new) == len(expected)
    for rel, line, text in expected:
        found = [f for f in new if f.startswith(f"{rel}:{line}:") and text in f]
        print(f"self-test: planted at {rel}:{line} ({text}) -> "
              f"{found[0] if found else 'NOT FOUND'}")
        ok = ok and len(found) == 1
    for f in new:
        if not any(f.startswith(f"{r}:{l}:") and t in f for r, l, t in expected):
            print(f"self-test: unexpected: {f}")
    print("self-test: " + ("OK, exactly the planted failures" if ok else "FAILED"))
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--build", required=True)
    p.add_argument("--ctest", default=shutil.which("ctest"))
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    p.add_argument("--root", default=here)
    p.add_argument("--tree")
    p.add_argument("--self-test", action="store_true")
    args = p.parse_args()
    args.tree = args.tree or args.root
    checker = Checker(args.root, args.tree, args.build, args.ctest)
    failures = checker.run()
    ok = True
    if args.self_test:
        ok = self_test(args, failures)
    for f in failures:
        print("FAIL: " + f)
    c = checker.counts
    print(f"docs: {c['paths']} paths, {c['anchors']} anchors, {c['flags']} flags of {len(checker.exes)} executables, "
          f"{c['tests']} test names, {c['labels']} labels, {c['columns']} CSV columns, "
          f"{c['figures']} figures, {c['sections']} generated sections, {c['rows']} data rows, "
          f"{c['quotes']} quoted figures "
          f"checked; {len(failures)} wrong")
    if checker.unchecked_exes:
        print("docs: flags of " + ", ".join(sorted(checker.unchecked_exes))
              + " not checked (not built in " + args.build + ")")
    return 0 if ok and not failures else 1


if __name__ == "__main__":
    sys.exit(main())
