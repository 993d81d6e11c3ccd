"""The Sources screen: add and remove folders (and single database or graph files) and connect
servers (a team's database, SPARQL endpoint or graph server); per source its
kinds and counts, when it was last indexed and what failed and why; indexing in the background
with progress (files done/total, stage, rate, time left), pause and cancel; a watcher that
re-indexes what changes while the app runs."""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.connect_dialog import KINDS, ConnectDialog
from desktop.index_dialog import IndexDialog
from desktop.watcher import FolderWatcher, WatchPlan, paths_to_watch
from desktop.workers import IndexJob, IndexProgress
from engine import holdings

if TYPE_CHECKING:
    from desktop.workers import Engine, TaskSignals
    from engine import IndexReport, RootSummary, Trove

# the folders, what to watch, the servers, the structured sources' names
Roots: TypeAlias = "tuple[list[RootSummary], WatchPlan, list[dict], list[str]]"
CONNECTION = "connection:"  # the item data of a connected server's row: CONNECTION + its name

STAGES = {"scan": "Looking for files", "index": "Indexing", "unchanged": "Checking (unchanged)",
          "remove": "Removing deleted files", "done": "Finishing", "paused": "Paused", "resumed": "Indexing"}
SINGLE_FILES = ("Databases and graphs (*.sqlite *.sqlite3 *.db *.duckdb *.cypher *.cyp *.csv *.ttl *.nt *.rdf *.owl "
                "*.jsonld *.trig *.nq);;All files (*)")


REFRESH_WHILE_INDEXING_S = 2.0


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else f"{seconds // 3600} h {seconds // 60 % 60} min"


def progress_text(p: IndexProgress) -> tuple[str, str]:
    """(stage and file, rate and time left) for a progress step."""
    stage = STAGES.get(p.stage, p.stage.capitalize())
    where = f": {Path(p.path).name}" if p.path else ""
    rate = f"{p.rate:.1f} files/s" if p.done else "starting"
    left = f", about {duration(p.eta_s)} left" if p.eta_s is not None else ""
    return f"{stage}{where}", f"{p.done}/{p.total} files · {rate}{left} · {duration(p.elapsed_s)} so far"


def problems_text(problems: list[tuple[str, str, str]]) -> str:
    """`1 failed, 3 skipped, 2 with warnings`: a source's files that are not simply indexed."""
    counts = {"failed": 0, "skipped": 0, "indexed": 0}
    for _, state, _ in problems:
        counts[state] = counts.get(state, 0) + 1
    parts = [f"{counts['failed']} failed" if counts["failed"] else "", f"{counts['skipped']} skipped"
             if counts["skipped"] else "", f"{counts['indexed']} with warnings" if counts["indexed"] else ""]
    return ", ".join(p for p in parts if p)


def when(ts: float | None) -> str:
    return datetime.fromtimestamp(ts).strftime("%Y-%m-%d %H:%M") if ts else "never"


