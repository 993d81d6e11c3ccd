"""Evidence, one class per kind of item: the header the model reads above each (where it comes from,
on one line), and the locator that reaches the citation and the JSON contract unchanged."""

from __future__ import annotations

import json

import pytest

from engine.generation.evidence import (
    Evidence,
    MomentEvidence,
    PassageEvidence,
    PhotoEvidence,
    QueryEvidence,
    RegionEvidence,
    evidence_of,
)
from engine.locators import picture_fields
from engine.result import AskResult, Citation

PICTURE = {"page": 4, "picture": 2, "picture_file": "/home/me/.trove/thumbs/9/picture-2.png", "width": 640,
           "height": 480, "thumbnail": "/home/me/.trove/thumbs/9/picture-2-thumb.jpg"}
KINDS = [  # kind, source, title, locator, text, section; the class; the header the model reads
    ("paragraph", "/d/policy.pdf", "Bike policy", {"start": 10, "end": 90, "page": 2}, "Theft excess is €150.",
     "Cover > Theft", PassageEvidence, "[1] Bike policy (policy.pdf, page 2), section: Cover > Theft"),
    ("document", "/d/letter.docx", "Letter", {"start": 0, "end": 400}, "Dear landlord …", "", PassageEvidence,
     "[1] Letter (letter.docx)"),
    ("table", "/d/trips.csv", "trips.csv: SQL result",
     {"source": "trips", "query": "SELECT sum(cost) FROM trips", "language": "sql",
      "sql": "SELECT sum(cost) FROM trips", "values": [1234.5], "result": "sum(cost) = 1234.5"},
     "sum(cost) = 1234.5", "", QueryEvidence, "[1] trips.csv: SQL result, query: SELECT sum(cost) FROM trips"),
    ("graph", "/d/family.kuzu", "family.kuzu: Cypher result",
     {"source": "family", "query": "MATCH (p:Person) RETURN p.name", "language": "cypher", "listing": ["Ana", "Bo"]},
     "Ana; Bo", "", QueryEvidence, "[1] family.kuzu: Cypher result (family.kuzu)"),
    ("image", "/p/cat.jpg", "cat.jpg", {"width": 800, "height": 600, "thumbnail": "/t/cat.jpg"}, "Shows 1 cat.", "",
     PhotoEvidence, "[1] photo cat.jpg"),
    ("image", "/d/report.pdf", "report.pdf, page 4", PICTURE, "A bar chart.", "", PhotoEvidence,
     "[1] picture 2 on page 4 of report.pdf"),
    ("region", "/p/cat.jpg", "cat.jpg",
     {"width": 800, "height": 600, "box": [10.0, 20.0, 300.0, 400.0], "label": "cat"}, "A cat.", "",
     RegionEvidence, "[1] seen in photo cat.jpg"),
    ("clip", "/v/hall.avi", "hall.avi", {"start_s": 4.0, "end_s": 9.5, "clip": 1}, "People walk.", "", MomentEvidence,
     "[1] video hall.avi, 4.0-9.5 s"),
    ("video", "/v/hall.avi", "hall.avi", {"start_s": 0.0, "end_s": 20.0, "clips": 3}, "A hall.", "", MomentEvidence,
     "[1] video hall.avi, 0.0-20.0 s"),
    ("paragraph", "/c/161.txt", "161", {"start": 0, "end": 90}, "Some 100 computations were made.", "",
     PassageEvidence, "[1] 161.txt"),  # a title that is only the file's name: "161 (161.txt)" read as a number
]


@pytest.mark.parametrize(("kind", "source", "title", "locator", "text", "section", "made", "header"), KINDS)
def test_each_kind_of_item_is_its_own_evidence_headed_as_before(kind: str, source: str, title: str, locator: dict,
                                                                text: str, section: str, made: type[Evidence],
                                                                header: str):
    evidence = evidence_of(1, kind, source, title, locator, text, 0.5, section)
    assert type(evidence) is made
    assert evidence.header() == header


