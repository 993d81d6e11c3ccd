"""The engine's gate: one call at a time, first come first served, places heard, waits bounded."""

from __future__ import annotations

import threading
import time

import pytest

from engine.gate import Busy, Gate


def _waiter(gate: Gate, name: str, order: list[str], places: list[int] | None = None,
            hold: threading.Event | None = None) -> threading.Thread:
    """A call that waits for the gate, notes its turn, holds the gate until `hold` is set, and leaves."""
    def run() -> None:
        gate.acquire(on_place=None if places is None else places.append)
        order.append(name)
        if hold is not None:
            hold.wait(5)
        gate.release()

    thread = threading.Thread(target=run)
    thread.start()
    return thread


def _until(check: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not check() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)


def test_calls_run_in_the_order_they_came_and_hear_their_place():
    gate, order, places, hold = Gate(), [], [], threading.Event()
    gate.acquire()
    first = _waiter(gate, "first", order, hold=hold)
    _until(lambda: gate.waiting == 1)
    second = _waiter(gate, "second", order, places)
    _until(lambda: gate.waiting == 2)
    assert places == [2]  # the holder and the first waiter are ahead
    gate.release()
    _until(lambda: order == ["first"] and places[-1] == 1)
    assert places == [2, 1]  # the first holds the gate now: one call ahead
    hold.set()
    first.join(5), second.join(5)
    assert order == ["first", "second"]


def test_a_call_that_waits_too_long_is_busy_and_leaves_the_queue():
    gate = Gate()
    gate.acquire()
    with pytest.raises(Busy, match="1 call"):
        gate.acquire(timeout_s=0.2)
    assert gate.waiting == 0
    gate.release()
    gate.acquire(timeout_s=0.2)  # free again
    gate.release()


def test_the_holder_lets_waiting_calls_in_between_its_steps():
    gate, order = Gate(), []
    gate.acquire()
    waiter = _waiter(gate, "ask", order)
    _until(lambda: gate.waiting == 1)
    order.append("step 1")
    gate.let_others_in()
    order.append("step 2")
    gate.release()
    waiter.join(5)
    assert order == ["step 1", "ask", "step 2"]
