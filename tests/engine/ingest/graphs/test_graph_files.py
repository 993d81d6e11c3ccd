"""GraphML and node/edge CSV pairs become graphs with labels, types and properties."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import ParseError
from engine.ingest.graphs import edge_csv, graphml
from engine.ingest.graphs.load import kind_of, load
from local_stores.graph_store import GraphStore

GRAPHML = """<?xml version="1.0" encoding="UTF-8"?>
<graphml xmlns="http://graphml.graphdrawing.org/xmlns">
  <key id="labels" for="node" attr.name="labels" attr.type="string"/>
  <key id="name" for="node" attr.name="name" attr.type="string"/>
  <key id="born" for="node" attr.name="born" attr.type="int"/>
  <key id="label" for="edge" attr.name="label" attr.type="string"/>
  <key id="w" for="edge" attr.name="weight" attr.type="double"/>
  <graph id="G" edgedefault="directed">
    <node id="n0" labels=":Person"><data key="labels">:Person</data><data key="name">Ada</data>
      <data key="born">1815</data></node>
    <node id="n1" labels=":Person"><data key="name">Charles</data><data key="born">1791</data></node>
    <node id="n2"><data key="labels">:Machine</data><data key="name">Analytical Engine</data></node>
    <edge id="e0" source="n0" target="n1" label="KNEW"><data key="w">0.9</data></edge>
    <edge id="e1" source="n1" target="n2"><data key="label">DESIGNED</data></edge>
  </graph>
</graphml>"""


def test_graphml_labels_types_and_edge_types(tmp_path: Path):
    path = tmp_path / "people.graphml"
    path.write_text(GRAPHML)
    assert kind_of(path) == "graph"
    g = graphml.read(path)
    assert sorted(n.label for n in g.nodes.values()) == ["Machine", "Person", "Person"]
    ada = g.nodes["n:n0"].props
    assert ada["born"] == 1815 and ada["id"] == "n0"
    d = load(GraphStore(tmp_path / "graphs"), "people", path)
    assert d["relationships"]["KNEW"]["properties"][0]["type"] == "DOUBLE"
    store = GraphStore(tmp_path / "graphs")
    rows = store.execute("people", "MATCH (a:Person)-[:DESIGNED]->(m:Machine) RETURN a.name, m.name").rows
    assert rows == [("Charles", "Analytical Engine")]


def test_broken_graphml_is_a_parse_error(tmp_path: Path):
    path = tmp_path / "bad.graphml"
    path.write_text("<graphml><graph><node id='a'>")
    with pytest.raises(ParseError, match="not valid GraphML"):
        graphml.read(path)


def test_neo4j_import_csvs_make_one_graph(tmp_path: Path):
    (tmp_path / "people_nodes.csv").write_text("personId:ID,name,born:int,:LABEL\n1,Ada,1815,Person\n"
                                               "2,Charles,1791,Person;Inventor\n")
    (tmp_path / "knows_edges.csv").write_text(":START_ID,:END_ID,:TYPE,since:int\n1,2,KNEW,1833\n2,3,KNEW,\n")
    edges = tmp_path / "knows_edges.csv"
    assert edge_csv.is_edge_file(edges) and not edge_csv.is_edge_file(tmp_path / "people_nodes.csv")
    assert kind_of(edges) == "graph"
    d = load(GraphStore(tmp_path / "graphs"), "knows", edges)
    assert d["nodes"]["Person"]["count"] == 2 and d["nodes"]["Node"]["count"] == 1  # node 3 was never described
    store = GraphStore(tmp_path / "graphs")
    assert store.execute("knows", "MATCH (a:Person)-[k:KNEW]->(b:Person) RETURN a.name, b.name, k.since").rows == [
        ("Ada", "Charles", 1833)]


def test_plain_source_target_csv_is_an_edge_file(tmp_path: Path):
    path = tmp_path / "trail_links.csv"
    path.write_text("source,target,km\nOslo,Bergen,463\nBergen,Stavanger,209.5\n")
    assert edge_csv.is_edge_file(path)
    plain = tmp_path / "distances.csv"
    plain.write_text("source,target,km\nOslo,Bergen,463\n")
    assert not edge_csv.is_edge_file(plain)  # a table that happens to have these columns stays a table
    g = edge_csv.read(path)
    assert [e.type for e in g.edges] == ["TRAIL", "TRAIL"] and g.edges[1].props["km"] == 209.5
