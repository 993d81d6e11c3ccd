"""A ranked query ("… ORDER BY rooms DESC LIMIT 1") returns the value it ranks by too, in SQL,
Cypher and SPARQL, run on real stores; a query that already shows it, or whose rows would change,
is left as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine.ingest.graphs.load import load
from engine.native import sources
from engine.native.querying import write_and_run
from engine.native.ranking import flat, nulls_last, same_rows, turned, with_ranked_value
from local_stores.graph_store import GraphStore
from local_stores.rdf_store import RdfStore
from local_stores.results import QueryResult
from local_stores.table_store import TableStore
from tests.conftest import EXAMPLES, shared_path
from tests.scripted import ScriptedLLM


@pytest.fixture
def stores(tmp_path: Path) -> sources.Stores:
    return sources.Stores(TableStore(tmp_path / "t.duckdb"), GraphStore(tmp_path / "graphs"),
                          RdfStore(tmp_path / "rdf"))


@pytest.mark.parametrize(("query", "language", "ranked"), [
    ("SELECT name FROM h WHERE city = 'Charlotte' ORDER BY operating_rooms DESC LIMIT 1", "sql",
     "SELECT name, operating_rooms FROM h WHERE city = 'Charlotte' ORDER BY operating_rooms DESC LIMIT 1"),
    ('SELECT "Name" FROM h WHERE "City" = \'a, b\' ORDER BY "Operating rooms" DESC LIMIT 3', "sql",
     'SELECT "Name", "Operating rooms" FROM h WHERE "City" = \'a, b\' ORDER BY "Operating rooms" DESC LIMIT 3'),
    ("SELECT shop FROM e GROUP BY shop ORDER BY COUNT(*) DESC LIMIT 1", "sql",
     "SELECT shop, COUNT(*) AS count_all FROM e GROUP BY shop ORDER BY COUNT(*) DESC LIMIT 1"),
    ("MATCH (p:Person) RETURN p.name ORDER BY p.born LIMIT 1", "cypher",
     "MATCH (p:Person) RETURN p.name, p.born ORDER BY p.born LIMIT 1"),
    ("MATCH (p:Person)-[:ACTED_IN]->(m) RETURN p.name ORDER BY count(m) DESC LIMIT 1", "cypher",
     "MATCH (p:Person)-[:ACTED_IN]->(m) RETURN p.name, count(m) AS count_m ORDER BY count(m) DESC LIMIT 1"),
    ("SELECT ?name WHERE { ?c :name ?name ; :age ?age . } ORDER BY DESC(?age) LIMIT 1", "sparql",
     "SELECT ?name ?age WHERE { ?c :name ?name ; :age ?age . } ORDER BY DESC(?age) LIMIT 1"),
    ("SELECT ?n WHERE { ?c :name ?n . ?m :c ?c } GROUP BY ?n ORDER BY DESC(COUNT(?m)) LIMIT 1", "sparql",
     "SELECT ?n (COUNT(?m) AS ?count_m) WHERE { ?c :name ?n . ?m :c ?c } GROUP BY ?n ORDER BY DESC(COUNT(?m)) LIMIT 1"),
])
def test_the_ordering_value_is_added_to_what_a_ranked_query_returns(query: str, language: str, ranked: str):
    assert with_ranked_value(query, language) == ranked


@pytest.mark.parametrize(("query", "language"), [
    ("SELECT name, operating_rooms FROM h ORDER BY operating_rooms DESC LIMIT 1", "sql"),  # shown already
    ("SELECT h.name, h.rooms AS r FROM h ORDER BY rooms DESC LIMIT 1", "sql"),  # shown under an alias
    ("SELECT shop, COUNT(*) AS n FROM e GROUP BY shop ORDER BY n DESC LIMIT 1", "sql"),
    ("SELECT * FROM h ORDER BY rooms DESC LIMIT 1", "sql"),
    ("SELECT DISTINCT name FROM h ORDER BY rooms DESC LIMIT 1", "sql"),  # distinct rows would change
    ("SELECT name FROM h ORDER BY rooms DESC LIMIT 40", "sql"),  # a sorted listing, not a ranking
    ("SELECT name FROM h ORDER BY rooms DESC, beds LIMIT 1", "sql"),  # more than one key
    ("SELECT name FROM h ORDER BY 2 DESC LIMIT 1", "sql"),
    ("SELECT name FROM h ORDER BY julianday(a) - julianday(b) LIMIT 1", "sql"),  # an expression with no name
    ("SELECT name FROM h ORDER BY rooms DESC", "sql"),  # no limit
    ("SELECT name FROM a UNION SELECT name FROM b ORDER BY name LIMIT 1", "sql"),
    ("MATCH (p:Person) RETURN p.name, p.born AS year ORDER BY year LIMIT 1", "cypher"),
    ("SELECT ?name ?age WHERE { ?c :name ?name ; :age ?age . } ORDER BY DESC(?age) LIMIT 1", "sparql"),
])
def test_a_query_that_shows_its_ranking_or_is_no_ranking_is_left_as_written(query: str, language: str):
    assert with_ranked_value(query, language) is None


def test_the_top_level_of_a_query_hides_quotes_and_brackets_at_the_same_positions():
    query = "SELECT a FROM t WHERE b IN (SELECT c FROM u ORDER BY d LIMIT 1) AND e = 'ORDER BY f LIMIT 2'"
    top = flat(query)
    assert len(top) == len(query) and top.count("ORDER BY") == 0 and top.startswith("SELECT a FROM t WHERE b IN (")


def test_rows_are_the_same_only_when_each_has_the_one_added_value():
    before = QueryResult(["name"], [("A",), ("B",)])
    assert same_rows(before, QueryResult(["name", "rooms"], [("A", 5), ("B", 3)]))
    assert not same_rows(before, QueryResult(["name", "rooms"], [("B", 5), ("A", 3)]))
    assert not same_rows(before, QueryResult(["name", "rooms"], [("A", 5)]))


def test_a_table_answer_names_the_count_it_ranked_by_on_duckdb(stores: sources.Stores, tmp_path: Path):
    csv = ("Name,City,Operating rooms\nCarolinas Medical Center,Charlotte,51\nPresbyterian,Charlotte,43\n"
           "Wake Forest Baptist,Winston-Salem,50\n")
    info = stores.tables.load_csv("hospitals", tmp_path / "hospitals.csv", csv)
    source = sources.Source("hospitals", "table", "duckdb", str(tmp_path / "hospitals.csv"), info.descriptor())
    llm = ScriptedLLM(["SELECT name FROM hospitals WHERE city = 'Charlotte' ORDER BY operating_rooms DESC LIMIT 1"])
    outcome = write_and_run(llm, "Which hospital in Charlotte has the most operating rooms?", source, stores)
    assert outcome.ok and outcome.result is not None
    assert outcome.result.rows == [("Carolinas Medical Center", 51)] and "name, operating_rooms FROM" in outcome.query
    assert len(llm.sent) == 1


def test_a_graph_answer_names_the_year_it_ranked_by_on_kuzu(stores: sources.Stores):
    path = EXAMPLES / "family" / "family-tree.cypher"
    source = sources.Source("family", "graph", "kuzu", str(path), load(stores.graphs, "family", path))
    llm = ScriptedLLM(["MATCH (p:Person) WHERE p.birthplace = 'Utrecht' RETURN p.name ORDER BY p.born LIMIT 1"])
    outcome = write_and_run(llm, "Who is the oldest person born in Utrecht?", source, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [("Pieter de Vries", 1964)]


def test_an_rdf_answer_names_the_count_it_ranked_by_on_oxigraph(pets, stores: sources.Stores):  # noqa: ANN001
    store, source = pets
    stores = sources.Stores(stores.tables, stores.graphs, store)
    llm = ScriptedLLM(["PREFIX pet: <http://example.org/pets#>\nSELECT ?species WHERE { ?p a ?species . "
                       "?p pet:born ?born } GROUP BY ?species ORDER BY DESC(COUNT(?p)) LIMIT 1"])
    outcome = write_and_run(llm, "Which kind of pet do I have the most of?", source, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.columns == ["species", "count_p"]
    assert str(outcome.result.rows[0][0]).endswith("Cat") and int(outcome.result.rows[0][1]) == 3


@pytest.mark.parametrize(("question", "query", "language", "fixed"), [
    ("Who is the oldest person in my movie collection?", "MATCH (p:Person) RETURN p.name ORDER BY p.born DESC LIMIT 1",
     "cypher", "MATCH (p:Person) RETURN p.name ORDER BY p.born ASC LIMIT 1"),
    ("Which is my newest film?", "SELECT title FROM film ORDER BY release_year LIMIT 1", "sql",
     "SELECT title FROM film ORDER BY release_year DESC LIMIT 1"),
    ("Which orchestra was founded most recently?", "SELECT ?o WHERE { ?o :founded ?founded } ORDER BY ?founded LIMIT 1",
     "sparql", "SELECT ?o WHERE { ?o :founded ?founded } ORDER BY DESC(?founded) LIMIT 1"),
    ("Which is the earliest film?", "SELECT ?t WHERE { ?m :released ?released } ORDER BY DESC(?released) LIMIT 1",
     "sparql", "SELECT ?t WHERE { ?m :released ?released } ORDER BY ASC(?released) LIMIT 1"),
    ("Who is the oldest singer?", "SELECT name FROM singer ORDER BY age DESC LIMIT 1", "sql", None),  # age, no date
    ("Who is the youngest person?", "MATCH (p:Person) RETURN p.name ORDER BY p.born DESC LIMIT 1", "cypher", None),
    ("Who are the oldest and the youngest?", "SELECT name FROM p ORDER BY born LIMIT 1", "sql", None),
    # an amount ranked the wrong way (rest set: "… for the longest time?" ranked the shortest first)
    ("Which president held the title of oldest living president for the longest time?",
     "SELECT president FROM t ORDER BY duration_years_days ASC LIMIT 1", "sql",
     "SELECT president FROM t ORDER BY duration_years_days DESC LIMIT 1"),
    ("Which team has the most wins?", "SELECT team FROM t GROUP BY team ORDER BY COUNT(*) LIMIT 1", "sql",
     "SELECT team FROM t GROUP BY team ORDER BY COUNT(*) DESC LIMIT 1"),
    ("What is the longest river?", "SELECT ?n WHERE { ?r :length ?l } ORDER BY ?l LIMIT 1", "sparql",
     "SELECT ?n WHERE { ?r :length ?l } ORDER BY DESC(?l) LIMIT 1"),
    ("Which player has the highest rank?", "SELECT p FROM t ORDER BY rank LIMIT 1", "sql", None),  # rank 1
    ("Which city has at most 3 stations, the smallest?", "SELECT c FROM t ORDER BY area LIMIT 1", "sql", None),
])
def test_a_ranking_the_wrong_way_for_the_oldest_newest_or_most_is_turned(question: str, query: str, language: str,
                                                                              fixed: str | None):
    assert turned(question, query, language) == fixed


def test_rows_with_nothing_to_rank_by_are_ranked_last_in_each_language():
    assert nulls_last("SELECT name FROM p ORDER BY born DESC LIMIT 1", "sql") == \
        "SELECT name FROM p ORDER BY born IS NULL, born DESC LIMIT 1"
    assert nulls_last("MATCH (p) RETURN p.name ORDER BY p.born LIMIT 3", "cypher") == \
        "MATCH (p) RETURN p.name ORDER BY p.born IS NULL, p.born LIMIT 3"
    assert nulls_last("SELECT ?n WHERE { ?p :born ?b } ORDER BY DESC(?b) LIMIT 1", "sparql") == \
        "SELECT ?n WHERE { ?p :born ?b } ORDER BY DESC(BOUND(?b)) DESC(?b) LIMIT 1"
    assert nulls_last("SELECT name FROM p ORDER BY born, name LIMIT 1", "sql") is None  # two keys


@pytest.mark.parametrize(("question", "written", "person", "born", "ranking"), [
    ("Who is the oldest person in my movie collection, and in what year were they born?",
     "MATCH (p:Person) RETURN p.name, p.born ORDER BY p.born DESC LIMIT 1", "Max von Sydow", 1929, "p.born ASC"),
    ("Who is the youngest person in my movie collection?",  # Kùzu ranks a missing year above every year
     "MATCH (p:Person) RETURN p.name ORDER BY p.born DESC LIMIT 1", "Jonathan Lipnicki", 1996,
     "p.born IS NULL, p.born DESC"),
])
def test_the_oldest_and_youngest_in_the_movies_graph_have_a_year_of_birth_on_kuzu(
        stores: sources.Stores, question: str, written: str, person: str, born: int, ranking: str):
    path = shared_path("eval", "cypher", "movies", "movies.cypher")
    source = sources.Source("movies", "graph", "kuzu", str(path), load(stores.graphs, "movies", path))
    outcome = write_and_run(ScriptedLLM([written]), question, source, stores)
    assert outcome.ok and outcome.result is not None and outcome.result.rows == [(person, born)]
    assert f"ORDER BY {ranking} LIMIT 1" in outcome.query


def test_a_ranking_of_groups_never_names_the_group_of_rows_with_no_value(stores: sources.Stores):
    """A draft table whose Position is empty for most picks: "which position was drafted the most?"
    answered "Position is None; count all is 10" (the sampled WTQ set); the rows with a position are
    ranked instead."""
    path = shared_path("eval", "tables", "wtq", "csv", "csv__204-csv__695.csv")
    info = stores.tables.load_csv("draft", path, path.read_text(encoding="utf-8"))
    draft = sources.Source("draft", "table", "duckdb", str(path), info.descriptor())
    llm = ScriptedLLM(["SELECT position, COUNT(*) FROM draft GROUP BY position ORDER BY COUNT(*) DESC LIMIT 1"])
    outcome = write_and_run(llm, "which position was drafted the most?", draft, stores)
    assert outcome.ok and outcome.result.rows[0][0] is not None and "position IS NOT NULL" in outcome.query
    llm = ScriptedLLM(["SELECT position, COUNT(*) FROM draft WHERE round > 1 OR pick > 0 GROUP BY position "
                       "ORDER BY COUNT(*) DESC LIMIT 1"])
    outcome = write_and_run(llm, "which position was drafted the most?", draft, stores)
    assert outcome.ok and "WHERE (round > 1 OR pick > 0) AND position IS NOT NULL" in outcome.query


def test_spiders_gold_rankings_are_never_turned_and_most_turned_around_are_turned_back():
    """Spider's dev set: no gold query is turned; of the gold rankings written the other way round
    (`ASC` for `DESC` before LIMIT), the check turns back most (92 of 107 when written)."""
    dev = json.loads(shared_path("eval", "sql", "spider", "dev.json").read_text(encoding="utf-8"))
    assert [d["question"] for d in dev if turned(d["question"], d["query"], "sql")] == []
    ranked = [(d["question"], d["query"].strip(), m) for d in dev
              if (m := re.search(r"\b(ASC|DESC)\s+LIMIT", d["query"].strip(), re.IGNORECASE))]
    flipped = [(q, query[:m.start(1)] + ("ASC" if m.group(1).upper() == "DESC" else "DESC") + query[m.end(1):])
               for q, query, m in ranked]
    assert len(ranked) > 100 and sum(turned(q, query, "sql") is not None for q, query in flipped) > 0.8 * len(ranked)
