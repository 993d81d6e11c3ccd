"""Indexing from the Sources screen: pause and resume, cancel (what was written stays consistent and
the next run finishes the job), removing a source, and the watcher re-indexing files that are
changed, added and deleted while the app runs."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop.sources_view import SourcesView
from tests.conftest import EXAMPLES
from tests.desktop.conftest import make_engine, wait_until


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Notes, documents, tables and photos: enough files for several progress steps."""
    root = tmp_path / "files"
    for part in ("notes", "documents", "finance", "photos"):
        shutil.copytree(EXAMPLES / part, root / part)
    return root


@pytest.fixture
def view(qtbot, tmp_path: Path, embedder):  # noqa: ANN001, ANN201
    engine = make_engine(tmp_path / "home", shared={"embedder": embedder})
    sources = SourcesView(engine, watch=False)
    qtbot.addWidget(sources)
    yield sources
    if sources.job is not None:
        sources.job.cancel()
    engine.shutdown()


def _indexed_files(view: SourcesView) -> int:
    box = {}
    view.engine.call(lambda t: sum(1 for f in t.catalog.files() if f.state == "indexed"),
                     on_done=lambda n: box.setdefault("n", n))
    wait_until(lambda: "n" in box, 60_000, "the catalog")
    return box["n"]


def test_pause_holds_indexing_and_lets_other_calls_in_then_resume_finishes(qtbot, view, folder: Path):  # noqa: ANN001
    steps = []
    view.progressed.connect(steps.append)
    view.progressed.connect(lambda p: view.toggle_pause() if p.done and not view.job.paused and len(steps) < 3
                            and p.stage in ("index", "unchanged") else None)
    view.index([folder])
    qtbot.waitUntil(lambda: any(p.stage == "paused" for p in steps), timeout=120_000)
    assert view.pause_button.text() == "Resume"
    seen = len(steps)
    qtbot.wait(1500)
    assert len(steps) == seen, "indexing went on while paused"
    assert 0 < _indexed_files(view) < 20  # the engine answers other calls while indexing is paused
    with qtbot.waitSignal(view.indexing_finished, timeout=180_000) as done:
        qtbot.mouseClick(view.pause_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert report is not None and report.failed == 0 and report.indexed + report.skipped == report.seen
    assert any(p.stage == "resumed" for p in steps)


def test_cancel_stops_after_the_current_file_and_keeps_what_was_written(qtbot, view, folder: Path):  # noqa: ANN001
    def cancel_once(p) -> None:  # noqa: ANN001
        if p.done and p.stage in ("index", "unchanged"):
            view.progressed.disconnect(cancel_once)
            view.cancel()

    view.progressed.connect(cancel_once)
    with qtbot.waitSignal(view.indexing_finished, timeout=120_000) as done:
        view.index([folder])
    assert done.args[0] is None and view.last_error == "cancelled"
    assert view.stage_label.text().startswith("Cancelled")
    kept = _indexed_files(view)
    assert kept > 0
    with qtbot.waitSignal(view.indexing_finished, timeout=180_000) as again:
        view.index([])
    report = again.args[0]
    assert report.unchanged >= kept and report.indexed + report.unchanged + report.skipped == report.seen
    assert _indexed_files(view) == report.indexed + report.unchanged


def test_a_single_database_file_is_a_source(qtbot, view, monkeypatch):  # noqa: ANN001
    from PySide6.QtWidgets import QFileDialog

    database = EXAMPLES / "health" / "running-log.sqlite"
    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(lambda *a, **k: (str(database), "")))
    with qtbot.waitSignal(view.indexing_finished, timeout=120_000):
        qtbot.mouseClick(view.add_file_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(view.summaries) == 1, timeout=30_000)
    [source] = view.summaries
    assert source.path == str(database) and dict(source.kinds) == {"database": 1}
    assert view.tree.topLevelItem(0).text(2) == "1 database"


def test_removing_a_source_takes_its_files_out(qtbot, view, tmp_path: Path):  # noqa: ANN001
    notes = tmp_path / "notes"
    shutil.copytree(EXAMPLES / "notes", notes)
    with qtbot.waitSignal(view.indexing_finished, timeout=120_000):
        view.index([notes])
    qtbot.waitUntil(lambda: len(view.summaries) == 1, timeout=30_000)
    view.tree.setCurrentItem(view.tree.topLevelItem(0))
    assert view.remove_button.isEnabled()
    view.remove_button.click()
    qtbot.waitUntil(lambda: view.summaries == [], timeout=60_000)
    assert view.tree.topLevelItemCount() == 0 and "No sources yet" in view.summary.text()
    assert notes.is_dir() and len(list(notes.iterdir())) == 6  # the user's files are untouched


def test_the_watcher_reindexes_changed_added_and_deleted_files(qtbot, view, tmp_path: Path):  # noqa: ANN001
    notes = tmp_path / "watched"
    notes.mkdir()
    (notes / "boat.md").write_text("# Boat\n\nThe boat is moored at pier 7 in Hoorn.\n")
    (notes / "bike.md").write_text("# Bike\n\nThe bike lock code is 4711.\n")
    view.watcher.enabled = True
    view.watcher.timer.setInterval(300)
    with qtbot.waitSignal(view.indexing_finished, timeout=120_000):
        view.index([notes])
    qtbot.waitUntil(lambda: str(notes) in view.watcher.watched(), timeout=30_000)
    assert "Watching" in view.watch_label.text()

    def run_after(change) -> object:  # noqa: ANN001
        """Make the change; the report of the run the watcher starts, once the sources are read again."""
        events = view.watcher.events
        try:
            with qtbot.waitSignal(view.indexing_finished, timeout=60_000) as done:
                change()
        except Exception as exc:
            raise AssertionError(f"watcher events {events} -> {view.watcher.events}, running {view.job}, "
                                 f"stage {view.stage_label.text()!r}, watched {view.watcher.watched()}") from exc
        assert view.watcher.events > events
        qtbot.waitUntil(lambda: view.job is None and not view.is_refreshing() and not view.watcher.timer.isActive(),
                        timeout=30_000)
        return done.args[0]

    added = run_after(lambda: (notes / "garden.md").write_text("# Garden\n\nThe shed key is under the pot.\n"))
    assert added.indexed == 1 and added.unchanged == 2
    changed = run_after(lambda: (notes / "bike.md").write_text("# Bike\n\nThe bike lock code is now 9000.\n"))
    assert changed.indexed == 1 and changed.removed == 0
    removed = run_after(lambda: (notes / "boat.md").unlink())
    assert removed.removed == 1 and removed.seen == 2
    qtbot.waitUntil(lambda: view.summaries and view.summaries[0].files == 2, timeout=30_000)
    hits = {}
    view.engine.call(lambda t: [h.item.text for h in t.search("bike lock code", k=3)],
                     on_done=lambda r: hits.setdefault("r", r))
    qtbot.waitUntil(lambda: "r" in hits, timeout=60_000)
    assert "9000" in hits["r"][0] and not any("pier 7" in h for h in hits["r"])
