"""Who runs student code: the grader itself, or, where the grader is root, an unprivileged user
(contain.py starts programs as it, sandbox.py enters the sandbox as it, build.py hands it the
build folder)."""
import os


def as_root():
    return os.geteuid() == 0


def unprivileged_ids():
    """The uid and gid student code runs as where the grader is root: $LAB_USER's (a grading
    machine may give the kit an account of its own), by default nobody's."""
    import pwd

    user = pwd.getpwnam(os.environ.get("LAB_USER") or "nobody")
    return user.pw_uid, user.pw_gid

