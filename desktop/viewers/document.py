"""A paragraph or document citation: the page text with the cited passage highlighted, and a
button that opens the file itself (at that page, for a PDF)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QTextEdit

from desktop.viewers.common import Viewer, highlight_color
from desktop.viewers.photo import DrawnBox, PhotoView, qimage
from engine import mail_words, page_picture, page_words

if TYPE_CHECKING:
    import numpy as np
    from PySide6.QtWidgets import QWidget

    from desktop.workers import Engine
    from engine import AskResult, Citation, PageText, PassageLocator


def file_url(source: str, page: int | None) -> QUrl:
    """The file as a URL; PDF viewers open `#page=N` at that page."""
    url = QUrl.fromLocalFile(source)
    if page and Path(source).suffix.lower() == ".pdf":
        url.setFragment(f"page={page}")
    return url


class DocumentViewer(Viewer):
    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        self.scan = PhotoView()  # a scanned page, its cited lines boxed (shown for OCR'd pages only)
        self.scan.setAccessibleName("scanned page")
        self.scan.hide()
        self.layout_.addWidget(self.scan, 2)
        self.waiting = 0  # loads still to arrive before the viewer is ready
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setAccessibleName("page text")
        self.layout_.addWidget(self.text, 1)
        row = QHBoxLayout()
        self.open_button = QPushButton("Open file")
        self.open_button.clicked.connect(self.open_file)
        row.addStretch(1)
        row.addWidget(self.open_button)
        self.layout_.addLayout(row)
        self.page: PageText | None = None

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = cast("PassageLocator", citation.locator)  # shown for paragraphs and documents only (viewers.VIEWERS)
        self.header.set(citation.n, citation.kind, citation.source, _place(loc))
        page = _pdf_page(loc)
        self.open_button.setText(f"Open file at page {page}" if page else "Open file")
        scanned = bool(page and loc.get("lines"))
        self.scan.setVisible(scanned)
        self.waiting = 2 if scanned else 1
        self.load(lambda trove: trove.page_text(citation.source, loc, citation.text), self._fill)
        if scanned:
            self.load(lambda: page_picture(Path(citation.source), int(page or 1)), self._fill_scan, gated=False)

    def _fill_scan(self, rgb: np.ndarray) -> None:
        """The scanned page with the cited lines boxed (their boxes are shares of the page's size)."""
        citation = self.citation
        assert citation is not None  # set by show_citation, which started this load
        image = qimage(rgb)
        lines = [DrawnBox(citation.n, "", (x1, y1, x2, y2))
                 for x1, y1, x2, y2 in cast("PassageLocator", citation.locator).get("lines", [])]
        self.scan.show_photo(image, lines, (image.width(), image.height()), citation.n, tags=False)
        self._arrived()

    def _arrived(self) -> None:
        self.waiting -= 1
        if self.waiting <= 0:
            self.mark_ready()

    def _fill(self, page: PageText) -> None:
        self.page = page
        self.text.setPlainText(page.text)
        cursor = QTextCursor(self.text.document())
        cursor.setPosition(page.start)
        cursor.setPosition(page.end, QTextCursor.MoveMode.KeepAnchor)
        mark = QTextEdit.ExtraSelection()
        fmt = QTextCharFormat()
        fmt.setBackground(highlight_color(self))
        mark.format, mark.cursor = fmt, cursor
        self.text.setExtraSelections([mark])
        view = QTextCursor(cursor)
        view.setPosition(page.end)
        self.text.setTextCursor(view)
        self.text.ensureCursorVisible()
        view.setPosition(page.start)
        self.text.setTextCursor(view)
        self.text.ensureCursorVisible()
        self._arrived()

    def highlighted_text(self) -> str:
        """The highlighted characters, as shown (paragraph breaks as newlines)."""
        marks = self.text.extraSelections()
        return marks[0].cursor.selectedText().replace("\u2029", "\n") if marks else ""

    def shown_pages(self) -> tuple[int, int] | None:
        return self.page.pages if self.page else None

    def open_file(self) -> None:
        if self.citation is not None:
            page = _pdf_page(cast("PassageLocator", self.citation.locator))
            QDesktopServices.openUrl(file_url(self.citation.source, page))


def _pdf_page(loc: PassageLocator) -> int | None:
    """The page a viewer can open the file at (a slide or message number is no page of the file)."""
    return loc.get("page") if loc.get("page_kind", "page") == "page" else None



def _place(loc: PassageLocator) -> str:
    where = []
    where += [words for words in (page_words(loc), mail_words(loc)) if words]
    if "start" in loc:
        where.append(f"characters {loc['start']}–{loc.get('end')}")
    return ", ".join(where) or "whole file"
