"""Incremental, kill-safe indexing, and bad input that never stops a run."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.corpora import DOCUMENT, PARAGRAPH
from engine.errors import TroveError
from engine.pipeline import Trove
from engine.settings import Settings
from local_stores.sqlite_db import Database
from tests.conftest import EXAMPLES, ROOT, shared_path


def _consistency(trove: Trove) -> dict[str, int]:
    """Items, FTS rows and vectors agree per corpus; no file has duplicate items."""
    db = trove.db
    dupes = db.query("SELECT file_id, corpus, ord, count(*) FROM items GROUP BY 1, 2, 3 HAVING count(*) > 1")
    assert dupes == []
    counts = {}
    for corpus in (PARAGRAPH, DOCUMENT):
        t = corpus.replace("/", "_")
        n_items = db.query("SELECT count(*) FROM items WHERE corpus = ?", (corpus,))[0][0]
        assert db.query(f"SELECT count(*) FROM fts_{t}")[0][0] == n_items
        assert db.query(f"SELECT count(*) FROM vec_{t}")[0][0] == n_items
        counts[corpus] = n_items
    orphans = db.query("SELECT count(*) FROM items WHERE file_id NOT IN (SELECT id FROM files)")[0][0]
    assert orphans == 0
    return counts


def test_index_examples_then_rerun_touches_nothing(trove: Trove):
    first = trove.index([EXAMPLES])
    assert first.failed == 0 and first.indexed >= 8
    counts = _consistency(trove)
    not_documents = {"csv", "workbook", "database", "graph", "rdf", "photo", "video", "sidecar", "pack"}
    documents_indexed = sum(states.get("indexed", 0) for kind, states in trove.catalog.counts().items()
                            if kind not in not_documents)
    assert counts[PARAGRAPH] > counts[DOCUMENT] >= documents_indexed
    sources = {s["name"]: s for s in trove.catalog.sources()}
    assert set(sources) == {"documents", "expenses_2024", "household_budget_2025_budget",
                            "household_budget_2025_subscriptions", "kitchen_renovation_2025_kitchen",
                            "running_log", "family_tree", "my_books", "choir_fees_2025",
                            "vault_notes_graph", "photos", "videos", "trove_pack",
                            "choir_spring_concert_2025_table_1_on_slide_3"}  # the ticket prices on a slide
    assert trove.catalog.counts()["photo"] == {"indexed": 5, "skipped": 3}  # the pack's reference photos
    assert trove.store.corpora()["image/photo"] == 5 and trove.store.corpora()["video/clip"] == 4
    assert sources["documents"]["descriptor"]["corpora"] == counts
    assert sources["documents"]["descriptor"]["files"]["pdf"] == 2  # the policy and the scanned letter
    assert sources["expenses_2024"]["kind"] == "table" and sources["expenses_2024"]["descriptor"]["rows"] == 116
    second = trove.index()
    assert (second.indexed, second.unchanged, second.removed) == (0, first.seen, 0)
    assert _consistency(trove) == counts


def test_changed_added_deleted_and_touched_files(trove: Trove, tmp_path: Path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("# A\n\nThe spare key is with Femke next door.\n")
    (folder / "b.txt").write_text("The boiler was serviced by Ruud Bakker.\n")
    trove.index([folder])
    (folder / "a.md").write_text("# A\n\nThe spare key is now with Joris downstairs.\n")
    (folder / "b.txt").unlink()
    (folder / "c.rst").write_text("Title\n=====\n\nThe bike lock code is 4471.\n")
    report = trove.index()
    assert (report.indexed, report.removed) == (2, 1)
    texts = " ".join(t for (t,) in trove.db.query("SELECT text FROM items"))
    assert "Joris" in texts and "Femke" not in texts and "Ruud" not in texts and "4471" in texts
    _consistency(trove)
    os.utime(folder / "c.rst", None)  # new mtime, same content: hashed, not re-parsed
    again = trove.index()
    assert (again.indexed, again.unchanged) == (0, 2)


def test_a_changed_file_embeds_only_its_changed_paragraphs(trove: Trove, tmp_path: Path, monkeypatch):  # noqa: ANN001
    folder = tmp_path / "notes"
    folder.mkdir()
    filler = " ".join(["Nothing else about it is worth writing down here."] * 8)  # each paragraph a chunk
    paragraphs = [f"The spare key is with Femke next door. {filler}",
                  f"The boiler was serviced by Ruud Bakker in May. {filler}", f"The bike lock code is 4471. {filler}"]
    (folder / "house.md").write_text("# House\n\n" + "\n\n".join(paragraphs) + "\n")
    trove.index([folder])
    before = {text: vector for text, vector in _vectors(trove)}
    embedded: list[str] = []
    embed = trove.models.embedder.embed
    monkeypatch.setattr(trove.models.embedder, "embed", lambda texts: embedded.extend(texts) or embed(texts))
    paragraphs[1] = f"The boiler was serviced by Joris Visser in June. {filler}"
    (folder / "house.md").write_text("# House\n\n" + "\n\n".join(paragraphs) + "\n")
    report = trove.index()
    assert report.indexed == 1 and report.reused == 2
    assert len(embedded) == 2 and all("Joris" in text for text in embedded)  # the paragraph and the document
    after = dict(_vectors(trove))
    assert len(after) == 3 and set(after) - set(before) == {20}
    for kept in (1, 3):
        assert (after[kept] == before[kept]).all()
    fresh = trove.models.embedder.embed([f"House: {paragraphs[1]}"])[0]
    assert float(after[20] @ fresh) > 0.999
    _consistency(trove)


def test_files_read_by_a_parser_that_changed_since_are_read_again(trove: Trove, tmp_path: Path, monkeypatch):  # noqa: ANN001
    from engine.ingest.parsers import markdown

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "boiler.md").write_text("# Boiler\n\nServiced by Ruud Bakker in May.\n")
    (folder / "bike.md").write_text("# Bike\n\nThe lock code is 4471.\n")
    assert trove.index([folder]).indexed == 2
    assert trove.index().indexed == 0  # nothing changed
    monkeypatch.setattr(markdown, "VERSION", 2, raising=False)
    report = trove.index()
    assert report.indexed == 2 and report.reused == 4  # read again; their unchanged texts keep their vectors
    assert trove.index().indexed == 0  # the new version is remembered


def test_tables_loaded_by_a_loader_that_changed_since_are_loaded_again(trove: Trove, tmp_path: Path,  # noqa: ANN001
                                                                        monkeypatch):
    from engine.ingest import tables

    folder = tmp_path / "sheets"
    folder.mkdir()
    (folder / "rides.csv").write_text("Day,Distance\n2024-05-01,12 km\n2024-05-02,30 km\nDay,Distance\n")
    assert trove.index([folder]).indexed == 1
    assert trove.index().indexed == 0
    monkeypatch.setattr(tables, "VERSION", tables.VERSION + 1)
    assert trove.index().indexed == 1  # loaded again by the new loader
    assert trove.index().indexed == 0


def test_a_first_run_cut_short_reads_nothing_twice_for_a_parser_version(trove: Trove, tmp_path: Path,  # noqa: ANN001
                                                                          monkeypatch):
    """A kind read for the first time gets its parser's version when the run starts: a run stopped
    before its end (cancelled, killed) leaves files that the next run finds unchanged."""
    from engine.ingest.indexer import Indexer
    from engine.ingest.parsers import markdown

    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "boiler.md").write_text("# Boiler\n\nServiced by Ruud Bakker in May.\n")
    monkeypatch.setattr(markdown, "VERSION", 3, raising=False)
    monkeypatch.setattr(Indexer, "_remember_parsers", lambda self, plan: None)  # as if stopped before the end
    assert trove.index([folder]).indexed == 1
    monkeypatch.undo()
    monkeypatch.setattr(markdown, "VERSION", 3, raising=False)
    assert trove.index().indexed == 0


def _vectors(trove: Trove) -> list[tuple[int, object]]:
    """(a number for each paragraph, by the name in it: 20 for the changed one, its vector) for every paragraph."""
    import numpy as np

    rows = trove.db.query("SELECT i.text, v.embedding FROM items i JOIN vec_text_paragraph v ON v.rowid = i.id")
    number = {"Femke": 1, "Ruud": 2, "Joris": 20, "4471": 3}
    return [(next(n for word, n in number.items() if word in text), np.frombuffer(blob, dtype=np.float32))
            for text, blob in rows]


def test_bad_files_are_recorded_with_reasons_and_do_not_stop_the_run(
        trove: Trove, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    folder = tmp_path / "mess"
    folder.mkdir()
    (folder / "good.md").write_text("# Good\n\nThe plumber is Verhoeven.\n")
    (folder / "empty.txt").write_text("")
    (folder / "binary.md").write_bytes(bytes(range(256)) * 16)  # NUL bytes, no BOM: random bytes can open with one
    (folder / "huge.txt").write_text("big " * 400_000)  # 1.6 MB
    (folder / "latin1.txt").write_bytes("Café au lait, crème brûlée, façade.".encode("latin-1"))
    rng = random.Random(1)  # printable-range bytes that no text encoding makes sense of
    (folder / "garbage.txt").write_bytes(bytes(rng.randrange(0x20, 0x100) for _ in range(2000)))
    (folder / "encrypted.pdf").write_bytes(shared_path(
        "eval", "documents", "pdfs", "py-pdf-sample-files", "005-libreoffice-writer-password",
        "libreoffice-writer-password.pdf").read_bytes())
    (folder / "corrupt.pdf").write_bytes(b"%PDF-1.4\n%broken beyond repair\n")
    (folder / "locked.txt").write_text("private")
    (folder / "locked.txt").chmod(0)
    if os.geteuid() == 0:  # root reads anything: make the OS answer as it would for a normal user
        import engine.ingest.indexer as indexer_module

        real = indexer_module.sha256_file

        def deny(path: Path) -> str:
            if path.name == "locked.txt":
                raise PermissionError(13, "Permission denied", str(path))
            return real(path)

        monkeypatch.setattr(indexer_module, "sha256_file", deny)
    trove.settings = trove.settings.with_(max_file_mb=1.0)
    report = trove.index([folder])
    states = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert states["empty.txt"] == ("skipped", "empty file")
    assert states["binary.md"][0] == "failed" and "binary" in states["binary.md"][1]
    assert states["huge.txt"][0] == "skipped" and "max_file_mb" in states["huge.txt"][1]
    assert states["encrypted.pdf"][0] == "failed" and "encrypted" in states["encrypted.pdf"][1]
    assert states["corrupt.pdf"][0] == "failed" and "corrupt PDF" in states["corrupt.pdf"][1]
    assert states["locked.txt"] == ("failed", "cannot read: permission denied")
    assert states["garbage.txt"][0] == "failed" and "undecodable" in states["garbage.txt"][1]
    assert "good.md" not in states and "latin1.txt" not in states
    assert report.indexed == 2
    (folder / "locked.txt").chmod(0o644)


def test_status_output_lists_problems(tmp_path: Path, settings: Settings):
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "empty.md").write_text("")
    env = {**os.environ, "TROVE_HOME": str(settings.home)}
    cli = [sys.executable, "-m", "engine.cli"]
    subprocess.run([*cli, "index", str(folder)], check=True, env=env, capture_output=True, cwd=ROOT)
    out = subprocess.run([*cli, "status"], check=True, env=env, capture_output=True, text=True, cwd=ROOT).stdout
    assert f"skipped: {folder / 'empty.md'}: empty file" in out


def test_kill_9_mid_run_then_rerun_gives_a_complete_index(tmp_path: Path, settings: Settings, embedder):  # noqa: ANN001
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(120):
        body = "\n\n".join(f"Paragraph {k} of note {n}: the item number {n * 100 + k} is stored in box {k}. "
                           "It was moved there in spring when the shelves were rebuilt." for k in range(12))
        (folder / f"note-{n:03d}.md").write_text(f"# Note {n}\n\n{body}\n")
    env = {**os.environ, "TROVE_HOME": str(settings.home), "TROVE_THREADS": "1"}
    proc = subprocess.Popen([sys.executable, "-m", "engine.cli", "index", str(folder)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    indexed_at_kill = 0
    deadline = time.time() + 240
    try:
        while time.time() < deadline and proc.poll() is None:
            time.sleep(0.2)
            if not settings.index_path.exists():
                continue
            try:
                ro = Database(settings.index_path, read_only=True)
                indexed_at_kill = ro.query("SELECT count(*) FROM files WHERE state='indexed'")[0][0]
                ro.close()
            except Exception:  # noqa: BLE001 - schema not created yet
                continue
            if indexed_at_kill >= 10:
                break
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert 10 <= indexed_at_kill < 120, "the run must be killed in the middle"

    trove = Trove(settings)
    trove.models.embedder = embedder
    report = trove.index()
    assert report.indexed + report.unchanged == 120 and report.failed == 0
    assert report.unchanged >= 10  # what was committed before the kill is kept, not redone
    killed_counts = _consistency(trove)

    fresh_home = tmp_path / "fresh"
    fresh = Trove(settings.with_(home=fresh_home))
    fresh.models.embedder = embedder
    fresh.index([folder])
    assert _consistency(fresh) == killed_counts
    shutil.rmtree(fresh_home)


def test_removing_a_folder_takes_its_files_out_of_every_corpus(trove: Trove, tmp_path: Path):
    keep, drop = tmp_path / "keep", tmp_path / "drop"
    keep.mkdir()
    drop.mkdir()
    (keep / "a.md").write_text("# A\n\nThe spare key is with Femke.\n")
    (drop / "b.md").write_text("# B\n\nThe bike lock code is 4471.\n")
    trove.index([keep, drop])
    assert trove.remove(drop) == 1
    texts = " ".join(t for (t,) in trove.db.query("SELECT text FROM items"))
    assert "Femke" in texts and "4471" not in texts
    assert [p for _, p in trove.catalog.roots()] == [str(keep.resolve())]
    assert (drop / "b.md").exists()  # the user's file itself is never touched
    _consistency(trove)
    with pytest.raises(TroveError, match="not a folder Trove follows"):
        trove.remove(drop)


def test_a_mailbox_has_a_size_limit_of_its_own(trove: Trove, tmp_path: Path):
    from tests.office_files import household_mail

    folder = tmp_path / "mail"
    folder.mkdir()
    household_mail(folder / "home.mbox")
    (folder / "notes.txt").write_text("The boiler was serviced in March. " * 100, encoding="utf-8")
    trove.settings = trove.settings.with_(max_file_mb=0.002)  # 2 KB: the note is over it, the mailbox not read so
    trove.index([folder])
    states = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert states["notes.txt"][0] == "skipped" and "max_file_mb" in states["notes.txt"][1]
    assert "home.mbox" not in states and trove.search("boiler service Thursday", k=1)[0].item.source.endswith(
        "home.mbox")
    trove.settings = trove.settings.with_(max_mailbox_mb=0.001)
    (folder / "home.mbox").touch()
    trove.index()
    states = {Path(p["path"]).name: (p["state"], p["reason"]) for p in trove.status()["problems"]}
    assert states["home.mbox"][0] == "skipped" and "setting max_mailbox_mb" in states["home.mbox"][1]
