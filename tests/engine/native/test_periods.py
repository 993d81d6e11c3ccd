"""Date spans a question names, and the hint each query writer makes of them: its literals are
checked on the real engines (DuckDB, SQLite, Kùzu, Oxigraph), which must count a month's rows."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path

import pytest

from engine.ingest.graphs.load import load
from engine.ingest.tables import describe_database
from engine.native import periods, sources
from engine.native.kinds import open_store
from engine.native.querying import write_and_run
from engine.native.writers import writer_for
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore
from tests.scripted import ScriptedLLM

QUESTION = "How many times did I go out in May 2025?"
DAYS = ["2025-04-30", "2025-05-01", "2025-05-09", "2025-05-31", "2025-06-01"]  # three in May


def test_months_days_and_years_become_half_open_spans():
    found = periods.spans("What did I do on 9 May 2025, on March 3rd, 2024, in Sept. 2019 and in 2023?")
    assert [(s.phrase, s.start.isoformat(), s.end.isoformat()) for s in found] == [
        ("9 May 2025", "2025-05-09", "2025-05-10"), ("March 3rd, 2024", "2024-03-03", "2024-03-04"),
        ("Sept. 2019", "2019-09-01", "2019-10-01"), ("2023", "2023-01-01", "2024-01-01")]
    assert [str(s) for s in periods.spans("Runs in 2025-12 and on 2025-02-28")] == [
        "'2025-12': from 2025-12-01 up to (not including) 2026-01-01",
        "'2025-02-28': from 2025-02-28 up to (not including) 2025-03-01"]


def test_numbers_that_are_not_dates_and_impossible_days_name_no_span():
    assert periods.spans("Who is on bus line 120 with 2024 passengers?") == []
    assert periods.spans("What happened on 31 April 2025 or on 2025-02-30?") == []


def test_no_span_or_no_date_field_gives_no_hint():
    def literal(day: dt.date) -> str:
        return day.isoformat()
    assert periods.hint([], ["t.day"], literal) is None
    assert periods.hint(periods.spans(QUESTION), [], literal) is None


def _duckdb(tmp_path: Path, stores: sources.Stores) -> sources.Source:
    csv = "Day,Place\n" + "".join(f"{d},cafe\n" for d in DAYS)
    info = stores.tables.load_csv("outings", tmp_path / "outings.csv", csv)
    return sources.Source("outings", "table", "duckdb", str(tmp_path / "outings.csv"), info.descriptor())


def _sqlite(tmp_path: Path, stores: sources.Stores) -> sources.Source:  # noqa: ARG001
    path = tmp_path / "outings.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE outings (day DATE, place TEXT)")
        db.executemany("INSERT INTO outings VALUES (?, 'cafe')", [(d,) for d in DAYS])
    return sources.Source("outings", "database", "sqlite", str(path), describe_database(path))


def _kuzu(tmp_path: Path, stores: sources.Stores) -> sources.Source:
    path = tmp_path / "outings.cypher"
    path.write_text("".join(f"CREATE (:Outing {{id: {i}, day: date('{d}')}});\n" for i, d in enumerate(DAYS)))
    return sources.Source("outings", "graph", "kuzu", str(path), load(stores.graphs, "outings", path))


def _oxigraph(tmp_path: Path, stores: sources.Stores) -> sources.Source:
    path = tmp_path / "outings.ttl"
    path.write_text("@prefix ex: <http://example.org/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n"
                    + "".join(f'ex:o{i} a ex:Outing ; ex:day "{d}"^^xsd:date .\n' for i, d in enumerate(DAYS)))
    return sources.Source("outings", "rdf", "oxigraph", str(path), stores.rdf.load("outings", path))


COUNTS = {  # a month's count written with the hint's own literals
    "duckdb": "SELECT COUNT(*) FROM outings WHERE day >= {0} AND day < {1}",
    "sqlite": "SELECT COUNT(*) FROM outings WHERE day >= {0} AND day < {1}",
    "kuzu": "MATCH (o:Outing) WHERE o.day >= {0} AND o.day < {1} RETURN count(*)",
    "oxigraph": "SELECT (COUNT(*) AS ?n) WHERE {{ ?o <http://example.org/day> ?d . FILTER(?d >= {0} && ?d < {1}) }}",
}


@pytest.mark.parametrize("make", [_duckdb, _sqlite, _kuzu, _oxigraph], ids=lambda f: f.__name__.strip("_"))
def test_each_writers_literals_count_the_month_on_its_engine(make, tmp_path: Path):  # noqa: ANN001
    stores = sources.Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"),
                            RdfStore(tmp_path / "rdf"))
    source = make(tmp_path, stores)
    hint = writer_for(source.language).span_hint(periods.spans(QUESTION), source)
    assert hint is not None and "'May 2025' is from " in hint and "day" in hint.split("Date fields:")[1]
    first, after = re.search(r"is from (.+?) up to \(not including\) (.+?)\. Date fields", hint).groups()
    result = open_store(source, stores).execute(COUNTS[source.engine].format(first, after))
    assert [list(r) for r in result.rows] == [[3]]
    assert writer_for(source.language).span_hint(periods.spans("How many outings?"), source) is None


def test_the_span_hint_reaches_the_prompt_before_the_question(tmp_path: Path):
    stores = sources.Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"),
                            RdfStore(tmp_path / "rdf"))
    source = _duckdb(tmp_path, stores)
    llm = ScriptedLLM(["SELECT COUNT(*) FROM outings WHERE day >= DATE '2025-05-01' AND day < DATE '2025-06-01'"])
    outcome = write_and_run(llm, QUESTION, source, stores)
    assert outcome.ok and [list(r) for r in outcome.result.rows] == [[3]]
    prompt = llm.sent[0][-1]["content"]
    assert "'May 2025' is from DATE '2025-05-01' up to (not including) DATE '2025-06-01'" in prompt
    assert prompt.index("Dates the question names") < prompt.index(f"Question: {QUESTION}")
