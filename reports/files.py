"""Writing a report's text files: through a temporary file, so none is ever half-written."""
import os


def write_text(path, text):
    tmp = f"{path}.tmp.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)
