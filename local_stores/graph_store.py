"""Property graphs in Kùzu (OmniRetrieval: graphs stay graphs, queried in Cypher).

One Kùzu database file per graph source under the Trove home, built from a schema and rows by
Trove's own code (`build`), then only ever opened read-only. Generated Cypher runs through
`execute`: one read-only statement, no clause that reads files or changes anything, a time limit
and a row limit; the database being opened read-only is the second line of defence. It runs in a
worker process (local_stores.query_worker) whose memory is capped and which is killed past the
time limit: Kùzu neither interrupts nor bounds an expression such as `range(1, 1000000000)`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from local_stores import query_worker
from local_stores.native_store import NamedSource
from local_stores.quoting import Quoted
from local_stores.quoting import kuzu_cypher as cy
from local_stores.results import MEMORY_MB, QueryFailed, QueryRefused, QueryResult, plain

if TYPE_CHECKING:
    import kuzu

CATEGORY_LIMIT = 30
# Kùzu reserves address space for every open database: 80 % of the RAM for its buffer pool and 8 TB
# (max_db_size) by default, so the 16th database open in one process failed ("Mmap ... failed").
MAX_DB_BYTES = 1 << 36  # 64 GB: a graph of a person's files is far smaller
BUILD_BUFFER_MB = 1024
READ_BUFFER_MB = 256
_STRINGS = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL)
# clauses that write, read files, reach the network or change settings
FORBIDDEN = ("CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "DROP", "ALTER", "COPY", "LOAD", "ATTACH",
             "INSTALL", "EXPORT", "IMPORT", "USE", "CALL", "BEGIN", "COMMIT", "ROLLBACK", "CHECKPOINT", "FOREACH")
_FORBIDDEN = re.compile(r"\b(" + "|".join(FORBIDDEN) + r")\b", re.IGNORECASE)
_FIRST = re.compile(r"^\s*(MATCH|OPTIONAL|WITH|UNWIND|RETURN|EXPLAIN|PROFILE)\b", re.IGNORECASE)


@dataclass
class NodeTable:
    name: str
    key: str
    properties: dict[str, str]  # name -> Kùzu type
    rows: list[dict] = field(default_factory=list)


@dataclass
class RelTable:
    name: str
    pairs: list[tuple[str, str]]
    properties: dict[str, str]
    rows: list[dict] = field(default_factory=list)  # {from, to, src, dst, **properties} (from/to = labels)


def check_query(query: str) -> str:
    """The statement to run, or QueryRefused: one reading Cypher statement and nothing else."""
    text = query.strip().rstrip(";").strip()
    if not text:
        raise QueryRefused("empty query")
    bare = _STRINGS.sub("''", text)
    if ";" in bare:
        raise QueryRefused("only one statement may run")
    if m := _FORBIDDEN.search(bare):
        raise QueryRefused(f"only reading queries may run: {m.group(1).upper()} is not allowed")
    if not _FIRST.match(bare):
        raise QueryRefused("a query must start with MATCH, OPTIONAL MATCH, WITH, UNWIND or RETURN")
    return text


class GraphStore:
    """Kùzu databases, one per graph source, under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._open: dict[str, tuple[kuzu.Database, kuzu.Connection]] = {}  # name -> read-only database

    def path(self, name: str) -> Path:
        return self.root / f"{name}.kuzu"

    def names(self) -> list[str]:
        return sorted(p.name[: -len(".kuzu")] for p in self.root.glob("*.kuzu")) if self.root.exists() else []

    def build(self, name: str, nodes: list[NodeTable], rels: list[RelTable]) -> None:
        """(Re)create graph `name`. It is built beside the old one and swapped in at the end, so a
        failure leaves the previous graph as it was."""
        import kuzu

        self.root.mkdir(parents=True, exist_ok=True)
        self.close(name)
        tmp = self.root / f".{name}.building"
        _remove(tmp)
        db = kuzu.Database(str(tmp), buffer_pool_size=BUILD_BUFFER_MB * 2**20, max_db_size=MAX_DB_BYTES)
        con = kuzu.Connection(db)
        try:
            for table in nodes:
                cols = ", ".join(f"{cy.ident(p)} {cy.type_name(t)}" for p, t in table.properties.items())
                con.execute(f"CREATE NODE TABLE {cy.ident(table.name)}({cols}, PRIMARY KEY({cy.ident(table.key)}))")
                _insert(con, Quoted(f"CREATE (:{cy.ident(table.name)} {{{_assignments(table.properties)}}})"),
                        table.rows)
            keys = {t.name: t.key for t in nodes}
            for rel in rels:
                pairs = ", ".join(f"FROM {cy.ident(a)} TO {cy.ident(b)}" for a, b in rel.pairs)
                cols = "".join(f", {cy.ident(p)} {cy.type_name(t)}" for p, t in rel.properties.items())
                con.execute(f"CREATE REL TABLE {cy.ident(rel.name)}({pairs}{cols})")
                for a, b in rel.pairs:
                    rows = [r for r in rel.rows if r["from"] == a and r["to"] == b]
                    props = Quoted(f" {{{_assignments(rel.properties)}}}" if rel.properties else "")
                    ends = (f"(a:{cy.ident(a)} {{{cy.ident(keys[a])}: r.src}}), "
                            f"(b:{cy.ident(b)} {{{cy.ident(keys[b])}: r.dst}})")
                    _insert(con, Quoted(f"MATCH {ends} CREATE (a)-[:{cy.ident(rel.name)}{props}]->(b)"), rows)
        finally:
            con.close()
            db.close()
        target = self.path(name)
        _WORKER.forget(str(target))
        _remove(target)
        os.replace(tmp, target)
        _remove(Path(str(tmp) + ".wal"))

    def drop(self, name: str) -> None:
        self.close(name)
        _WORKER.forget(str(self.path(name)))
        _remove(self.path(name))
        _remove(Path(str(self.path(name)) + ".wal"))

    def close(self, name: str | None = None) -> None:
        for key in [name] if name else list(self._open):
            if key in self._open:
                db, con = self._open.pop(key)
                con.close()
                db.close()

    def _connection(self, name: str) -> kuzu.Connection:
        if name not in self._open:
            import kuzu

            if not self.path(name).exists():
                raise QueryFailed(f"the graph {name!r} is not in the index (re-index its file)")
            db = kuzu.Database(str(self.path(name)), read_only=True, buffer_pool_size=READ_BUFFER_MB * 2**20,
                               max_db_size=MAX_DB_BYTES)
            self._open[name] = (db, kuzu.Connection(db))
        return self._open[name][1]

    def describe(self, name: str, samples: int = 3) -> dict:
        """Labels, relationship types, properties with types and sample values, counts."""
        con = self._connection(name)
        tables = _rows(con.execute("CALL show_tables() RETURN name, type"))
        out: dict = {"nodes": {}, "relationships": {}}
        for table, kind in tables:
            info = _rows(con.execute(f"CALL table_info({cy.literal(table)}) RETURN *"))
            props = [{"name": r[1], "type": r[2]} for r in info]
            if kind == "NODE":
                count = _rows(con.execute(f"MATCH (n:{cy.ident(table)}) RETURN count(*)"))[0][0]
                key = next((r[1] for r in info if r[4] is True), None)
                for p in props:
                    _sample(con, Quoted(f"MATCH (n:{cy.ident(table)})"), Quoted(f"n.{cy.ident(p['name'])}"), p,
                            samples)
                out["nodes"][table] = {"count": count, "key": key, "properties": props}
            elif kind == "REL":
                count = _rows(con.execute(f"MATCH ()-[r:{cy.ident(table)}]->() RETURN count(*)"))[0][0]
                pairs = _rows(con.execute(f"MATCH (a)-[r:{cy.ident(table)}]->(b) "
                                          "RETURN DISTINCT label(a) AS a, label(b) AS b"))
                for p in props:
                    _sample(con, Quoted(f"MATCH ()-[r:{cy.ident(table)}]->()"), Quoted(f"r.{cy.ident(p['name'])}"),
                            p, samples)
                out["relationships"][table] = {"count": count, "pairs": [list(p) for p in pairs],
                                               "properties": props}
        return out

    def explain(self, name: str, query: str) -> str:
        """The checked statement, after Kùzu has bound and planned it (EXPLAIN) without running it."""
        statement = check_query(_unexplained(check_query(query)))
        try:
            self._connection(name).execute("EXPLAIN " + statement)
        except RuntimeError as exc:
            raise QueryFailed(_message(exc)) from exc
        return statement

    def execute(self, name: str, query: str, timeout_s: float = 10.0, max_rows: int = 200) -> QueryResult:
        """Run one reading statement in the worker, on a read-only database, within `timeout_s` and
        `max_rows` and the worker's memory cap."""
        statement = check_query(query)
        path = self.path(name)
        if not path.exists():
            raise QueryFailed(f"the graph {name!r} is not in the index (re-index its file)")
        st = path.stat()
        request = ("query", str(path), (st.st_mtime_ns, st.st_size), statement, int(timeout_s * 1000), max_rows)
        reply = _WORKER.run(request, timeout_s + WORKER_GRACE_S)
        if reply[0] != "ok":
            raise QueryFailed(_worker_message(reply[1], timeout_s))
        _, columns, rows, truncated = reply
        return QueryResult(columns, rows, truncated=truncated)


    def graph(self, name: str) -> KuzuGraph:
        return KuzuGraph(self, name)


