"""Run a parser that may crash, hang or eat memory in a worker process, so one hostile file ends
its worker, never the index run (and never every later run of that home).

The worker is a fresh interpreter (`python -c`), not a fork: the indexer holds llama.cpp and
onnxruntime threads, and forking a threaded process is unsafe. Not multiprocessing's "spawn" or
"forkserver" either: both re-import the parent's main script in the worker, which fails for a
script without a main guard (see local_stores/rdf_store.py, whose SPARQL worker starts the same
way). Measured on 2 cores: starting a worker that runs `os.getpid` costs 0.17-0.25 s, one that
imports openpyxl 0.3 s, so workers are kept and reused; reading a 118 MB JSON file through one took
10.1 s against 9.4 s in-process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import Pipe
from multiprocessing.connection import Connection
from pathlib import Path
from typing import IO, TypedDict, TypeVar, cast

from engine.errors import ParseError, SkipFile, TroveError
from engine.settings import Settings

TIMEOUT_S: float = Settings.parse_timeout_s  # the settings' defaults, for callers given no settings
MEMORY_MB: int = Settings.ingest_memory_mb
_PROJECT = Path(__file__).resolve().parents[2]
_WORKER_MAIN = "import sys; from engine.ingest.isolation import serve; serve(int(sys.argv[1]), int(sys.argv[2]))"
# what a worker that ran out of its address space writes as it dies (Python, C++, Rust, DuckDB)
_MEMORY_HINTS = ("MemoryError", "bad_alloc", "memory allocation of", "Out of Memory", "out of memory")
_REPLY_WAIT_S = 5.0  # after the worker's pipe closes, how long its exit status may take

T = TypeVar("T")


class Limits(TypedDict):
    """The time and memory a reader run in a worker process may use: `run_isolated`'s keywords."""

    timeout_s: float
    memory_mb: int


def run_isolated(fn: Callable[..., T], *args: object, timeout_s: float = TIMEOUT_S, memory_mb: int = MEMORY_MB,
                 what: str = "the parser") -> T:
    """`fn(*args)` in a worker process whose address space is capped at `memory_mb` and which is
    killed after `timeout_s`. `fn` must be a top-level function and `args` and its result
    picklable. SkipFile and ParseError raised by `fn` come back as they are; a crash, a timeout,
    running out of memory or any other exception become ParseError naming `what`.

    Workers are kept between calls (starting one costs 0.2-0.3 s, more than reading a small
    file): a worker that crashed, ran out of time or memory, or has served MAX_CALLS is replaced."""
    payload = pickle.dumps((fn, args))  # an unpicklable function fails here, in the caller
    worker = _take(memory_mb)
    try:
        reply = _exchange(worker.conn, payload, timeout_s)
    except BaseException:  # interrupted while waiting (Ctrl-C): the worker's state is unknown
        worker.stop()
        raise
    if reply is None:
        worker.stop()
        raise ParseError(f"{what} was stopped after {timeout_s:g} s (setting parse_timeout_s)")
    if reply == ():  # the pipe closed without a reply: the worker died
        status, tail = worker.exit_status(), worker.tail()
        worker.stop()
        raise ParseError(_death(what, status, tail, memory_mb))
    _give_back(worker, healthy=reply[0] != "memory")
    return cast("T", _result(reply, what, memory_mb))  # what fn(*args) returned, unpickled


MAX_CALLS = 200  # calls one worker serves before a fresh one replaces it (memory it kept is let go)
_IDLE: dict[int, list[_Worker]] = {}  # memory cap -> workers waiting for a call
_IDLE_LOCK = threading.Lock()


@dataclass
class _Worker:
    """One reader process, the parent's end of its pipe, and the file its output goes to."""

    proc: subprocess.Popen
    conn: Connection
    output: IO[bytes]
    memory_mb: int  # its address-space cap
    calls: int = 0

    def exit_status(self) -> int | None:
        try:
            return self.proc.wait(_REPLY_WAIT_S)
        except subprocess.TimeoutExpired:  # alive with its pipe closed: treated as a crash
            return None

    def tail(self, size: int = 4096) -> str:
        self.output.seek(0, os.SEEK_END)
        self.output.seek(max(0, self.output.tell() - size))
        return self.output.read().decode("utf-8", "replace")

    def stop(self) -> None:
        with contextlib.suppress(OSError):
            self.conn.close()
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.output.close()


