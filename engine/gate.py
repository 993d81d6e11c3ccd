"""One engine call at a time, in order of arrival: the desktop app's workers and `trove serve`'s
requests share one `Trove` (its models, its index connection) through a `Gate`.

A waiting call can hear its place in the queue and give up after a time (`Busy`); the holder of a
long call (indexing) lets the calls waiting now in between its steps (`let_others_in`)."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable

from engine.errors import TroveError


class Busy(TroveError):
    """A call waited longer than it may for the engine."""


class Gate:
    """A FIFO lock over the engine; reentrant it is not: one holder, the others queue."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._owner: int | None = None
        self._queue: deque[object] = deque()

    @property
    def waiting(self) -> int:
        """How many calls wait for the engine now."""
        with self._cond:
            return len(self._queue)

    def acquire(self, timeout_s: float | None = None, on_place: Callable[[int], None] | None = None) -> None:
        """Wait for the engine, first come first served. `on_place` hears how many calls are ahead
        (the holder counts as one) each time that changes; after `timeout_s` it is `Busy`."""
        ticket, deadline = object(), None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            self._queue.append(ticket)
            heard = -1
            while self._owner is not None or self._queue[0] is not ticket:
                ahead = self._queue.index(ticket) + (self._owner is not None)
                if on_place is not None and ahead != heard:
                    heard = ahead
                    on_place(ahead)
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    self._queue.remove(ticket)
                    self._cond.notify_all()
                    raise Busy(f"the engine is busy: {ahead} call(s) ahead after waiting {timeout_s:g} s; "
                               "try again later")
                self._cond.wait(left)
            self._queue.popleft()
            self._owner = threading.get_ident()
            self._cond.notify_all()

    def release(self) -> None:
        with self._cond:
            self._owner = None
            self._cond.notify_all()

    def let_others_in(self) -> None:
        """Called by the holder: the calls waiting now (and any that come meanwhile) run first, then
        the holder continues."""
        with self._cond:
            if not self._queue:
                return
            self._owner = None
            self._cond.notify_all()
            while self._queue or self._owner is not None:
                self._cond.wait()
            self._owner = threading.get_ident()

    def __enter__(self) -> Gate:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
