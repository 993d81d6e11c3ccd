"""The index database on a real PostgreSQL server: a connection the server drops is made again
between transactions, and a transaction it cuts short is said to be lost, never half kept."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from local_stores.index_database import IndexUnreachable
from local_stores.postgres_db import PostgresDb
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)


@pytest.fixture
def db(postgres: PostgresServer) -> Iterator[PostgresDb]:  # noqa: F811
    opened = PostgresDb(postgres.empty_database())
    opened.script("CREATE TABLE notes (body TEXT)")
    yield opened
    opened.close()


def _end_session(postgres: PostgresServer, db: PostgresDb) -> int:  # noqa: F811
    """The server ends `db`'s session, as a restart or an administrator would; its process id."""
    pid = db.query("SELECT pg_backend_pid()")[0][0]
    postgres.admin("SELECT pg_terminate_backend(%s)", params=[pid])
    return pid


def test_a_session_the_server_ended_is_opened_again_at_the_next_statement(postgres: PostgresServer,  # noqa: F811
                                                                          db: PostgresDb):
    ended = _end_session(postgres, db)
    assert db.query("SELECT count(*) FROM notes") == [(0,)]
    assert db.query("SELECT pg_backend_pid()")[0][0] != ended


def test_a_session_ended_while_idle_does_not_cost_the_next_transaction(postgres: PostgresServer,  # noqa: F811
                                                                       db: PostgresDb):
    _end_session(postgres, db)
    with db.transaction():
        db.execute("INSERT INTO notes VALUES (?)", ("kept",))
    assert db.query("SELECT body FROM notes") == [("kept",)]


def test_a_transaction_cut_short_is_said_to_be_lost_and_nothing_of_it_is_kept(postgres: PostgresServer,  # noqa: F811
                                                                              db: PostgresDb):
    lost = "dropped the connection in the middle of a transaction"
    with pytest.raises(IndexUnreachable, match=lost), db.transaction():
        db.execute("INSERT INTO notes VALUES (?)", ("half",))
        _end_session(postgres, db)
        db.execute("INSERT INTO notes VALUES (?)", ("other half",))
    assert db.query("SELECT count(*) FROM notes") == [(0,)]
    assert not db.in_transaction


def test_a_reading_home_stays_read_only_after_its_session_is_opened_again(postgres: PostgresServer,  # noqa: F811
                                                                          db: PostgresDb):
    import psycopg

    reader = PostgresDb(db.url, read_only=True)
    _end_session(postgres, reader)
    assert reader.query("SELECT count(*) FROM notes") == [(0,)]
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        reader.execute("INSERT INTO notes VALUES (?)", ("no",))
    reader.close()
