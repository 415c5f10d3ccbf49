"""python3 -m reports NAME ARGS...: runs one report (NAME --help for its arguments)."""
import importlib
import sys

REPORTS = ("compare", "sweep", "bandwidth", "scaling", "shapes", "validation", "tables",
           "column", "record")


def main(argv):
    if not argv or argv[0] not in REPORTS:
        got = f"'{argv[0]}'" if argv else "nothing"
        sys.exit(f"reports: error: expected one of {', '.join(REPORTS)}, got {got}"
                 " (python3 -m reports NAME --help)")
    return importlib.import_module(f"reports.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
