"""Kùzu graphs: built by Trove, described for the model, queried read-only with limits; hostile
Cypher is refused and never changes data."""

from __future__ import annotations

from pathlib import Path

import pytest

from local_stores.graph_store import GraphStore, NodeTable, RelTable, check_query
from local_stores.results import QueryFailed, QueryRefused


def _people(n: int = 60) -> tuple[list[NodeTable], list[RelTable]]:
    people = NodeTable("Person", "name", {"name": "STRING", "born": "INT64", "city": "STRING"},
                       [{"name": f"p{i}", "born": 1950 + i, "city": ["Oslo", "Lund"][i % 2]} for i in range(n)])
    knows = RelTable("KNOWS", [("Person", "Person")], {"since": "INT64"},
                     [{"from": "Person", "to": "Person", "src": f"p{i}", "dst": f"p{i + 1}", "since": 2000 + i}
                      for i in range(n - 1)])
    return [people], [knows]


@pytest.fixture
def store(tmp_path: Path) -> GraphStore:
    store = GraphStore(tmp_path / "graphs")
    store.build("people", *_people())
    return store


def test_built_graph_is_described_with_counts_types_and_values(store: GraphStore):
    d = store.describe("people")
    person = d["nodes"]["Person"]
    assert person["count"] == 60 and person["key"] == "name"
    props = {p["name"]: p for p in person["properties"]}
    assert props["born"]["type"] == "INT64" and props["city"]["values"] == ["Lund", "Oslo"]
    assert d["relationships"]["KNOWS"] == {"count": 59, "pairs": [["Person", "Person"]],
                                           "properties": d["relationships"]["KNOWS"]["properties"]}
    assert store.names() == ["people"]


def test_reading_queries_run_with_a_row_limit(store: GraphStore):
    result = store.execute("people", "MATCH (a:Person)-[k:KNOWS]->(b:Person) WHERE a.name = 'p0' "
                                     "RETURN b.name, k.since")
    assert result.columns == ["b.name", "k.since"] and result.rows == [("p1", 2000)]
    many = store.execute("people", "MATCH (p:Person) RETURN p.name", max_rows=10)
    assert len(many.rows) == 10 and many.truncated
    assert store.explain("people", "MATCH (p:Person) RETURN p.name") == "MATCH (p:Person) RETURN p.name"


@pytest.mark.parametrize("query", [
    "CREATE (:Person {name: 'x'})",
    "MATCH (p:Person) SET p.born = 0",
    "MATCH (p:Person) DETACH DELETE p",
    "MERGE (p:Person {name: 'x'})",
    "LOAD FROM '/etc/passwd' RETURN *",
    "COPY Person FROM '/tmp/people.csv'",
    "CALL show_tables() RETURN *",
    "MATCH (p:Person) RETURN p.name; MATCH (p:Person) DELETE p",
    "DROP TABLE Person",
    "INSTALL httpfs",
    "ATTACH '/tmp/other.kuzu' AS other (dbtype kuzu)",
    "MATCH (p:Person) WITH p CALL { MATCH (q:Person) DELETE q } RETURN p",
])
def test_hostile_queries_are_refused_and_change_nothing(store: GraphStore, query: str):
    with pytest.raises(QueryRefused):
        store.execute("people", query)
    assert store.execute("people", "MATCH (p:Person) RETURN count(*)").rows == [(60,)]


def test_keywords_inside_strings_are_not_mistaken_for_clauses():
    assert check_query("MATCH (p:Person) WHERE p.city = 'CREATE; DELETE' RETURN p.name")


def test_errors_and_timeouts_become_query_failed_and_the_next_query_works(store: GraphStore):
    with pytest.raises(QueryFailed, match="Cannot find property"):
        store.explain("people", "MATCH (p:Person) RETURN p.nickname")
    with pytest.raises(QueryFailed, match="longer than"):
        store.execute("people", "MATCH (a:Person), (b:Person), (c:Person), (d:Person), (e:Person) "
                                "WHERE a.born + b.born > c.born + d.born + e.born RETURN count(*)", timeout_s=0.5)
    assert store.execute("people", "MATCH (p:Person) RETURN count(*)").rows == [(60,)]


def test_a_failed_rebuild_keeps_the_previous_graph(store: GraphStore):
    broken = NodeTable("Person", "name", {"name": "STRING"}, [{"name": "same"}, {"name": "same"}])  # duplicate key
    with pytest.raises(RuntimeError):
        store.build("people", [broken], [])
    assert store.execute("people", "MATCH (p:Person) RETURN count(*)").rows == [(60,)]
    store.drop("people")
    assert store.names() == []


def test_a_query_that_would_eat_the_machine_is_stopped_and_the_next_works(store: GraphStore):
    """Kùzu neither interrupts nor bounds `range(1, 1000000000)`: in-process it grew to 24 GB."""
    with pytest.raises(QueryFailed, match="memory|longer than"):
        store.execute("people", "UNWIND range(1, 1000000000) AS x RETURN sum(x)", timeout_s=5)
    assert store.execute("people", "MATCH (p:Person) RETURN count(*)").rows == [(60,)]


def test_many_graphs_open_in_one_process(tmp_path: Path):
    """Kùzu's default 8 TB reservation per database made the 16th open graph fail to open."""
    store = GraphStore(tmp_path / "graphs")
    for i in range(20):
        store.build(f"g{i}", [NodeTable("P", "id", {"id": "STRING"}, [{"id": str(i)}])], [])
        assert store.describe(f"g{i}")["nodes"]["P"]["count"] == 1
    store.close()