class KuzuGraph(NamedSource):
    """One property graph in Kùzu, as a native store (Cypher, read-only)."""

    language, dialect = "cypher", "Kùzu"
    store: GraphStore

    def describe(self) -> dict:
        return self.store.describe(self.name)


def _worker_message(message: str, timeout_s: float) -> str:
    """Kùzu's error as the query writer should read it."""
    lowered = message.lower()
    if "interrupted" in lowered or "timeout" in lowered:
        return f"the query took longer than {timeout_s:g} s and was stopped"
    if "bad_alloc" in lowered or "out of memory" in lowered or "buffer manager" in lowered:
        return (f"the query was stopped: it needed more than the {_WORKER.query_mb} MB of memory allowed; "
                "narrow it down")
    return message.removeprefix("RuntimeError: ")


# -- the query worker (see local_stores.query_worker) ------------------------------------------------
WORKER_GRACE_S = 2.0  # Kùzu's own timeout answers first, with its message; the kill is the backstop
WORKER_DB_MB = 1024  # the address space a read-only database reserves in the worker (Kùzu's max_db_size)
WORKER_BUFFER_MB = 256
WORKER_OPEN = 1  # databases kept open: each reserves WORKER_DB_MB + WORKER_BUFFER_MB of the capped address space
_OPEN: OrderedDict[str, tuple[tuple[int, int], kuzu.Database, kuzu.Connection]] = OrderedDict()  # in the worker


