"""A conversation's turns: the question as typed, the answer object (with the standalone question it
was answered as), and the state of each cited file when it was answered."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.result import AskResult
from engine.scope import Scope

FileState = tuple[int, str | None]  # a cited file's (mtime_ns, sha256) in the catalog when it was cited


@dataclass(frozen=True)
class Turn:
    result: AskResult
    files: dict[str, FileState] = field(default_factory=dict)  # cited file -> its state then
    at: float = 0.0  # when it was answered (seconds since the epoch)

    @property
    def question(self) -> str:
        """The question as the user typed it."""
        return self.result.question

    @property
    def asked_as(self) -> str:
        """The standalone question it was answered as."""
        return self.result.asked_as or self.result.question


@dataclass
class Conversation:
    """Turns oldest first; `id` is None until the conversation is stored; every question of it stays
    inside `scope` (None: the whole index)."""

    turns: list[Turn] = field(default_factory=list)
    id: int | None = None
    title: str = ""
    created: float = 0.0
    updated: float = 0.0
    scope: Scope | None = None

    def last(self, n: int) -> list[Turn]:
        return self.turns[-n:] if n > 0 else []
