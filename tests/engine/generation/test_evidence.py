"""The header the model reads above each piece of evidence: where it comes from, on one line."""

from __future__ import annotations

from engine.generation.evidence import Evidence


def test_a_query_result_from_a_server_is_headed_by_its_source_name_not_its_url():
    locator = {"source": "library", "query": "SELECT ?t WHERE { ?b schema:name ?t }", "language": "sparql"}
    evidence = Evidence(1, "rdf", "http://kg.office.lan:7878/query", "library: SPARQL result", locator,
                        "results found in library: …", 1.0)
    assert evidence.header() == "[1] library: SPARQL result (library)"
    on_file = Evidence(2, "rdf", "/home/me/library/my-books.ttl", "my-books.ttl: SPARQL result",
                       {**locator, "source": "my_books"}, "…", 1.0)
    assert on_file.header() == "[2] my-books.ttl: SPARQL result (my-books.ttl)"
