"""A source on a server (PostgreSQL from pgserver, a real server): connected by name, refused for a
login that could write, listed, queried read-only, its values linked, and asked like a local table
with the default model (the SQL runs on the server and is cited)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.errors import TroveError
from engine.pipeline import Trove
from engine.settings import Settings
from tests.falkordb_server import load
from tests.falkordb_server import serve as falkordb_server
from tests.postgres_server import PostgresServer, postgres  # noqa: F401 (the server fixture)
from tests.sparql_server import serve

ORDERS = [("Anna Berg", "Oslo", 120.5, "2025-03-02"), ("Bo Lund", "Bergen", 80.0, "2025-03-15"),
          ("Cleo Dahl", "Oslo", 42.25, "2025-04-01"), ("Dag Vik", "Tromsø", 300.0, "2025-04-20")]


@pytest.fixture(scope="module")
def shop(postgres: PostgresServer) -> PostgresServer:  # noqa: F811
    return postgres.database("shop", "CREATE TABLE orders (customer TEXT, city TEXT, amount NUMERIC(8, 2), "
                                     "ordered DATE)", rows=("INSERT INTO orders VALUES (%s, %s, %s, %s)", ORDERS))


@pytest.fixture
def connected(trove: Trove, shop: PostgresServer) -> Iterator[Trove]:
    trove.connect("shop", shop.url("reader", "shop"))
    yield trove


def test_a_login_that_could_write_is_refused_and_nothing_is_recorded(trove: Trove, shop: PostgresServer):
    with pytest.raises(TroveError, match="shop: refused: this login could change the data .*it is a superuser"):
        trove.connect("shop", shop.url("postgres", "shop"))
    assert trove.status()["connections"] == []
    row = trove.connect("shop", shop.url("postgres", "shop"), allow_writable=True)
    assert row["kind"] == "postgres"


def test_bad_connections_say_what_is_wrong(trove: Trove, shop: PostgresServer):
    with pytest.raises(TroveError, match="shop: the URL holds a password"):
        trove.connect("shop", "postgresql://reader:secret@db.example/shop")
    with pytest.raises(TroveError, match="shop: PostgreSQL at"):
        trove.connect("shop", "postgresql://reader@/shop?host=/nonexistent-socket-dir")
    with pytest.raises(TroveError, match="family: Neo4j at 127.0.0.1:9"):  # nothing listens on port 9 here
        trove.connect("family", "bolt://reader@127.0.0.1:9/family", kind="cypher")
    with pytest.raises(TroveError, match="not a kind of server"):
        trove.connect("shop", shop.url("reader", "shop"), kind="table")
    with pytest.raises(TroveError, match="a source name is"):
        trove.connect("my shop!", shop.url("reader", "shop"))
    with pytest.raises(TroveError, match="not a connected source"):
        trove.disconnect("shop")


def test_a_connected_source_is_listed_queried_read_only_and_its_values_known(connected: Trove):
    status = connected.status()["connections"]
    assert status == [{"name": "shop", "kind": "postgres", "url": status[0]["url"], "tables": {"orders": 4}}]
    assert "secret" not in status[0]["url"] and status[0]["url"].startswith("postgresql://reader@")
    result = connected.query("shop", "SELECT city, sum(amount) AS total FROM orders GROUP BY city ORDER BY city")
    assert result.rows == [("Bergen", "80.00"), ("Oslo", "162.75"), ("Tromsø", "300.00")]  # decimals as text
    with pytest.raises(Exception, match="read-only"):
        connected.query("shop", "DELETE FROM orders")
    from engine.native import values

    assert "shop" in values.source_evidence("orders from Tromsø", connected.native.value_index())
    connected.disconnect("shop")
    assert connected.status()["connections"] == []


def test_trove_index_describes_connections_again_and_keeps_one_that_is_down(connected: Trove,
                                                                           shop: PostgresServer):
    shop.admin("CREATE TABLE IF NOT EXISTS shops (name TEXT)", database="shop")
    try:
        report = connected.index()
        assert "shops" in connected.status()["connections"][0]["tables"] and report.problems == []
        connected.catalog.upsert_source("gone", "postgres", "postgres", "postgresql://reader@/shop?host=/nowhere",
                                        {"tables": []})
        report = connected.index()
        assert [(p[0], p[1]) for p in report.problems] == [("connection gone", "failed")]
        assert "PostgreSQL at /nowhere" in report.problems[0][2]
        assert {c["name"] for c in connected.status()["connections"]} == {"shop", "gone"}  # kept
    finally:
        shop.admin("DROP TABLE shops", database="shop")


def test_a_server_whose_tables_changed_is_described_again_between_questions(connected: Trove,
                                                                            shop: PostgresServer):
    from engine.connections import recheck

    checked: dict[str, float] = {}
    assert recheck(connected.catalog, checked, every_s=300) == [] and "shop" in checked  # unchanged: not described
    shop.admin("ALTER TABLE orders ADD COLUMN note TEXT", database="shop")
    try:
        assert recheck(connected.catalog, checked, every_s=300) == []  # asked a moment ago: not asked again yet
        assert recheck(connected.catalog, checked, every_s=0) == ["shop"]
        columns = {c["name"] for src in connected.catalog.sources() if src["name"] == "shop"
                   for t in src["descriptor"]["tables"] for c in t["columns"]}
        assert "note" in columns and recheck(connected.catalog, checked, every_s=0) == []
    finally:
        shop.admin("ALTER TABLE orders DROP COLUMN note", database="shop")


def test_a_server_that_is_down_ends_the_query_at_once_and_names_itself(connected: Trove):
    from engine.native.querying import write_and_run
    from engine.native.sources import Source
    from tests.scripted import ScriptedLLM

    row = next(src for src in connected.catalog.sources() if src["name"] == "shop")
    down = Source("shop", "postgres", "postgres", "postgresql://reader@/shop?host=/nonexistent-socket-dir",
                  row["descriptor"])
    llm = ScriptedLLM(["SELECT sum(amount) FROM orders", "SELECT sum(amount) AS total FROM orders"])
    outcome = write_and_run(llm, "What is the total amount of the orders?", down, connected.stores)
    assert not outcome.ok and len(outcome.attempts) == 1 and len(llm.sent) == 1  # no repair was asked for
    assert outcome.attempts[0].error.startswith("PostgreSQL at /nonexistent-socket-dir")


def test_a_server_source_is_named_by_its_connection_name_in_prompts_answers_and_citations(connected: Trove):
    from engine.native.hits import as_hit
    from engine.native.querying import write_and_run
    from engine.native.sources import schema_text
    from engine.result import citation_place
    from tests.scripted import ScriptedLLM

    source = next(s for s in connected.native.sources() if s.name == "shop")
    assert source.shown == "shop" and "-- from shop, 4 rows" in schema_text(source)  # not its socket folder's name
    outcome = write_and_run(ScriptedLLM(["SELECT sum(amount) AS total FROM orders"]), "What is the total?", source,
                            connected.stores)
    hit = as_hit(outcome, "What is the total?", 1)
    assert hit.item.text == "For the question 'What is the total?', computed from shop: total is 542.75."
    assert hit.item.title == "shop: SQL result"
    assert citation_place(hit.item.source, hit.item.locator) == f"shop at {source.location}"


BOOKS = """@prefix ex: <http://example.org/books#> .
ex:lathe a ex:Book ; ex:title "The Lathe of Heaven" ; ex:year 1971 ; ex:author ex:leguin .
ex:dispossessed a ex:Book ; ex:title "The Dispossessed" ; ex:year 1974 ; ex:author ex:leguin .
ex:leguin a ex:Author ; ex:name "Octavia Butler" .
"""


@pytest.fixture(scope="module")
def books(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("books")
    (folder / "books.ttl").write_text(BOOKS, encoding="utf-8")
    yield from serve(folder / "books.ttl", folder / "store")


def test_a_sparql_endpoint_is_connected_described_and_queried_read_only(trove: Trove, books: str):
    row = trove.connect("books", books, kind="sparql")
    assert row["kind"] == "sparql" and {c["label"] for c in row["descriptor"]["classes"]} == {"Book", "Author"}
    assert trove.status()["connections"] == [{"name": "books", "kind": "sparql", "url": books, "tables": {},
                                              "triples": 10}]
    result = trove.query("books", "PREFIX ex: <http://example.org/books#> "
                                  "SELECT ?t WHERE { ?b ex:year ?y ; ex:title ?t FILTER(?y < 1972) }")
    assert result.rows == [("The Lathe of Heaven",)]
    with pytest.raises(Exception, match="only SELECT or ASK"):
        trove.query("books", "PREFIX ex: <http://example.org/books#> DELETE WHERE { ?s ?p ?o }")
    from engine.native import values

    assert "books" in values.source_evidence("books by Octavia Butler", trove.native.value_index())
    with pytest.raises(TroveError, match="the URL holds credentials"):
        trove.connect("other", books.replace("http://", "http://user:pw@"), kind="sparql")
    with pytest.raises(TroveError, match="SPARQL endpoint at 127.0.0.1:9"):
        trove.connect("other", "http://127.0.0.1:9/query", kind="sparql")


@pytest.fixture(scope="module")
def family(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    for socket in falkordb_server(tmp_path_factory.mktemp("family")):
        load(socket, "family", "CREATE (a:Person {name: 'Astrid Lindqvist', born: 1941})-[:PARENT_OF]->"
                               "(m:Person {name: 'Maya Lindqvist', born: 1968})-[:PARENT_OF]->"
                               "(:Person {name: 'Sofia Lindqvist', born: 1995})")
        yield f"falkordb:///family?socket={socket}"


def test_a_graph_server_is_connected_and_its_queries_checked_against_its_graph(trove: Trove, family: str):
    from engine.native.querying import write_and_run
    from engine.native.sources import Source
    from tests.scripted import ScriptedLLM

    row = trove.connect("family", family, kind="cypher")
    assert set(row["descriptor"]["nodes"]) == {"Person"} and row["descriptor"]["relationships"]["PARENT_OF"][
        "pairs"] == [["Person", "Person"]]
    grandchildren = ("MATCH (a:Person)-[:PARENT_OF]->(:Person)-[:PARENT_OF]->(g:Person) "
                     "WHERE a.name = 'Astrid Lindqvist' RETURN g.name")
    assert trove.query("family", grandchildren).rows == [("Sofia Lindqvist",)]
    with pytest.raises(Exception, match="only reading queries"):
        trove.query("family", "MATCH (p:Person) DETACH DELETE p")
    source = Source("family", "cypher", "cypher", row["location"], row["descriptor"])
    llm = ScriptedLLM(["MATCH (p:Person) WHERE p.birthyear < 1950 RETURN p.name",
                       "MATCH (p:Person) WHERE p.born < 1950 RETURN p.name"])
    outcome = write_and_run(llm, "Who was born before 1950?", source, trove.stores)
    assert outcome.ok and outcome.result.rows == [("Astrid Lindqvist",)]
    assert "no property birthyear in this graph" in outcome.attempts[0].error  # FalkorDB itself says NULL
    from engine.native import values

    assert "family" in values.source_evidence("children of Maya Lindqvist", trove.native.value_index())
    before = row["descriptor"]["version"]
    assert before
    from local_stores.falkordb_graph import FalkorGraph

    assert FalkorGraph(family).version() == before  # the same labels, types and keys: the same version


def test_the_prompts_own_spelling_of_lower_runs_on_a_graph_server(trove: Trove, family: str):
    from engine.native.querying import write_and_run
    from engine.native.sources import Source
    from tests.scripted import ScriptedLLM

    row = trove.connect("family", family, kind="cypher")
    source = Source("family", "cypher", "cypher", row["location"], row["descriptor"])
    llm = ScriptedLLM(["MATCH (a:Person)-[:PARENT_OF]->(:Person)-[:PARENT_OF]->(g:Person) "
                       "WHERE lower(a.name) = 'astrid lindqvist' RETURN upper(g.name)"])  # Kùzu's, as the prompt shows
    outcome = write_and_run(llm, "Who are the grandchildren of Astrid Lindqvist?", source, trove.stores)
    assert outcome.ok and outcome.result.rows == [("SOFIA LINDQVIST",)] and len(llm.sent) == 1
    assert "toLower(a.name)" in outcome.query


@pytest.mark.slow
def test_a_question_is_answered_by_sql_on_the_server_and_cites_it(settings: Settings, embedder,  # noqa: ANN001
                                                                  shop: PostgresServer):
    trove = Trove(settings.with_(llm="default"))
    trove.models.embedder = embedder
    try:
        trove.connect("shop", shop.url("reader", "shop"))
        result = trove.ask("What is the total amount of the orders from Oslo in the shop database?")
    finally:
        trove.close()
    assert "162.75" in result.answer, result.to_dict()
    cited = [c for c in result.citations if "query" in c.locator]
    assert cited and cited[0].kind == "table" and "orders" in cited[0].locator["query"].lower()
    assert [q.source for q in result.queries if q.ok] and all(q.language == "sql" for q in result.queries)
