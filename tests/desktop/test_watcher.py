"""The folder watcher on a big tree, and its periodic scan for the files past its budget."""

from __future__ import annotations

from pathlib import Path

from desktop.watcher import FolderWatcher, paths_to_watch


def _tree(root: Path, folders: int, per_folder: int) -> None:
    for f in range(folders):
        folder = root / f"year-{f // 10}" / f"month-{f}"
        folder.mkdir(parents=True)
        for n in range(per_folder):
            (folder / f"note-{n}.md").write_text("x")


def test_a_20000_file_tree_is_followed_whole(qtbot, tmp_path: Path):  # noqa: ANN001
    _tree(tmp_path, 200, 100)
    plan = paths_to_watch([str(tmp_path)])
    watcher = FolderWatcher()
    watcher.watch(plan)
    if plan.unwatched:  # a system with few inotify watches: the rest is scanned, and the plan says so
        assert watcher.rescan.isActive() and "checked every 5 minutes" in plan.describe()
    else:
        assert len(watcher.watched()) == 20_000 + 200 + 20 + 1 and not watcher.rescan.isActive()
    with qtbot.waitSignal(watcher.changed, timeout=10_000):
        (tmp_path / "year-3" / "month-35" / "note-7.md").write_text("changed")


def test_files_past_the_budget_are_found_by_the_periodic_scan(qtbot, tmp_path: Path):  # noqa: ANN001
    _tree(tmp_path, 2, 5)
    plan = paths_to_watch([str(tmp_path)], limit=4)
    assert plan.folders == 4 and plan.unwatched == 10  # the tree's 4 folders watched, its 10 files not
    watcher = FolderWatcher(rescan_ms=200)
    watcher.watch(plan)
    assert watcher.rescan.isActive()
    with qtbot.waitSignal(watcher.changed, timeout=5_000):
        pass  # nothing changed that a watch would see: the scan still comes
    watcher.watch(paths_to_watch([str(tmp_path)], limit=100))
    assert not watcher.rescan.isActive()
