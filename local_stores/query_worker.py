"""A long-lived worker process for queries an engine cannot stop or bound in-process.

Oxigraph cannot be interrupted, and Kùzu neither interrupts nor caps the memory of an expression
such as `range(1, 1000000000)`: such queries run here, in a process whose address space is capped
(`RLIMIT_AS`) and which is killed at the time limit, then started again on the next query. A fresh
interpreter, not a fork: the parent holds model threads. Started with subprocess rather than
multiprocessing's spawn, which would re-run the parent's main script in the worker (and fail for
scripts without a main guard)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path

from local_stores.results import QueryFailed

_PROJECT = Path(__file__).resolve().parents[1]
_WORKERS: list[Worker] = []


def limit_memory(query_mb: int) -> None:
    """Give every worker `query_mb` for its queries (settings.query_memory_mb), beside what the
    worker itself needs; a running worker whose cap changes is stopped and restarts with it."""
    for worker in _WORKERS:
        if worker.query_mb != query_mb:
            worker.close()
            worker.query_mb = query_mb
            worker.memory_mb = query_mb + worker.overhead_mb


def serve(fd: int, memory_mb: int, handle: Callable[[tuple], tuple]) -> None:
    """The worker's loop: one request at a time answered by `handle`, until the parent sends None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which then closes us
    if memory_mb:
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
    conn = Connection(fd)
    conn.send(("ready",))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        if request is None:
            return
        try:
            reply = handle(request)
        except MemoryError:
            reply = ("failed", "out of memory")
        except Exception as exc:  # the engine's own message goes back to the writer
            reply = ("failed", f"{type(exc).__name__}: {' '.join(str(exc).split())[:400]}")
        conn.send(reply)


class Worker:
    """The parent's side: starts `module.serve(fd, memory_mb)` in a child, sends requests, stops it
    at the time limit, and says what happened in words the query writer can act on."""

    def __init__(self, module: str, language: str, query_mb: int, overhead_mb: int = 0) -> None:
        self.module, self.language = module, language
        self.query_mb, self.overhead_mb = query_mb, overhead_mb
        self.memory_mb = query_mb + overhead_mb  # the worker's address space
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._conn: Connection | None = None
        _WORKERS.append(self)

    def _start(self) -> None:
        parent, child = Pipe()
        path = os.pathsep.join(p for p in (str(_PROJECT), os.environ.get("PYTHONPATH", "")) if p)
        main = f"import sys; from {self.module} import serve; serve(int(sys.argv[1]), int(sys.argv[2]))"
        try:
            self._proc = subprocess.Popen([sys.executable, "-c", main, str(child.fileno()), str(self.memory_mb)],
                                          pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL,
                                          env={**os.environ, "PYTHONPATH": path, "RUST_BACKTRACE": "0"})
        finally:
            child.close()
        self._conn = parent
        try:
            ready = parent.poll(60) and parent.recv() == ("ready",)
        except (EOFError, OSError):
            ready = False
        if not ready:
            self._stop()
            raise QueryFailed(f"the {self.language} worker process did not start")

    def _stop(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait(5)
        if self._conn is not None:
            self._conn.close()
        self._proc = self._conn = None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def run(self, request: tuple, timeout_s: float) -> tuple:
        """The worker's reply to `request`; QueryFailed when it ran out of time or memory."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._stop()
                self._start()
            try:
                self._conn.send(request)  # type: ignore[union-attr]
                if not self._conn.poll(timeout_s):  # type: ignore[union-attr]
                    self._stop()
                    raise QueryFailed(f"the query took longer than {timeout_s:g} s and was stopped: "
                                      "narrow it down (fewer unbound patterns, a LIMIT)")
                return self._conn.recv()  # type: ignore[union-attr]
            except (EOFError, OSError) as exc:
                self._stop()
                raise QueryFailed(f"the query was stopped: it needed more than the {self.query_mb} MB of memory "
                                  "allowed (or crashed the engine); narrow it down") from exc

    def forget(self, key: str) -> None:
        """Close the worker's handle on a store (if it runs), so replaced files are freed at once."""
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                return
            try:
                self._conn.send(("forget", key))  # type: ignore[union-attr]
                if self._conn.poll(10):  # type: ignore[union-attr]
                    self._conn.recv()  # type: ignore[union-attr]
                    return
            except (EOFError, OSError):
                pass
            self._stop()

    def close(self) -> None:
        """Ask the worker to exit, then make sure it has."""
        with self._lock:
            if self._conn is not None and self._proc is not None:
                with contextlib.suppress(OSError):
                    self._conn.send(None)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._proc.wait(2)
            self._stop()
