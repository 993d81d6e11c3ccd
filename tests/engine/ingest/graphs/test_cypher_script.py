"""Cypher CREATE scripts: the Neo4j movies graph loads whole; constraints give keys; what is not
understood is skipped with a warning, never guessed."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest.graphs.cypher_script import read
from engine.ingest.graphs.load import load
from engine.ingest.graphs.model import GENERATED_KEY, infer
from local_stores.graph_store import GraphStore
from tests.conftest import shared_path

SCRIPT = """
// a tiny family graph
CREATE CONSTRAINT FOR (p:Person) REQUIRE (p.name) IS UNIQUE;
CREATE INDEX IF NOT EXISTS FOR (p:Person) ON (p.born);
CREATE (ada:Person:Scientist {name: 'Ada', born: 1815, tags: ['math', "poetry's daughter"]})
CREATE (byron:Person {name: "Lord Byron", born: 1788, since: date('1815-01-02')})
CREATE (ada)-[:CHILD_OF {legit: true}]->(byron),
       (byron)<-[:ADMIRED_BY]-(:Person {name: 'Mary', born: 1797});
MERGE (c:City {name: 'London'})
MERGE (c2:City {name: 'London'})
MATCH (p:Person) SET p.seen = true;
CREATE (ada)-[:LIVED_IN]->(c)
"""


def test_script_reads_nodes_edges_keys_and_warns_about_the_rest():
    g = read(SCRIPT)
    assert g.keys == {"Person": "name"}
    people = {n.props["name"]: n for n in g.nodes.values() if n.label == "Person"}
    assert set(people) == {"Ada", "Lord Byron", "Mary"}
    assert people["Ada"].props["tags"] == ["math", "poetry's daughter"]
    assert people["Ada"].props["labels"] == ["Person", "Scientist"]
    assert people["Lord Byron"].props["since"] == dt.date(1815, 1, 2)
    assert sum(1 for n in g.nodes.values() if n.label == "City") == 1  # MERGE does not duplicate
    assert {(g.nodes[e.src].props["name"], e.type, g.nodes[e.dst].props["name"]) for e in g.edges} == {
        ("Ada", "CHILD_OF", "Lord Byron"), ("Mary", "ADMIRED_BY", "Lord Byron"), ("Ada", "LIVED_IN", "London")}
    assert any("MATCH" in w for w in g.warnings)
    labels, rels = infer(g)
    person = next(label for label in labels if label.name == "Person")
    assert person.key == "name" and person.properties["since"] == "DATE" and person.properties["tags"] == "STRING[]"


def test_scripts_with_nothing_readable_are_refused_with_the_reason():
    with pytest.raises(ParseError, match="no CREATE statements"):
        read("MATCH (n) RETURN n;")
    with pytest.raises(SkipFile):
        read("// nothing here\n")


def test_labels_without_a_natural_key_get_a_hidden_generated_one(tmp_path: Path):
    path = tmp_path / "g.cypher"
    path.write_text("CREATE (:Step {n: 1})-[:NEXT]->(:Step {n: 1})-[:NEXT]->(:Step {n: 2})")
    d = load(GraphStore(tmp_path / "graphs"), "steps", path)
    assert d["nodes"]["Step"]["key"] == GENERATED_KEY and d["nodes"]["Step"]["hidden"] == [GENERATED_KEY]
    assert d["relationships"]["NEXT"]["count"] == 2


def test_the_neo4j_movies_script_loads_whole_and_every_gold_query_runs(tmp_path: Path):
    import json

    folder = shared_path("eval", "cypher", "movies")
    store = GraphStore(tmp_path / "graphs")
    d = load(store, "movies", folder / "movies.cypher")
    assert {k: v["count"] for k, v in d["nodes"].items()} == {"Movie": 38, "Person": 133}
    assert sum(r["count"] for r in d["relationships"].values()) == 253 and not d["warnings"]
    gold = json.loads((folder / "movies_eval.json").read_text())
    for case in gold[:60]:
        store.execute("movies", case["cypher"])  # raises on any query the schema cannot serve