@pytest.mark.parametrize(("kind", "source", "title", "locator", "text", "section", "made", "header"), KINDS)
def test_the_locator_reaches_the_json_contract_as_it_was_indexed(kind: str, source: str, title: str, locator: dict,
                                                                 text: str, section: str, made: type[Evidence],
                                                                 header: str):
    evidence = evidence_of(1, kind, source, title, json.loads(json.dumps(locator)), text, 0.5, section)
    result = AskResult("q", "a [1]", citations=[Citation(1, kind, source, evidence.locator, text, title)])
    data = json.loads(json.dumps(result.to_dict()))
    assert data["citations"][0]["locator"] == locator
    assert AskResult.from_dict(data).citations[0].locator == locator


def test_typed_evidence_reads_its_fields_from_the_locator():
    total = evidence_of(1, "table", "/d/trips.csv", "t", KINDS[2][3], "…", 1.0)
    names = evidence_of(2, "graph", "/d/family.kuzu", "g", KINDS[3][3], "…", 1.0)
    assert isinstance(total, QueryEvidence) and total.values == [1234.5] and total.listing is None
    assert isinstance(names, QueryEvidence) and names.listing == ["Ana", "Bo"] and names.values is None
    clip = evidence_of(3, "clip", "/v/hall.avi", "hall.avi", {"start_s": 4.0, "end_s": 9.5}, "…", 1.0)
    assert isinstance(clip, MomentEvidence) and (clip.start_s, clip.end_s) == (4.0, 9.5)
    region = evidence_of(4, "region", "/p/cat.jpg", "cat.jpg", {"box": [1, 2, 3, 4], "name": "Chelsea", "label": "cat"},
                         "…", 1.0)
    assert isinstance(region, RegionEvidence) and region.box == (1, 2, 3, 4) and region.called == "Chelsea"
    passage = evidence_of(5, "paragraph", "/d/a.md", "a", {"start": 3, "end": 9}, "…", 1.0)
    assert isinstance(passage, PassageEvidence) and passage.span == (3, 9)


def test_a_region_of_a_picture_inside_a_document_is_in_that_picture_not_the_document():
    """The boxes a vision model is shown, and a count's boxes, are the regions whose picture is the
    photo's: a region found at answer time keeps the picture's fields of its photo's locator."""
    photo = evidence_of(1, "image", "/d/report.pdf", "report.pdf", {**PICTURE, "regions": [], "labels": []}, "…", 1.0)
    region = evidence_of(2, "region", "/d/report.pdf", "report.pdf",
                         {**picture_fields(photo.locator), "box": [1.0, 2.0, 3.0, 4.0]}, "…", 1.0)
    assert isinstance(photo, PhotoEvidence) and isinstance(region, RegionEvidence)
    assert region.image == photo.image == PICTURE["picture_file"]
    assert region.header() == "[2] seen in picture 2 on page 4 of report.pdf"
    assert "regions" not in region.locator and "labels" not in region.locator


def test_a_query_result_from_a_server_is_headed_by_its_source_name_not_its_url():
    locator = {"source": "library", "query": "SELECT ?t WHERE { ?b schema:name ?t }", "language": "sparql"}
    evidence = evidence_of(1, "rdf", "http://kg.office.lan:7878/query", "library: SPARQL result", locator,
                        "results found in library: …", 1.0)
    assert evidence.header() == "[1] library: SPARQL result (library)"
    on_file = evidence_of(2, "rdf", "/home/me/library/my-books.ttl", "my-books.ttl: SPARQL result",
                       {**locator, "source": "my_books"}, "…", 1.0)
    assert on_file.header() == "[2] my-books.ttl: SPARQL result (my-books.ttl)"


def test_what_a_query_result_states_leaves_out_the_question_its_text_repeats():
    from engine.native.hits import restated

    found = evidence_of(1, "table", "/t/films.csv", "films.csv: SQL result",
                        {"query": "SELECT box_office FROM films WHERE rank = 1", "sql": "SELECT box_office FROM films "
                         "WHERE rank = 1"}, f"{restated('How much did Top Gun earn?')}computed from films.csv: "
                        "box office is $10.8 billion.", 1.0)
    assert "Top Gun" not in found.stated() and "$10.8 billion" in found.stated() and "rank = 1" in found.stated()
    quoted = evidence_of(1, "graph", "/g/movies.cypher", "movies: Cypher result",
                         {"query": "MATCH (m:Movie {title: 'Top Gun'}) RETURN m.released"},
                         restated("Who's in Top Gun?") + "results found in movies.cypher:\n- 1986", 1.0)
    assert "Top Gun" in quoted.stated() and "Who's" not in quoted.stated()  # named by the query itself
