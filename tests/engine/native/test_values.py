"""Value linking: the question's phrases found in a real database's text columns, spelt as stored,
and the literals of a query that no column holds."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from engine.ingest.graphs.load import load as load_graph
from engine.ingest.tables import describe_database
from engine.native import values
from engine.native.sources import Source, Stores
from engine.native.writers import sparql
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.sqlite_db import Database
from local_stores.table_store import TableStore
from local_stores.value_index import ValueIndex
from tests.conftest import EXAMPLES


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
    titles = values.phrases("Who wrote the dispossessed, and is the book on the shelf?")
    assert "the dispossessed" in titles and "dispossessed" in titles  # a title as stored: "The Dispossessed"
    assert "the book" in titles and "the shelf" in titles and "the" not in titles and "is the book" not in titles
    spent = values.phrases("What did I spend on going out in February 2024?")
    assert "going out" in spent  # a category ending in a particle, as stored: "going out"
    assert "out" not in spent and "out in february" not in spent and "on going" not in spent


def test_phrases_ending_in_a_plural_are_looked_up_in_the_singular_too():
    """A WTQ tennis table's row is "Year End Ranking"; the question asks for the "year end rankings"."""
    found = values.phrases("What is the combined score of year end rankings before 2009?")
    assert "year end rankings" in found and "year end ranking" in found and "end ranking" in found
    assert "ranking" not in found  # one word alone stays as asked: "wins" is not the value "Win"
    assert values.singular("countries") == "country" and values.singular("class") == "class"


def test_question_values_are_found_in_the_column_that_holds_them(flights):  # noqa: ANN001
    source, stores = flights
    found = values.find("Give the flight numbers of flights leaving from aberdeen or new york.", source, stores)
    assert [(m.value, m.place) for m in found] == [("New York", "airports.city"), ("Aberdeen ", "airports.city")]
    assert values.hint(found) == ("Values the question mentions, spelt as the data holds them: "
                                  "'New York' in airports.city; 'Aberdeen ' in airports.city")
    assert values.find("How many flights are there?", source, stores) == []


def test_a_value_held_among_others_in_a_table_cell_is_found_and_hinted_as_such(tmp_path: Path):
    csv = ('Year,Laureate,Citizenship\n2003,Jean-Pierre Serre,French\n'
           '2008,"John G. Thompson\nJacques Tits","American\nBelgian/French"\n2013,Pierre Deligne,Belgian\n'
           '2014,Yakov Sinai,Russian; American\n')
    store = TableStore(tmp_path / "t.duckdb")
    info = store.load_csv("abel", tmp_path / "abel.csv", csv)
    source = Source("abel", "table", "duckdb", str(tmp_path / "abel.csv"), info.descriptor())
    found = values.find("Which laureates are Belgian?", source, Stores(store, None, None))
    assert [(m.value, m.place) for m in found] == [("Belgian", "abel.citizenship"),
                                                   ("American\nBelgian/French", "abel.citizenship")]
    assert "'American\\nBelgian/French' (holds 'belgian' among other values: match it with LIKE)" in values.hint(found)
    assert [m.value for m in values.find("Which laureates are Russian?", source, Stores(store, None, None))] == \
        ["Russian; American"]
    assert values.find("Which laureates are Swiss?", source, Stores(store, None, None)) == []


def test_a_title_that_starts_with_the_is_found_as_the_data_spells_it(tmp_path: Path):
    csv = "title,author\nThe Dispossessed,Ursula K. Le Guin\nDispossessed Lands,A. Writer\nKindred,Octavia E. Butler\n"
    store = TableStore(tmp_path / "t.duckdb")
    info = store.load_csv("books", tmp_path / "books.csv", csv)
    source = Source("books", "table", "duckdb", str(tmp_path / "books.csv"), info.descriptor())
    found = values.find("Who wrote the dispossessed?", source, Stores(store, None, None))
    assert [(m.value, m.place) for m in found][:1] == [("The Dispossessed", "books.title")]


def test_literals_no_column_holds_are_named(flights):  # noqa: ANN001
    source, stores = flights
    query = "SELECT flightno FROM flights WHERE source = 'AAF' OR source = 'abz' OR dest LIKE '%L%'"
    assert values.check_literals(query, source, stores).absent == ["AAF"]
    assert values.check_literals("SELECT COUNT(*) FROM flights", source, stores).absent == []


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
    assert values.check_literals(query, source, stores).absent == ["tiddles"]


