"""Fixtures shared by the native-query tests: a small RDF store of pets."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.native.sources import Source
from local_stores.rdf_store import RdfStore

PETS = """@prefix pet: <http://example.org/pets#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .

pet:tom a pet:Cat ; pet:name "Tom" ; pet:born 2019 ; pet:vet pet:clinic .
pet:kit a pet:Cat ; pet:name "Kit" ; pet:born 2021 ; pet:vet pet:clinic .
pet:mog a pet:Cat ; pet:name "Mog" ; pet:born 2015 .
pet:rex a pet:Dog ; pet:name "Rex" ; pet:born 2018 .
pet:fido a pet:Dog ; pet:name "Fido" ; pet:born 2020 .
pet:clinic a pet:Clinic ; rdfs:label "Green Lane Vets" .
"""


@pytest.fixture
def pets(tmp_path: Path) -> tuple[RdfStore, Source]:
    file = tmp_path / "pets.ttl"
    file.write_text(PETS, encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    return store, Source("pets", "rdf", "oxigraph", str(file), store.load("pets", file))