class SourcesView(QWidget):
    """Sources, indexing progress, and the watcher."""

    indexing_started = Signal()
    indexing_finished = Signal(object)  # the engine's IndexReport, or None when cancelled or failed
    refreshed = Signal(list)  # [RootSummary]
    progressed = Signal(object)  # IndexProgress
    index_chosen = Signal(dict)  # {"index_backend": ..., "index_passfile": ...}, as the Index dialog chose

    def __init__(self, engine: Engine, watch: bool = True, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.job: IndexJob | None = None
        self.pending: list[Path] | None = None  # asked for while a run was going: run again after it
        self.summaries: list[RootSummary] = []
        self.connections: list[dict] = []
        self.source_names: list[str] = []  # the structured sources, as the Ask screen's scope offers them
        self.last_report: IndexReport | None = None
        self.last_error = ""
        self._refreshed_at = 0.0
        self._refreshing = self._stale = False
        self.watcher = FolderWatcher(parent=self)
        self.watcher.enabled = watch
        self.watcher.changed.connect(self.files_changed)
        self._build()

    # -- layout ------------------------------------------------------------------------------------
    def _build(self) -> None:
        layout = QVBoxLayout(self)
        buttons = QHBoxLayout()
        self.add_folder_button = QPushButton("Add folder…")
        self.add_folder_button.setToolTip("Follow a folder: everything Trove can read in it is indexed (Ctrl+O)")
        self.add_folder_button.clicked.connect(self.pick_folder)
        self.add_file_button = QPushButton("Add file…")
        self.add_file_button.setToolTip("Follow one database or graph file")
        self.add_file_button.clicked.connect(self.pick_file)
        self.connect_button = QPushButton("Connect a server…")
        self.connect_button.setToolTip("A team's PostgreSQL database, SPARQL endpoint or graph server (FalkorDB, "
                                       "Neo4j), asked like your files and queried read-only on the server")
        self.connect_button.clicked.connect(self.pick_server)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Stop following the selected source (your files are not touched)")
        self.remove_button.clicked.connect(self.remove_selected)
        self.index_button = QPushButton("Index…")
        self.index_button.setToolTip("This computer's index, or one a team shares on PostgreSQL")
        self.index_button.clicked.connect(self.pick_index)
        self.reindex_button = QPushButton("Re-index now")
        self.reindex_button.clicked.connect(lambda: self.index([]))
        for b in (self.add_folder_button, self.add_file_button, self.connect_button, self.remove_button,
                  self.reindex_button, self.index_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        self.watch_label = QLabel()
        buttons.addWidget(self.watch_label)
        layout.addLayout(buttons)
        layout.addWidget(self._progress_box())
        self.tree = QTreeWidget()
        self.tree.setAccessibleName("sources")
        self.tree.setHeaderLabels(["Source", "Files", "What is in it", "Last indexed", "Problems"])
        self.tree.setAlternatingRowColors(True)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.header().setStretchLastSection(True)
        self.tree.itemSelectionChanged.connect(self._selection)
        layout.addWidget(self.tree, 1)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        QShortcut(QKeySequence("Ctrl+O"), self).activated.connect(self.pick_folder)
        QShortcut(QKeySequence(QKeySequence.StandardKey.Delete), self.tree).activated.connect(self.remove_selected)
        self._selection()

    def _progress_box(self) -> QGroupBox:
        box = QGroupBox("Indexing")
        grid = QVBoxLayout(box)
        top = QHBoxLayout()
        self.bar = QProgressBar()
        self.bar.setFormat("%v / %m files")
        self.bar.setAccessibleName("indexing progress")
        self.pause_button = QPushButton("Pause")
        self.pause_button.clicked.connect(self.toggle_pause)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        top.addWidget(self.bar, 1)
        top.addWidget(self.pause_button)
        top.addWidget(self.cancel_button)
        self.stage_label = QLabel("Idle")
        self.rate_label = QLabel()
        grid.addLayout(top)
        grid.addWidget(self.stage_label)
        grid.addWidget(self.rate_label)
        self.progress_box = box
        self._set_running(False)
        return box

    # -- adding, removing -------------------------------------------------------------------------
    def pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "A folder for Trove to follow", str(Path.home()))
        if folder:
            self.index([Path(folder)])

    def pick_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "A database or graph file", str(Path.home()), SINGLE_FILES)
        if path:
            self.index([Path(path)])

    def pick_server(self, dialog: ConnectDialog | None = None) -> None:
        """Ask for a server (`dialog`: one already filled in) and connect it in a worker."""
        dialog = dialog or ConnectDialog(self)
        if not dialog.exec():
            return
        c = dialog.connection()
        self.connect_button.setEnabled(False)
        self.summary.setText(f"Connecting {c.name}…")

        def done(_: object) -> None:
            self.connect_button.setEnabled(True)
            self.refresh()

        def failed(message: str) -> None:
            self.connect_button.setEnabled(True)
            self._error(message)

        self.engine.call(lambda trove: trove.connect(c.name, c.url, c.kind, c.options, c.allow_writable),
                         on_done=done, on_error=failed)

    def pick_index(self, dialog: IndexDialog | None = None) -> None:
        """Ask which index to use (`dialog`: one already filled in); the engine reopens on it, and the
        sources are read again from it."""
        settings = self.engine.settings
        dialog = dialog or IndexDialog(settings.index_backend, settings.index_passfile, self)
        if not dialog.exec():
            return
        chosen = dialog.chosen()
        self.engine.reconfigure(**chosen)
        self.index_chosen.emit(chosen)
        self.refresh()

    def selected_root(self) -> str | None:
        item = self.tree.currentItem()
        while item is not None and item.parent() is not None:
            item = item.parent()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None

    def remove_selected(self) -> None:
        root = self.selected_root()
        if root is None or self.job is not None:
            return
        self.remove(root)

    def remove(self, root: str) -> None:
        """Stop following a folder or file, or forget a connected server (CONNECTION + its name)."""
        self.remove_button.setEnabled(False)
        if root.startswith(CONNECTION):
            name = root.removeprefix(CONNECTION)
            self.engine.call(lambda trove: trove.disconnect(name), on_done=lambda _: self.refresh(),
                             on_error=self._error)
            return
        self.engine.call(lambda trove: trove.remove(root), on_done=lambda n: self.refresh(),
                         on_error=self._error)

    def _selection(self) -> None:
        self.remove_button.setEnabled(self.selected_root() is not None and self.job is None)
        self.remove_button.setToolTip("Stop following the selected source (your files are not touched)"
                                      if self.job is None else "Wait for indexing to finish (or cancel it)")
        self.index_button.setEnabled(self.job is None)  # the engine reopens on another index: not mid-run

    # -- indexing ---------------------------------------------------------------------------------
    def index(self, paths: list[Path]) -> None:
        """Index `paths` and bring every source up to date; queued after a run in progress."""
        if self.job is not None:
            self.pending = (self.pending or []) + list(paths)
            return
        self.last_error = ""
        self.job = self.engine.index(paths, connect=self._listen)
        self._set_running(True)
        self.indexing_started.emit()

    def _listen(self, signals: TaskSignals) -> None:
        signals.progress.connect(self._progress)
        signals.done.connect(self._finished)
        signals.failed.connect(self._failed)

    def _progress(self, p: IndexProgress) -> None:
        self.bar.setMaximum(max(p.total, 1))
        self.bar.setValue(p.done)
        stage, rate = progress_text(p)
        self.stage_label.setText(stage)
        self.rate_label.setText(rate)
        self.pause_button.setText("Resume" if p.paused else "Pause")
        since = time.monotonic() - self._refreshed_at
        first = self.job is not None and self._refreshed_at < self.job.started
        if p.stage != "scan" and (first or since > REFRESH_WHILE_INDEXING_S):
            self.refresh()  # the new source and its counts appear while it is indexed
        self.progressed.emit(p)

    def toggle_pause(self) -> None:
        if self.job is None:
            return
        if self.job.paused:
            self.job.resume()
            self.pause_button.setText("Pause")
        else:
            self.job.pause()
            self.pause_button.setText("Resume")
            self.stage_label.setText("Pausing after the file being read…")

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel()
            self.stage_label.setText("Cancelling after the file being read…")

    def _finished(self, report: IndexReport) -> None:
        self.last_report = report
        self.stage_label.setText(f"Done: {report.indexed} indexed, {report.unchanged} unchanged, {report.skipped} "
                                 f"skipped, {report.failed} failed, {report.removed} removed")
        self._end(report)

    def _failed(self, message: str) -> None:
        self.stage_label.setText("Cancelled: what was indexed so far is kept." if message == "cancelled"
                                 else f"Indexing stopped: {message}")
        self.last_error = message
        self._end(None)

    def _end(self, report: IndexReport | None) -> None:
        self.job = None
        self._set_running(False)
        self.refresh()
        self.indexing_finished.emit(report)
        if self.pending is not None:
            paths, self.pending = self.pending, None
            self.index(paths)

    def _set_running(self, running: bool) -> None:
        self.pause_button.setEnabled(running)
        self.cancel_button.setEnabled(running)
        self.pause_button.setText("Pause")
        if not running:
            self.rate_label.setText("")
        self._selection() if hasattr(self, "tree") else None

    def is_indexing(self) -> bool:
        return self.job is not None

    def is_refreshing(self) -> bool:
        """Whether the list of sources is being read again (it is, after every index run)."""
        return self._refreshing

    # -- what is indexed --------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload the sources and the paths to watch (in a worker)."""
        if self._refreshing:
            self._stale = True  # read again when the read in flight is back
            return
        self._refreshing, self._stale = True, False
        self._refreshed_at = time.monotonic()
        home = Path(self.engine.settings.home)

        def read(trove: Trove) -> Roots:
            summaries = trove.roots()
            return (summaries, paths_to_watch([s.path for s in summaries], exclude=home), trove.connections(),
                    trove.source_names())

        self.engine.call(read, on_done=self._show, on_error=self._error)

    def _show(self, found: Roots) -> None:
        self._refreshing = False
        summaries, watch, connections, self.source_names = found
        self.summaries, self.connections = summaries, connections
        self.tree.clear()
        for s in summaries:
            item = self._root_item(s)
            self.tree.addTopLevelItem(item)
            item.setExpanded(len(s.problems) <= 12)
        for c in connections:
            self.tree.addTopLevelItem(self._connection_item(c))
        for column, widest in ((0, 420), (1, 260), (2, 420), (3, 160)):
            self.tree.resizeColumnToContents(column)
            self.tree.setColumnWidth(column, min(self.tree.columnWidth(column) + 12, widest))
        files = sum(s.files for s in summaries)
        servers = f" {len(connections)} connected server(s)." if connections else ""
        backend = self.engine.settings.index_backend
        where = f" Shared index: {backend}." if backend else ""
        self.summary.setText(f"{len(summaries)} sources, {files} files.{servers}{where}" if summaries or connections
                             else "No sources yet: add a folder of notes, documents, spreadsheets, photos or videos, "
                             f"or a database or graph file.{where}")
        self.watcher.watch(watch if self.watcher.enabled else WatchPlan())
        self.watch_label.setText(watch.describe(self.watcher.rescan.interval()) if self.watcher.enabled
                                 and watch.paths else "")
        self._selection()
        self.refreshed.emit(summaries)
        if self._stale:
            self.refresh()

    @staticmethod
    def _root_item(s: RootSummary) -> QTreeWidgetItem:
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(s.kinds.items(), key=lambda kv: -kv[1]))
        states = f"{s.states.get('indexed', 0)} indexed"
        for state in ("skipped", "failed"):
            if s.states.get(state):
                states += f", {s.states[state]} {state}"
        item = QTreeWidgetItem([s.path, states, kinds, when(s.last_indexed), problems_text(s.problems)])
        item.setData(0, Qt.ItemDataRole.UserRole, s.path)
        item.setToolTip(0, s.path)
        item.setToolTip(2, kinds)
        for path, state, reason in s.problems:
            rel = Path(path).relative_to(s.path) if Path(path).is_relative_to(s.path) else Path(path).name
            child = QTreeWidgetItem([str(rel), state, "", "", reason])
            child.setToolTip(4, reason)
            item.addChild(child)
        return item

    @staticmethod
    def _connection_item(c: dict) -> QTreeWidgetItem:
        """A connected server's row: its name and URL, what it holds, queried on the server."""
        holds = holdings(c)
        kind = KINDS[c["kind"]][0] if c["kind"] in KINDS else c["kind"]
        item = QTreeWidgetItem([f"{c['name']} — {c['url']}", kind, holds, "queried on the server", ""])
        item.setData(0, Qt.ItemDataRole.UserRole, CONNECTION + c["name"])
        item.setToolTip(0, c["url"])
        item.setToolTip(2, holds)
        return item

    def _error(self, message: str) -> None:
        self._refreshing = False
        self.last_error = message
        self.summary.setText(f"<b>Error:</b> {message}")
        self._selection()

    # -- watching ---------------------------------------------------------------------------------
    def files_changed(self) -> None:
        """Something changed in a followed folder: an incremental run (after the current one)."""
        self.stage_label.setText(f"Files changed at {time.strftime('%H:%M:%S')}: re-indexing")
        self.index([])
