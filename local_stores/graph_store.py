"""Property graphs in Kùzu (OmniRetrieval: graphs stay graphs, queried in Cypher).

One Kùzu database file per graph source under the Trove home, built from a schema and rows by
Trove's own code (`build`), then only ever opened read-only. Generated Cypher runs through
`execute`: one read-only statement, no clause that reads files or changes anything, a time limit
and a row limit; the database being opened read-only is the second line of defence.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from local_stores.table_store import QueryFailed, QueryRefused, QueryResult

CATEGORY_LIMIT = 30
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


def _q(name: str) -> str:
    return f"`{name}`"


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
        self._open: dict[str, tuple[object, object]] = {}  # name -> (Database, Connection), read-only

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
        db = kuzu.Database(str(tmp))
        con = kuzu.Connection(db)
        try:
            for table in nodes:
                cols = ", ".join(f"{_q(p)} {t}" for p, t in table.properties.items())
                con.execute(f"CREATE NODE TABLE {_q(table.name)}({cols}, PRIMARY KEY({_q(table.key)}))")
                _insert(con, f"CREATE (:{_q(table.name)} {{{_assignments(table.properties)}}})", table.rows)
            keys = {t.name: t.key for t in nodes}
            for rel in rels:
                pairs = ", ".join(f"FROM {_q(a)} TO {_q(b)}" for a, b in rel.pairs)
                cols = "".join(f", {_q(p)} {t}" for p, t in rel.properties.items())
                con.execute(f"CREATE REL TABLE {_q(rel.name)}({pairs}{cols})")
                for a, b in rel.pairs:
                    rows = [r for r in rel.rows if r["from"] == a and r["to"] == b]
                    props = f" {{{_assignments(rel.properties)}}}" if rel.properties else ""
                    _insert(con, f"MATCH (a:{_q(a)} {{{_q(keys[a])}: r.src}}), (b:{_q(b)} {{{_q(keys[b])}: r.dst}}) "
                                 f"CREATE (a)-[:{_q(rel.name)}{props}]->(b)", rows)
        finally:
            con.close()
            db.close()
        target = self.path(name)
        _remove(target)
        os.replace(tmp, target)
        _remove(Path(str(tmp) + ".wal"))

    def drop(self, name: str) -> None:
        self.close(name)
        _remove(self.path(name))
        _remove(Path(str(self.path(name)) + ".wal"))

    def close(self, name: str | None = None) -> None:
        for key in [name] if name else list(self._open):
            if key in self._open:
                db, con = self._open.pop(key)
                con.close()  # type: ignore[attr-defined]
                db.close()  # type: ignore[attr-defined]

    def _connection(self, name: str):  # noqa: ANN202 (kuzu.Connection)
        if name not in self._open:
            import kuzu

            if not self.path(name).exists():
                raise QueryFailed(f"the graph {name!r} is not in the index (re-index its file)")
            db = kuzu.Database(str(self.path(name)), read_only=True)
            self._open[name] = (db, kuzu.Connection(db))
        return self._open[name][1]

    def describe(self, name: str, samples: int = 3) -> dict:
        """Labels, relationship types, properties with types and sample values, counts."""
        con = self._connection(name)
        tables = _rows(con.execute("CALL show_tables() RETURN name, type"))
        out: dict = {"nodes": {}, "relationships": {}}
        for table, kind in tables:
            info = _rows(con.execute(f"CALL table_info('{table}') RETURN *"))
            props = [{"name": r[1], "type": r[2]} for r in info]
            if kind == "NODE":
                count = _rows(con.execute(f"MATCH (n:{_q(table)}) RETURN count(*)"))[0][0]
                key = next((r[1] for r in info if r[4] is True), None)
                for p in props:
                    _sample(con, f"MATCH (n:{_q(table)})", f"n.{_q(p['name'])}", p, samples)
                out["nodes"][table] = {"count": count, "key": key, "properties": props}
            elif kind == "REL":
                count = _rows(con.execute(f"MATCH ()-[r:{_q(table)}]->() RETURN count(*)"))[0][0]
                pairs = _rows(con.execute(f"MATCH (a)-[r:{_q(table)}]->(b) "
                                          "RETURN DISTINCT label(a) AS a, label(b) AS b"))
                for p in props:
                    _sample(con, f"MATCH ()-[r:{_q(table)}]->()", f"r.{_q(p['name'])}", p, samples)
                out["relationships"][table] = {"count": count, "pairs": [list(p) for p in pairs],
                                               "properties": props}
        return out

    def explain(self, name: str, query: str) -> str:
        """The checked statement, after Kùzu has bound and planned it (EXPLAIN) without running it."""
        statement = check_query(query)
        if statement.split(None, 1)[0].upper() in ("EXPLAIN", "PROFILE"):
            statement = statement.split(None, 1)[1] if len(statement.split(None, 1)) > 1 else ""
            statement = check_query(statement)
        try:
            self._connection(name).execute(f"EXPLAIN {statement}")
        except RuntimeError as exc:
            raise QueryFailed(_message(exc)) from exc
        return statement

    def execute(self, name: str, query: str, timeout_s: float = 10.0, max_rows: int = 200) -> QueryResult:
        """Run one reading statement on a read-only connection, within `timeout_s` and `max_rows`."""
        statement = check_query(query)
        con = self._connection(name)
        con.set_query_timeout(int(timeout_s * 1000))
        try:
            result = con.execute(statement)
            columns = result.get_column_names()
            rows = []
            while result.has_next() and len(rows) <= max_rows:
                rows.append(tuple(result.get_next()))
        except RuntimeError as exc:
            message = _message(exc)
            if "interrupted" in message.lower() or "timeout" in message.lower():
                message = f"the query took longer than {timeout_s:g} s and was stopped"
            raise QueryFailed(message) from exc
        return QueryResult(columns, rows[:max_rows], truncated=len(rows) > max_rows)


def _assignments(properties: dict[str, str]) -> str:
    return ", ".join(f"{_q(p)}: CAST(r.{_q(p)} AS {t})" for p, t in properties.items())


def _insert(con, statement: str, rows: list[dict], batch: int = 2000) -> None:  # noqa: ANN001
    for i in range(0, len(rows), batch):
        con.execute(f"UNWIND $rows AS r {statement}", {"rows": rows[i:i + batch]})


def _rows(result) -> list[list]:  # noqa: ANN001
    out = []
    while result.has_next():
        out.append(result.get_next())
    return out


def _sample(con, match: str, expr: str, prop: dict, k: int) -> None:  # noqa: ANN001
    """Sample values into `prop`; all of them (`values`) when a text property has few distinct ones."""
    if prop["type"] not in ("STRING", "INT64", "DOUBLE", "DATE", "BOOLEAN", "STRING[]"):
        return
    value = f"list_element({expr}, 1)" if prop["type"].endswith("[]") else expr
    distinct = _rows(con.execute(f"{match} WHERE {value} IS NOT NULL RETURN count(DISTINCT {value})"))[0][0]
    top = _rows(con.execute(f"{match} WHERE {value} IS NOT NULL RETURN {value} AS v, count(*) AS c "
                            f"ORDER BY c DESC, v LIMIT {CATEGORY_LIMIT if distinct <= CATEGORY_LIMIT else k}"))
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

