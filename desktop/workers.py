"""Every engine call runs here, off the UI thread: worker threads, a gate that lets one call use the
engine at a time, and Qt signals that carry progress, tokens, results and errors back to the window.

Indexing is one long call. Between files (the engine's progress callback) it lets waiting calls in,
so a question asked while indexing is answered from what is indexed so far; pausing releases the
engine entirely and cancelling raises from the callback (each file is written in its own
transaction, so a cancelled run leaves every file either at its old state or at its new one).
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import QObject, Signal

from engine import Gate

if TYPE_CHECKING:
    from engine import Conversation, Progress, Scope, Settings, Trove

R = TypeVar("R")
RETIRE_S = 10.0  # how long a finished task (and its signals object) is kept before Python may free it


class Cancelled(Exception):
    """Raised from the indexing progress callback when the user cancels."""


class TaskSignals(QObject):
    """What a task reports; emitted from the worker thread, delivered in the UI thread."""

    done = Signal(object)
    failed = Signal(str)
    progress = Signal(object)
    token = Signal(str)
    stage = Signal(str, object)
    finished = Signal()


class Task:
    """`fn(task)` run in the pool with the engine gate held; its return value is emitted as `done`.

    Run in a Python thread, not a QThreadPool thread: Kùzu's bindings corrupted the interpreter's
    state when called from Qt's pool threads (a crash in `take_gil`), and are fine in Python threads.
    The Engine keeps a finished task, and so its signals object, alive for a while (the worker thread
    is still returning from `run` when the UI thread receives `finished`)."""

    def __init__(self, fn: Callable[[Task], object], gate: Gate | None, name: str = "") -> None:
        self.fn, self.gate, self.name = fn, gate, name
        self.signals = TaskSignals()
        self.finished_at: float | None = None

    def run(self) -> None:
        try:
            if self.gate is None:  # work that does not touch the engine (reading a photo)
                result = self.fn(self)
            else:
                with self.gate:
                    result = self.fn(self)
        except Cancelled:
            self.signals.failed.emit("cancelled")
        except Exception as exc:  # every error reaches the window as a message, never a crash
            traceback.print_exc()
            self.signals.failed.emit(_message(exc))
        else:
            self.signals.done.emit(result)
        finally:
            self.signals.finished.emit()


def _message(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if type(exc).__name__ in ("TroveError", "ModelError", "ValueError") else f"{type(exc).__name__}: {text}"


@dataclass
class IndexProgress:
    """One step of indexing, as the window shows it."""

    done: int
    total: int
    path: str
    stage: str
    elapsed_s: float
    paused: bool = False

    @property
    def rate(self) -> float:
        """Files per second so far."""
        return self.done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        if self.rate <= 0 or self.total <= self.done:
            return None
        return (self.total - self.done) / self.rate


@dataclass
class IndexJob:
    """A running index: pause, resume and cancel it from the UI thread."""

    paths: list[Path]
    task: Task | None = None
    started: float = field(default_factory=time.monotonic)
    _resume: threading.Event = field(default_factory=threading.Event)
    _cancelled: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._resume.set()

    @property
    def paused(self) -> bool:
        return not self._resume.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def pause(self) -> None:
        self._resume.clear()

    def resume(self) -> None:
        self._resume.set()

    def cancel(self) -> None:
        self._cancelled.set()
        self._resume.set()

    def checkpoint(self, gate: Gate, emit: Callable[[IndexProgress], None], p: IndexProgress) -> None:
        """Between two files: report, stop when cancelled, wait while paused (engine released)."""
        emit(p)
        if self.cancelled:
            raise Cancelled
        if self.paused:
            emit(IndexProgress(p.done, p.total, p.path, "paused", p.elapsed_s, paused=True))
            gate.release()
            try:
                self._resume.wait()
            finally:
                gate.acquire()
            if self.cancelled:
                raise Cancelled
            emit(IndexProgress(p.done, p.total, p.path, "resumed", p.elapsed_s))
        gate.let_others_in()


class Engine(QObject):
    """Owns the engine (`engine.pipeline.Trove`) and runs every call to it in a worker."""

    settings_changed = Signal(object)

    def __init__(self, settings: Settings, trove_factory: Callable[[Settings], Trove] | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.settings = settings
        self._factory = trove_factory or _make_trove
        self._trove: Trove | None = None
        self.gate = Gate()
        self._threads: list[threading.Thread] = []
        self._running: set[Task] = set()
        self._retired: list[Task] = []

    # -- calls -------------------------------------------------------------------------------------
    def trove(self) -> Trove:
        """The engine, opened on first use; only ever called inside a task, with the gate held."""
        if self._trove is None:
            self._trove = self._factory(self.settings)
        return self._trove

    def submit(self, fn: Callable[[Task], R], on_done: Callable[[R], None] | None = None,
               on_error: Callable[[str], None] | None = None, name: str = "", gated: bool = True,
               connect: Callable[[TaskSignals], None] | None = None) -> Task:
        """Run `fn(task)` in a worker; `on_done(result)` / `on_error(message)` run in the UI thread.
        `gated`: the call uses the engine (one at a time); pure file reading is not gated.
        `connect(signals)` hooks up progress, tokens... before the worker starts (a fast task could
        otherwise emit before anyone listens)."""
        task = Task(fn, self.gate if gated else None, name)
        if on_done:
            task.signals.done.connect(on_done)
        if on_error:
            task.signals.failed.connect(on_error)
        if connect:
            connect(task.signals)
        self._running.add(task)
        task.signals.finished.connect(lambda: self._retire(task))
        thread = threading.Thread(target=task.run, name=f"trove-{name or 'task'}", daemon=True)
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return task

    def _retire(self, task: Task) -> None:
        self._running.discard(task)
        now = time.monotonic()
        task.finished_at = now
        self._retired = [t for t in self._retired if now - (t.finished_at or now) < RETIRE_S] + [task]

    def call(self, method: Callable[..., R], *args: object, on_done: Callable[[R], None] | None = None,
             on_error: Callable[[str], None] | None = None, **kwargs: object) -> Task:
        """`method(trove, *args, **kwargs)` in a worker."""
        return self.submit(lambda task: method(self.trove(), *args, **kwargs), on_done, on_error,
                           getattr(method, "__name__", ""))

    def index(self, paths: list[Path], connect: Callable[[TaskSignals], None] | None = None) -> IndexJob:
        """Start indexing `paths` (and re-indexing every folder added before). The job's task
        reports `IndexProgress` on `progress`, the engine's report on `done`, "cancelled" on `failed`;
        `connect(signals)` is called before it starts."""
        job = IndexJob([Path(p) for p in paths])

        def run(task: Task) -> object:
            def progress(p: Progress) -> None:
                step = IndexProgress(p.done, p.total, p.path, p.stage, time.monotonic() - job.started)
                job.checkpoint(self.gate, task.signals.progress.emit, step)

            task.signals.progress.emit(IndexProgress(0, 0, "", "scan", 0.0))
            return self.trove().index(job.paths, progress)

        job.task = self.submit(run, name="index", connect=connect)
        return job

    def ask(self, question: str, image: Path | None = None, connect: Callable[[TaskSignals], None] | None = None,
            conversation: Conversation | None = None, scope: Scope | None = None) -> Task:
        """Answer `question` in a worker, as a follow-up in `conversation` (None: it starts one kept
        to `scope`, sent as `stage("conversation", …)`; a conversation keeps its own scope):
        `stage("routes", [...])` first, then `token`s, then `done(AskResult)`; `connect(signals)` is
        called before it starts."""

        def run(task: Task) -> object:
            def routed(routes: list) -> None:
                task.signals.stage.emit("routes", [r.as_dict() for r in routes])

            trove = self.trove()
            talk = conversation if conversation is not None else trove.conversation(title=question, scope=scope)
            if conversation is None:
                task.signals.stage.emit("conversation", talk)
            return trove.ask(question, image=image, on_token=task.signals.token.emit, on_routes=routed,
                             conversation=talk)

        return self.submit(run, name="ask", connect=connect)

    def reconfigure(self, **changes: object) -> Task:
        """New settings (LLM, threads): the engine is reopened with them before the next call."""

        def run(task: Task) -> object:
            self.settings = self.settings.with_(**changes)
            if self._trove is not None:
                self._trove.close()
                self._trove = None
            return self.settings

        return self.submit(run, on_done=self.settings_changed.emit, name="reconfigure")

    def busy(self) -> bool:
        return bool(self._running)

    def shutdown(self, wait_ms: int = 5000) -> None:
        """Wait a little for running calls (cancel indexing first), then close the engine."""
        deadline = time.monotonic() + wait_ms / 1000
        for thread in self._threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        if any(t.is_alive() for t in self._threads):
            return  # a call still running (an answer being written) ends with the process; the index is kill-safe
        if self._trove is not None:
            with self.gate:
                self._trove.close()
                self._trove = None


def _make_trove(settings: Settings) -> Trove:
    from engine import Trove

    return Trove(settings)