def _take(memory_mb: int) -> _Worker:
    """An idle worker with this memory cap that is still alive, or a new one."""
    with _IDLE_LOCK:
        idle = _IDLE.get(memory_mb, [])
        while idle:
            worker = idle.pop()
            if worker.proc.poll() is None:
                break
            worker.stop()
        else:
            worker = None
    if worker is None:
        worker = _start(memory_mb)
    worker.calls += 1
    worker.output.seek(0)
    worker.output.truncate()  # a later death's tail is about its own call
    return worker


def _give_back(worker: _Worker, healthy: bool) -> None:
    if not healthy or worker.calls >= MAX_CALLS:
        _close(worker)
        return
    with _IDLE_LOCK:
        _IDLE.setdefault(worker.memory_mb, []).append(worker)


def _close(worker: _Worker) -> None:
    """Ask the worker to exit, then make sure it has."""
    with contextlib.suppress(OSError, ValueError):
        worker.conn.send_bytes(b"")
    with contextlib.suppress(subprocess.TimeoutExpired):
        worker.proc.wait(2)
    worker.stop()


@atexit.register
def close_workers() -> None:
    """End every idle worker (at exit, and in tests that count processes)."""
    with _IDLE_LOCK:
        workers = [w for idle in _IDLE.values() for w in idle]
        _IDLE.clear()
    for worker in workers:
        _close(worker)


def _start(memory_mb: int) -> _Worker:
    """A worker process and the parent's end of its pipe; its stdout and stderr go to a file."""
    output = tempfile.TemporaryFile()  # noqa: SIM115 - the worker writes to it for its whole life; stop() closes it
    parent, child = Pipe()
    path = os.pathsep.join(p for p in (str(_PROJECT), os.environ.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen([sys.executable, "-c", _WORKER_MAIN, str(child.fileno()), str(memory_mb)],
                                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=output,
                                stderr=output, env={**os.environ, "PYTHONPATH": path, "RUST_BACKTRACE": "0"})
    finally:
        child.close()  # the worker holds the only write end now: its death closes the pipe
    return _Worker(proc, parent, output, memory_mb)


def _exchange(conn: Connection, payload: bytes, timeout_s: float) -> tuple | None:
    """The worker's reply; None at the timeout, () when it died first."""
    try:
        conn.send_bytes(payload)
        if not conn.poll(timeout_s):
            return None
        return conn.recv()
    except (EOFError, OSError):
        return ()


def _death(what: str, status: int | None, tail: str, memory_mb: int) -> str:
    """Why a worker ended without replying, in words: its memory, its signal or its exit status."""
    if any(hint in tail for hint in _MEMORY_HINTS):
        return _memory(what, memory_mb)
    if status is not None and status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = "unknown signal"
        return f"{what} crashed (signal {-status}, {name})"
    last = next((line.strip() for line in reversed(tail.splitlines()) if line.strip()), "")
    return f"{what} ended without an answer (exit status {status})" + (f": {last[:200]}" if last else "")


def _memory(what: str, memory_mb: int) -> str:
    return f"{what} used more than {memory_mb} MB (setting ingest_memory_mb)"


def _result(reply: tuple, what: str, memory_mb: int) -> object:
    kind, value = reply
    if kind == "ok":
        return value
    if kind == "memory":
        raise ParseError(_memory(what, memory_mb))
    if kind == "skip":
        raise SkipFile(value)
    if kind == "parse":
        raise ParseError(value)
    raise ParseError(f"{what} failed: {value}")


# -- the worker ----------------------------------------------------------------------------------
def serve(fd: int, memory_mb: int) -> None:
    """The worker: cap the address space, then run each call it is sent and send back its outcome,
    until the parent sends an empty message or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which then kills us
    if memory_mb > 0:
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
    conn = Connection(fd)
    while True:
        try:
            payload = conn.recv_bytes()
        except (EOFError, OSError):
            return
        if not payload:  # the parent is done with us
            return
        reply = _call(payload)
        try:
            conn.send(reply)
        except MemoryError:
            reply = ("memory", "")
            conn.send(reply)
        except Exception as exc:  # an unpicklable result
            conn.send(("error", f"its result could not be sent back: {type(exc).__name__}: {exc}"))
        if reply[0] == "memory":  # what ran out of memory may have left the process broken
            return


def _call(payload: bytes) -> tuple[str, object]:
    """(kind, value) of one call: ok with its result, or how it failed."""
    try:
        fn, args = pickle.loads(payload)
        return "ok", fn(*args)
    except MemoryError:
        return "memory", ""
    except SkipFile as exc:
        return "skip", str(exc)
    except TroveError as exc:
        return "parse", str(exc)
    except Exception as exc:
        return "error", f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}"
