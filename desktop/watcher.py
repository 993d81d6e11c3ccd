"""Re-index while the app runs: a QFileSystemWatcher on every followed folder (and its subfolders
and files), debounced, so a burst of saves becomes one incremental index run.

Folders report files added, deleted and renamed in them; files report changes to their contents.
The engine's index run is incremental (size/mtime/hash against the catalog), so re-indexing all
roots after a change only reads what changed, and removes what was deleted.
"""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

MAX_WATCHED = 4000  # file descriptors/inotify watches are limited; folders come first
SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"}


def paths_to_watch(roots: list[str], exclude: Path | None = None, limit: int = MAX_WATCHED) -> list[str]:
    """The roots, their subfolders, then their files, at most `limit` paths."""
    folders: list[str] = []
    files: list[str] = []
    for root in roots:
        top = Path(root)
        if top.is_file():
            files.append(str(top))
            folders.append(str(top.parent))  # a file replaced on save shows up in its folder
            continue
        for current, dirs, names in os.walk(top):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith("."))
            here = Path(current)
            if exclude is not None and here.is_relative_to(exclude):
                dirs[:] = []
                continue
            folders.append(current)
            files += [str(here / n) for n in sorted(names) if not n.startswith(".")]
    chosen = list(dict.fromkeys(folders))[:limit]
    return chosen + files[: max(0, limit - len(chosen))]


class FolderWatcher(QObject):
    """Emits `changed` once things settle (`delay_ms` after the last event)."""

    changed = Signal()

    def __init__(self, delay_ms: int = 1500, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._touched)
        self.watcher.fileChanged.connect(self._touched)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.changed.emit)
        self.enabled = True
        self.events = 0

    def watch(self, paths: list[str]) -> None:
        """Watch exactly `paths` (computed in a worker with `paths_to_watch`)."""
        old = set(self.watcher.directories()) | set(self.watcher.files())
        new = set(paths)
        if old - new:
            self.watcher.removePaths(sorted(old - new))
        if new - old:
            self.watcher.addPaths(sorted(new - old))

    def watched(self) -> list[str]:
        return self.watcher.directories() + self.watcher.files()

    def _touched(self, path: str) -> None:
        if not self.enabled:
            return
        self.events += 1
        if Path(path).is_file() and path not in self.watcher.files():
            self.watcher.addPath(path)  # an editor that saves by replacing the file drops the watch
        self.timer.start()
