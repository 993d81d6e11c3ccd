"""Graph and RDF files in the indexer: each is one source with its own store; a file that turns
bad is recorded with its reason (like a document, it leaves the answers; other files are
untouched); deleted files leave every store."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import EXAMPLES


def _touch_later(path: Path) -> None:
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


def test_graph_and_rdf_files_are_sources_until_deleted(trove, tmp_path: Path):  # noqa: ANN001
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "family.cypher").write_text((EXAMPLES / "family" / "family-tree.cypher").read_text())
    (folder / "books.ttl").write_text((EXAMPLES / "library" / "my-books.ttl").read_text())
    trove.index([folder])
    status = trove.status()
    assert [g["name"] for g in status["graphs"]] == ["family"] and [r["name"] for r in status["rdf"]] == ["books"]
    assert trove.stores.graphs.names() == ["family"] and trove.stores.rdf.names() == ["books"]
    assert trove.query("books", "SELECT (COUNT(?b) AS ?n) WHERE { ?b a schema:Book }").rows == [(7,)]

    (folder / "family.cypher").unlink()
    (folder / "books.ttl").unlink()
    report = trove.index()
    assert report.removed == 2 and trove.status()["graphs"] == [] and trove.status()["rdf"] == []
    assert trove.stores.graphs.names() == [] and trove.stores.rdf.names() == []


def test_a_broken_edit_is_recorded_with_its_reason_and_leaves_the_answers(trove, tmp_path: Path):  # noqa: ANN001
    folder = tmp_path / "data"
    folder.mkdir()
    ttl = folder / "books.ttl"
    ttl.write_text((EXAMPLES / "library" / "my-books.ttl").read_text())
    graph = folder / "people.graphml"
    graph.write_text("<graphml xmlns='http://graphml.graphdrawing.org/xmlns'><graph edgedefault='directed'>"
                     "<node id='a'/><node id='b'/><edge source='a' target='b'/></graph></graphml>")
    trove.index([folder])
    assert trove.query("people", "MATCH (a:Node)-[:LINKED_TO]->(b:Node) RETURN a.id, b.id").rows == [("a", "b")]

    ttl.write_text("@prefix schema: <http://schema.org/> .\nthis is not turtle")
    graph.write_text("<graphml><graph><node id='a'>")
    _touch_later(ttl)
    _touch_later(graph)
    report = trove.index()
    problems = {Path(p).name: (state, reason) for p, state, reason in report.problems}
    assert problems["books.ttl"][0] == "failed" and "Turtle" in problems["books.ttl"][1]
    assert problems["people.graphml"][0] == "failed" and "not valid GraphML" in problems["people.graphml"][1]
    assert trove.status()["rdf"] == [] and trove.status()["graphs"] == []  # a failed file is no source
    assert {p["path"] for p in trove.status()["problems"]} == {str(ttl), str(graph)}
