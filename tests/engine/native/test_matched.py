"""A value aggregate's zero told apart from the sum of nothing, on a real Spider4SPARQL graph and a
real WikiTableQuestions table."""

from __future__ import annotations

from pathlib import Path

from engine.native.kinds import open_store
from engine.native.matched import counting, over_nothing
from engine.native.querying import write_and_run
from engine.native.sources import Source, Stores
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.table_store import TableStore
from tests.conftest import shared_path
from tests.engine.native.test_querying import wtq_table
from tests.scripted import ScriptedLLM

EARNINGS = """PREFIX ontop: <http://valuenet/ontop/>
PREFIX people: <http://valuenet/ontop/people#>
PREFIX poker_player: <http://valuenet/ontop/poker_player#>
SELECT (SUM(?earned) AS ?earnings) WHERE {
  ?player a ontop:poker_player ; poker_player:earnings ?earned ; poker_player:ref-people_id ?person .
  ?person people:name "%s" .
}"""


def test_the_sum_of_no_rows_is_no_answer_and_a_real_sum_is_kept(tmp_path):  # noqa: ANN001
    """"How much has Roman Bragin earned playing poker?" was answered "0" (unseen set): he is in the
    graph's people, not among its poker players, and SUM over no solution is 0 in SPARQL."""
    stores = Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))
    path = shared_path("eval", "sparql", "spider4sparql", "kg", "poker_player_triples.ttl")
    source = Source("poker", "rdf", "oxigraph", str(path), stores.rdf.load("poker", path))
    nothing = write_and_run(ScriptedLLM([EARNINGS % "Roman Bragin"]), "How much has Roman Bragin earned playing "
                            "poker?", source, stores)
    assert nothing.ok and nothing.result is not None and nothing.result.rows == []
    earned = write_and_run(ScriptedLLM([EARNINGS % "Aleksey Ostapenko"]), "How much has Aleksey Ostapenko earned "
                           "playing poker?", source, stores)
    assert earned.result is not None and earned.result.rows == [(476090.0,)]


def test_a_zero_from_rows_that_exist_is_a_value(tmp_path: Path) -> None:
    stores, source = wtq_table("csv__203-csv__64.csv", "medals", tmp_path)
    store = open_store(source, stores)
    none = "SELECT COALESCE(SUM(gold), 0) AS gold FROM medals WHERE nation = 'Narnia'"
    assert over_nothing(none, store.execute(none), "sql", store, 5.0)
    zero = "SELECT MIN(silver) - 12 AS above FROM medals WHERE nation = 'Ukraine'"  # Ukraine won 12
    assert store.execute(zero).rows == [(0,)] and not over_nothing(zero, store.execute(zero), "sql", store, 5.0)


def test_only_a_lone_value_aggregate_is_probed() -> None:
    assert counting("SELECT COUNT(*) FROM t WHERE a = 1", "sql") is None  # a count of 0 is an answer
    assert counting("SELECT nation, SUM(gold) FROM t GROUP BY nation", "sql") is None
    assert counting("SELECT (SELECT SUM(x) FROM u) FROM t", "sql") is None
    assert counting("SELECT SUM(gold) FROM t WHERE nation = 'X'", "sql") == "SELECT COUNT(*) FROM t WHERE nation = 'X'"
    assert counting("MATCH (p:Person)-[r:REVIEWED]->(m) RETURN avg(r.rating) AS mean", "cypher") == (
        "MATCH (p:Person)-[r:REVIEWED]->(m) RETURN count(*)")


def test_a_count_for_a_period_the_tables_dates_never_reach_is_no_answer(tmp_path):  # noqa: ANN001
    """"How many WARN notices were received in April 2016?" over a report of notices received from
    July 2015 to March 2016: "No WARN notices were received in April 2016 [1]" (unseen set). The
    files do not cover April 2016; a month they cover and hold nothing for is a 0."""
    from engine.native.matched import outside_span

    stores = Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"), RdfStore(tmp_path / "rdf"))
    rows = ("received,company,no_of\n2015-07-01,Boeing Company,56\n2015-11-20,Qualcomm Incorporated,3\n"
            "2016-03-21,Scripps Health,1\n")
    info = stores.tables.load_csv("warn", tmp_path / "warn.csv", rows)
    source = Source("warn", "table", "duckdb", str(tmp_path / "warn.csv"), info.descriptor())
    april = "SELECT COUNT(*) FROM warn WHERE received >= DATE '2016-04-01' AND received < DATE '2016-05-01'"
    outcome = write_and_run(ScriptedLLM([april]), "How many WARN notices were received in April 2016?", source,
                            stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == []
    store = open_store(source, stores)
    october = "SELECT COUNT(*) FROM warn WHERE received BETWEEN '2015-10-01' AND '2015-10-31'"
    assert store.execute(october).rows == [(0,)] and not outside_span(october, store.execute(october), store, 5.0)
    before = "SELECT COUNT(*) FROM warn WHERE received < '2015-01-01'"
    assert outside_span(before, store.execute(before), store, 5.0)
