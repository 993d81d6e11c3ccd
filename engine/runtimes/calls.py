"""What each model call cost: tokens evaluated, reused and generated, time to first token.

The LLM appends a `Call` to its `CallLog` for every completion; `bench.latency` reads them. A call is
labelled with the pipeline stage it ran in (`during`, set by the stage timer) and with the first
words of its system prompt (its prompt family)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

_STAGE: ContextVar[str] = ContextVar("stage", default="")


@contextmanager
def during(stage: str) -> Iterator[None]:
    """Model calls made inside the block are labelled `stage`."""
    token = _STAGE.set(stage)
    try:
        yield
    finally:
        _STAGE.reset(token)


def current_stage() -> str:
    return _STAGE.get()


@dataclass(frozen=True)
class Call:
    stage: str  # the pipeline stage the call ran in ("" outside one)
    family: str  # the first words of the system prompt
    prompt_tokens: int
    reused_tokens: int  # of the prompt, already in the KV cache (not evaluated again)
    generated_tokens: int
    first_token_s: float  # from the call to its first generated token
    total_s: float


class CallLog:
    """The last `size` calls, oldest first."""

    def __init__(self, size: int = 512) -> None:
        self._calls: deque[Call] = deque(maxlen=size)

    def add(self, call: Call) -> None:
        self._calls.append(call)

    def take(self) -> list[Call]:
        """The calls logged so far, which are then forgotten."""
        calls = list(self._calls)
        self._calls.clear()
        return calls


def family(messages: list[dict], words: int = 6) -> str:
    """A prompt's family: the first words of its first (system) message."""
    first = str(messages[0].get("content", "")) if messages else ""
    return " ".join(first.split()[:words])
