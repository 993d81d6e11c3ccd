"""RDF files as sources: which files are RDF, and load errors as the reasons `trove status` shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import ParseError, SkipFile
from engine.ingest import rdf
from local_stores.rdf_store import RdfStore

TTL = '@prefix ex: <http://example.org/> .\nex:ada a ex:Cat ; ex:name "Ada" .\n'


@pytest.mark.parametrize(("name", "kind"), [("pets.ttl", "rdf"), ("PETS.NT", "rdf"), ("x.trig", "rdf"),
                                            ("x.nq", "rdf"), ("onto.owl", "rdf"), ("x.rdf", "rdf"),
                                            ("x.jsonld", "rdf"), ("x.n3", "rdf"), ("x.json", None),
                                            ("x.csv", None)])
def test_rdf_files_are_known_by_extension(name: str, kind: str | None):
    assert rdf.kind_of(Path(name)) == kind
    assert rdf.EXTENSIONS[".rdf"] == "RDF/XML" and rdf.EXTENSIONS[".ttl"] == "Turtle"


def test_load_returns_the_descriptor(tmp_path: Path):
    file = tmp_path / "pets.ttl"
    file.write_text(TTL, encoding="utf-8")
    d = rdf.load(RdfStore(tmp_path / "rdf"), "pets", file)
    assert d["language"] == "sparql" and d["triples"] == 2 and d["classes"][0]["label"] == "Cat"


def test_an_owl_file_in_turtle_is_read_as_turtle(tmp_path: Path):
    file = tmp_path / "onto.owl"
    file.write_text(TTL, encoding="utf-8")
    assert rdf.load(RdfStore(tmp_path / "rdf"), "onto", file)["format"] == "Turtle"


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("bad.ttl", TTL + "ex:bo a ex:Cat ex:name .\n", r"^not valid Turtle: line 3 "),
    ("bad.rdf", "<rdf:RDF><unclosed>", r"^not valid RDF/XML: "),
    ("bad.nt", "<http://a> <http://b> .\n", r"^not valid N-Triples: line 1 "),
    ("remote.jsonld", json.dumps({"@context": "https://schema.org/", "name": "x"}), r"^not valid JSON-LD: .*remote"),
    ("latin1.ttl", None, r"^not valid Turtle: "),
])
def test_unreadable_files_fail_with_the_reason(tmp_path: Path, name: str, text: str | None, reason: str):
    file = tmp_path / name
    if text is None:
        file.write_bytes('@prefix ex: <http://example.org/> .\nex:a ex:name "Zoë" .\n'.encode("latin-1"))
    else:
        file.write_text(text, encoding="utf-8")
    with pytest.raises(ParseError, match=reason):
        rdf.load(RdfStore(tmp_path / "rdf"), "bad", file)


def test_a_file_without_triples_is_skipped(tmp_path: Path):
    file = tmp_path / "empty.ttl"
    file.write_text("@prefix ex: <http://example.org/> .\n", encoding="utf-8")
    with pytest.raises(SkipFile, match="no triples"):
        rdf.load(RdfStore(tmp_path / "rdf"), "empty", file)
