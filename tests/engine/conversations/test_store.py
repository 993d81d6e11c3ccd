"""Conversations kept in the home: stored, reopened, listed, renamed, deleted; read-only homes."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from engine.conversations.store import ConversationStore
from engine.conversations.turns import Turn
from engine.errors import TroveError
from engine.result import AskResult, Citation, QueryRun


def _turn(n: int) -> Turn:
    result = AskResult(question=f"and in month {n}?", answer=f"You spent {n}0 EUR [1].",
                       citations=[Citation(1, "table", "/files/expenses.csv",
                                           {"query": "SELECT sum(amount) FROM expenses", "language": "sql",
                                            "rows": [1, 2]}, "sum: 10")],
                       queries=[QueryRun("sql", "expenses", "SELECT sum(amount) FROM expenses", True, rows=1)],
                       timings_ms={"total": 1200.0}, asked_as=f"How much did I spend in month {n}?")
    return Turn(result, {"/files/expenses.csv": (123, "abc")}, time.time() + n)


def test_turns_survive_a_reopen_whole(tmp_path: Path):
    path = tmp_path / "conversations" / "conversations.db"
    store = ConversationStore(path)
    conversation = store.start("How much did I spend in month 0?")
    for n in range(3):
        store.add(conversation, _turn(n))
    store.close()
    again = ConversationStore(path).get(conversation.id or 0)
    assert again.title == "How much did I spend in month 0?" and len(again.turns) == 3
    assert again.turns[1].result.to_dict() == _turn(1).result.to_dict()
    assert again.turns[1].asked_as == "How much did I spend in month 1?"
    assert again.turns[1].question == "and in month 1?"
    assert again.turns[1].files == {"/files/expenses.csv": (123, "abc")} and again.turns[2].at > again.turns[1].at


def test_list_rename_delete_and_the_latest(tmp_path: Path):
    store = ConversationStore(tmp_path / "c.db")
    first, second = store.start("first question"), store.start("second question")
    store.add(first, _turn(1))  # added to last: the latest, although started first
    assert store.latest().id == first.id  # type: ignore[union-attr]
    assert [(c.id, c.turns) for c in store.summaries()] == [(first.id, 1), (second.id, 0)]
    store.rename(second.id or 0, "  groceries   by month ")
    assert store.get(second.id or 0).title == "groceries by month"
    store.delete(first.id or 0)
    assert [c.id for c in store.summaries()] == [second.id]


def test_a_conversation_that_does_not_exist_is_named_in_the_error(tmp_path: Path):
    store = ConversationStore(tmp_path / "c.db")
    for action in (lambda: store.get(42), lambda: store.delete(42), lambda: store.rename(42, "x")):
        with pytest.raises(TroveError, match="no conversation 42"):
            action()
    with pytest.raises(TroveError, match="title cannot be empty"):
        store.rename(store.start("q").id or 0, "   ")


def test_a_fifty_turn_conversation_is_kept_in_order(tmp_path: Path):
    store = ConversationStore(tmp_path / "c.db")
    conversation = store.start("long")
    for n in range(50):
        store.add(conversation, _turn(n))
    kept = store.get(conversation.id or 0)
    assert [t.result.question for t in kept.turns] == [f"and in month {n}?" for n in range(50)]
    assert [t.result.question for t in kept.last(3)] == ["and in month 47?", "and in month 48?", "and in month 49?"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes read-only folders")
def test_a_read_only_home_lists_but_does_not_keep(tmp_path: Path):
    folder = tmp_path / "conversations"
    store = ConversationStore(folder / "c.db")
    store.add(store.start("kept before"), _turn(1))
    store.close()
    folder.chmod(0o555)
    try:
        read_only = ConversationStore(folder / "c.db")
        assert read_only.read_only and [c.title for c in read_only.summaries()] == ["kept before"]
        with pytest.raises(TroveError, match="read-only"):
            read_only.start("new")
        empty = ConversationStore(tmp_path / "never" / "c.db", read_only=True)
        assert empty.summaries() == [] and empty.latest() is None
    finally:
        folder.chmod(0o755)


def test_a_store_opened_read_only_refuses_writes(tmp_path: Path):
    ConversationStore(tmp_path / "c.db").start("one")
    store = ConversationStore(tmp_path / "c.db", read_only=True)
    assert [c.title for c in store.summaries()] == ["one"]
    with pytest.raises(TroveError, match="cannot delete a conversation"):
        store.delete(1)
