"""A PostgreSQL database on a server (a team's records), as a native store: described and queried in
place, read-only on both sides. Trove checks each statement (one SELECT) and the server enforces the
rest: every statement runs in a READ ONLY transaction with `statement_timeout`, and Trove refuses a
role that could write (a superuser, a role with write or file privileges) unless told otherwise.

Credentials never pass through Trove: the URL it keeps has no password; libpq reads it from
PGPASSWORD or a password file (the `passfile` given, 0600, as libpq itself insists)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING
from urllib.parse import parse_qs, urlsplit, urlunsplit

from local_stores.quoting import postgres_sql as pg
from local_stores.results import QueryFailed, QueryRefused, QueryResult, Unreachable, first_line, plain
from local_stores.table_store import check_query, sample_values_sql

if TYPE_CHECKING:
    import psycopg

CONNECT_TIMEOUT_S = 5
DESCRIBE_TIMEOUT_S = 5.0  # per statement while describing
WRITE_PRIVILEGES = ("INSERT", "UPDATE", "DELETE", "TRUNCATE")
# what lets a login's queries reach other servers: dblink's functions it may run, foreign servers
# (postgres_fdw and the like) and foreign-data wrappers it may use
REACHING_OUT = (
    "SELECT DISTINCT 'dblink' FROM pg_proc p JOIN pg_depend d ON d.objid = p.oid AND d.deptype = 'e' "
    "JOIN pg_extension e ON e.oid = d.refobjid WHERE e.extname = 'dblink' AND has_function_privilege(p.oid, 'EXECUTE') "
    "UNION SELECT 'foreign server ' || srvname FROM pg_foreign_server WHERE has_server_privilege(oid, 'USAGE') "
    "UNION SELECT 'foreign-data wrapper ' || fdwname FROM pg_foreign_data_wrapper "
    "WHERE has_foreign_data_wrapper_privilege(oid, 'USAGE') ORDER BY 1")
FILE_ROLES = ("pg_write_server_files", "pg_read_server_files", "pg_execute_server_program")


def safe_url(url: str) -> str:
    """`url` as Trove keeps and shows it: a postgresql:// URL without a password (refused if it has one)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ValueError(f"not a PostgreSQL URL (postgresql://user@host:port/database): {url!r}")
    if parts.password:
        raise ValueError("the URL holds a password: put it in PGPASSWORD or a password file (0600) instead, "
                         "so that it is never kept in the index or shown")
    if parts.password is not None:  # `user:@host`, as pgserver prints it: an empty password is none
        parts = parts._replace(netloc=parts.netloc.replace(":@", "@", 1))
    return urlunsplit(parts)


