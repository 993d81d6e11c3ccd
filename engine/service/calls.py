"""Engine calls from the event loop: each runs in a worker thread while it holds the gate (one call
uses the engine at a time, the others wait their turn for at most `Limits.wait_s`); an answer can be
stopped between two of its words (a client gone, its time up)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

import anyio

from engine.errors import REPORTED, TroveError

if TYPE_CHECKING:
    from engine.conversations.turns import Conversation
    from engine.gate import Gate
    from engine.pipeline import Trove
    from engine.result import AskResult
    from engine.routing.base import Route
    from engine.scope import Scope

T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    body_bytes: int = 1_000_000  # a request body past this is refused (413)
    wait_s: float = 120.0  # how long a request waits for its turn before a 503
    answer_s: float = 600.0  # how long an answer may take once its turn came, before a 504


class Stopped(TroveError):
    """An answer stopped before it was written: its client went away or its time was up."""


@dataclass
class Engine:
    """The one warm `Trove` a service shares, its gate and its limits."""

    trove: Trove
    gate: Gate
    limits: Limits = field(default_factory=Limits)

    async def call(self, fn: Callable[[Trove], T], on_place: Callable[[int], None] | None = None) -> T:
        """`fn(trove)` in a worker thread, with the gate held."""

        def held() -> T:
            self.gate.acquire(self.limits.wait_s, on_place)
            try:
                return fn(self.trove)
            finally:
                self.gate.release()

        return await anyio.to_thread.run_sync(held)


@dataclass
class Asking:
    """One question on its way: what `Trove.ask` takes besides the question, and a flag that stops it."""

    question: str
    conversation: Conversation | None = None
    scope: Scope | None = None
    pick: Callable[[Trove], Conversation] | None = None  # finds `conversation` once the engine is held
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self, trove: Trove, on_token: Callable[[str], None] | None = None,
            on_routes: Callable[[list[Route]], None] | None = None) -> AskResult:
        if self.pick is not None:
            self.conversation = self.pick(trove)

        def heard(piece: str) -> None:
            if self.stop.is_set():
                raise Stopped("the answer was stopped before it was written")
            if on_token is not None:
                on_token(piece)

        return trove.ask(self.question, on_token=heard, on_routes=on_routes, conversation=self.conversation,
                         scope=self.scope)


async def answer(engine: Engine, asking: Asking) -> AskResult:
    """The checked answer; stopped (a `Stopped` 504) when it takes longer than `Limits.answer_s`
    after its turn came."""
    started = threading.Event()

    def run(trove: Trove) -> AskResult:
        started.set()
        return asking.run(trove)

    task = asyncio.ensure_future(engine.call(run))
    deadline: float | None = None
    loop = asyncio.get_running_loop()
    while not task.done():
        if deadline is None and started.is_set():
            deadline = loop.time() + engine.limits.answer_s
        if deadline is not None and loop.time() >= deadline:
            asking.stop.set()  # the thread ends at the answer's next word and frees the engine
            task.add_done_callback(_heard)
            raise Stopped(f"the answer took longer than {engine.limits.answer_s:g} s and was stopped")
        await asyncio.wait([task], timeout=0.5 if deadline is None else deadline - loop.time())
    return task.result()


async def answer_events(engine: Engine, asking: Asking) -> AsyncIterator[tuple[str, object]]:
    """The answer as it comes: ("queued", calls ahead), ("routes", [...]), ("token", text) ... then
    ("answer", AskResult), or ("error", the TroveError, ValueError or LookupError). A consumer that
    stops listening stops the answer."""
    loop = asyncio.get_running_loop()
    events: asyncio.Queue[tuple[str, object]] = asyncio.Queue()

    def put(kind: str, value: object) -> None:
        loop.call_soon_threadsafe(events.put_nowait, (kind, value))

    def run(trove: Trove) -> AskResult:
        return asking.run(trove, lambda piece: put("token", piece),
                          lambda chosen: put("routes", [r.as_dict() for r in chosen]))

    task = asyncio.ensure_future(engine.call(run, lambda ahead: put("queued", ahead)))
    task.add_done_callback(lambda t: put("done", None))
    try:
        while True:
            kind, value = await events.get()
            if kind == "done":
                break
            yield kind, value
        exc = task.exception()
        if exc is None:
            yield "answer", task.result()
        elif isinstance(exc, (*REPORTED, ValueError, LookupError)):
            yield "error", exc
        else:
            raise exc
    finally:
        asking.stop.set()
        task.add_done_callback(_heard)


def _heard(task: asyncio.Future) -> None:
    """Take a stopped call's outcome, so that its expected `Stopped` is not logged as lost."""
    if not task.cancelled():
        task.exception()