def test_an_rdf_lookup_binds_the_question_phrases_and_finds_a_value_with_quotes(tmp_path: Path):
    hostile = 'Tom" ) } DELETE WHERE { ?s ?p ?o } #'
    file = tmp_path / "quotes.ttl"
    file.write_text('@prefix pet: <http://example.org/pet#> .\n'
                    'pet:tom pet:name "Tom\\" ) } DELETE WHERE { ?s ?p ?o } #" .\n', encoding="utf-8")
    store = RdfStore(tmp_path / "rdf")
    source = Source("quotes", "rdf", "oxigraph", str(file), store.load("quotes", file))
    statement, bound = sparql.value_lookup(source, [hostile], 10)
    assert hostile.lower() not in statement and bound == [hostile.lower()]
    found = values.find(f"Who is '{hostile}'?", source, Stores(None, None, store))
    assert [(m.value, m.place) for m in found] == [(hostile, "pet:name")]
    assert store.execute("quotes", "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows == [(1,)]


def test_each_kind_of_source_gives_its_short_text_values(flights, pets, tmp_path: Path):  # noqa: ANN001
    source, stores = flights
    held = values.held_values(source, stores)
    assert ("Aberdeen ", "airports.city") in held and ("BA1", "flights.flightno") in held
    assert not any(place.endswith("elevation") for _, place in held)  # numbers are not looked up by name
    store, rdf = pets
    assert ("Green Lane Vets", "rdfs:label") in values.held_values(rdf, Stores(None, None, store))
    graphs = GraphStore(tmp_path / "graphs")
    path = EXAMPLES / "family" / "family-tree.cypher"
    family = Source("family", "graph", "kuzu", str(path), load_graph(graphs, "family", path))
    held = values.held_values(family, Stores(None, graphs, None))
    assert ("Astrid Lindqvist", "Person.name") in held and ("Sweden", "Place.country") in held


def test_the_index_follows_the_sources_and_names_the_one_a_question_is_about(flights, pets, tmp_path: Path):  # noqa: ANN001
    source, stores = flights
    store, rdf = pets
    stores = Stores(stores.tables, None, store)
    index = ValueIndex(Database(tmp_path / "values.sqlite"))
    assert values.refresh(index, [source, rdf], stores) == 2
    assert values.refresh(index, [source, rdf], stores) == 0  # unchanged: nothing read again
    evidence = values.source_evidence("Which flights leave from Aberdeen?", index)
    assert set(evidence) == {"flights"} and evidence["flights"] > 0
    assert values.source_evidence("How many of them are there?", index) == {}
    assert values.value_notes("Flights from Aberdeen to London?", index) == \
        {"flights": "'Aberdeen ' (airports.city), 'London' (airports.city)"}
    assert values.refresh(index, [rdf], stores) == 0 and index.stamps().keys() == {"pets"}


def test_a_value_the_question_names_points_to_the_source_that_holds_it(trove):  # noqa: ANN001
    """With every example source indexed, a shop named in a question raises the expenses table
    above all others, and a writer's name raises the library's RDF."""
    report = trove.index([EXAMPLES / "finance", EXAMPLES / "library", EXAMPLES / "health", EXAMPLES / "family"])
    assert report.timings_s["values"] > 0
    named = {Path(s["location"]).name: s["name"] for s in trove.catalog.sources()}
    def evidence(question: str) -> dict[str, float]:
        return values.source_evidence(question, trove.native.value_index())

    shop = evidence("How much did I spend at Albert Heijn?")
    assert max(shop, key=shop.get) == named["expenses-2024.csv"]
    writer = evidence("Which books by Olga Tokarczuk do I own?")
    assert list(writer) == [named["my-books.ttl"]]
    trove.remove(EXAMPLES / "library")  # the catalog changed: the value index follows at the next question
    assert evidence("Which books by Olga Tokarczuk do I own?") == {}
    assert evidence("How much did I spend?") == {}
    vector = trove.models.embedder.embed_one("How much did I spend at Albert Heijn?")
    assert trove.native.source_index().nearest(vector, 1, bonus=shop)[0][0].name == named["expenses-2024.csv"]


@pytest.fixture
def family(tmp_path: Path) -> tuple[Source, Stores, ValueIndex]:
    graphs = GraphStore(tmp_path / "graphs")
    path = EXAMPLES / "family" / "family-tree.cypher"
    source, stores = Source("family", "graph", "kuzu", str(path), load_graph(graphs, "family", path)), \
        Stores(None, graphs, None)
    index = ValueIndex(Database(tmp_path / "values.sqlite"))
    values.refresh(index, [source], stores)
    return source, stores, index


def test_a_graph_has_its_values_linked_from_the_value_index(family):  # noqa: ANN001
    source, stores, index = family
    found = values.find("When was astrid lindqvist born?", source, stores, held=index)
    assert [(m.value, m.place) for m in found] == [("Astrid Lindqvist", "Person.name")]
    assert values.find("When was astrid lindqvist born?", source, stores) == []  # no index: nothing to tell
    query = "MATCH (p:Person) WHERE p.name = 'Astrid Lindqvist' OR p.name = \"Nobody Here\" RETURN p.born"
    assert values.check_literals(query, source, stores, held=index).absent == ["Nobody Here"]
    assert values.check_literals(query, source, stores).absent == []


def test_a_value_compared_with_a_field_that_does_not_hold_it_is_named_with_the_one_that_does(family, flights):  # noqa: ANN001
    source, stores, index = family
    wrong = "MATCH (p:Person)-[:PARENT_OF]->(c:Person {nickname: 'Astrid Lindqvist'}) RETURN p.name"
    [match] = values.check_literals(wrong, source, stores, held=index).misplaced
    assert (match.value, match.place) == ("Astrid Lindqvist", "Person.name")
    right = "MATCH (p:Person {name: 'Astrid Lindqvist'})-[:PARENT_OF]->(c:Person) RETURN c.name"
    assert values.check_literals(right, source, stores, held=index).misplaced == []
    table, tables = flights
    [where] = values.check_literals("SELECT flightno FROM flights WHERE dest = 'London'", table, tables).misplaced
    assert where.place == "airports.city"
    assert values.check_literals("SELECT code FROM airports WHERE city = 'London'", table, tables).misplaced == []


def test_a_value_compared_with_a_field_of_the_same_name_on_another_label_is_misplaced(family):  # noqa: ANN001
    """Place.name holds 'Utrecht'; `p.name` of a (p:Person) cannot: the field's name alone would pass it."""
    source, stores, index = family
    wrong = ("MATCH (a:Person {name: 'Astrid Lindqvist'})-[:PARENT_OF]->(p:Person)-[:PARENT_OF]->(g:Person) "
             "WHERE lower(g.name) = 'utrecht' RETURN g.name")
    [match] = values.check_literals(wrong, source, stores, held=index).misplaced
    assert match.value == "utrecht" and set(match.place.split(" and ")) == {"Place.name", "Person.birthplace"}
    right = "MATCH (g:Person)-[:LIVES_IN]->(c:Place) WHERE lower(c.name) = 'utrecht' RETURN g.name"
    assert values.check_literals(right, source, stores, held=index).misplaced == []


def test_an_rdf_literal_matched_through_a_predicate_that_does_not_hold_it_is_named_with_the_one_that_does(pets):  # noqa: ANN001
    store, source = pets
    stores = Stores(None, None, store)
    wrong = 'SELECT ?c WHERE { ?c pet:name ?n FILTER(?n = "Green Lane Vets") }'
    [match] = values.check_literals(wrong, source, stores).misplaced
    assert match.place == "rdfs:label"  # named as the schema text names it, not as a full IRI
    right = 'SELECT ?c WHERE { ?c rdfs:label ?n FILTER(?n = "Green Lane Vets") }'
    assert values.check_literals(right, source, stores).misplaced == []


def test_a_compared_value_is_written_in_the_case_its_comparison_can_match(family, flights, pets):  # noqa: ANN001
    store, rdf = pets
    nested = 'SELECT ?c WHERE { ?c rdfs:label ?n FILTER(lcase(str(?n)) = "Green Lane Vets") }'
    assert values.recase(nested, rdf, Stores(None, None, store)) == nested.replace("Green Lane Vets", "green lane vets")
    table, tables = flights
    assert values.recase("SELECT code FROM airports WHERE city = 'london'", table, tables) == \
        "SELECT code FROM airports WHERE city = 'London'"
    assert values.recase("SELECT code FROM airports WHERE lower(city) = 'London'", table, tables) == \
        "SELECT code FROM airports WHERE lower(city) = 'london'"
    unchanged = "SELECT code FROM airports WHERE city = 'London' OR city = 'paris'"  # paris: held nowhere
    assert values.recase(unchanged, table, tables) == unchanged
    source, stores, index = family
    folded = "MATCH (p:Person) WHERE toLower(p.name) = 'Astrid Lindqvist' RETURN p.born"
    assert values.recase(folded, source, stores, held=index) == \
        "MATCH (p:Person) WHERE toLower(p.name) = 'astrid lindqvist' RETURN p.born"
    assert values.recase("MATCH (p:Person {name: 'astrid lindqvist'}) RETURN p.born", source, stores, held=index) \
        == "MATCH (p:Person {name: 'Astrid Lindqvist'}) RETURN p.born"
    twice = ("MATCH (p:Person)-[:PARENT_OF]->(c:Person) WHERE lower(p.name) = 'Utrecht' OR lower(c.name) = 'Utrecht' "
             "RETURN c")
    assert values.recase(twice, source, stores, held=index).count("'utrecht'") == 2


def test_a_value_with_a_quote_in_it_is_never_written_into_the_query_again(tmp_path: Path):
    from local_stores.table_store import TableStore

    store = TableStore(tmp_path / "t.duckdb")
    info = store.load_csv("people", tmp_path / "people.csv", "name,town\nO'Brien,Cork\nMurphy,Cork\n")
    source = Source("people", "table", "duckdb", str(tmp_path / "people.csv"), info.descriptor())
    query = "SELECT town FROM people WHERE name = 'o''brien'"
    assert values.recase(query, source, Stores(store, None, None)) == query
    assert values.recase("SELECT town FROM people WHERE name = 'murphy'", source, Stores(store, None, None)) == \
        "SELECT town FROM people WHERE name = 'Murphy'"


def test_a_text_compared_where_the_data_holds_an_iri_of_that_name_is_the_iri(tmp_path: Path):
    """"Which of my books came out in the 1970s are hardcovers?" written `FILTER(?format = "Hardcover")`:
    the library holds schema:Hardcover, an IRI, so the text matches nothing; the IRI in its place does."""
    from engine.native.kinds import open_store
    from engine.native.querying import write_and_run
    from tests.scripted import ScriptedLLM

    store = RdfStore(tmp_path / "rdf")
    path = EXAMPLES / "library" / "my-books.ttl"
    source = Source("my_books", "rdf", "oxigraph", str(path), store.load("my_books", path))
    stores = Stores(None, None, store)
    written = ('PREFIX schema: <http://schema.org/>\nSELECT ?name WHERE { ?b schema:name ?name ; schema:bookFormat ?f '
               'FILTER(?f = "Hardcover") }')
    assert open_store(source, stores).execute(written).rows == []
    assert '?f = <http://schema.org/Hardcover>' in (values.as_iris(written, source, stores) or "")
    outcome = write_and_run(ScriptedLLM([written]), "Which of my books are hardcovers?", source, stores)
    assert outcome.ok and outcome.result.rows and "<http://schema.org/Hardcover>" in outcome.query
    assert values.as_iris(written.replace("Hardcover", "Audiobook"), source, stores) is None  # no such IRI


def test_a_name_the_question_shortened_is_found_whole_in_the_value_index(family):  # noqa: ANN001
    """"What part did Cuba play in Jerry Maguire?" compares `p.name = 'cuba'`, which nothing holds: the
    repair hears the whole name the graph holds it in. A word held in many values points at none."""
    source, stores, index = family
    [whole] = values.fuller_names(["astrid"], source, index)
    assert (whole.phrase, whole.value, whole.place) == ("astrid", "Astrid Lindqvist", "Person.name")
    assert "'astrid' is part of 'Astrid Lindqvist' in Person.name" in values.fuller_hint([whole])
    assert values.fuller_names(["lindqvist"], source, index) == []  # four Lindqvists: no one of them
    assert values.fuller_names(["nobody"], source, index) == [] and values.fuller_names(["astrid"], source, None) == []
    from engine.native.querying import write_and_run
    from tests.scripted import ScriptedLLM

    short = "MATCH (p:Person) WHERE p.name = 'Astrid' RETURN p.born"
    whole = "MATCH (p:Person) WHERE p.name = 'Astrid Lindqvist' RETURN p.born"
    outcome = write_and_run(ScriptedLLM([short, whole]), "When was Astrid born?", source, stores, held=index)
    assert "'astrid' is part of 'Astrid Lindqvist' in Person.name" in (outcome.attempts[0].error or "")
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [(1941,)]


def test_the_table_a_question_describes_by_the_numbers_of_one_row_is_told_from_its_likes(tmp_path: Path):
    """"In the medal table topped by China with 63 gold and 141 medals in total, …" went to another
    medal table holding China (unseen set): of the two, only one has a row of 63 and 141."""
    from engine.native.values import row_numbers
    from tests.conftest import shared_path

    stores = Stores(TableStore(tmp_path / "t.duckdb"), None, None)
    tables = []
    for file, name in (("csv__203-csv__64.csv", "games"), ("csv__204-csv__682.csv", "asian")):
        path = shared_path("eval", "tables", "wtq", "csv", file)
        info = stores.tables.load_csv(name, path, path.read_text(encoding="utf-8"))
        tables.append(Source(name, "table", "duckdb", str(path), info.descriptor()))
    asked = "In the medal table topped by China with 63 gold and 141 medals in total, how many nations won silver?"
    assert row_numbers(asked, tables, stores) == {"games": 2}
    assert row_numbers("How many nations won 63 gold?", tables, stores) == {}  # one number: too common to tell
