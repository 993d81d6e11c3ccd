"""The Ask screen: a question box (Enter to ask, ↑/↓ through earlier questions), a photo to ask
about (dropped or picked), the conversation so far (a question follows up the one before until a
new conversation, Ctrl+N), the answer as it is written, route chips, the citations, and the viewer
of the citation clicked."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QEvent, QMimeData, QSize, Qt, QUrl, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.conversation_panel import ConversationPanel
from desktop.scope_bar import ScopeBar
from desktop.viewers import viewer_for
from desktop.viewers.common import Viewer
from engine import PHOTO_SUFFIXES, Decision, citation_place

if TYPE_CHECKING:
    from desktop.workers import Engine, Task, TaskSignals
    from engine import AskResult, Conversation, Scope, Summary, Trove, Turn

STAGE_NAMES = {"rewrite": "reading the follow-up",
               "route": "routing", "query": "native queries", "retrieve": "retrieval", "ground": "photo grounding",
               "select": "evidence selection", "generate": "writing the answer", "total": "total",
               "first_token": "first words"}


ROUTE_TIPS: dict[str, str] = {Decision.SOURCES: "one of your tables, graphs or RDF files is close to the question",
              Decision.FALLBACK: "searched because the routes found nothing relevant",
              Decision.GIVEN: "route given by the caller",
              Decision.EVIDENCE: "your files hold text or structured data that fits the question better",
              Decision.NAMED: "the question names this kind of file",
              Decision.FIRST_PERSON: "the question is about your own things, and this kind of file is near it",
              Decision.EMPTY_INDEX: "nothing is indexed yet",
              Decision.FOLLOW_UP: "the question follows up an answer from this kind of source",
              Decision.HELD: "the question names something only this kind of source holds"}


def route_tip(router: str) -> str:
    """What decided a route, in words, for its chip's tooltip."""
    return ROUTE_TIPS.get(router, f"routed by the {router} router")


def answer_html(answer: str, numbers: set[int]) -> str:
    """The answer with each [n] a link to its citation."""
    text = html.escape(answer).replace("\n", "<br>")
    return re.sub(r"\[(\d+)\]", lambda m: f'<a href="cite:{m.group(1)}">[{m.group(1)}]</a>'
                  if int(m.group(1)) in numbers else m.group(0), text)


class QuestionBox(QLineEdit):
    """Enter asks; ↑ and ↓ walk through the questions asked before."""

    asked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.history: list[str] = []
        self._at = 0
        self.setPlaceholderText("Ask about your files…  (Enter to ask, ↑ for earlier questions)")
        self.setAccessibleName("question")
        self.returnPressed.connect(self._submit)

    def _submit(self) -> None:
        question = self.text().strip()
        if not question:
            return
        if not self.history or self.history[-1] != question:
            self.history.append(question)
        self._at = len(self.history)
        self.asked.emit(question)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() == Qt.Key.Key_Up and self.history:
            self._at = max(0, self._at - 1)
            self.setText(self.history[self._at])
        elif event.key() == Qt.Key.Key_Down and self.history:
            self._at = min(len(self.history), self._at + 1)
            self.setText(self.history[self._at] if self._at < len(self.history) else "")
        else:
            super().keyPressEvent(event)


