"""The conversation above an answer: its earlier turns (click one to see its answer again), a new
conversation (Ctrl+N), the history of conversations kept in the home, and Export as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from engine import Conversation, Summary, Turn

SHOWN_CHARS = 110  # of each earlier answer, in the thread
HISTORY_SHOWN = 30  # conversations the History menu lists


def turn_line(n: int, turn: Turn) -> str:
    """One turn of the thread: its number, the question as typed, the start of its answer."""
    answer = " ".join(turn.result.answer.split())
    answer = answer if len(answer) <= SHOWN_CHARS else answer[:SHOWN_CHARS - 1] + "…"
    return f"{n}. {turn.question}\n    {answer}"


class ConversationPanel(QWidget):
    """`turn_chosen(Turn)` when an earlier turn is clicked; `new_requested`, `history_requested`,
    `opened(int)` (a conversation id from the history) and `export_requested` for the Ask screen."""

    turn_chosen = Signal(object)
    new_requested = Signal()
    history_requested = Signal()
    opened = Signal(int)
    export_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.conversation: Conversation | None = None
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(self._header())
        self.turn_list = QListWidget()
        self.turn_list.setAccessibleName("conversation")
        self.turn_list.setWordWrap(True)
        self.turn_list.setMaximumHeight(130)
        self.turn_list.itemClicked.connect(self._chosen)
        self.turn_list.hide()
        layout.addWidget(self.turn_list)

    def _header(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.title = QLabel("New conversation")
        self.title.setObjectName("conversation-title")
        self.new_button = QPushButton("New")
        self.new_button.setToolTip("Start a new conversation: the next question does not follow up this one (Ctrl+N)")
        self.new_button.clicked.connect(self.new_requested.emit)
        self.history_button = QToolButton()
        self.history_button.setText("History")
        self.history_button.setToolTip("Open a conversation kept from before")
        self.history_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.history_menu = QMenu(self.history_button)
        self.history_menu.aboutToShow.connect(self.history_requested.emit)
        self.history_button.setMenu(self.history_menu)
        self.export_button = QPushButton("Export…")
        self.export_button.setToolTip("Save this conversation as Markdown, with its citations")
        self.export_button.clicked.connect(self.export_requested.emit)
        self.export_button.setEnabled(False)
        row.addWidget(self.title, 1)
        for button in (self.new_button, self.history_button, self.export_button):
            row.addWidget(button)
        return row

    def show_conversation(self, conversation: Conversation | None) -> None:
        """The thread of `conversation` (None: a new, empty one); the latest turn selected."""
        self.conversation = conversation
        self.turn_list.clear()
        turns = conversation.turns if conversation is not None else []
        for n, turn in enumerate(turns, start=1):
            item = QListWidgetItem(turn_line(n, turn))
            item.setData(Qt.ItemDataRole.UserRole, n - 1)
            item.setToolTip(f"asked as: {turn.asked_as}" if turn.asked_as != turn.question else turn.question)
            self.turn_list.addItem(item)
        if turns:
            self.turn_list.setCurrentRow(len(turns) - 1)
        self.turn_list.setVisible(len(turns) > 1)
        title = conversation.title if conversation is not None and conversation.title else "New conversation"
        self.title.setText(f"<b>{title}</b>" + (f" · {len(turns)} turns" if len(turns) > 1 else ""))
        self.export_button.setEnabled(bool(turns))

    def show_history(self, summaries: list[Summary]) -> None:
        """The History menu: the latest conversations, each opening itself."""
        self.history_menu.clear()
        if not summaries:
            self.history_menu.addAction("No conversations yet").setEnabled(False)
        for summary in summaries[:HISTORY_SHOWN]:
            action = self.history_menu.addAction(f"{summary.title}  ({summary.turns})")
            action.setData(summary.id)
            action.triggered.connect(lambda _=False, cid=summary.id: self.opened.emit(cid))

    def turn_texts(self) -> list[str]:
        return [self.turn_list.item(i).text() for i in range(self.turn_list.count())]

    def _chosen(self, item: QListWidgetItem) -> None:
        if self.conversation is not None:
            self.turn_chosen.emit(self.conversation.turns[item.data(Qt.ItemDataRole.UserRole)])
