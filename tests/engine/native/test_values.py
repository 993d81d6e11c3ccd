"""Value linking: the question's phrases found in a real database's text columns, spelt as stored,
and the literals of a query that no column holds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.ingest.tables import describe_database
from engine.native import values
from engine.native.sources import Source, Stores
from local_stores.table_store import TableStore


@pytest.fixture
def flights(tmp_path: Path) -> tuple[Source, Stores]:
    db = tmp_path / "flights.sqlite"
    with sqlite3.connect(db) as con:
        con.executescript("""
            CREATE TABLE airports (code TEXT PRIMARY KEY, city TEXT, elevation INTEGER);
            CREATE TABLE flights (flightno TEXT, source TEXT REFERENCES airports(code), dest TEXT);
            INSERT INTO airports VALUES ('ABZ', 'Aberdeen ', 66), ('LHR', 'London', 25), ('NYC', 'New York', 10);
            INSERT INTO flights VALUES ('BA1', 'ABZ', 'LHR'), ('BA2', 'LHR', 'ABZ'), ('AA7', 'NYC', 'LHR');
        """)
    stores = Stores(TableStore(tmp_path / "tables.duckdb"), None, None)
    return Source("flights", "database", "sqlite", str(db), describe_database(db)), stores


def test_phrases_keep_quoted_text_and_word_runs_not_stopwords():
    found = values.phrases("Which of Frank Nobilo's flights left 'New York'?")
    assert found[0] == "new york"
    assert "frank nobilo" in found and "flights" in found
    assert "which" not in found and "of frank" not in found


def test_question_values_are_found_in_the_column_that_holds_them(flights):  # noqa: ANN001
    source, stores = flights
    found = values.find("Give the flight numbers of flights leaving from aberdeen or new york.", source, stores)
    assert [(m.value, m.place) for m in found] == [("New York", "airports.city"), ("Aberdeen ", "airports.city")]
    assert values.hint(found) == ("Values the question mentions, spelt as the data holds them: "
                                  "'New York' in airports.city; 'Aberdeen ' in airports.city")
    assert values.find("How many flights are there?", source, stores) == []


def test_literals_no_column_holds_are_named(flights):  # noqa: ANN001
    source, stores = flights
    query = "SELECT flightno FROM flights WHERE source = 'AAF' OR source = 'abz' OR dest LIKE '%L%'"
    assert values.absent_literals(query, source, stores) == ["AAF"]
    assert values.absent_literals("SELECT COUNT(*) FROM flights", source, stores) == []


def test_a_lookup_that_cannot_run_is_skipped(flights, tmp_path: Path):  # noqa: ANN001
    source, stores = flights
    gone = Source("gone", "database", "sqlite", str(tmp_path / "missing.sqlite"), source.descriptor)
    assert values.find("flights from Aberdeen", gone, stores) == []



def test_rdf_literals_are_found_with_their_predicate(pets):  # noqa: ANN001
    store, source = pets
    stores = Stores(None, None, store)
    found = values.find("Which cats does green lane vets look after, and is Tom one?", source, stores)
    assert [(m.value, m.place) for m in found] == [("Green Lane Vets", "rdfs:label"), ("Tom", "pet:name")]
    query = 'SELECT ?c WHERE { ?c pet:name ?n FILTER(lcase(str(?n)) = "tiddles" || ?n = "Tom" || CONTAINS(?n, "x")) }'
    assert values.absent_literals(query, source, stores) == ["tiddles"]
