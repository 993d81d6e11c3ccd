"""RDF in Oxigraph: loading every syntax, descriptors, SPARQL results, safe swaps on reload, and
generated queries that cannot write, reach the network or run forever."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import pytest

from local_stores import rdf_store
from local_stores.rdf_store import EmptyRdf, RdfLoadError, RdfStore, with_prefixes
from local_stores.results import QueryFailed, QueryRefused
from tests.conftest import shared_path

TTL = """@prefix ex: <http://example.org/library#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .

ex:alice a ex:Person ; rdfs:label "Alice Smith" ; ex:age 34 ; ex:knows ex:bob .
ex:bob a ex:Person ; rdfs:label "Bob Jones" ; ex:age 51 .
ex:herbert a ex:Person ; rdfs:label "Frank Herbert" ; ex:age 65 .
ex:dune a ex:Book ; rdfs:label "Dune" ; ex:author ex:herbert ; ex:year 1965 ; ex:borrowed true .
ex:emma a ex:Book ; rdfs:label "Emma" ; ex:year 1815 ; ex:borrowed false .
ex:Book rdfs:label "Book" .
"""
NT = """<http://example.org/a> <http://example.org/name> "Ada" .
<http://example.org/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Cat> .
<http://example.org/b> <http://example.org/name> "Bo" .
<http://example.org/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/Cat> .
"""
JSONLD = json.dumps({"@context": {"ex": "http://example.org/", "name": "ex:name"},
                     "@graph": [{"@id": "ex:a", "@type": "ex:Cat", "name": "Ada"},
                                {"@id": "ex:b", "@type": "ex:Cat", "name": "Bo"}]})
RDFXML = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/">
  <ex:Cat rdf:about="http://example.org/a"><ex:name>Ada</ex:name></ex:Cat>
  <ex:Cat rdf:about="http://example.org/b"><ex:name>Bo</ex:name></ex:Cat>
</rdf:RDF>
"""
TRIG = """@prefix ex: <http://example.org/> .
ex:home { ex:kettle ex:room "kitchen" . }
ex:office { ex:printer ex:room "hall" . }
ex:door ex:room "front" .
"""
COUNT = "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"


