"""Two Trove homes on one shared index (PostgreSQL with pgvector): one indexes the share, the other
finds, asks and queries it; indexers running at once never duplicate or lose items."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.errors import TroveError
from engine.pipeline import Trove
from engine.settings import Settings, load_settings
from local_stores.index_database import IndexUnreachable
from tests.conftest import MODELS_DIR
from tests.postgres_server import PostgresServer, postgres, start  # noqa: F401 (the server fixture)

NOTE = """# Boiler

The boiler was serviced on 12 March 2025 by Henk Verhoeven; he replaced the pressure valve.
"""
LETTER = """# Council tax

The council tax for 2025 is 1,840 pounds, paid in ten monthly instalments.
"""
CSV = "item,price,shop\nbread,2.10,Baker's\nmilk,1.05,Corner shop\napples,3.40,Market\n"


@pytest.fixture
def share(tmp_path: Path) -> Path:
    folder = tmp_path / "share"
    folder.mkdir()
    (folder / "boiler.md").write_text(NOTE, encoding="utf-8")
    (folder / "council-tax.md").write_text(LETTER, encoding="utf-8")
    (folder / "groceries.csv").write_text(CSV, encoding="utf-8")
    return folder


def _home(tmp_path: Path, name: str, url: str) -> Settings:
    return load_settings(tmp_path / name, models_dir=MODELS_DIR, llm="smoke", threads=2, index_backend=url)


def _trove(settings: Settings, embedder, smoke_llm) -> Trove:  # noqa: ANN001
    trove = Trove(settings)
    trove.models.embedder, trove.models.llm = embedder, smoke_llm
    return trove


@pytest.fixture
def homes(tmp_path: Path, postgres: PostgresServer, embedder, smoke_llm) -> Iterator[tuple[Trove, Trove]]:  # noqa: ANN001, F811
    url = postgres.empty_database("shared")
    first, second = (_trove(_home(tmp_path, name, url), embedder, smoke_llm) for name in ("office", "laptop"))
    yield first, second
    first.close()
    second.close()


def test_a_second_home_finds_and_queries_what_the_first_indexed(homes: tuple[Trove, Trove], share: Path):
    office, laptop = homes
    report = office.index([share])
    assert report.indexed == 3 and not report.problems
    hits = laptop.search("When was the boiler serviced?", k=3)
    assert hits and hits[0].item.source == str(share / "boiler.md")
    assert laptop.status()["files"]["indexed"] == 3  # the catalog is shared too
    table = next(s.name for s in laptop.native.sources() if s.location == str(share / "groceries.csv"))
    result = laptop.query(table, f'SELECT count(*) FROM "{table}"')  # the laptop's own copy, from the share
    assert result.rows == [(3,)]
    (share / "groceries.csv").write_text(CSV + "eggs,2.90,Market\n", encoding="utf-8")
    office.index()
    assert laptop.query(table, f'SELECT count(*) FROM "{table}"').rows == [(4,)]  # followed the change


def test_indexers_at_once_never_duplicate_or_lose_items(homes: tuple[Trove, Trove], share: Path):
    for i in range(6):
        (share / f"note-{i}.md").write_text(f"# Note {i}\n\nThe tortoise ate {i} strawberries today.\n",
                                            encoding="utf-8")
    errors: list[BaseException] = []

    def run(trove: Trove) -> None:
        try:
            trove.index([share])
        except BaseException as exc:  # noqa: BLE001 (handed to the test)
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(trove,)) for trove in homes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    office = homes[0]
    files = {r.path: r for r in office.catalog.files()}
    assert len(files) == 9 and all(r.state == "indexed" for r in files.values())
    duplicated = office.db.query("SELECT file_id, corpus, ord FROM items GROUP BY file_id, corpus, ord "
                                 "HAVING count(*) > 1")
    assert duplicated == []
    held = dict(office.db.query("SELECT file_id, count(*) FROM items WHERE corpus = 'text/paragraph' GROUP BY file_id"))
    assert {files[str(share / f"note-{i}.md")].id for i in range(6)} <= set(held)


def test_a_home_whose_login_may_only_read_asks_but_cannot_index(
        tmp_path: Path, postgres: PostgresServer, share: Path, embedder, smoke_llm):  # noqa: ANN001, F811
    url = postgres.empty_database("shared")
    office = _trove(_home(tmp_path, "office", url), embedder, smoke_llm)
    office.index([share])
    office.close()
    reader_url = url.replace("postgres@", "reader@")
    laptop = _trove(_home(tmp_path, "laptop", reader_url), embedder, smoke_llm)
    try:
        assert laptop.read_only
        assert laptop.search("council tax instalments", k=1)[0].item.source == str(share / "council-tax.md")
        with pytest.raises(TroveError, match="read-only"):
            laptop.index([share])
        table = next(s.name for s in laptop.native.sources() if s.location == str(share / "groceries.csv"))
        assert laptop.query(table, f'SELECT count(*) FROM "{table}"').rows == [(3,)]  # its own copy
        assert "bread" in {key for key, *_ in laptop.native.value_index().lookup(["bread"])}  # kept by the office
    finally:
        laptop.close()


def test_an_index_server_that_is_down_is_named(tmp_path: Path):
    settings = _home(tmp_path, "laptop", "postgresql://trove@/index?host=/nonexistent-socket-dir")
    with pytest.raises(TroveError, match="cannot reach the index's server"):
        Trove(settings)
    with pytest.raises(TroveError, match="password"):
        Trove(_home(tmp_path, "laptop", "postgresql://trove:secret@db.example/index"))


def test_an_index_server_that_stops_is_named_and_asked_again_once_back(tmp_path: Path, share: Path,
                                                                       embedder, smoke_llm):  # noqa: ANN001
    import pgserver

    folder = tmp_path / "server"
    running = start(folder)
    trove = _trove(_home(tmp_path, "office", next(running).empty_database("shared")), embedder, smoke_llm)
    try:
        trove.index([share])
        next(running, None)  # the server stops
        with pytest.raises(IndexUnreachable, match="cannot reach the index's server"):
            trove.search("When was the boiler serviced?", k=1)
        again = pgserver.get_server(str(folder), cleanup_mode="stop")
        try:  # the same home, not started again, asks the server once it is back
            assert trove.search("When was the boiler serviced?", k=1)[0].item.source == str(share / "boiler.md")
        finally:
            again.cleanup()
    finally:
        trove.close()


def test_an_indexer_whose_transaction_the_server_cut_short_stops_and_loses_nothing(  # noqa: ANN001
        homes: tuple[Trove, Trove], share: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch):  # noqa: F811
    office, laptop = homes
    office.index([share])
    (share / "boiler.md").write_text(NOTE + "\nThe next service is due in March 2026.\n", encoding="utf-8")
    (share / "council-tax.md").write_text(LETTER + "\nThe first instalment is due on 1 April.\n", encoding="utf-8")
    added = office.store.add

    def cut_short(items: list, vectors: object) -> None:  # the server ends the session mid-file
        postgres.admin("SELECT pg_terminate_backend(%s)", params=[office.db.query("SELECT pg_backend_pid()")[0][0]])
        added(items, vectors)

    monkeypatch.setattr(office.store, "add", cut_short)
    with pytest.raises(IndexUnreachable, match="in the middle of a transaction"):
        office.index()
    monkeypatch.undo()
    assert laptop.status()["files"]["indexed"] == 3  # nothing lost, and no file half written
    texts = [hit.item.text for hit in laptop.search("When is the next boiler service due?", k=10)]
    assert not any("March 2026" in text for text in texts)
    report = office.index()  # the next run goes on
    assert report.indexed == 2 and not report.problems
    assert any("March 2026" in hit.item.text for hit in laptop.search("When is the next boiler service due?", k=3))


def test_graphs_rdf_and_a_vault_of_notes_are_built_again_in_the_second_home(homes: tuple[Trove, Trove],
                                                                            tmp_path: Path):
    import shutil

    from tests.conftest import EXAMPLES

    share = tmp_path / "share-structured"
    shutil.copytree(EXAMPLES / "vault", share / "vault")
    shutil.copy(EXAMPLES / "family" / "family-tree.cypher", share)
    shutil.copy(EXAMPLES / "library" / "my-books.ttl", share)
    office, laptop = homes
    office.index([share])
    built = {s.kind: s for s in office.native.sources()}
    assert {"graph", "rdf"} <= set(built)
    assert any(s.descriptor.get("format") == "vault" for s in office.native.sources())  # the notes, as a graph
    theirs = {s.name: s for s in laptop.native.sources()}
    assert set(theirs) == {s.name for s in office.native.sources()}
    for source in theirs.values():
        language = {"graph": "MATCH (n) RETURN count(n)", "rdf": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"}
        if source.kind in language:
            mine, copied = (t.query(source.name, language[source.kind]).rows for t in (office, laptop))
            assert copied == mine and copied[0][0] > 0, source.name


def test_a_table_attached_to_a_mail_is_read_out_of_the_mail_again_in_the_second_home(homes: tuple[Trove, Trove],
                                                                                      tmp_path: Path):
    from tests.office_files import mbox, message

    share = tmp_path / "share-mail"
    share.mkdir()
    mbox(share / "inbox.mbox", [message("Groceries", "Ana <ana@example.org>", "Sat, 01 Mar 2025 10:00:00 +0100",
                                        "The list.", attachments=(("groceries.csv", CSV.encode(), "text/csv"),))])
    office, laptop = homes
    office.index([share])
    (table,) = [s for s in laptop.native.sources() if s.kind == "table"]
    assert table.descriptor["attachment"] == "groceries.csv"
    assert laptop.query(table.name, f"SELECT shop FROM {table.name} WHERE item = 'milk'").rows == [("Corner shop",)]


def test_a_source_whose_file_this_home_cannot_read_is_left_out_and_said(homes: tuple[Trove, Trove], share: Path,
                                                                         caplog: pytest.LogCaptureFixture):
    office, laptop = homes
    office.index([share])
    (share / "groceries.csv").rename(share.parent / "elsewhere.csv")  # as if the share were not mounted here
    with caplog.at_level("WARNING"):
        assert not any(s.location == str(share / "groceries.csv") for s in laptop.native.sources())
    assert any(s.location == str(share / "groceries.csv") for s in office.native.sources())  # built there
    assert "cannot be asked from this home" in caplog.text and "is the share mounted" in caplog.text


def test_a_table_printed_in_a_pdf_is_read_out_of_the_pdf_again_in_the_second_home(homes: tuple[Trove, Trove],
                                                                                   tmp_path: Path):
    import shutil

    from tests.conftest import shared_path

    share = tmp_path / "share-reports"
    share.mkdir()
    shutil.copy(shared_path("eval", "documents", "pdfs", "pdfplumber", "nics-background-checks-2015-11.pdf"),
                share / "nics.pdf")
    office, laptop = homes
    office.index([share])
    (table,) = [s for s in laptop.native.sources() if s.kind == "table"]
    assert table.descriptor["printed"] and table.shown == "table 1 on page 1 of nics.pdf"
    query = f"SELECT permit FROM {table.name} WHERE state_territory = 'Illinois'"
    assert laptop.query(table.name, query).rows == office.query(table.name, query).rows == [(87190,)]
