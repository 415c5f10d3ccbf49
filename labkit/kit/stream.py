"""Test reports that reach the grader through named pipes it holds, never through a file.

A test program links student code, so a report FILE it writes can be rewritten by that code
after Catch2 has closed it (an exit handler, a static destructor). Here the report's path is a
named pipe (FIFO) that the grader opened before the run: what Catch2 writes is in the grader's
hands as it is written. The run's user may write to the pipe but not read it (mode 0602, owned
by the grader), so it cannot take back what was written; whatever it adds lands after the
report's end, where verdicts.Report sees it. Where the grader is not root, student code runs as
the grader's own user and could read the pipe too: the report says the sandbox is missing then.
"""
import os
import selectors
import stat
import threading

MAX_BYTES = 64 << 20  # a report longer than this is cut: the test is failed, not the grader


class Pipes(threading.Thread):
    """Named pipes `names` in `folder`, read as they fill until stop(); then {name: bytes}."""

    def __init__(self, folder, names):
        super().__init__(daemon=True)
        self.paths = {n: os.path.join(folder, n) for n in names}
        self.data = {n: bytearray() for n in names}
        self.cut = set()
        self.fds = {}
        for name, path in self.paths.items():
            os.mkfifo(path)
            os.chmod(path, 0o602)  # the run's user writes, only the grader reads
            # Read and write: a pipe with a writer (the grader) never reads as ended, so it
            # waits for a test that opens it late; its end is the run's end.
            self.fds[name] = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        self.done = threading.Event()
        self.start()

    def _read(self, name, fd):
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                return
            if not chunk:
                return
            if len(self.data[name]) + len(chunk) > MAX_BYTES:
                self.cut.add(name)
            else:
                self.data[name] += chunk

    def run(self):
        with selectors.DefaultSelector() as sel:
            for name, fd in self.fds.items():
                sel.register(fd, selectors.EVENT_READ, name)
            while not self.done.is_set():
                for key, _ in sel.select(timeout=0.1):
                    self._read(key.data, key.fd)

    def stop(self):
        """{name: what was written to it}, once the run has ended; the pipes closed."""
        self.done.set()
        self.join()
        for name, fd in self.fds.items():
            self._read(name, fd)  # what came after the last look
            os.close(fd)
        return {n: bytes(d) for n, d in self.data.items()}

    def replaced(self):
        """The pipes the run removed or replaced (by a file of its own, say)."""
        out = []
        for name, path in self.paths.items():
            try:
                if not stat.S_ISFIFO(os.lstat(path).st_mode):
                    out.append(name)
            except OSError:
                out.append(name)
        return out