def serve(fd: int, memory_mb: int = 0) -> None:
    """The worker process: one Cypher statement at a time on read-only databases kept open."""
    query_worker.serve(fd, memory_mb, _answer)


def _answer(request: tuple) -> tuple:
    if request[0] == "forget":
        _OPEN.pop(request[1], None)
        return ("ok",)
    _, path, stamp, statement, timeout_ms, max_rows = request
    con = _worker_connection(path, stamp)
    con.set_query_timeout(timeout_ms)
    result = _single(con.execute(statement))
    columns = result.get_column_names()
    rows: list[tuple] = []
    while result.has_next() and len(rows) <= max_rows:
        rows.append(tuple(_plain(v) for v in result.get_next()))
    return ("ok", columns, rows[:max_rows], len(rows) > max_rows)


def _worker_connection(path: str, stamp: tuple[int, int]) -> kuzu.Connection:
    import kuzu

    if path not in _OPEN or _OPEN[path][0] != stamp:
        _OPEN.pop(path, None)
        db = kuzu.Database(path, read_only=True, buffer_pool_size=WORKER_BUFFER_MB * 2**20,
                           max_db_size=WORKER_DB_MB * 2**20)
        _OPEN[path] = (stamp, db, kuzu.Connection(db))
        while len(_OPEN) > WORKER_OPEN:
            _OPEN.popitem(last=False)
    _OPEN.move_to_end(path)
    return _OPEN[path][2]


