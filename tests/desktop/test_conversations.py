"""Conversations in the Ask screen (offscreen, real index of examples/, the smoke LLM): a question
follows up the one before, the thread shows every turn and shows an earlier one again, Ctrl+N starts
over, the history opens a kept conversation, Export writes it as Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from tests.desktop.conftest import ask


def _click_turn(qtbot, window, row: int) -> None:  # noqa: ANN001
    turns = window.ask.panel.turn_list
    rect = turns.visualItemRect(turns.item(row))
    qtbot.mouseClick(turns.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_a_follow_up_continues_the_conversation_and_ctrl_n_starts_another(qtbot, window):  # noqa: ANN001
    first = ask(qtbot, window, "Who lent me The Power Broker?")
    conversation = window.ask.conversation
    assert conversation is not None and conversation.id is not None and not window.ask.panel.turn_list.isVisible()
    assert "follow-up" in window.ask.question.placeholderText()
    second = ask(qtbot, window, "and when did they lend it to me?", follow_up=True)
    assert window.ask.conversation is conversation and [t.result for t in conversation.turns] == [first, second]
    texts = window.ask.panel.turn_texts()
    assert window.ask.panel.turn_list.isVisible() and len(texts) == 2
    assert texts[0].startswith("1. Who lent me The Power Broker?") and texts[1].startswith("2. and when did they")
    assert "2 turns" in window.ask.panel.title.text() and window.ask.panel.export_button.isEnabled()
    _click_turn(qtbot, window, 0)
    assert window.ask.result is first  # the first answer shown again, its citations with it
    assert window.ask.citations.count() == len(first.citations)
    qtbot.keyClick(window.ask, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    assert window.ask.conversation is None and not window.ask.panel.turn_list.isVisible()
    assert "New conversation" in window.ask.panel.title.text() and not window.ask.panel.export_button.isEnabled()
    kept = window.engine.trove().conversations.get(conversation.id)
    assert [t.question for t in kept.turns] == ["Who lent me The Power Broker?", "and when did they lend it to me?"]


def test_history_opens_a_kept_conversation_and_export_writes_it(qtbot, window, tmp_path: Path,  # noqa: ANN001
                                                                 monkeypatch: pytest.MonkeyPatch):
    asked = ask(qtbot, window, "What is the booking reference for my hotel in Lisbon?")
    kept = window.ask.conversation.id
    window.ask.new_conversation()
    panel = window.ask.panel
    panel.history_menu.clear()
    panel.history_requested.emit()  # as when the History menu opens
    qtbot.waitUntil(lambda: any(a.data() == kept for a in panel.history_menu.actions()), timeout=30_000)
    assert any("booking reference" in a.text() for a in panel.history_menu.actions() if a.data() == kept)
    next(a for a in panel.history_menu.actions() if a.data() == kept).trigger()
    qtbot.waitUntil(lambda: window.ask.conversation is not None and window.ask.conversation.id == kept,
                    timeout=30_000)
    assert window.ask.result.to_dict() == asked.to_dict()  # its last answer, as kept
    target = tmp_path / "lisbon.md"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: (str(target), "")))
    qtbot.mouseClick(panel.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(target.is_file, timeout=30_000)
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# What is the booking reference for my hotel in Lisbon?") and asked.answer in text
    qtbot.waitUntil(lambda: "Exported to" in window.ask.stage.text(), timeout=10_000)