class PostgresDatabase:
    """One database on a PostgreSQL server; `schemas` are the ones described and offered to queries."""

    language = "sql"
    dialect = "PostgreSQL"

    def __init__(self, url: str, schemas: Sequence[str] = ("public",), passfile: str | None = None) -> None:
        self.url, self.schemas, self.passfile = safe_url(url), tuple(schemas), passfile
        parts = urlsplit(self.url)
        self.where = parts.hostname or (parse_qs(parts.query).get("host") or ["the local socket"])[0]

    # -- the NativeStore protocol --------------------------------------------------------------
    def describe(self) -> dict:
        with self._connection(DESCRIBE_TIMEOUT_S) as con:
            rows = con.execute("SELECT table_schema, table_name FROM information_schema.tables "
                               "WHERE table_schema = ANY(%s) ORDER BY 1, 2", [list(self.schemas)]).fetchall()
            tables = [self._table(con, schema, name) for schema, name in rows]
        return {"engine": "postgres", "dialect": "postgres", "language": "sql", "file": self.url,
                "schemas": list(self.schemas), "tables": tables}

    def explain(self, query: str) -> str:
        statement = check_query(query, dialect="postgres")
        with self._connection(5.0) as con:
            self._run(con, "EXPLAIN " + statement, [])
        return statement

    def execute(self, query: str, timeout_s: float = 10.0, max_rows: int = 200,
                params: Sequence[object] = ()) -> QueryResult:
        statement = check_query(query, dialect="postgres")
        with self._connection(timeout_s) as con:
            cursor = self._run(con, pg.bind(statement) if params else statement, list(params))
            columns = [d.name for d in cursor.description or []]
            rows = cursor.fetchmany(max_rows + 1)
        return QueryResult(columns, [tuple(plain(v) for v in row) for row in rows[:max_rows]],
                           truncated=len(rows) > max_rows)

    # -- the server's side ---------------------------------------------------------------------
    def version(self) -> str | None:
        """A digest of the described schemas' tables, columns and types (the catalog, not the rows)."""
        with self._connection(DESCRIBE_TIMEOUT_S) as con:
            row = con.execute("SELECT md5(coalesce(string_agg(table_schema || '.' || table_name || '.' || column_name "
                              "|| ':' || data_type, ',' ORDER BY table_schema, table_name, ordinal_position), '')) "
                              "FROM information_schema.columns WHERE table_schema = ANY(%s)",
                              [list(self.schemas)]).fetchone()
        return row[0] if row else None

    def can_write(self) -> list[str]:
        """Why this login could change the database (a superuser, file roles, write privileges on a
        table or CREATE on a schema); empty when it can only read."""
        with self._connection(DESCRIBE_TIMEOUT_S) as con:
            why = []
            if _true(con, "SELECT rolsuper FROM pg_roles WHERE rolname = current_user", []):
                why.append("it is a superuser")
            why += [f"it is a member of {role}" for role in FILE_ROLES
                    if _true(con, "SELECT pg_has_role(current_user, %s, 'MEMBER')", [role])]
            why += [f"it may create tables in schema {schema}" for schema in self.schemas
                    if _true(con, "SELECT has_schema_privilege(%s, 'CREATE')", [schema])]
            written = con.execute(
                "SELECT table_schema || '.' || table_name FROM information_schema.tables WHERE table_schema = "
                "ANY(%s) AND (" + " OR ".join("has_table_privilege(quote_ident(table_schema) || '.' || "
                                              "quote_ident(table_name), %s)" for _ in WRITE_PRIVILEGES) + ")",
                [list(self.schemas), *WRITE_PRIVILEGES]).fetchall()
            why += [f"it may change table {name}" for (name,) in written[:5]]
            why += [f"it may reach other servers through {name}" for (name,) in con.execute(REACHING_OUT).fetchall()]
        return why

    @contextmanager
    def _connection(self, timeout_s: float) -> Iterator[psycopg.Connection]:
        """A connection in a READ ONLY transaction whose statements stop after `timeout_s`; rolled
        back and closed after use."""
        import psycopg

        options: dict[str, object] = {"connect_timeout": CONNECT_TIMEOUT_S}
        if self.passfile:
            options["passfile"] = self.passfile
        try:
            con = psycopg.connect(self.url, **options)  # type: ignore[arg-type]  # libpq options
        except psycopg.OperationalError as exc:
            raise Unreachable(f"PostgreSQL at {self.where}: {first_line(exc)}") from None
        try:
            con.read_only = True
            con.execute(f"SET statement_timeout = {pg.number(max(1, int(timeout_s * 1000)))}")
            con.execute("SET idle_in_transaction_session_timeout = 60000")
            yield con
        finally:
            con.rollback()
            con.close()

    def _run(self, con: psycopg.Connection, statement: str, params: list) -> psycopg.Cursor:
        import psycopg

        try:
            return con.execute(statement, params or None)
        except psycopg.errors.ReadOnlySqlTransaction as exc:
            raise QueryRefused(f"only read-only queries may run: {first_line(exc)}") from None
        except psycopg.errors.QueryCanceled:
            raise QueryFailed("the query ran past its time limit and was stopped") from None
        except psycopg.OperationalError as exc:
            raise Unreachable(f"PostgreSQL at {self.where}: {first_line(exc)}") from None
        except psycopg.Error as exc:
            raise QueryFailed(first_line(exc)) from None

    def _table(self, con: psycopg.Connection, schema: str, name: str) -> dict:
        """One table or view: columns with types and sample values, its row count (or a warning)."""
        ref = pg.qualified(schema, name)
        columns = []
        for col, typ in con.execute("SELECT column_name, data_type FROM information_schema.columns WHERE "
                                    "table_schema = %s AND table_name = %s ORDER BY ordinal_position",
                                    [schema, name]).fetchall():
            values = self._quietly(con, sample_values_sql(col, ref, 3))
            columns.append({"name": col, "type": typ, "samples": [plain(v[0]) for v in values or []]})
        count = self._quietly(con, f"SELECT count(*) FROM {ref}")
        table = {"table": name if schema == "public" else f"{schema}.{name}",
                 "rows": count[0][0] if count else None, "columns": columns}
        if count is None:
            table["warnings"] = [f"its rows could not be counted within {DESCRIBE_TIMEOUT_S:g} s"]
        return table

    def _quietly(self, con: psycopg.Connection, statement: str) -> list | None:
        """The rows, or None when the statement failed or ran out of time (describing goes on)."""
        try:
            with con.transaction():  # a savepoint: a failed statement does not end the transaction
                return self._run(con, statement, []).fetchall()
        except QueryFailed:
            return None


def _true(con: psycopg.Connection, statement: str, params: list) -> bool:
    row = con.execute(statement, params).fetchone()
    return bool(row and row[0])



