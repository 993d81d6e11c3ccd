"""Run a parser that may crash, hang or eat memory in a worker process, so one hostile file ends
its worker, never the index run (and never every later run of that home).

The worker is a fresh interpreter (`python -c`), not a fork: the indexer holds llama.cpp and
onnxruntime threads, and forking a threaded process is unsafe. Not multiprocessing's "spawn" or
"forkserver" either: both re-import the parent's main script in the worker, which fails for a
script without a main guard (see local_stores/rdf_store.py, whose SPARQL worker starts the same
way). Measured on 2 cores: a worker that runs `os.getpid` costs 0.17-0.25 s, one that imports
openpyxl 0.3 s; reading a 118 MB JSON file through one took 10.1 s against 9.4 s in-process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
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
    running out of memory or any other exception become ParseError naming `what`."""
    payload = pickle.dumps((fn, args))  # an unpicklable function fails here, in the caller
    with tempfile.TemporaryFile() as output:
        proc, conn = _start(memory_mb, output)
        try:
            reply = _exchange(conn, payload, timeout_s)
            if reply is None:
                raise ParseError(f"{what} was stopped after {timeout_s:g} s (setting parse_timeout_s)")
            if reply == ():  # the pipe closed without a reply: the worker died
                raise ParseError(_death(what, _exit_status(proc), _tail(output), memory_mb))
        finally:
            _stop(proc, conn)
    return cast("T", _result(reply, what, memory_mb))  # what fn(*args) returned, unpickled


def _start(memory_mb: int, output: IO[bytes]) -> tuple[subprocess.Popen, Connection]:
    """A worker process and the parent's end of its pipe; its stdout and stderr go to `output`."""
    parent, child = Pipe()
    path = os.pathsep.join(p for p in (str(_PROJECT), os.environ.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.Popen([sys.executable, "-c", _WORKER_MAIN, str(child.fileno()), str(memory_mb)],
                                pass_fds=(child.fileno(),), stdin=subprocess.DEVNULL, stdout=output,
                                stderr=output, env={**os.environ, "PYTHONPATH": path, "RUST_BACKTRACE": "0"})
    finally:
        child.close()  # the worker holds the only write end now: its death closes the pipe
    return proc, parent


def _exchange(conn: Connection, payload: bytes, timeout_s: float) -> tuple | None:
    """The worker's reply; None at the timeout, () when it died first."""
    try:
        conn.send_bytes(payload)
        if not conn.poll(timeout_s):
            return None
        return conn.recv()
    except (EOFError, OSError):
        return ()


def _stop(proc: subprocess.Popen, conn: Connection) -> None:
    conn.close()
    if proc.poll() is None:
        proc.kill()
    proc.wait()


def _exit_status(proc: subprocess.Popen) -> int | None:
    try:
        return proc.wait(_REPLY_WAIT_S)
    except subprocess.TimeoutExpired:  # alive with its pipe closed: treated as a crash
        return None


def _tail(output: IO[bytes], size: int = 4096) -> str:
    output.seek(0, os.SEEK_END)
    output.seek(max(0, output.tell() - size))
    return output.read().decode("utf-8", "replace")


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
    """The worker: cap the address space, run the one call it is sent, send back its outcome."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which then kills us
    if memory_mb > 0:
        with contextlib.suppress(ImportError, ValueError, OSError):
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
    conn = Connection(fd)
    reply = _call(conn.recv_bytes())
    try:
        conn.send(reply)
    except MemoryError:
        conn.send(("memory", ""))
    except Exception as exc:  # an unpicklable result
        conn.send(("error", f"its result could not be sent back: {type(exc).__name__}: {exc}"))
    conn.close()


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