def _plain(value: object) -> object:
    """Kùzu's values (nodes and paths are dicts and lists) as plain values that pickle."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value if value is None or isinstance(value, (bool, int, float, str)) else plain(value)


_WORKER = query_worker.Worker("local_stores.graph_store", "Cypher", MEMORY_MB,
                              WORKER_OPEN * (WORKER_DB_MB + WORKER_BUFFER_MB))
atexit.register(_WORKER.close)


def _unexplained(statement: str) -> str:
    """The statement without a leading EXPLAIN or PROFILE of its own."""
    words = statement.split(None, 1)
    return (words[1] if len(words) > 1 else "") if words[0].upper() in ("EXPLAIN", "PROFILE") else statement


def _assignments(properties: dict[str, str]) -> Quoted:
    return Quoted(", ".join(f"{cy.ident(p)}: CAST(r.{cy.ident(p)} AS {cy.type_name(t)})"
                            for p, t in properties.items()))


def _insert(con: kuzu.Connection, statement: Quoted, rows: list[dict], batch: int = 2000) -> None:
    """`statement` once per batch of `rows`, the rows passed as the parameter `$rows`."""
    for i in range(0, len(rows), batch):
        con.execute(f"UNWIND $rows AS r {statement}", {"rows": rows[i:i + batch]})


def _single(result: kuzu.QueryResult | list[kuzu.QueryResult]) -> kuzu.QueryResult:
    """The result of one statement (Kùzu gives a list for several; checked queries are one)."""
    if isinstance(result, list):
        raise QueryRefused("only one statement may run")
    return result


def _rows(result: kuzu.QueryResult | list[kuzu.QueryResult]) -> list[list]:
    single, out = _single(result), []
    while single.has_next():
        row = single.get_next()
        out.append(row if isinstance(row, list) else list(row.values()))
    return out


def _sample(con: kuzu.Connection, match: Quoted, expr: Quoted, prop: dict, k: int) -> None:
    """Sample values into `prop`; all of them (`values`) when a text property has few distinct ones."""
    if prop["type"] not in ("STRING", "INT64", "DOUBLE", "DATE", "BOOLEAN", "STRING[]"):
        return
    value = Quoted(f"list_element({expr}, 1)") if prop["type"].endswith("[]") else expr
    distinct = _rows(con.execute(f"{match} WHERE {value} IS NOT NULL RETURN count(DISTINCT {value})"))[0][0]
    limit = CATEGORY_LIMIT if distinct <= CATEGORY_LIMIT else int(k)
    top = _rows(con.execute(f"{match} WHERE {value} IS NOT NULL RETURN {value} AS v, count(*) AS c "
                            f"ORDER BY c DESC, v LIMIT {cy.number(limit)}"))
    values = [str(v) if not isinstance(v, (int, float, bool, str)) else v for v, _ in top]
    values = [v for v in values if not isinstance(v, str) or len(v) <= 80]
    if prop["type"] == "STRING" and 1 < distinct <= CATEGORY_LIMIT:
        prop["values"] = values
    else:
        prop["samples"] = values[:k]


def _message(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0][:400] if str(exc).strip() else type(exc).__name__


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    elif path.exists():
        path.unlink()

