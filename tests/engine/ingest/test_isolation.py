"""The worker-process runner: a crash, a hang, a memory blow-up or an exception in a parser becomes
a ParseError with the reason, and the caller's process carries on."""

from __future__ import annotations

import ctypes
import time

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest.isolation import run_isolated


def _add(a: int, b: int) -> dict:
    return {"sum": a + b}


def _segfault() -> None:
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _allocate(mb: int) -> int:
    return len(bytearray(mb * 2**20))


def _refuse(reason: str) -> None:
    raise SkipFile(reason)


def _fail() -> None:
    raise ValueError("bad byte at 12")


def test_a_normal_call_returns_its_result():
    t0 = time.perf_counter()
    assert run_isolated(_add, 2, 3, timeout_s=30, memory_mb=512) == {"sum": 5}
    assert time.perf_counter() - t0 < 10  # a fresh interpreter: about 0.1-0.3 s


def test_a_segfault_is_a_parse_error_naming_the_signal():
    with pytest.raises(ParseError, match=r"the JSON reader crashed \(signal 11, SIGSEGV\)"):
        run_isolated(_segfault, timeout_s=30, what="the JSON reader")


def test_a_hang_is_stopped_at_the_timeout():
    t0 = time.perf_counter()
    with pytest.raises(ParseError, match=r"the parser was stopped after 1 s \(setting parse_timeout_s\)"):
        run_isolated(_sleep, 60, timeout_s=1)
    assert time.perf_counter() - t0 < 10


def test_too_much_memory_is_refused_at_the_limit():
    with pytest.raises(ParseError, match=r"used more than 512 MB \(setting ingest_memory_mb\)"):
        run_isolated(_allocate, 4096, timeout_s=30, memory_mb=512)
    assert run_isolated(_allocate, 64, timeout_s=30, memory_mb=512) == 64 * 2**20  # under the limit: fine


def test_skip_and_other_exceptions_come_back_with_their_reason():
    with pytest.raises(SkipFile, match="^too deep$"):
        run_isolated(_refuse, "too deep", timeout_s=30)
    with pytest.raises(ParseError, match="the parser failed: ValueError: bad byte at 12"):
        run_isolated(_fail, timeout_s=30)


def _pid() -> int:
    import os

    return os.getpid()


def test_a_worker_serves_the_next_call_and_one_that_crashed_is_replaced():
    first = run_isolated(_pid, timeout_s=30, memory_mb=768)
    assert run_isolated(_pid, timeout_s=30, memory_mb=768) == first  # kept: no new interpreter per file
    with pytest.raises(ParseError, match="crashed"):
        run_isolated(_segfault, timeout_s=30, memory_mb=768)
    with pytest.raises(ParseError, match="stopped after"):
        run_isolated(_sleep, 60, timeout_s=1, memory_mb=768)
    assert run_isolated(_add, 1, 1, timeout_s=30, memory_mb=768) == {"sum": 2}
    assert run_isolated(_pid, timeout_s=30, memory_mb=768) != first