class Chip(QLabel):
    """A small rounded label: a route and its confidence."""

    def __init__(self, text: str, tooltip: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setToolTip(tooltip)
        self.setObjectName("chip")
        self.setStyleSheet("QLabel#chip { border: 1px solid palette(mid); border-radius: 9px; padding: 1px 8px; "
                           "background: palette(alternate-base); }")


class AskView(QWidget):
    """Ask, read the answer, click a citation."""

    answered = Signal(object)  # AskResult
    viewer_shown = Signal(object)  # the Viewer

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.result: AskResult | None = None
        self.photo: Path | None = None
        self.viewer: Viewer | None = None
        self.task: Task | None = None
        self.conversation: Conversation | None = None
        self._streamed = ""
        self.setAcceptDrops(True)
        self._build()

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        self.panel = ConversationPanel()
        self.panel.new_requested.connect(self.new_conversation)
        self.panel.turn_chosen.connect(self.show_turn)
        self.panel.history_requested.connect(self._load_history)
        self.panel.opened.connect(self.open_conversation)
        self.panel.export_requested.connect(self.export_conversation)
        outer.addWidget(self.panel)
        outer.addLayout(self._question_row())
        outer.addLayout(self._status_row())
        split = QSplitter(Qt.Orientation.Horizontal)
        split.setObjectName("ask-split")
        split.addWidget(self._answer_column())
        split.addWidget(self._viewer_column())
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        self.split = split
        outer.addWidget(split, 1)
        QShortcut(QKeySequence("Ctrl+L"), self).activated.connect(self.question.setFocus)
        QShortcut(QKeySequence("Ctrl+T"), self).activated.connect(self.timings_button.toggle)
        QShortcut(QKeySequence("Ctrl+N"), self).activated.connect(self.new_conversation)

    def _question_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.question = QuestionBox()
        self.question.asked.connect(self.ask)
        self.photo_button = QPushButton("Photo…")
        self.photo_button.setToolTip("Ask about a photo: pick one, or drop it on this window")
        self.photo_button.clicked.connect(self.pick_photo)
        self.photo_chip = QToolButton()
        self.photo_chip.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.photo_chip.setToolTip("The photo asked about; click to remove it")
        self.photo_chip.clicked.connect(lambda: self.set_photo(None))
        self.photo_chip.hide()
        self.ask_button = QPushButton("Ask")
        self.ask_button.setDefault(True)
        self.ask_button.clicked.connect(lambda: self.question._submit())
        self.scope_bar = ScopeBar()
        self.scope_bar.changed.connect(self._scope_changed)
        self.scope_bar.invalid.connect(lambda message: self.stage.setText(message))
        for w in (self.question, self.scope_bar, self.photo_chip, self.photo_button, self.ask_button):
            row.addWidget(w, 1 if w is self.question else 0)
        return row

    def _status_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.chips = QHBoxLayout()
        self.chips.setSpacing(4)
        self.busy = QProgressBar()
        self.busy.setRange(0, 0)
        self.busy.setMaximumWidth(120)
        self.busy.setMaximumHeight(12)
        self.busy.setTextVisible(False)
        self.busy.hide()
        self.stage = QLabel()
        self.timings_button = QToolButton()
        self.timings_button.setText("Timings")
        self.timings_button.setCheckable(True)
        self.timings_button.setToolTip("Show how long each stage took (Ctrl+T)")
        self.timings_button.toggled.connect(lambda on: self.details.setVisible(on and bool(self.details.text())))
        row.addLayout(self.chips)
        row.addWidget(self.busy)
        row.addWidget(self.stage)
        row.addStretch(1)
        row.addWidget(self.timings_button)
        return row

    def _answer_column(self) -> QWidget:
        column = QWidget()
        layout = QVBoxLayout(column)
        layout.setContentsMargins(0, 0, 0, 0)
        self.not_found = QLabel()
        self.not_found.setObjectName("not-found")
        self.not_found.setWordWrap(True)
        self.not_found.setStyleSheet("QLabel#not-found { border: 1px solid palette(mid); border-radius: 6px; "
                                     "padding: 8px; background: palette(alternate-base); }")
        self.not_found.hide()
        self.asked_as = QLabel()
        self.asked_as.setObjectName("asked-as")
        self.asked_as.setWordWrap(True)
        self.asked_as.setToolTip("A follow-up is answered as the question it stands for")
        self.asked_as.hide()
        self.answer = QTextBrowser()
        self.answer.setOpenLinks(False)
        self.answer.setAccessibleName("answer")
        self.answer.anchorClicked.connect(self._anchor)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details.hide()
        self.citations = QListWidget()
        self.citations.setAccessibleName("citations")
        self.citations.setWordWrap(True)
        self.citations.setIconSize(QSize(0, 0))
        self.citations.itemActivated.connect(self._open_item)
        self.citations.itemClicked.connect(self._open_item)
        layout.addWidget(self.asked_as)
        layout.addWidget(self.not_found)
        layout.addWidget(self.answer, 2)
        self.not_found.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.details)
        self.citations_label = QLabel("Citations (click one to see it in its file):")
        layout.addWidget(self.citations_label)
        layout.addWidget(self.citations, 1)
        layout.addStretch(0)  # takes the room when there is no answer text or citation to show
        for label in (self.asked_as, self.not_found, self.details):
            label.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        return column

    def _viewer_column(self) -> QWidget:
        self.viewer_host = QStackedWidget()
        self.placeholder = QLabel("Click a citation [n] to see where the answer comes from: the page, the rows "
                                  "and their SQL, the graph, the triples, the box in the photo or the moment "
                                  "in the video.")
        self.placeholder.setWordWrap(True)
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setFrameShape(QFrame.Shape.StyledPanel)
        self.viewer_host.addWidget(self.placeholder)
        return self.viewer_host

    # -- photo ------------------------------------------------------------------------------------
    def pick_photo(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A photo to ask about", str(Path.home()),
                                              "Photos (" + " ".join(f"*{s}" for s in sorted(PHOTO_SUFFIXES)) + ")")
        if path:
            self.set_photo(Path(path))

    def set_photo(self, path: Path | None) -> None:
        self.photo = path
        self.photo_chip.setVisible(path is not None)
        if path is not None:
            self.photo_chip.setText(f"📷 {path.name}  ✕")
            if not self.question.text():
                self.question.setPlaceholderText(f"Ask about {path.name}…")
        else:
            self.question.setPlaceholderText("Ask about your files…  (Enter to ask, ↑ for earlier questions)")

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt's name)
        if self._dropped_photo(event.mimeData()) is not None:
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        photo = self._dropped_photo(event.mimeData())
        if photo is not None:
            self.set_photo(photo)
            event.acceptProposedAction()
            self.question.setFocus()

    @staticmethod
    def _dropped_photo(mime: QMimeData) -> Path | None:
        for url in mime.urls() if mime.hasUrls() else []:
            path = Path(url.toLocalFile())
            if path.suffix.lower() in PHOTO_SUFFIXES and path.is_file():
                return path
        return None

    # -- asking -----------------------------------------------------------------------------------
    def ask(self, question: str) -> None:
        if self.task is not None:
            return
        self._clear()
        self.busy.show()
        self.stage.setText("Waiting for the index…" if self.engine.busy() else "Routing…")
        self.ask_button.setEnabled(False)
        scope = None if self.scope_bar.scope.empty else self.scope_bar.scope
        self.task = self.engine.ask(question, self.photo, connect=self._listen, conversation=self.conversation,
                                    scope=scope)

    def _listen(self, signals: TaskSignals) -> None:
        signals.stage.connect(self._stage)
        signals.token.connect(self._token)
        signals.done.connect(self.show_result)
        signals.failed.connect(self._failed)

    def _clear(self) -> None:
        self.result = None
        self._streamed = ""
        self.asked_as.hide()
        self.answer.clear()
        self.answer.show()
        self.citations.show()
        self.citations_label.show()
        self.citations.clear()
        self.not_found.hide()
        self.details.setText("")
        self.details.hide()
        self._set_chips([])
        self.viewer_host.setCurrentWidget(self.placeholder)

    def _stage(self, name: str, value: object) -> None:
        if name == "conversation":
            self.conversation = cast("Conversation", value)  # the one this question started
        elif name == "routes":
            self._set_chips(cast("list[dict]", value))  # the routes, as Engine.ask emits them
            self.stage.setText("Searching your files…")

    def _token(self, piece: str) -> None:
        if not self._streamed:
            self.stage.setText("Writing the answer…")
        self._streamed += piece
        self.answer.setPlainText(self._streamed)

    def show_result(self, result: AskResult) -> None:
        """Show an answer (from the worker): text with linked [n], chips, citations, details; the
        conversation's thread with it."""
        self.task = None
        self.busy.hide()
        self.ask_button.setEnabled(True)
        self.stage.setText("")
        self.panel.show_conversation(self.conversation)
        self._follow_up_hint()
        self._show(result)
        self.answered.emit(result)

    def show_turn(self, turn: Turn) -> None:
        """An earlier turn of the conversation shown again: its answer, chips and citations."""
        if self.task is None:
            self._show(turn.result)

    def _show(self, result: AskResult) -> None:
        self.result = result
        self.asked_as.setText(f"<i>Asked as:</i> {html.escape(result.asked_as)}")
        self.asked_as.setVisible(bool(result.asked_as))
        self._set_chips(result.routes)
        self.answer.setVisible(result.answered)
        self.not_found.setVisible(not result.answered)
        self.viewer_host.setCurrentWidget(self.placeholder)  # a new answer: its citations are not open yet
        if result.answered:
            self.answer.setHtml(answer_html(result.answer, {c.n for c in result.citations}))
        else:
            self.not_found.setText(f"<b>No answer in your files.</b> {html.escape(result.answer)}<br><br>Trove "
                                   "says so rather than guess. Other words may find it, or the file that holds the "
                                   "answer may be in a folder Trove does not follow yet (Sources, Ctrl+2).")
            self.not_found.show()
            self.answer.clear()
        self.citations.clear()
        for c in result.citations:
            snippet = " ".join(c.text.split())
            item = QListWidgetItem(f"[{c.n}] {c.kind} · {citation_place(c.source, c.locator, rows_shown=8)}\n"
                                   f"    {snippet[:160]}{'…' if len(snippet) > 160 else ''}")
            item.setData(Qt.ItemDataRole.UserRole, c.n)
            item.setToolTip(c.source)
            self.citations.addItem(item)
        self.citations.setVisible(bool(result.citations))
        self.citations_label.setVisible(bool(result.citations))
        self.details.setText(self._details(result))
        self.details.setVisible(self.timings_button.isChecked())

    # -- conversations ----------------------------------------------------------------------------
    def new_conversation(self) -> None:
        """The next question starts a new conversation (Ctrl+N)."""
        if self.task is not None:
            return
        self.conversation = None
        self.panel.show_conversation(None)
        self._clear()
        self._follow_up_hint()
        self.question.clear()
        self.question.setFocus()

    def open_conversation(self, conversation_id: int) -> Task:
        """A conversation from the history: its thread, its last answer; the next question follows it up."""

        def opened(conversation: Conversation) -> None:
            self.conversation = conversation
            self.scope_bar.set_scope(conversation.scope)
            self.panel.show_conversation(conversation)
            self._follow_up_hint()
            if conversation.turns:
                self._show(conversation.turns[-1].result)

        return self.engine.call(_conversation, conversation_id, on_done=opened, on_error=self._failed)

    def _scope_changed(self, scope: Scope) -> None:
        """A conversation keeps its scope: a new one changes it, so the next question starts afresh."""
        kept = self.conversation.scope if self.conversation is not None else None
        if self.conversation is not None and kept != scope and not (scope.empty and (kept is None or kept.empty)):
            self.conversation = None
            self.panel.show_conversation(None)
            self._follow_up_hint()
            self.stage.setText(f"Scope: {scope.describe()}. The next question starts a new conversation.")

    def export_conversation(self, path: Path | None = None) -> Task | None:
        """Save the conversation as Markdown (a file picked when `path` is not given)."""
        conversation = self.conversation
        if conversation is None or not conversation.turns:
            return None
        if path is None:
            picked, _ = QFileDialog.getSaveFileName(self, "Export the conversation",
                                                    str(Path.home() / f"conversation-{conversation.id or 'new'}.md"),
                                                    "Markdown (*.md)")
            if not picked:
                return None
            path = Path(picked)
        return self.engine.call(_export, conversation, path, on_error=self._failed,
                                on_done=lambda written: self.stage.setText(f"Exported to {written}"))

    def _load_history(self) -> None:
        self.engine.call(_summaries, on_done=self.panel.show_history, on_error=self._failed)

    def _follow_up_hint(self) -> None:
        following = self.conversation is not None and bool(self.conversation.turns)
        self.question.setPlaceholderText("Ask a follow-up, or Ctrl+N for a new conversation…" if following else
                                         "Ask about your files…  (Enter to ask, ↑ for earlier questions)")

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        """Light/dark switched: draw the answer's links in the new link colour."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self.result is not None:
            self._set_chips(self.result.routes)  # their style sheet took the old palette's colours
            if self.result.answered:
                self.answer.setHtml(answer_html(self.result.answer, {c.n for c in self.result.citations}))

    def _failed(self, message: str) -> None:
        self.task = None
        self.busy.hide()
        self.ask_button.setEnabled(True)
        self.stage.setText("")
        self.not_found.setText(f"<b>Could not answer.</b> {html.escape(message)}")
        self.not_found.show()

    @staticmethod
    def _details(result: AskResult) -> str:
        stages = ", ".join(f"{STAGE_NAMES.get(k, k)} {v / 1000:.2f} s" for k, v in result.timings_ms.items())
        lines = [f"<b>Timings:</b> {stages}"]
        if result.model:
            lines.append(f"<b>Model:</b> {html.escape(result.model)}")
        for q in result.queries:
            state = f"{q.rows} rows" if q.ok else f"failed: {html.escape(q.error or '')}"
            lines.append(f"<b>{q.language.upper()}</b> on {html.escape(q.source)} ({state}): "
                         f"<code>{html.escape(' '.join(q.query.split()))}</code>")
        if result.unsupported:
            lines.append(f"<b>Not backed by a citation:</b> {len(result.unsupported)} sentence(s)")
        return "<br>".join(lines)

    def _set_chips(self, routes: list[dict]) -> None:
        while (item := self.chips.takeAt(0)) is not None:  # None once the row is empty
            widget = item.widget()
            if widget is not None:  # gone now, not only when the event loop deletes it
                widget.hide()
                widget.setParent(None)
                widget.deleteLater()
        for r in routes:
            chip = Chip(f"{r['label']} {r['confidence']:.2f}", route_tip(r.get("router", "")))
            self.chips.addWidget(chip)
            chip.show()

    def chip_texts(self) -> list[str]:
        items = (self.chips.itemAt(i) for i in range(self.chips.count()))
        return [chip.text() for item in items if item is not None and isinstance(chip := item.widget(), Chip)]

    # -- citations --------------------------------------------------------------------------------
    def _anchor(self, url: QUrl) -> None:
        if url.scheme() == "cite":
            self.show_citation(int(url.path()))

    def _open_item(self, item: QListWidgetItem) -> None:
        self.show_citation(item.data(Qt.ItemDataRole.UserRole))

    def show_citation(self, n: int) -> Viewer | None:
        """Open citation [n] of the current answer in the viewer of its kind."""
        if self.result is None:
            return None
        citation = next((c for c in self.result.citations if c.n == n), None)
        if citation is None:
            return None
        if self.viewer is not None and self.viewer.citation is citation:  # a click that also activated
            return self.viewer
        if self.viewer is not None:
            self.viewer_host.removeWidget(self.viewer)
            self.viewer.hide()
            self.viewer.setParent(None)
            self.viewer.deleteLater()
        self.viewer = viewer_for(citation.kind)(self.engine)
        self.viewer_host.addWidget(self.viewer)
        self.viewer_host.setCurrentWidget(self.viewer)
        self.viewer.show_citation(citation, self.result)
        for i in range(self.citations.count()):
            if self.citations.item(i).data(Qt.ItemDataRole.UserRole) == n:
                self.citations.setCurrentRow(i)
        self.viewer_shown.emit(self.viewer)
        return self.viewer


def _conversation(trove: Trove, conversation_id: int) -> Conversation:
    return trove.conversation(conversation_id)


def _summaries(trove: Trove) -> list[Summary]:
    return trove.conversations.summaries()


def _export(trove: Trove, conversation: Conversation, path: Path) -> Path:
    from engine import write_markdown

    return write_markdown(conversation, path, trove.changed_since)
