"""The scope beside the question: chips for what the next questions are kept to (folders or files,
structured sources, kinds of item, a time span), a "Scope" menu to add one, and × on a chip to take it off. A
conversation keeps its scope: the bar shows the scope of the conversation on screen."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QInputDialog, QMenu, QToolButton, QWidget

from engine import Scope, TroveError

CHIP_STYLE = ("QToolButton#scope-chip { border: 1px solid palette(highlight); border-radius: 9px; "
              "padding: 1px 6px; background: palette(alternate-base); }")


class ScopeBar(QWidget):
    """`changed(Scope)` whenever the scope is edited here; `invalid(str)` when a date typed is not one."""

    changed = Signal(object)
    invalid = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scope = Scope()
        self.row = QHBoxLayout(self)
        self.row.setContentsMargins(0, 0, 0, 0)
        self.row.setSpacing(4)
        self.button = QToolButton()
        self.button.setText("Scope")
        self.button.setToolTip("Keep the questions to some folders, files, sources, kinds of item or a time span")
        self.button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.sources_menu = QMenu("Only from a source")  # filled by set_sources
        self.sources_menu.setEnabled(False)
        self.button.setMenu(self._menu())
        self.row.addWidget(self.button)
        self.chips: list[QToolButton] = []

    def _menu(self) -> QMenu:
        menu = QMenu(self)
        menu.addAction("Only in a folder…", self.pick_folder)
        menu.addAction("Only in a file…", self.pick_file)
        menu.addMenu(self.sources_menu)
        kinds = menu.addMenu("Only of a kind")
        for kind in Scope.KINDS:
            kinds.addAction(kind, partial(self.add_kind, kind))
        menu.addAction("Since a date…", lambda: self.ask_date("since"))
        menu.addAction("Until a date…", lambda: self.ask_date("until"))
        menu.addSeparator()
        menu.addAction("Everything (clear the scope)", lambda: self.set_scope(Scope(), announce=True))
        return menu

    def set_sources(self, names: list[str]) -> None:
        """The structured sources the scope can be kept to (the index's, read again after each run)."""
        self.sources_menu.clear()
        for name in names:
            self.sources_menu.addAction(name, partial(self.add, sources=(name,)))
        self.sources_menu.setEnabled(bool(names))

    # -- editing --------------------------------------------------------------------------------
    def pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Keep the questions to a folder", str(Path.home()))
        if folder:
            self.add(paths=(folder,))

    def pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Keep the questions to a file", str(Path.home()))
        if path:
            self.add(paths=(path,))

    def ask_date(self, bound: str) -> None:
        text, ok = QInputDialog.getText(self, f"Files {bound} a date", "Date (2024-03-01):")
        if not ok or not text.strip():
            return
        if bound == "since":
            self.add(since=text.strip())
        else:
            self.add(until=text.strip())

    def add_kind(self, kind: str) -> None:
        self.add(kinds=(kind,))

    def add(self, paths: tuple[str, ...] = (), kinds: tuple[str, ...] = (), since: str | None = None,
            until: str | None = None, sources: tuple[str, ...] = ()) -> None:
        """Add to the scope (a date replaces the one before); a date that is not one is `invalid`."""
        now = self.scope
        try:
            scope = Scope(tuple(dict.fromkeys(now.paths + paths)), tuple(dict.fromkeys(now.sources + sources)),
                          tuple(dict.fromkeys(now.kinds + kinds)), since or now.since, until or now.until)
        except TroveError as exc:
            self.invalid.emit(str(exc))
            return
        self.set_scope(scope, announce=True)

    def remove(self, part: str, value: str) -> None:
        """Take one chip's part off the scope."""
        s = self.scope
        self.set_scope(Scope(tuple(p for p in s.paths if (part, p) != ("path", value)),
                             tuple(n for n in s.sources if (part, n) != ("source", value)),
                             tuple(k for k in s.kinds if (part, k) != ("kind", value)),
                             None if part == "since" else s.since, None if part == "until" else s.until),
                       announce=True)

    def set_scope(self, scope: Scope | None, announce: bool = False) -> None:
        """Show `scope` (a conversation's, or one edited here); `changed` when `announce`."""
        scope = scope or Scope()
        self.scope = scope
        for chip in self.chips:
            self.row.removeWidget(chip)
            chip.deleteLater()
        self.chips = [self._chip(part, value) for part, value in parts(scope)]
        for chip in self.chips:
            self.row.addWidget(chip)
        self.button.setText("Scope" if scope.empty else "Scope:")
        if announce:
            self.changed.emit(scope)

    def _chip(self, part: str, value: str) -> QToolButton:
        chip = QToolButton()
        chip.setObjectName("scope-chip")
        chip.setStyleSheet(CHIP_STYLE)
        chip.setText(f"{chip_label(part, value)}  ×")
        chip.setToolTip(f"{part}: {value} — click to take it off the scope")
        chip.setAccessibleName(f"scope {part} {value}")
        chip.setCursor(Qt.CursorShape.PointingHandCursor)
        chip.clicked.connect(lambda: self.remove(part, value))
        return chip

    def chip_texts(self) -> list[str]:
        return [c.text().removesuffix("  ×") for c in self.chips]


def parts(scope: Scope) -> list[tuple[str, str]]:
    """The scope as (part, value) pairs, one chip each."""
    out = [("path", p) for p in scope.paths] + [("source", s) for s in scope.sources]
    out += [("kind", k) for k in scope.kinds]
    out += [("since", scope.since)] if scope.since else []
    return out + ([("until", scope.until)] if scope.until else [])


def chip_label(part: str, value: str) -> str:
    if part == "path":
        return f"in {Path(value).name or value}"
    return {"source": "source", "kind": "only", "since": "since", "until": "until"}[part] + f" {value}"
