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
