"""Pieces every viewer uses: the base class, a header, a copyable query box and a result grid."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QGuiApplication, QKeyEvent, QKeySequence, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine import source_name

if TYPE_CHECKING:
    from desktop.workers import Engine
    from engine import AskResult, Citation, Locator

R = TypeVar("R")


def is_dark(widget: QWidget | None = None) -> bool:
    palette = widget.palette() if widget is not None else QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def highlight_color(widget: QWidget | None = None) -> QColor:
    """The marker colour of a cited passage, readable in light and dark themes."""
    return QColor("#8a6d00") if is_dark(widget) else QColor("#ffe27a")


def cell_text(value: object) -> str:
    """A result value for a grid cell (graph nodes as Label(name), lists joined)."""
    if value is None:
        return ""
    if isinstance(value, dict):
        props = {k: v for k, v in value.items() if not k.startswith("_")}
        label = value.get("_label", "")
        name = props.get("name") or props.get("title")
        return f"{label}({name})" if name else f"{label}({', '.join(f'{k}: {v}' for k, v in props.items())})"
    if isinstance(value, list):
        return ", ".join(cell_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Viewer(QWidget):
    """Shows one citation of an answer. `ready` is True once everything it loads has arrived."""

    loaded = Signal()

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.ready = False
        self.citation: Citation | None = None
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(0, 0, 0, 0)
        self.header = Header(self)
        self.layout_.addWidget(self.header)

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        raise NotImplementedError

    def mark_ready(self) -> None:
        self.ready = True
        self.loaded.emit()

    def load(self, fn: Callable[..., R], on_done: Callable[[R], None], gated: bool = True) -> None:
        """Run `fn(trove)` (or `fn()` when not `gated`) in a worker, then `on_done(result)` here."""
        if gated:
            self.engine.call(lambda trove: fn(trove), on_done=on_done, on_error=self.failed)
        else:
            self.engine.submit(lambda task: fn(), on_done=on_done, on_error=self.failed, gated=False)

    def add_query_panels(self, language: str, top: QWidget, grid: ResultGrid, sizes: tuple[int, int]
                         ) -> tuple[QLabel, QueryBox]:
        """The layout of a query citation: a caption, `top` (a drawing, triples) over the result `grid`
        in a resizable split, and the copyable query below; returns the caption and the query box."""
        caption = QLabel()
        caption.setWordWrap(True)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(top)
        split.addWidget(grid)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes(list(sizes))
        query_box = QueryBox(language)
        self.layout_.addWidget(caption)
        self.layout_.addWidget(split, 1)
        self.layout_.addWidget(query_box)
        return caption, query_box

    def failed(self, message: str) -> None:
        self.header.note.setText(f"Could not load: {message}")
        self.header.note.show()
        self.mark_ready()


class Header(QWidget):
    """Which citation, from which file, and where in it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 4)
        self.title = QLabel()
        font = self.title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.title.setFont(font)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.place = QLabel()
        self.place.setWordWrap(True)
        self.place.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.hide()
        for w in (self.title, self.place, self.note):
            layout.addWidget(w)

    def set(self, n: int, kind: str, source: str, place: str, locator: Locator | None = None) -> None:
        """`locator`: a query citation's, whose source on a server is shown by its name."""
        self.title.setText(f"[{n}] {source_name(source, locator)}")
        self.title.setToolTip(source)
        self.place.setText(f"{kind} · {place}")


def mono_font() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


class QueryBox(QWidget):
    """A native query (SQL, Cypher, SPARQL), read-only and copyable."""

    def __init__(self, language: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.label = QLabel(f"<b>{language}</b> that produced this result")
        self.copy = QPushButton("Copy")
        self.copy.setToolTip(f"Copy the {language} to the clipboard")
        self.copy.clicked.connect(self.copy_to_clipboard)
        top.addWidget(self.label)
        top.addStretch(1)
        top.addWidget(self.copy)
        layout.addLayout(top)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setFont(mono_font())
        self.text.setMaximumHeight(120)
        self.text.setAccessibleName(f"{language} query")
        layout.addWidget(self.text)

    def set_query(self, query: str) -> None:
        self.text.setPlainText(query.strip())

    def query(self) -> str:
        return self.text.toPlainText()

    def copy_to_clipboard(self) -> None:
        QGuiApplication.clipboard().setText(self.query())
        self.copy.setText("Copied")


class ResultGrid(QTableWidget):
    """Rows of a query result; read-only, selectable, copyable with Ctrl+C."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.horizontalHeader().setStretchLastSection(True)

    def set_rows(self, columns: list[str], rows: list[list]) -> None:
        self.clear()
        self.setColumnCount(len(columns))
        self.setRowCount(len(rows))
        self.setHorizontalHeaderLabels(["row" if c == "_row" else c for c in columns])
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                item = QTableWidgetItem(cell_text(value))
                if isinstance(value, (int, float)):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()

    def rows(self) -> list[list[str]]:
        """The grid's cells as shown, row by row."""
        return [[item.text() if (item := self.item(r, c)) else "" for c in range(self.columnCount())]
                for r in range(self.rowCount())]

    def columns(self) -> list[str]:
        """The header's labels (set_rows gives every column one)."""
        return [item.text() if (item := self.horizontalHeaderItem(c)) else "" for c in range(self.columnCount())]

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.matches(QKeySequence.StandardKey.Copy):
            self._copy_selection()
            return
        super().keyPressEvent(event)

    def _copy_selection(self) -> None:
        rows = sorted({i.row() for i in self.selectedIndexes()})
        text = "\n".join("\t".join(self.rows()[r]) for r in rows)
        QGuiApplication.clipboard().setText(text)
