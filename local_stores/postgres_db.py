"""A Trove index in PostgreSQL (`index_backend = "postgresql://…"`): the catalog and the corpora of
one file share, which one machine indexes and every Trove on the network asks.

It offers what `sqlite_db.Database` offers the catalog and the stores (statements with `?`
placeholders, `query`, `transaction()`), so that the catalog's and the value index's statements run
on both. One connection, in autocommit: every statement sees what other indexers have committed,
and each file's items and its catalog row change in one transaction, so a question never sees
half a file. A home that asks only (`read_only`) opens every transaction READ ONLY on the server.

Credentials never pass through Trove: the URL has no password; libpq reads it from PGPASSWORD or
a password file (`passfile`, 0600)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from local_stores.index_database import IndexUnreachable, Transactions
from local_stores.postgres_database import CONNECT_TIMEOUT_S, safe_url
from local_stores.quoting import postgres_sql as pg
from local_stores.results import first_line

if TYPE_CHECKING:
    import psycopg


CHANGES = "trove_changes"  # the sequence every committed write moves on
SCHEMA_LOCK = 0x54524F5645  # "TROVE": the advisory lock held while the index's tables are made
T = TypeVar("T")


class PostgresDb(Transactions):
    """The index database on a PostgreSQL server (the tables live in the URL's database)."""

    dialect = "postgres"

    def __init__(self, url: str, read_only: bool | None = False, passfile: str | None = None) -> None:
        """`read_only` None: read-only when this login may not write the index (a reader's role)."""
        self.url, self.passfile = safe_url(url), passfile
        self.where = self.url
        self.conn = _connect(self.url, passfile)
        self.read_only = not self._may_write() if read_only is None else read_only
        if self.read_only:
            self._reading_only()
        else:
            self._ensure_vector()
            self.script(f"CREATE SEQUENCE IF NOT EXISTS {CHANGES}")

    def execute(self, sql: str, params: Any = ()) -> psycopg.Cursor:
        return self._guarded(lambda conn: conn.execute(pg.bind(sql) if params else sql, tuple(params) or None))

    def executemany(self, sql: str, rows: Any) -> psycopg.Cursor:
        rows = list(rows)

        def run(conn: psycopg.Connection) -> psycopg.Cursor:
            cursor = conn.cursor()
            cursor.executemany(pg.bind(sql), rows)
            return cursor

        return self._guarded(run)

    def query(self, sql: str, params: Any = ()) -> list[tuple]:
        return self.execute(sql, params).fetchall()

    def script(self, sql: str) -> None:
        """Run statements separated by `;` (a schema), in one transaction; none on a home that only
        asks (the indexing home made the schema, and a read-only transaction could not)."""
        if self.read_only:
            return
        with self.transaction():
            self.lock_schema()
            for statement in filter(str.strip, sql.split(";")):
                self.conn.execute(statement)

    def lock_schema(self) -> None:
        """Wait for any other Trove making tables in this index, until this transaction ends (two
        homes starting at once would otherwise race in CREATE TABLE IF NOT EXISTS)."""
        self.conn.execute(f"SELECT pg_advisory_xact_lock({pg.number(SCHEMA_LOCK)})")

    def query_binary(self, sql: str, params: Any = ()) -> list[tuple]:
        """`query` with values in PostgreSQL's binary form (a vector as 4 header bytes and big-endian
        float32s: read a hundred thousand of them without printing and parsing text)."""
        def run(conn: psycopg.Connection) -> list[tuple]:
            cursor = conn.cursor(binary=True)
            cursor.execute(pg.bind(sql) if params else sql, tuple(params) or None)
            return cursor.fetchall()

        return self._guarded(run)

    @property
    def in_transaction(self) -> bool:
        return self._depth > 0

    def changes(self) -> int:
        """A number that grows after each committed write by any Trove on this index (the held
        vectors of a corpus are read again when it has)."""
        import psycopg

        try:
            return int(self.query(f"SELECT last_value FROM {CHANGES}")[0][0])
        except psycopg.errors.UndefinedTable:  # nothing was ever written here
            return 0

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        """A transaction; once it has committed, the changes counter moves on (never before: a
        reader that saw the new number before the commit would keep vectors without its rows). A
        connection the server dropped while idle is made again at BEGIN, before anything is lost."""
        import psycopg

        try:
            with ExitStack() as opened:
                self._guarded(lambda conn: opened.enter_context(conn.transaction()), settled=True)
                yield
        except psycopg.OperationalError as exc:  # the COMMIT itself
            if not self._dropped():
                raise
            raise self._cut_short(exc) from None
        if not self.read_only:
            self._guarded(lambda conn: conn.execute(f"SELECT nextval('{CHANGES}')"), settled=True)

    def close(self) -> None:
        self.conn.close()

    def _guarded(self, statement: Callable[[psycopg.Connection], T], settled: bool = False) -> T:
        """`statement(conn)`; when the server dropped the connection (restarted, or ended the session),
        connected again and run once more, outside a transaction or where none is at stake (`settled`:
        its BEGIN, or after its COMMIT); inside one, what it wrote is gone with the connection, and
        the caller is told so."""
        import psycopg

        try:
            return statement(self.conn)
        except psycopg.OperationalError as exc:
            if not self._dropped():  # the statement's own failure (a timeout, say)
                raise
            if self.in_transaction and not settled:
                raise self._cut_short(exc) from None
            self._reconnect()
        return statement(self.conn)

    def _dropped(self) -> bool:
        return bool(self.conn.broken or self.conn.closed)

    def _cut_short(self, exc: Exception) -> IndexUnreachable:
        return IndexUnreachable(f"{self.url}: the index's server dropped the connection in the middle of a "
                                f"transaction ({first_line(exc)}); nothing of it was kept: run it again")

    def _reconnect(self) -> None:
        self.conn.close()
        self.conn = _connect(self.url, self.passfile)
        if self.read_only:
            self._reading_only()

    def _reading_only(self) -> None:
        """Every transaction of this session READ ONLY on the server (a home that only asks)."""
        self.conn.execute("SET default_transaction_read_only = on")

    def _may_write(self) -> bool:
        """Whether this login may make the index's tables, or add to them once made."""
        row = self.query("SELECT has_schema_privilege(current_schema(), 'CREATE') OR (to_regclass('files') IS NOT "
                         "NULL AND has_table_privilege('files', 'INSERT'))")
        return bool(row and row[0][0])

    def _ensure_vector(self) -> None:
        """pgvector, which the corpora's vectors need; made here when this login may."""
        import psycopg

        if self.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'"):
            return
        try:
            self.conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise IndexUnreachable(f"{self.url}: the index needs the pgvector extension, and this login cannot "
                                   f"add it ({first_line(exc)}); as the database's owner run: CREATE EXTENSION "
                                   "vector") from None


def _connect(url: str, passfile: str | None) -> psycopg.Connection:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - psycopg is a dependency of trove
        raise IndexUnreachable("an index on PostgreSQL needs psycopg: pip install 'psycopg[binary]'") from exc
    options: dict[str, object] = {"connect_timeout": CONNECT_TIMEOUT_S, "autocommit": True}
    if passfile:
        options["passfile"] = passfile
    try:
        return psycopg.connect(url, **options)  # type: ignore[arg-type]  # libpq options
    except psycopg.OperationalError as exc:
        raise IndexUnreachable(f"{url}: cannot reach the index's server: {first_line(exc)}") from None
