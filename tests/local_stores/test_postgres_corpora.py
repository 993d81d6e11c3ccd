"""The PostgreSQL corpora (a shared index) keep the store contract, on a real server with pgvector."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from local_stores.catalog import Catalog
from local_stores.postgres_corpora import PostgresCorpora
from local_stores.postgres_db import IndexUnreachable, PostgresDb
from tests.local_stores.corpus_store_contract import CorpusStoreContract
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)


@pytest.fixture
def index_url(postgres: PostgresServer) -> str:  # noqa: F811
    return postgres.empty_database()


class TestPostgresCorpora(CorpusStoreContract):
    @pytest.fixture
    def store(self, index_url: str) -> Iterator[PostgresCorpora]:
        db = PostgresDb(index_url)
        yield PostgresCorpora(db)
        db.close()

    @pytest.fixture
    def reopen(self, index_url: str) -> Callable[[], PostgresCorpora]:
        return lambda: PostgresCorpora(PostgresDb(index_url))


def test_an_index_server_that_cannot_be_reached_says_so():
    with pytest.raises(IndexUnreachable, match="cannot reach the index's server"):
        PostgresDb("postgresql://trove@/nothing?host=/nonexistent-socket-dir")


def test_a_login_that_cannot_add_pgvector_is_told_what_to_run(postgres: PostgresServer, index_url: str):  # noqa: F811
    postgres.admin("CREATE ROLE indexer LOGIN")
    with pytest.raises(IndexUnreachable, match="CREATE EXTENSION vector"):
        PostgresDb(index_url.replace("postgres@", "indexer@"))


def test_an_asking_home_reads_but_cannot_write(index_url: str):
    writer = PostgresDb(index_url)
    catalog = Catalog(writer)
    catalog.add_root(Path("/share/notes"))
    reader = PostgresDb(index_url, read_only=True)
    assert [path for _, path in Catalog(reader).roots()] == ["/share/notes"]
    with pytest.raises(Exception, match="read-only transaction"):
        Catalog(reader).remember("k", "v")


def test_a_corpus_too_large_to_hold_is_searched_on_the_server(index_url: str, monkeypatch: pytest.MonkeyPatch):
    import numpy as np

    import local_stores.postgres_corpora as module
    from local_stores.corpus_store import Item
    from tests.local_stores.corpus_store_contract import unit

    monkeypatch.setattr(module, "MATRIX_MB", 0)  # nothing is held: the HNSW index and exact SQL answer
    store = PostgresCorpora(PostgresDb(index_url))
    store.ensure_corpus("text/paragraph", "text", "paragraph", 16, "minilm")
    vectors = unit(500, 16, 7)
    items = [Item("text/paragraph", f"/n/{i}.md", f"p {i}", {}, file_id=i + 1) for i in range(500)]
    store.add(items, vectors)
    query = unit(1, 16, 8)[0]
    best = np.argsort(-(vectors @ query))[:10]
    assert [i for i, _ in store.dense("text/paragraph", query, 10)] == [items[j].id for j in best]
    mine = {5, 6, 7}
    among = sorted((j for j in range(500) if j + 1 in mine), key=lambda j: -(vectors[j] @ query))
    assert [i for i, _ in store.dense("text/paragraph", query, 2, mine)] == [items[j].id for j in among[:2]]
    assert "text/paragraph" not in store._matrices
