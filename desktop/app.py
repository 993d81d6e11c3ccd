"""The main window (Ask, Sources, Models) and `main()`, the entry point of `trove app`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QByteArray, QSettings
from PySide6.QtGui import QCloseEvent, QKeySequence, QShortcut, QShowEvent
from PySide6.QtWidgets import QApplication, QLabel, QMainWindow, QProgressBar, QTabWidget, QWidget

from desktop import theme
from desktop.ask_view import AskView
from desktop.models_view import ModelsView
from desktop.sources_view import SourcesView, progress_text
from desktop.workers import Engine, IndexProgress
from engine import preload_modules

if TYPE_CHECKING:
    from engine import IndexReport

TABS = ("Ask", "Sources", "Models")


class MainWindow(QMainWindow):
    def __init__(self, engine: Engine, settings: QSettings | None = None, watch: bool = True,
                 index_on_start: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        preload_modules()  # before the window shows: indexing then never loads one while it is shown
        self.engine = engine
        self.qsettings = settings or QSettings()
        self.index_on_start = index_on_start
        self.setWindowTitle("Trove — answers from your own files")
        self.ask = AskView(engine)
        self.sources = SourcesView(engine, watch=watch)
        self.models = ModelsView(engine)
        self.tabs = QTabWidget()
        self.tabs.setDocumentMode(True)
        for widget, name in zip((self.ask, self.sources, self.models), TABS, strict=True):
            self.tabs.addTab(widget, name)
        self.setCentralWidget(self.tabs)
        for i, name in enumerate(TABS):
            QShortcut(QKeySequence(f"Ctrl+{i + 1}"), self).activated.connect(lambda i=i: self.tabs.setCurrentIndex(i))
            self.tabs.setTabToolTip(i, f"{name} (Ctrl+{i + 1})")
        self._status_bar()
        self.sources.progressed.connect(self._progress)
        self.sources.indexing_finished.connect(self._indexed)
        self.sources.refreshed.connect(self._first_refresh)
        self.sources.refreshed.connect(lambda _: self.ask.scope_bar.set_sources(self.sources.source_names))
        self.models.settings_chosen.connect(self._remember_engine_settings)
        self.sources.index_chosen.connect(self._remember_engine_settings)
        self._started = False
        self.restore()

    def _status_bar(self) -> None:
        self.status_text = QLabel("Ready")
        self.status_bar = QProgressBar()
        self.status_bar.setMaximumWidth(180)
        self.status_bar.setMaximumHeight(14)
        self.status_bar.hide()
        self.statusBar().addWidget(self.status_text, 1)
        self.statusBar().addPermanentWidget(self.status_bar)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        super().showEvent(event)
        if not self._started:
            self._started = True
            self.sources.refresh()
            self.models.refresh()

    def _first_refresh(self, summaries: list) -> None:
        """On start, bring the followed folders up to date (only what changed is read)."""
        if self.index_on_start and summaries:
            self.index_on_start = False
            self.sources.index([])
        self.index_on_start = False

    def _progress(self, p: IndexProgress) -> None:
        self.status_bar.show()
        self.status_bar.setMaximum(max(p.total, 1))
        self.status_bar.setValue(p.done)
        stage, rate = progress_text(p)
        self.status_text.setText(f"{stage} — {rate}")

    def _indexed(self, report: IndexReport) -> None:
        self.status_bar.hide()
        self.status_text.setText(self.sources.stage_label.text())
        self.models.refresh()  # what is missing depends on what was indexed (photos)

    # -- window state -----------------------------------------------------------------------------
    def restore(self) -> None:
        s = self.qsettings
        geometry = s.value("window/geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 820)
        state = s.value("window/state")
        if isinstance(state, QByteArray):
            self.restoreState(state)
        split = s.value("ask/split")
        if isinstance(split, QByteArray):
            self.ask.split.restoreState(split)
        self.tabs.setCurrentIndex(int(cast("int | str", s.value("window/tab", 0))))  # an int, or its text (INI)
        history = s.value("ask/history") or []
        self.ask.question.history = [history] if isinstance(history, str) else list(history)
        self.ask.question._at = len(self.ask.question.history)

    def save(self) -> None:
        s = self.qsettings
        s.setValue("window/geometry", self.saveGeometry())
        s.setValue("window/state", self.saveState())
        s.setValue("window/tab", self.tabs.currentIndex())
        s.setValue("ask/split", self.ask.split.saveState())
        s.setValue("ask/history", self.ask.question.history[-100:])
        s.sync()

    def _remember_engine_settings(self, chosen: dict) -> None:
        for key, value in chosen.items():
            self.qsettings.setValue(f"engine/{key}", value)
        self.qsettings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.save()
        if self.sources.job is not None:
            self.sources.job.cancel()
        self.engine.shutdown()
        super().closeEvent(event)


def engine_overrides(qsettings: QSettings) -> dict:
    """The LLM and threads chosen in the Models screen, and the index chosen in the Sources screen
    (once chosen there, even this computer's own, it wins over settings.toml), for the engine's settings."""
    out: dict = {}
    for key in ("index_backend", "index_passfile"):
        if qsettings.contains(f"engine/{key}"):
            out[key] = str(qsettings.value(f"engine/{key}") or "")
    if qsettings.value("engine/llm"):
        out["llm"] = str(qsettings.value("engine/llm"))
    if qsettings.value("engine/threads"):
        out["threads"] = int(qsettings.value("engine/threads"))
    return out


def main(home: Path | None = None, argv: list[str] | None = None) -> int:
    """Open the app on the Trove home `home` (default: $TROVE_HOME or the data folder)."""
    from engine import load_settings

    # a QApplication: the one made here, or the tests' (nothing in Trove makes a plain QCoreApplication)
    app = cast(QApplication, QApplication.instance() or QApplication(argv if argv is not None else sys.argv))
    app.setOrganizationName("Trove")
    app.setApplicationName("Trove")
    theme.follow_system(app)
    qsettings = QSettings()
    engine = Engine(load_settings(home, **engine_overrides(qsettings)))
    window = MainWindow(engine, qsettings)
    window.show()
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
