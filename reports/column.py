"""python3 -m reports column [--last] [--prog NAME] FILE COLUMN...: the named columns of a run
CSV, read by runs.read (Python's csv module: the quoted device column with its commas and
doubled quotes reads right), for the bash scripts, which parse no CSV themselves.

Prints a line per row (with --last: only the last row's), the values in the order asked,
separated by one space (so a value that holds spaces is best asked alone). Errors: one line
"NAME: error: ..." (NAME: --prog, default reports), exit 1."""
import sys

from reports import runs


def main(argv):
    last, prog = False, "reports"
    while argv and argv[0].startswith("--"):
        if argv[0] == "--last":
            last, argv = True, argv[1:]
        elif argv[0] == "--prog" and len(argv) >= 2:
            prog, argv = argv[1], argv[2:]
        elif argv[0] in ("-h", "--help"):
            print(__doc__)
            return 0
        else:
            sys.exit(f"reports column: error: unknown option '{argv[0]}' (--last, --prog NAME)")
    if len(argv) < 2:
        sys.exit(f"{prog}: error: expected FILE COLUMN... (python3 -m reports column --help)")
    path, columns = argv[0], argv[1:]
    rows = runs.read(path, columns, prog=prog, allow_empty=not last)
    for row in rows[-1:] if last else rows:
        print(" ".join(row[c] or "" for c in columns))
    return 0
