"""Conversations kept in the Trove home: one SQLite row per conversation and one per turn, holding
the whole answer object (citations, queries, routes, timings) and the state of each cited file."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import sqlean

from engine.conversations.turns import Conversation, Turn
from engine.errors import NoSuch, TroveError
from engine.result import AskResult
from engine.scope import Scope
from local_stores.sqlite_db import Database, writable

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations(
    id INTEGER PRIMARY KEY, title TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    scope TEXT NOT NULL DEFAULT '{}');
CREATE TABLE IF NOT EXISTS turns(
    conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    n INTEGER NOT NULL, result TEXT NOT NULL, files TEXT NOT NULL, at REAL NOT NULL,
    PRIMARY KEY (conversation_id, n));
"""
TITLE_CHARS = 80


@dataclass(frozen=True)
class Summary:
    """A conversation as a list shows it."""

    id: int
    title: str
    turns: int
    created: float
    updated: float


def title_of(question: str) -> str:
    """A conversation's title: its first question, on one line, cut."""
    flat = " ".join(question.split())
    return flat if len(flat) <= TITLE_CHARS else flat[:TITLE_CHARS - 1].rstrip() + "…"


class ConversationStore:
    """Conversations of one home, newest first. A home that cannot be written is opened read-only:
    listing, showing and exporting work; starting, adding, renaming and deleting raise TroveError."""

    def __init__(self, path: Path, read_only: bool | None = None) -> None:
        """`read_only` None: read-only when this process cannot write `path`."""
        self.path = path
        read_only = not writable(path) if read_only is None else read_only
        if read_only and not path.is_file():
            self.db: Database | None = None  # nothing was ever kept here, and nothing can be
            return
        try:
            self.db = Database(path, read_only=read_only)
            if not read_only:
                self.db.conn.executescript(SCHEMA)
        except (OSError, sqlean.DatabaseError) as exc:
            raise TroveError(f"{path}: cannot open the conversations: {exc}") from exc

    @property
    def read_only(self) -> bool:
        return self.db is None or self.db.read_only

    def start(self, title: str, scope: Scope | None = None) -> Conversation:
        """A new, empty conversation, stored, whose questions stay inside `scope`."""
        db = self._writable("start a conversation")
        now = time.time()
        cursor = db.execute("INSERT INTO conversations(title, created, updated, scope) VALUES (?, ?, ?, ?)",
                            (title_of(title), now, now, json.dumps(scope.as_dict() if scope else {})))
        return Conversation([], int(cursor.lastrowid or 0), title_of(title), now, now, scope)

    def add(self, conversation: Conversation, turn: Turn) -> None:
        """Append `turn` to the stored `conversation` (and to its list of turns)."""
        db = self._writable("keep the answer")
        if conversation.id is None:
            raise ValueError("the conversation is not stored: start it first")
        with db.transaction():
            n = db.query("SELECT coalesce(max(n), 0) + 1 FROM turns WHERE conversation_id = ?",
                         (conversation.id,))[0][0]
            db.execute("INSERT INTO turns(conversation_id, n, result, files, at) VALUES (?, ?, ?, ?, ?)",
                       (conversation.id, n, json.dumps(turn.result.to_dict()), json.dumps(turn.files), turn.at))
            db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (turn.at, conversation.id))
        conversation.turns.append(turn)
        conversation.updated = turn.at

    def get(self, conversation_id: int) -> Conversation:
        """The conversation with its turns; a TroveError naming the id when there is none."""
        rows = self._query("SELECT id, title, created, updated, scope FROM conversations WHERE id = ?",
                           (conversation_id,))
        if not rows:
            raise NoSuch(f"no conversation {conversation_id} (see trove conversations list)")
        cid, title, created, updated, scope = rows[0]
        turns = [_turn(result, files, at) for result, files, at in self._query(
            "SELECT result, files, at FROM turns WHERE conversation_id = ? ORDER BY n", (cid,))]
        kept = json.loads(scope)
        return Conversation(turns, cid, title, created, updated, Scope.from_dict(kept) if kept else None)

    def latest(self) -> Conversation | None:
        """The conversation added to last, or None when there is none."""
        rows = self._query("SELECT id FROM conversations ORDER BY updated DESC, id DESC LIMIT 1")
        return self.get(rows[0][0]) if rows else None

    def summaries(self) -> list[Summary]:
        rows = self._query("SELECT c.id, c.title, count(t.n), c.created, c.updated FROM conversations c "
                           "LEFT JOIN turns t ON t.conversation_id = c.id GROUP BY c.id "
                           "ORDER BY c.updated DESC, c.id DESC")
        return [Summary(*row) for row in rows]

    def rename(self, conversation_id: int, title: str) -> None:
        if not " ".join(title.split()):
            raise TroveError("a conversation's title cannot be empty")
        self._change("UPDATE conversations SET title = ? WHERE id = ?", (title_of(title), conversation_id),
                     conversation_id, "rename")

    def delete(self, conversation_id: int) -> None:
        self._change("DELETE FROM conversations WHERE id = ?", (conversation_id,), conversation_id, "delete")

    def close(self) -> None:
        if self.db is not None:
            self.db.close()

    def _change(self, sql: str, params: tuple, conversation_id: int, what: str) -> None:
        db = self._writable(f"{what} a conversation")
        if db.execute(sql, params).rowcount == 0:
            raise NoSuch(f"no conversation {conversation_id} (see trove conversations list)")

    def _writable(self, what: str) -> Database:
        if self.db is None or self.db.read_only:
            raise TroveError(f"{self.path.parent}: cannot {what}: the Trove home cannot be written (read-only)")
        return self.db

    def _query(self, sql: str, params: tuple = ()) -> list[tuple]:
        if self.db is None:
            return []
        try:
            return self.db.query(sql, params)
        except sqlean.OperationalError as exc:  # a read-only copy made before any conversation was kept
            if "no such table" in str(exc):
                return []
            raise


def _turn(result: str, files: str, at: float) -> Turn:
    states = {path: (state[0], state[1]) for path, state in json.loads(files).items()}
    return Turn(AskResult.from_dict(json.loads(result)), states, at)
