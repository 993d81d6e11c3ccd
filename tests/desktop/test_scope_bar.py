"""Scoped questions in the Ask screen (offscreen, real index of examples/, the smoke LLM): scope chips
beside the question, added from the Scope menu and taken off with their ×; a scoped answer cites
only files in the scope, a conversation keeps its scope, a new scope starts a new conversation, and
a scope outside the followed folders is refused with a message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QInputDialog

from engine import Scope
from tests.conftest import EXAMPLES
from tests.desktop.conftest import ask, in_engine


@pytest.fixture
def scoped_window(window) -> Iterator:  # noqa: ANN001
    """The window; its scope cleared afterwards (the window is shared by the whole session)."""
    yield window
    window.ask.scope_bar.set_scope(Scope(), announce=True)
    window.ask.new_conversation()


def test_the_scope_menu_adds_chips_and_their_cross_takes_them_off(qtbot, scoped_window,  # noqa: ANN001
                                                                  monkeypatch: pytest.MonkeyPatch):
    bar = scoped_window.ask.scope_bar
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(lambda *a, **k: str(EXAMPLES / "notes")))
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("2024-01-01", True)))
    actions = {a.text(): a for a in bar.button.menu().actions()}
    with qtbot.waitSignal(bar.changed):
        actions["Only in a folder…"].trigger()
    actions["Since a date…"].trigger()
    kinds = {a.text(): a for a in actions["Only of a kind"].menu().actions()}
    kinds["paragraph"].trigger()
    assert bar.chip_texts() == ["in notes", "only paragraph", "since 2024-01-01"]
    assert bar.scope == Scope(paths=(str(EXAMPLES / "notes"),), kinds=("paragraph",), since="2024-01-01")
    qtbot.mouseClick(bar.chips[1], Qt.MouseButton.LeftButton)
    assert bar.chip_texts() == ["in notes", "since 2024-01-01"] and bar.scope.kinds == ()
    monkeypatch.setattr(QInputDialog, "getText", staticmethod(lambda *a, **k: ("last tuesday", True)))
    with qtbot.waitSignal(bar.invalid) as blocker:
        actions["Until a date…"].trigger()
    assert "'last tuesday': not a date" in blocker.args[0] and "not a date" in scoped_window.ask.stage.text()
    assert bar.scope.until is None  # the bad date changed nothing
    actions["Everything (clear the scope)"].trigger()
    assert bar.chips == [] and bar.scope.empty and bar.button.text() == "Scope"


def test_the_scope_menu_offers_the_indexed_sources_and_keeps_a_question_to_one(scoped_window):  # noqa: ANN001
    bar = scoped_window.ask.scope_bar
    names = in_engine(scoped_window, lambda trove: trove.source_names())
    offered = {a.text(): a for a in bar.sources_menu.actions()}
    assert bar.sources_menu.isEnabled() and sorted(offered) == names
    kitchen = next(name for name in names if "kitchen" in name)  # examples/finance/kitchen-renovation-2025.ods
    offered[kitchen].trigger()
    assert bar.chip_texts() == [f"source {kitchen}"] and bar.scope == Scope(sources=(kitchen,))
    within = in_engine(scoped_window, lambda trove: trove.within(bar.scope))
    assert within.sources == {kitchen} and within.labels == {"table"}


def _under(result, folder: Path) -> bool:  # noqa: ANN001
    return all(Path(c.source).resolve().is_relative_to(folder.resolve()) for c in result.citations)


def test_a_scoped_conversation_cites_only_its_scope_and_keeps_it(qtbot, scoped_window):  # noqa: ANN001
    view = scoped_window.ask
    notes = EXAMPLES / "notes"
    view.new_conversation()
    view.scope_bar.add(paths=(str(notes),))
    first = ask(qtbot, scoped_window, "What is the booking reference for my hotel in Lisbon?", follow_up=True)
    assert first.citations and _under(first, notes) and first.scope == {"paths": [str(notes.resolve())]}
    conversation = view.conversation
    assert conversation is not None and conversation.scope == view.scope_bar.scope
    second = ask(qtbot, scoped_window, "and which hotel was it?", follow_up=True)
    assert view.conversation is conversation and second.scope == first.scope and _under(second, notes)
    kept = scoped_window.engine.trove().conversations.get(conversation.id)
    assert kept.scope == Scope(paths=(str(notes),))  # the scope is kept with the conversation
    view.scope_bar.add(kinds=("table",))  # a new scope: the next question starts a new conversation
    assert view.conversation is None and "new conversation" in view.stage.text()
    view.panel.history_menu.clear()
    view.panel.history_requested.emit()
    qtbot.waitUntil(lambda: any(a.data() == conversation.id for a in view.panel.history_menu.actions()),
                    timeout=30_000)
    next(a for a in view.panel.history_menu.actions() if a.data() == conversation.id).trigger()
    qtbot.waitUntil(lambda: view.conversation is not None and view.conversation.id == conversation.id, timeout=30_000)
    assert view.scope_bar.chip_texts() == ["in notes"]  # an opened conversation shows its own scope


def test_a_scope_outside_the_followed_folders_is_refused_with_a_message(qtbot, scoped_window,  # noqa: ANN001
                                                                       tmp_path: Path):
    view = scoped_window.ask
    view.new_conversation()
    view.scope_bar.add(paths=(str(tmp_path),))
    box = view.question
    box.clear()
    qtbot.keyClicks(box, "What is the booking reference for my hotel in Lisbon?")
    qtbot.keyClick(box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.task is None and view.not_found.isVisible(), timeout=60_000)
    assert "not in a folder Trove follows" in view.not_found.text() and str(tmp_path) in view.not_found.text()
    assert view.result is None and view.ask_button.isEnabled()
