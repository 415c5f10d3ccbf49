"""Reading the run CSVs by column name: common/report.cpp's append_csv writes them, and its
header is the contract (columns may be added; the device column is quoted and may hold commas
and doubled quotes, so only a real CSV parser reads it)."""
import csv
import os
import platform
import socket
import sys


def read(path, columns=(), *, prog="reports", allow_empty=False):
    """The rows of PATH as dicts by column name. Exits with one line naming PATH if it cannot
    be read, has no rows (unless allow_empty) or lacks one of COLUMNS."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            rows = list(reader)
            header = reader.fieldnames or []
    except OSError as e:
        sys.exit(f"{prog}: error: cannot read {path}: {e.strerror}")
    except csv.Error as e:
        sys.exit(f"{prog}: error: {path}: not a valid CSV file: {e}")
    if not rows:
        if allow_empty:
            return []
        sys.exit(f"{prog}: error: {path} has no rows")
    missing = [c for c in columns if c not in header]
    if missing:
        sys.exit(f"{prog}: error: {path} has no column {', '.join(missing)}"
                 " (not a CSV written by --csv?)")
    return rows


def machine(rows):
    """Where the runs ran, for titles: the host column's names (the first three), with the CPU
    and its cores where that host is the one making the report."""
    hosts = sorted({r.get("host") or "" for r in rows} - {""})
    if not hosts:
        return "an unknown host"
    text = ", ".join(hosts[:3]) + (f" and {len(hosts) - 3} more" if len(hosts) > 3 else "")
    if hosts == [socket.gethostname()]:
        text += f" ({cpu_model()}, {os.cpu_count()} cores)"
    return text


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f
                        if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()
