"""Re-index while the app runs: a QFileSystemWatcher on every followed folder (and its subfolders
and files), debounced, so a burst of saves becomes one incremental index run.

Folders report files added, deleted and renamed in them; files report changes to their contents.
The engine's index run is incremental (size/mtime/hash against the catalog), so re-indexing all
roots after a change only reads what changed, and removes what was deleted.

Watches are limited (Linux: `fs.inotify.max_user_watches`, shared by every program of the user).
Folders come first, then the most recently changed files; when a tree has more than the share
Trove takes, the files left unwatched are checked by a periodic scan instead, and the app says so.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", "node_modules", ".venv"}
INOTIFY_LIMIT = Path("/proc/sys/fs/inotify/max_user_watches")
OTHER_PLATFORMS = 4000  # kqueue (macOS) holds a file descriptor per watched path
RESCAN_MS = 5 * 60 * 1000


def watch_budget() -> tuple[int, str]:
    """How many paths Trove may watch, and where that figure comes from: half the user's inotify
    watches on Linux (other programs need theirs), at most 200,000."""
    if sys.platform.startswith("linux"):
        try:
            system = int(INOTIFY_LIMIT.read_text().strip())
        except (OSError, ValueError):
            return OTHER_PLATFORMS, "no inotify limit could be read"
        return max(1, min(system // 2, 200_000)), f"half of the system's {system:,} inotify watches"
    return OTHER_PLATFORMS, "file descriptors for watches are limited on this system"


@dataclass
class WatchPlan:
    """The paths to watch, and how many are left to the periodic scan."""

    paths: list[str] = field(default_factory=list)
    folders: int = 0
    unwatched: int = 0  # folders and files beyond the budget: their changes are found by the periodic scan
    budget: int = 0
    reason: str = ""  # where the budget comes from

    def describe(self, rescan_ms: int = RESCAN_MS) -> str:
        files = len(self.paths) - self.folders
        text = f"Watching {self.folders:,} folders and {files:,} files for changes"
        if self.unwatched:
            text += (f"; {self.unwatched:,} more folders and files are checked every {rescan_ms // 60000} minutes "
                     f"(Trove watches at most {self.budget:,} paths: {self.reason})")
        return text


def paths_to_watch(roots: list[str], exclude: Path | None = None, limit: int | None = None) -> WatchPlan:
    """The roots and their subfolders, then their files, newest first, at most `limit` paths
    (default: `watch_budget()`)."""
    budget, reason = (limit, "as asked") if limit is not None else watch_budget()
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
    unique = list(dict.fromkeys(folders))
    chosen = unique[:budget]
    room = max(0, budget - len(chosen))
    if len(files) > room:
        files.sort(key=_changed, reverse=True)  # the files edited lately are the ones edited next
    left = len(unique) - len(chosen) + max(0, len(files) - room)
    return WatchPlan(chosen + files[:room], len(chosen), left, budget, reason)


def _changed(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


class FolderWatcher(QObject):
    """Emits `changed` once things settle (`delay_ms` after the last event), and every `rescan_ms`
    while some files are left unwatched."""

    changed = Signal()

    def __init__(self, delay_ms: int = 1500, rescan_ms: int = RESCAN_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.directoryChanged.connect(self._touched)
        self.watcher.fileChanged.connect(self._touched)
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(delay_ms)
        self.timer.timeout.connect(self.changed.emit)
        self.rescan = QTimer(self)
        self.rescan.setInterval(rescan_ms)
        self.rescan.timeout.connect(self._rescanned)
        self.enabled = True
        self.events = 0

    def watch(self, plan: WatchPlan) -> None:
        """Watch exactly the plan's paths (computed in a worker with `paths_to_watch`); scan
        periodically for the files it leaves out."""
        old = set(self.watcher.directories()) | set(self.watcher.files())
        new = set(plan.paths)
        if old - new:
            self.watcher.removePaths(sorted(old - new))
        if new - old:
            self.watcher.addPaths(sorted(new - old))
        if plan.unwatched and self.enabled:
            if not self.rescan.isActive():
                self.rescan.start()
        else:
            self.rescan.stop()

    def watched(self) -> list[str]:
        return self.watcher.directories() + self.watcher.files()

    def _rescanned(self) -> None:
        if self.enabled and not self.timer.isActive():
            self.changed.emit()

    def _touched(self, path: str) -> None:
        if not self.enabled:
            return
        self.events += 1
        if Path(path).is_file() and path not in self.watcher.files():
            self.watcher.addPath(path)  # an editor that saves by replacing the file drops the watch
        self.timer.start()
