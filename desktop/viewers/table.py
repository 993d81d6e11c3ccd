"""A table citation: the result rows in a grid, the SQL (copyable), and where the rows come from:
the file, the sheet and the row numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from PySide6.QtWidgets import QLabel

from desktop.viewers.common import QueryBox, ResultGrid, Viewer
from engine import attachment_words, source_name

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from desktop.workers import Engine
    from engine import AskResult, Citation, QueryLocator


def rows_text(rows: list) -> str:
    shown = ", ".join(str(r) for r in rows[:30])
    return shown + (f" … ({len(rows)} rows)" if len(rows) > 30 else "")


def provenance(source: str, locator: QueryLocator) -> str:
    """`expenses-2024.csv, sheet Subscriptions, rows 3, 7` in words."""
    parts = [source_name(source, locator) if source else locator.get("source", ""), attachment_words(locator)]
    if locator.get("sheet"):
        parts.append(f"sheet {locator['sheet']}")
    if locator.get("tables"):
        parts.append("table " + ", ".join(locator["tables"]))
    if locator.get("rows"):
        parts.append(f"rows {rows_text(locator['rows'])}")
    return ", ".join(p for p in parts if p)


class TableViewer(Viewer):
    language = "SQL"

    def __init__(self, engine: Engine, parent: QWidget | None = None) -> None:
        super().__init__(engine, parent)
        self.source_label = QLabel()
        self.source_label.setWordWrap(True)
        self.source_label.setAccessibleName("source of the rows")
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.grid = ResultGrid()
        self.grid.setAccessibleName("result rows")
        self.query_box = QueryBox(self.language)
        for w in (self.source_label, self.result_label):
            self.layout_.addWidget(w)
        self.layout_.addWidget(self.grid, 1)
        self.layout_.addWidget(self.query_box)

    def show_citation(self, citation: Citation, result: AskResult) -> None:
        self.citation = citation
        loc = cast("QueryLocator", citation.locator)  # shown for query citations only (viewers.VIEWERS)
        self.header.set(citation.n, citation.kind, citation.source,
                        f"{self.language} result from {loc.get('source', '')}", loc)
        self.source_label.setText("From " + provenance(citation.source, loc))
        self.result_label.setText(loc.get("result", ""))
        self.result_label.setVisible(bool(loc.get("result")))
        self.query_box.set_query(loc.get("sql") or loc.get("query", ""))
        self.grid.set_rows(loc.get("columns", []), loc.get("result_rows", []))
        self.mark_ready()

    def sql(self) -> str:
        return self.query_box.query()
