#!/usr/bin/env python3
"""The lab kit's containment and abuse flags, attacked (ctest -L labkit; labkit.cmake).

  test_abuse.py tool      the sandbox tool is launched by the path where it was found: a
                          bwrap outside the runs' fixed PATH still runs every sandbox

Exit 0: passed; 1: failed (the first failure, in one line); 77: SKIPPED.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.dirname(HERE)
sys.path.insert(0, KIT)
from kit import procs, sandbox  # noqa: E402

TMP = tempfile.mkdtemp(prefix="labkit-abuse-")
os.chmod(TMP, 0o755)


class Failed(Exception):
    pass


class Skipped(Exception):
    pass


def expect(cond, message):
    if not cond:
        raise Failed(message)


def tool():
    """A bwrap in a folder of its own, first on the grader's PATH and on no run's PATH: a run
    in the sandbox goes through it."""
    real = shutil.which("bwrap")
    if real is None or sandbox.missing() is not None:
        raise Skipped(f"no working sandbox here ({sandbox.missing()})")
    folder = os.path.join(TMP, "tools")
    os.makedirs(folder)
    used = os.path.join(TMP, "used")
    wrapper = os.path.join(folder, "bwrap")
    with open(wrapper, "w") as f:
        f.write(f'#!/bin/sh\necho "$0" >> {used}\nexec {real} "$@"\n')
    os.chmod(wrapper, 0o755)
    os.environ["PATH"] = folder + ":" + os.environ.get("PATH", "")
    sandbox._state.clear()
    try:
        expect(sandbox.missing() is None, f"the sandbox through {wrapper}: {sandbox.missing()}")
        expect(folder not in sandbox.environment("/")["PATH"], "the runs' PATH holds the tool")
        if os.path.exists(used):
            os.remove(used)  # the probe's launch: the run's must be seen on its own
        r = procs.run(["sh", "-c", "echo inside"], timeout=60, cwd="/",
                      env=sandbox.environment("/"), untrusted=True)
        expect(r.ok and "inside" in r.output, f"a sandboxed run: exit {r.rc}: {r.last_line()}")
        expect(os.path.isfile(used) and wrapper in open(used).read().split("\n"),
               f"the run did not launch {wrapper}, the bwrap found on PATH")
    finally:
        os.environ["PATH"] = os.environ["PATH"].split(":", 1)[1]
        sandbox._state.clear()
    print(f"the sandbox ran through {wrapper}")


def run(what):
    try:
        if what == ["tool"]:
            tool()
        else:
            print(__doc__)
            return 2
    except Skipped as e:
        print(f"SKIPPED: {e}")
        return 77
    except Failed as e:
        print(f"FAILED: {e}")
        return 1
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