@pytest.fixture
def library(tmp_path: Path) -> tuple[RdfStore, dict]:
    file = tmp_path / "library.ttl"
    file.write_text(TTL, encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    return store, store.load("library", file)


def test_turtle_is_described_by_classes_predicates_and_samples(library):  # noqa: ANN001
    store, d = library
    assert (d["language"], d["engine"], d["triples"]) == ("sparql", "oxigraph", 20)
    assert d["prefixes"]["ex"] == "http://example.org/library#"
    person, book = d["classes"]
    assert (person["label"], person["instances"], book["label"], book["instances"]) == ("Person", 3, "Book", 2)
    preds = {p["label"]: p for p in person["predicates"]}
    assert preds["age"]["count"] == 3 and preds["age"]["kind"] == "literal" and preds["age"]["datatype"] == "integer"
    assert set(preds["label"]["samples"]) <= {"Alice Smith", "Bob Jones", "Frank Herbert"}
    assert preds["knows"]["kind"] == "iri" and preds["knows"]["range"] == "http://example.org/library#Person"
    assert preds["knows"]["samples"] == ["Bob Jones"]  # IRIs shown by their label
    author = next(p for p in book["predicates"] if p["label"] == "author")
    assert author["samples"] == ["Frank Herbert"]
    assert [p["label"] for p in d["predicates"]] == ["label"]  # ex:Book rdfs:label: a subject without a class
    assert store.names() == ["library"] and store.descriptor("library") == d


def test_select_and_ask_give_plain_python_values(library):  # noqa: ANN001
    store, _ = library
    result = store.execute("library", "PREFIX ex: <http://example.org/library#> SELECT ?book ?title ?year ?out "
                           "WHERE { ?book a ex:Book ; rdfs:label ?title ; ex:year ?year ; ex:borrowed ?out } "
                           "ORDER BY ?year", timeout_s=10, max_rows=10)
    assert result.columns == ["book", "title", "year", "out"]
    assert result.rows == [("http://example.org/library#emma", "Emma", 1815, False),
                           ("http://example.org/library#dune", "Dune", 1965, True)]
    ask = store.execute("library", "ASK { ?p ex:knows ?q }", timeout_s=10, max_rows=10)
    assert (ask.columns, ask.rows) == (["answer"], [(True,)])


def test_known_prefixes_are_added_when_a_query_uses_them_undeclared(library):  # noqa: ANN001
    store, _ = library
    text = store.explain("library", "SELECT ?name WHERE { ?p a ex:Person ; rdfs:label ?name ; ex:age ?age "
                                    "FILTER(?age > 40) } ORDER BY ?name")
    assert text.startswith("PREFIX ex: <http://example.org/library#>\nPREFIX rdfs: ")
    assert store.execute("library", text, 10, 10).rows == [("Bob Jones",), ("Frank Herbert",)]
    with pytest.raises(QueryFailed, match=r"unknown prefix foo: .*known: ex:"):
        store.explain("library", "SELECT * WHERE { ?s foo:bar ?o }")
    closing = "http://example.org/x> } DROP GRAPH <http://y"  # a data's namespace that would close the IRI
    assert with_prefixes("SELECT * WHERE { ?s bad:p ?o }", {"bad": closing}) == "SELECT * WHERE { ?s bad:p ?o }"


def test_row_limit_and_construct_rows(library):  # noqa: ANN001
    store, _ = library
    result = store.execute("library", "SELECT ?s WHERE { ?s ?p ?o }", timeout_s=10, max_rows=5)
    assert len(result.rows) == 5 and result.truncated
    triples = store.execute("library", "CONSTRUCT { ?b ex:by ?a } WHERE { ?b ex:author ?a }", 10, 10)
    assert triples.columns == ["subject", "predicate", "object"]
    assert triples.rows == [("http://example.org/library#dune", "http://example.org/library#by",
                             "http://example.org/library#herbert")]


@pytest.mark.parametrize(("suffix", "text"), [(".nt", NT), (".jsonld", JSONLD), (".rdf", RDFXML)])
def test_other_syntaxes_load_alike(tmp_path: Path, suffix: str, text: str):
    file = tmp_path / f"cats{suffix}"
    file.write_text(text, encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    d = store.load("cats", file)
    assert d["triples"] == 4 and d["classes"][0]["label"] == "Cat" and d["classes"][0]["instances"] == 2
    result = store.execute("cats", "SELECT ?n WHERE { ?c a <http://example.org/Cat> ; "
                                   "<http://example.org/name> ?n } ORDER BY ?n", 10, 10)
    assert result.rows == [("Ada",), ("Bo",)]


def test_named_graphs_are_one_graph_by_default_and_each_by_name(tmp_path: Path):
    file = tmp_path / "house.trig"
    file.write_text(TRIG, encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    d = store.load("house", file)
    assert sorted(d["graphs"]) == ["http://example.org/home", "http://example.org/office"]
    rooms = store.execute("house", "SELECT ?room WHERE { ?thing ex:room ?room } ORDER BY ?room", 10, 10)
    assert rooms.rows == [("front",), ("hall",), ("kitchen",)]
    by_graph = store.execute("house", "SELECT ?g ?room WHERE { GRAPH ?g { ?t ex:room ?room } } ORDER BY ?room", 10, 10)
    assert by_graph.rows == [("http://example.org/office", "hall"), ("http://example.org/home", "kitchen")]
    office = store.execute("house", "SELECT ?room FROM ex:office WHERE { ?t ex:room ?room }", 10, 10)
    assert office.rows == [("hall",)]
    with pytest.raises(QueryRefused, match="not a graph of this source"):
        store.execute("house", "SELECT * FROM <file:///etc/passwd> WHERE { ?s ?p ?o }", 10, 10)


def test_reloading_a_changed_file_replaces_its_data(tmp_path: Path):
    file = tmp_path / "cats.nt"
    file.write_text(NT, encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    store.load("cats", file)
    assert store.execute("cats", COUNT, 10, 10).rows == [(4,)]  # the worker now holds this store open
    file.write_text(NT + '<http://example.org/c> <http://example.org/name> "Cy" .\n', encoding="utf-8")
    assert store.load("cats", file)["triples"] == 5
    if sys.platform == "linux":  # the worker let go of the replaced store's files
        fds = Path(f"/proc/{rdf_store._WORKER.pid}/fd")
        assert not [fd for fd in fds.iterdir() if str(tmp_path) in os.readlink(fd) and "(deleted)" in os.readlink(fd)]
    assert store.execute("cats", COUNT, 10, 10).rows == [(5,)]
    assert sorted(p.name for p in (tmp_path / "rdf").iterdir()) == ["cats"]  # no .tmp or .old left
    store.drop("cats")
    assert store.names() == []
    with pytest.raises(QueryFailed, match="no RDF source named 'cats'"):
        store.execute("cats", COUNT, 10, 10)


def test_a_corrupt_file_says_where_and_keeps_the_previous_store(library, tmp_path: Path):  # noqa: ANN001
    store, _ = library
    broken = tmp_path / "library.ttl"
    broken.write_text(TTL + "ex:carol a ex:Person ex:oops .\n", encoding="utf-8")
    with pytest.raises(RdfLoadError, match=r"^not valid Turtle: line 11 .*dot is expected"):
        store.load("library", broken)
    assert store.execute("library", COUNT, 10, 10).rows == [(20,)]
    assert sorted(p.name for p in (tmp_path / "rdf").iterdir()) == ["library"]
    empty = tmp_path / "empty.ttl"
    empty.write_text("@prefix ex: <http://example.org/> .\n# nothing yet\n", encoding="utf-8")
    with pytest.raises(EmptyRdf, match="no triples"):
        store.load("empty", empty)
    assert store.names() == ["library"]


def test_a_swap_interrupted_between_its_renames_is_healed(library, tmp_path: Path):  # noqa: ANN001
    store, _ = library
    (tmp_path / "rdf" / "library").rename(tmp_path / "rdf" / "library.old")  # as if killed mid-swap
    assert store.names() == ["library"]
    assert store.execute("library", COUNT, 10, 10).rows == [(20,)]


@pytest.mark.parametrize("query", [
    "INSERT DATA { <http://x/a> <http://x/b> <http://x/c> }",
    "insert data { <http://x/a> <http://x/b> 'c' }",
    "DELETE WHERE { ?s ?p ?o }",
    "PREFIX ex: <http://x/> DELETE { ?s ?p ?o } INSERT { ?s ex:p 1 } WHERE { ?s ?p ?o }",
    "WITH <http://x/g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
    "LOAD <file:///etc/passwd>",
    "CLEAR ALL",
    "DROP GRAPH <http://x/g>",
    "SELECT * WHERE { SERVICE <http://x/> { ?s ?p ?o } }",
    "SELECT * WHERE { ?s ?p ?o OPTIONAL { service silent <http://127.0.0.1:9/> { ?s ?q ?r } } }",
    "SELECT * WHERE { ?s ?p ?o } ; DROP ALL",
    "SELECT * WHERE { ?s ?p ?o } ; SELECT * WHERE { ?s ?p ?o }",
    "SELECT * FROM <http://evil.example/data.ttl> WHERE { ?s ?p ?o }",
    "SELECT * FROM NAMED <file:///etc/passwd> WHERE { GRAPH ?g { ?s ?p ?o } }",
    "",
])
def test_hostile_queries_are_refused_and_change_nothing(library, query: str):  # noqa: ANN001
    store, _ = library
    with pytest.raises(QueryRefused):
        store.execute("library", query, 10, 10)
    assert store.execute("library", COUNT, 10, 10).rows == [(20,)]


def test_keywords_inside_strings_names_and_variables_are_fine(library):  # noqa: ANN001
    store, _ = library
    query = ("SELECT ?delete WHERE { ?x rdfs:label ?delete FILTER(!CONTAINS(?delete, 'drop; insert')) } "
             "ORDER BY ?delete LIMIT 1;")
    assert store.execute("library", query, 10, 10).rows == [("Alice Smith",)]


def test_syntax_errors_come_back_short_with_the_place(library):  # noqa: ANN001
    store, _ = library
    with pytest.raises(QueryFailed, match=r"SPARQL syntax error at line 1, column \d+: .*near") as err:
        store.explain("library", "SELECT ?s WHERE { ?s ?p ?o ")
    assert len(str(err.value)) < 400


def test_a_runaway_query_is_stopped_at_the_time_limit_and_the_next_one_runs(tmp_path: Path):
    file = tmp_path / "many.nt"
    file.write_text("".join(f'<http://e/{i}> <http://e/p{i % 7}> "{i}" .\n' for i in range(3000)), encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    store.load("many", file)
    store.execute("many", COUNT, 10, 10)  # the worker is up
    start = time.monotonic()
    with pytest.raises(QueryFailed, match="longer than 1 s"):
        store.execute("many", "SELECT (COUNT(*) AS ?n) WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f . ?g ?t ?h }", 1, 10)
    assert time.monotonic() - start < 3
    assert store.execute("many", COUNT, 10, 10).rows == [(3000,)]


@pytest.mark.skipif(sys.platform != "linux", reason="the worker's memory cap (RLIMIT_AS) is enforced on Linux")
def test_a_query_that_eats_memory_ends_the_worker_not_the_machine(tmp_path: Path, monkeypatch):  # noqa: ANN001
    file = tmp_path / "many.nt"
    file.write_text("".join(f'<http://e/{i}> <http://e/p> "{i}" .\n' for i in range(3000)), encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    store.load("many", file)
    rdf_store._WORKER.close()
    monkeypatch.setattr(rdf_store._WORKER, "memory_mb", 1024)
    monkeypatch.setattr(rdf_store._WORKER, "query_mb", 1024)
    try:
        with pytest.raises(QueryFailed, match="more than the 1024 MB of memory"):
            store.execute("many", "SELECT * WHERE { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f } ORDER BY ?b ?d ?f", 60, 10)
    finally:
        rdf_store._WORKER.close()
    assert store.execute("many", COUNT, 10, 10).rows == [(3000,)]


def _spider(*parts: str) -> Path:
    return shared_path("eval", "sparql", "spider4sparql", *parts)


def test_spider4sparql_gold_queries_run_on_concert_singer(tmp_path: Path):
    kg, dev = _spider("kg", "concert_singer_triples.ttl"), _spider("dev.json")
    store = RdfStore(tmp_path / "rdf")
    store.load("concert_singer", kg)
    gold = [q for q in json.loads(dev.read_text(encoding="utf-8")) if q["kg_name"] == "concert_singer"][:20]
    assert len(gold) == 20
    for item in gold:
        result = store.execute("concert_singer", "PREFIX : <http://valuenet/ontop/>\n" + item["query"], 10, 100)
        assert result.columns, item["query"]
    singers = store.execute("concert_singer", "PREFIX : <http://valuenet/ontop/>\n" + gold[0]["query"], 10, 10)
    assert singers.rows == [(6,)]


def test_spider4sparql_world_1_loads_in_seconds(tmp_path: Path):
    kg = _spider("kg", "world_1_triples.ttl")
    start = time.monotonic()
    d = RdfStore(tmp_path / "rdf").load("world_1", kg)
    assert time.monotonic() - start < 15
    assert d["triples"] > 30_000 and {c["label"] for c in d["classes"]} == {"city", "country", "countrylanguage"}
