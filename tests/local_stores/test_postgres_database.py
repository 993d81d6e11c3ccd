"""A PostgreSQL database on a real server (pgserver): what the server itself refuses in Trove's
read-only transactions, the roles Trove will not use, URLs and placeholders. The shared contract
is in test_native_stores.py."""

from __future__ import annotations

import pytest

from local_stores.postgres_database import PostgresDatabase, safe_url
from local_stores.quoting.postgres_sql import bind
from local_stores.results import QueryFailed, QueryRefused, Unreachable
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)


@pytest.fixture(scope="module")
def counters(postgres: PostgresServer) -> PostgresServer:  # noqa: F811
    return postgres.database("counters", "CREATE SEQUENCE tickets", "CREATE TABLE shops (name TEXT, share TEXT)",
                             "INSERT INTO shops VALUES ('Kiwi', '10%'), ('Rema?', '5%')")


def test_a_select_that_would_write_is_refused_by_the_server(counters: PostgresServer):
    # it passes Trove's own check (one SELECT): the server's read-only transaction stops it, even
    # for a role that may write; a reading role is stopped by its privileges first
    with pytest.raises(QueryRefused, match="read-only"):
        PostgresDatabase(counters.url("postgres", "counters")).execute("SELECT nextval('tickets')")
    reader = PostgresDatabase(counters.url("reader", "counters"))
    with pytest.raises(QueryFailed, match="permission denied"):
        reader.execute("SELECT nextval('tickets')")
    with pytest.raises(QueryFailed, match="permission denied"):
        reader.execute("SELECT pg_read_file('/etc/passwd')")  # no file access for this role
    assert reader.execute("SELECT count(*) FROM shops").rows == [(2,)]


def test_a_role_that_could_write_is_named_and_a_reader_is_not(counters: PostgresServer):
    assert PostgresDatabase(counters.url("reader", "counters")).can_write() == []
    why = PostgresDatabase(counters.url("postgres", "counters")).can_write()
    assert "it is a superuser" in why and "it may change table public.shops" in why


def test_bound_values_and_percent_signs_and_question_marks_in_text(counters: PostgresServer):
    store = PostgresDatabase(counters.url("reader", "counters"))
    query = "SELECT name FROM shops WHERE share LIKE '%\\%' ESCAPE '\\' AND name <> ? ORDER BY name"
    assert store.execute(query, params=["nobody"]).rows == [("Kiwi",), ("Rema?",)]
    assert store.execute("SELECT name FROM shops WHERE name = 'Rema?' AND share = ?", params=["5%"]).rows == [
        ("Rema?",)]
    assert bind("SELECT '?', \"a?\", ? -- ?\n, '5%'") == "SELECT '?', \"a?\", %s -- ?\n, '5%%'"


def test_urls_keep_no_password_and_a_server_that_is_not_there_is_named():
    assert safe_url("postgresql://reader@db.example:5432/records") == "postgresql://reader@db.example:5432/records"
    # pgserver prints an empty password: it is none
    assert safe_url("postgresql://postgres:@/index?host=/tmp/pg") == "postgresql://postgres@/index?host=/tmp/pg"
    with pytest.raises(ValueError, match="PGPASSWORD"):
        safe_url("postgresql://reader:hunter2@db.example/records")
    with pytest.raises(ValueError, match="not a PostgreSQL URL"):
        safe_url("mysql://reader@db.example/records")
    with pytest.raises(Unreachable, match="PostgreSQL at"):
        PostgresDatabase("postgresql://reader@/records?host=/nonexistent-socket-dir").describe()


def test_a_login_whose_queries_could_reach_other_servers_is_named(postgres: PostgresServer):  # noqa: F811
    postgres.database("linked", "CREATE TABLE orders (id int)", "CREATE FOREIGN DATA WRAPPER relay",
                      "CREATE SERVER elsewhere FOREIGN DATA WRAPPER relay", "CREATE ROLE linker LOGIN",
                      "GRANT SELECT ON orders TO linker", "GRANT USAGE ON FOREIGN SERVER elsewhere TO linker")
    assert PostgresDatabase(postgres.url("reader", "linked")).can_write() == []
    assert PostgresDatabase(postgres.url("linker", "linked")).can_write() == [
        "it may reach other servers through foreign server elsewhere"]
